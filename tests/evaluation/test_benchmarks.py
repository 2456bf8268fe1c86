"""Benchmark loaders: each Hub format's rows, the shared local files, and reference answers that are final answers."""

import json
import logging
import re

import pytest
from datasets import Dataset

from trl_mulferl.core.schema import SYSTEM_PROMPT
from trl_mulferl.evaluation import benchmarks
from trl_mulferl.evaluation.benchmarks import BenchmarkFormatError, load_benchmark, parse_benchmarks
from trl_mulferl.evaluation.verifiers import verify_answer


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def last_box(text):
    """The last \\boxed{...} by brace counting, written independently of the package's parser."""
    start = text.rindex("\\boxed{") + len("\\boxed{")
    depth = 1
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[start:end].strip()


# The reference final answer of each shared file, computed from its raw rows.
SHARED_ANSWERS = {
    "math500": lambda row: row["answer"],
    "aime24": lambda row: row["answer"],
    "amc23": lambda row: str(int(row["answer"])),
    "minerva_math": lambda row: last_box(row["solution"]),
    "gsm8k": lambda row: row["answer"].split("####")[-1].strip().replace(",", ""),
}


@pytest.mark.parametrize("name", list(SHARED_ANSWERS))
def test_shared_files_load_with_final_answers(shared_data, name, caplog):
    path = shared_data / name / "test.jsonl"
    raw = read_jsonl(path)[:10]
    with caplog.at_level(logging.WARNING):
        rows = list(load_benchmark(name, str(path), limit=10))
    assert not caplog.records  # no reference answer looks like a worked solution
    assert [row["solution"] for row in rows] == [SHARED_ANSWERS[name](r) for r in raw]
    assert [row["problem_id"] for row in rows] == [str(i) for i in range(10)]
    for row, source in zip(rows, raw, strict=True):
        assert row["answer_type"] == "math"
        assert row["prompt"] == [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": source.get("problem") or source["question"]},
        ]


def test_no_system_prompt_sends_the_problem_alone(shared_data):
    (row,) = load_benchmark("math500", str(shared_data / "math500" / "test.jsonl"), limit=1, system_prompt=None)
    assert row["prompt"] == [{"role": "user", "content": row["problem"]}]


def test_worked_solutions_as_answers_warn(tmp_path, caplog):
    path = tmp_path / "worked.jsonl"
    worked = "We have that $r = 3$. Also the angle is pi over two, therefore the point is the one we want.\n"
    path.write_text(json.dumps({"problem": "Convert (0,3).", "answer": worked}) + "\n")
    with caplog.at_level(logging.WARNING):
        load_benchmark("math500", str(path))
    assert "1 of 1 reference answers look like worked solutions" in caplog.text


def test_parquet_file_and_missing_column(tmp_path):
    path = tmp_path / "gsm8k.parquet"
    Dataset.from_list([{"question": "2 + 2?", "answer": "2 + 2 = 4\n#### 4"}]).to_parquet(str(path))
    assert load_benchmark("gsm8k", str(path))[0]["solution"] == "4"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"problem": "2 + 2?", "final": "4"}) + "\n")
    with pytest.raises(BenchmarkFormatError, match="math500: a row has none of the columns \\['answer'\\]"):
        load_benchmark("math500", str(bad))


def test_parse_benchmarks():
    assert parse_benchmarks("math500, olympiadbench=o.jsonl") == {"math500": None, "olympiadbench": "o.jsonl"}
    with pytest.raises(ValueError, match="Unknown benchmark 'math'"):
        parse_benchmarks("math")
    with pytest.raises(ValueError, match="names 'aime24' twice"):
        parse_benchmarks("aime24,aime24=a.jsonl")


# Rows shaped like each Hub source (column names and value types as published).
def test_math_hub_rows():
    math500 = {"problem": "P", "solution": "worked \\boxed{3}", "answer": "\\frac{1}{3}", "subject": "A", "level": 2}
    assert benchmarks.math500_row(math500)["solution"] == "\\frac{1}{3}"
    aime25 = {"problem": "P", "answer": "70", "id": 0}
    assert benchmarks.BENCHMARKS["aime25"].convert(aime25) == {"problem": "P", "solution": "70", "answer_type": "math"}
    amc = {"id": 0, "problem": "P", "answer": 27.0, "url": "u", "question": "P"}
    assert benchmarks.BENCHMARKS["amc23"].convert(amc)["solution"] == "27"
    assert benchmarks.BENCHMARKS["amc23"].convert({**amc, "answer": 0.5})["solution"] == "0.5"
    minerva_hub = {"question": "P", "answer": "1.6"}
    assert benchmarks.minerva_row(minerva_hub) == {"problem": "P", "solution": "1.6", "answer_type": "math"}
    minerva_worked = {"problem": "P", "solution": "so $\\boxed{1}$, then \\boxed{\\frac{a}{b}}.", "type": "T"}
    assert benchmarks.minerva_row(minerva_worked)["solution"] == "\\frac{a}{b}"
    with pytest.raises(BenchmarkFormatError, match="no \\\\boxed"):
        benchmarks.minerva_row({"problem": "P", "solution": "no box"})
    gsm8k = {"question": "Q", "answer": "16 - 3 = <<16-3=13>>13\n#### 1,600"}
    assert benchmarks.gsm8k_row(gsm8k)["solution"] == "1600"


def olympiad_row(final_answer, multiple=False, unit=None):
    return {
        "id": 1,
        "question": "Find all x.",
        "solution": ["worked"],
        "final_answer": final_answer,
        "context": None,
        "is_multiple_answer": multiple,
        "unit": unit,
        "answer_type": "Numerical",
        "error": None,
    }


def test_olympiadbench_rows_interval_multiple_answers_and_units():
    interval = benchmarks.olympiadbench_row(olympiad_row(["$(-\\infty, 3]$"]))
    assert interval["solution"] == "(-\\infty, 3]" and interval["problem"] == "Find all x."
    assert verify_answer("(-\\infty,3]", interval["solution"]) is True
    assert verify_answer("(-\\infty,3)", interval["solution"]) is False

    several = benchmarks.olympiadbench_row(olympiad_row(["$2$, $-3$"], multiple=True))
    assert several["solution"] == "2, -3"
    assert benchmarks.MULTIPLE_ANSWERS_INSTRUCTION in several["problem"]
    assert verify_answer("-3, 2", several["solution"]) is True
    assert verify_answer("2", several["solution"]) is False

    with_unit = benchmarks.olympiadbench_row(olympiad_row(["$12$"], unit="m/s"))
    assert with_unit["solution"] == "12" and "m/s: leave it out of the box" in with_unit["problem"]


def test_mmlu_pro_rows():
    options = [f"option {i}" for i in range(10)]
    row = {"question_id": 1, "question": "Which?", "options": options, "answer": "C", "answer_index": 2}
    converted = benchmarks.mmlu_pro_row(row)
    assert converted["solution"] == "C" and converted["answer_type"] == "choice"
    assert converted["problem"].splitlines()[2:4] == ["A. option 0", "B. option 1"]
    assert "J. option 9" in converted["problem"] and converted["problem"].endswith(benchmarks.CHOICE_INSTRUCTION)
    assert benchmarks.mmlu_pro_row({**row, "answer": None})["solution"] == "C"


def gpqa_row(i):
    return {
        "Question": f"Question {i}?",
        "Correct Answer": f"right {i}",
        "Incorrect Answer 1": "wrong a",
        "Incorrect Answer 2": "wrong b",
        "Incorrect Answer 3": "wrong c",
        "Record ID": f"rec{i}",
    }


def test_gpqa_options_are_shuffled_with_a_fixed_seed():
    letters = []
    for i in range(40):
        converted = benchmarks.gpqa_row(gpqa_row(i))
        assert converted == benchmarks.gpqa_row(gpqa_row(i))  # the same order on every call
        options = dict(re.findall(r"^([A-D])\. (.*)$", converted["problem"], flags=re.MULTILINE))
        assert sorted(options.values()) == sorted([f"right {i}", "wrong a", "wrong b", "wrong c"])
        assert options[converted["solution"]] == f"right {i}"
        letters.append(converted["solution"])
    assert set(letters) == {"A", "B", "C", "D"}  # the correct answer is not always first


@pytest.mark.parametrize(
    ("answer", "source_type", "answer_type", "right", "wrong"),
    [
        ("11760", "integer", "number", "11760", "11761"),
        ("1.42", "float", "number", "1.45", "1.5"),
        ("True", "bool", "bool", "True", "False"),
        ("[0, 5]", "list of integer", "list", "[5, 0]", "[0, 4]"),
        ("(a)", "option", "option", "(a)", "(b)"),
    ],
)
def test_theoremqa_rows(answer, source_type, answer_type, right, wrong):
    row = {"Question": "What is it?", "Answer": answer, "Answer_type": source_type, "Picture": None, "id": "x"}
    converted = benchmarks.theoremqa_row(row)
    assert converted["answer_type"] == answer_type and converted["solution"] == answer
    assert converted["problem"] == f"What is it?\n\n{benchmarks.THEOREMQA_INSTRUCTIONS[answer_type]}"
    assert verify_answer(right, converted["solution"], answer_type) is True
    assert verify_answer(wrong, converted["solution"], answer_type) is False


def test_theoremqa_unknown_type():
    with pytest.raises(BenchmarkFormatError, match="unknown Answer_type 'matrix'"):
        benchmarks.theoremqa_row({"Question": "Q", "Answer": "[[1]]", "Answer_type": "matrix"})
