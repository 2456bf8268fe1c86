"""The paper's benchmarks as rows of `prompt` (a conversation) and `solution` (the reference FINAL answer).

Each benchmark has a Hub source, loaded the normal way with `datasets.load_dataset`, and a row converter that reads
that source's own columns. A local JSONL, JSON or parquet file in the same format loads with `name=path`
(`olympiadbench=olympiad.jsonl`). Every converted row has:

- `problem_id`: the row's index in its source, which resumed runs use to find finished samples;
- `problem`: the text of the user turn (the question, with the options or the answer format where needed);
- `prompt`: the conversation sent to the model (the MulFeRL system prompt, unless disabled, and the problem);
- `solution`: the reference final answer, as text;
- `answer_type`: how `trl_mulferl.evaluation.verifiers` checks an answer: `math` (math-verify), `choice` (an option
  letter), and TheoremQA's `number`, `list`, `bool` and `option`.
"""

import logging
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


logger = logging.getLogger(__name__)

GPQA_SHUFFLE_SEED = 0
CHOICE_LETTERS = "ABCDEFGHIJKLMNOP"
CHOICE_INSTRUCTION = "Answer with the letter of the correct option."
MULTIPLE_ANSWERS_INSTRUCTION = "The problem has more than one answer: put all of them in the box, separated by commas."
THEOREMQA_INSTRUCTIONS = {
    "number": "Give the final answer as a number.",
    "list": "Give the final answer as a list of numbers, e.g. [1, 2, 3].",
    "bool": "Give the final answer as True or False.",
    "option": "Give the final answer as the label of the correct option, e.g. (a).",
}
THEOREMQA_TYPES = {
    "integer": "number",
    "float": "number",
    "list of integer": "list",
    "list of float": "list",
    "bool": "bool",
    "option": "option",
}

_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")
_DIGIT_GROUPING = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


class BenchmarkFormatError(ValueError):
    """A row lacks the columns its benchmark's format needs."""


def _column(row: dict[str, Any], benchmark: str, *names: str) -> Any:
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    raise BenchmarkFormatError(
        f"{benchmark}: a row has none of the columns {list(names)} (it has {sorted(row)}). Give a file in "
        f"{benchmark}'s own Hub format, or convert your rows to it."
    )


def _number_text(value: Any) -> str:
    """`27.0` -> `"27"`, `0.5` -> `"0.5"`, text unchanged: a reference answer math-verify and readers both accept."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{...}` of a worked solution, or None."""
    from ..core.schema import boxed_spans  # schema imports TRL (torch): keep `trl-mulferl eval --help` light

    spans = boxed_spans(text)
    return spans[-1][2].strip() if spans else None


def format_choices(question: str, options: list[str]) -> str:
    lines = [f"{CHOICE_LETTERS[i]}. {str(option).strip()}" for i, option in enumerate(options)]
    return f"{question.strip()}\n\n" + "\n".join(lines) + f"\n\n{CHOICE_INSTRUCTION}"


def math500_row(row: dict[str, Any]) -> dict[str, str]:
    """`HuggingFaceH4/MATH-500`: `problem`, and `answer` (never the worked `solution`)."""
    answer = _number_text(_column(row, "math500", "answer"))
    return {"problem": _column(row, "math500", "problem"), "solution": answer, "answer_type": "math"}


def competition_row(benchmark: str) -> Callable[[dict[str, Any]], dict[str, str]]:
    """AIME and AMC files: `problem` (or `question`) and a numeric `answer` (`204`, `"025"`, `27.0`)."""

    def convert(row: dict[str, Any]) -> dict[str, str]:
        answer = _number_text(_column(row, benchmark, "answer"))
        return {"problem": _column(row, benchmark, "problem", "question"), "solution": answer, "answer_type": "math"}

    convert.__name__ = f"{benchmark}_row"
    return convert


def minerva_row(row: dict[str, Any]) -> dict[str, str]:
    """Minerva Math: `problem` (or `question`); the `answer` column if there is one, else the last `\\boxed{}` of the
    worked `solution`, without `$` signs."""
    problem = _column(row, "minerva_math", "problem", "question")
    if row.get("answer") is not None:
        return {"problem": problem, "solution": _number_text(row["answer"]), "answer_type": "math"}
    answer = last_boxed(_column(row, "minerva_math", "solution"))
    if answer is None:
        raise BenchmarkFormatError(f"minerva_math: the solution of {problem[:60]!r}... has no \\boxed{{}} answer.")
    # One answer has a stray `$ $` inside its box; math-verify cannot read it with the dollars.
    return {"problem": problem, "solution": _UNESCAPED_DOLLAR.sub("", answer).strip(), "answer_type": "math"}


def olympiadbench_row(row: dict[str, Any]) -> dict[str, str]:
    """`Hothan/OlympiadBench` (`OE_TO_maths_en_COMP`): `question` and `final_answer`, a list of LaTeX strings such
    as `["$(-\\infty, 3]$"]` or, for a multiple-answer item, `["$2$, $3$"]`; math-verify compares such answers as
    sets and intervals. The prompt asks for all answers of a multiple-answer item and keeps units out of the box."""
    answers = _column(row, "olympiadbench", "final_answer")
    answers = [answers] if isinstance(answers, str) else list(answers)
    solution = ", ".join(_UNESCAPED_DOLLAR.sub("", str(answer)).strip() for answer in answers)
    problem = _column(row, "olympiadbench", "question")
    if row.get("context"):
        problem = f"{row['context']}\n\n{problem}"
    if row.get("is_multiple_answer"):
        problem += f"\n\n{MULTIPLE_ANSWERS_INSTRUCTION}"
    if row.get("unit"):
        problem += f"\n\nThe unit of the answer is {row['unit']}: leave it out of the box."
    return {"problem": problem, "solution": solution, "answer_type": "math"}


def gsm8k_row(row: dict[str, Any]) -> dict[str, str]:
    """`openai/gsm8k` (`main`): `question`, and the number after `####` at the end of `answer`, without digit
    grouping (`2,125` -> `2125`; math-verify would read `2,125` as the set {2, 125})."""
    answer = _column(row, "gsm8k", "answer")
    if "####" not in answer:
        raise BenchmarkFormatError(f"gsm8k: the answer {answer[-60:]!r} has no '####' final answer.")
    solution = _DIGIT_GROUPING.sub("", answer.rsplit("####", 1)[1].strip())
    return {"problem": _column(row, "gsm8k", "question"), "solution": solution, "answer_type": "math"}


def mmlu_pro_row(row: dict[str, Any]) -> dict[str, str]:
    """`TIGER-Lab/MMLU-Pro`: `question`, `options` (up to 10) and `answer`, a letter (else `answer_index`)."""
    options = list(_column(row, "mmlu_pro", "options"))
    answer = row.get("answer") or CHOICE_LETTERS[int(_column(row, "mmlu_pro", "answer_index"))]
    return {
        "problem": format_choices(_column(row, "mmlu_pro", "question"), options),
        "solution": str(answer).strip(),
        "answer_type": "choice",
    }


def gpqa_row(row: dict[str, Any]) -> dict[str, str]:
    """`Idavidrein/gpqa` (`gpqa_diamond`): `Question`, `Correct Answer` and `Incorrect Answer 1..3`, shuffled into
    options A-D by a generator seeded with `GPQA_SHUFFLE_SEED` and the question, so every run and every `--limit`
    sees the same order."""
    question = _column(row, "gpqa_diamond", "Question")
    correct = str(_column(row, "gpqa_diamond", "Correct Answer")).strip()
    options = [correct] + [str(_column(row, "gpqa_diamond", f"Incorrect Answer {i}")).strip() for i in (1, 2, 3)]
    random.Random(f"{GPQA_SHUFFLE_SEED}\0{question}").shuffle(options)
    return {
        "problem": format_choices(question, options),
        "solution": CHOICE_LETTERS[options.index(correct)],
        "answer_type": "choice",
    }


def theoremqa_row(row: dict[str, Any]) -> dict[str, str]:
    """`TIGER-Lab/TheoremQA`: `Question`, `Answer` and `Answer_type` (`integer`, `float`, `list of integer`,
    `list of float`, `bool`, `option`), checked as TheoremQA's own script does (numbers within 4%)."""
    source_type = str(_column(row, "theoremqa", "Answer_type")).strip()
    if source_type not in THEOREMQA_TYPES:
        raise BenchmarkFormatError(f"theoremqa: unknown Answer_type {source_type!r}; known: {list(THEOREMQA_TYPES)}.")
    answer_type = THEOREMQA_TYPES[source_type]
    question = _column(row, "theoremqa", "Question").strip()
    return {
        "problem": f"{question}\n\n{THEOREMQA_INSTRUCTIONS[answer_type]}",
        "solution": _number_text(_column(row, "theoremqa", "Answer")),
        "answer_type": answer_type,
    }


@dataclass(frozen=True)
class Benchmark:
    """A benchmark: its Hub source (`path`, `config`, `split`) and the converter of that source's rows."""

    name: str
    path: str
    split: str
    convert: Callable[[dict[str, Any]], dict[str, str]]
    config: str | None = None


BENCHMARKS = {
    benchmark.name: benchmark
    for benchmark in [
        Benchmark("math500", "HuggingFaceH4/MATH-500", "test", math500_row),
        Benchmark("aime24", "math-ai/aime24", "test", competition_row("aime24")),
        Benchmark("aime25", "math-ai/aime25", "test", competition_row("aime25")),
        Benchmark("amc23", "math-ai/amc23", "test", competition_row("amc23")),
        Benchmark("minerva_math", "math-ai/minervamath", "test", minerva_row),
        Benchmark("olympiadbench", "Hothan/OlympiadBench", "train", olympiadbench_row, "OE_TO_maths_en_COMP"),
        Benchmark("gsm8k", "openai/gsm8k", "test", gsm8k_row, "main"),
        Benchmark("mmlu_pro", "TIGER-Lab/MMLU-Pro", "test", mmlu_pro_row),
        Benchmark("gpqa_diamond", "Idavidrein/gpqa", "train", gpqa_row, "gpqa_diamond"),
        Benchmark("theoremqa", "TIGER-Lab/TheoremQA", "test", theoremqa_row),
    ]
}
# The paper's eight: five in-domain math benchmarks, three out of domain (Table 1).
PAPER_BENCHMARKS = [
    "amc23",
    "aime24",
    "olympiadbench",
    "math500",
    "minerva_math",
    "mmlu_pro",
    "gpqa_diamond",
    "theoremqa",
]


def parse_benchmarks(spec: str) -> dict[str, str | None]:
    """`"math500,olympiadbench=olympiad.jsonl"` -> `{"math500": None, "olympiadbench": "olympiad.jsonl"}`."""
    sources = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, path = item.partition("=")
        name = name.strip()
        if name not in BENCHMARKS:
            raise ValueError(f"Unknown benchmark {name!r} in --benchmarks; known: {', '.join(BENCHMARKS)}.")
        if name in sources:
            raise ValueError(f"--benchmarks names {name!r} twice.")
        sources[name] = path.strip() or None
    if not sources:
        raise ValueError("--benchmarks is empty; name at least one of: " + ", ".join(BENCHMARKS) + ".")
    return sources


def _read_source(benchmark: Benchmark, path: str | None):
    from datasets import load_dataset

    if path is None:
        return load_dataset(benchmark.path, benchmark.config, split=benchmark.split)
    suffix = Path(path).suffix.lower()
    formats = {".jsonl": "json", ".json": "json", ".parquet": "parquet"}
    if suffix not in formats:
        raise ValueError(f"{benchmark.name}={path}: a local file must end in .jsonl, .json or .parquet.")
    return load_dataset(formats[suffix], data_files=path, split="train")


def load_benchmark(name: str, path: str | None = None, limit: int | None = None, system_prompt: str | None = "schema"):
    """One benchmark as a `datasets.Dataset` of `problem_id`, `problem`, `prompt`, `solution` and `answer_type`.

    Args:
        name: A key of `BENCHMARKS`.
        path: A local JSONL, JSON or parquet file in the benchmark's Hub format; `None` loads the Hub source.
        limit: Keep the first `limit` problems.
        system_prompt: `"schema"`: MulFeRL's training system prompt (`trl_mulferl.core.schema.SYSTEM_PROMPT`); `None`:
            the problem alone, for a model not trained with MulFeRL; any other text: that system prompt.
    """
    from datasets import Dataset

    from ..core.rewards import looks_like_worked_solution
    from ..core.schema import SYSTEM_PROMPT, make_conversation

    if name not in BENCHMARKS:
        raise ValueError(f"Unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}.")
    benchmark = BENCHMARKS[name]
    dataset = _read_source(benchmark, path)
    if limit is not None:
        dataset = dataset.select(range(min(limit, len(dataset))))
    system = SYSTEM_PROMPT if system_prompt == "schema" else system_prompt

    rows = []
    for index, row in enumerate(dataset):  # in memory, not `Dataset.map`: its cache would outlive converter changes
        converted = benchmark.convert(row)
        rows.append({"problem_id": str(index), "prompt": make_conversation(converted["problem"], system), **converted})
    dataset = Dataset.from_list(rows)
    worked = [row["solution"] for row in rows if looks_like_worked_solution(row["solution"])]
    if worked:
        logger.warning(
            "%s: %d of %d reference answers look like worked solutions, not final answers (e.g. %r). Check that the "
            "file has the columns of %s on the Hub.",
            name,
            len(worked),
            len(dataset),
            worked[0][:120],
            benchmark.path,
        )
    return dataset
