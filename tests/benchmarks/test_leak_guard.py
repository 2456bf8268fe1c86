"""`benchmarks/leak_guard.py` on two MATH-500 problems runs end to end, so the benchmark cannot rot."""

import json
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "leak_guard.py"


def test_leak_guard_benchmark_on_two_problems(shared_data, tmp_path):
    output = tmp_path / "leak_guard.json"
    data = shared_data / "math500" / "test.jsonl"
    command = [sys.executable, str(SCRIPT), "--data", str(data), "--problems", "2", "--expressions", "600"]
    command += ["--given-problems", "40", "--independent-problems", "0"]  # the section has its own test below
    command += ["--output", str(output)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["bare_answer_table"]["leaks"] == 37 and result["bare_answer_table"]["non_leaks"] == 24
    now = result["worked_solutions"]["now: solution's final answer"]
    assert now["leaks"] == 2 * 6 and now["recall"] == 1.0 and now["false_positive_rate"] == 0.0
    shapes = result["short_answer_shapes"]
    counts = {shape: (rates["leaks"], rates["non_leaks"]) for shape, rates in shapes.items()}
    assert counts == {
        "instruction": (144, 60),
        "spelled out": (95, 40),
        "other digits": (360, 150),
        "split digits": (80, 24),
    }
    assert all(rates["recall"] == 1.0 and rates["false_positive_rate"] == 0.0 for rates in shapes.values())
    everyday = result["everyday_words"]
    assert {name: (rates["leaks"], rates["non_leaks"]) for name, rates in everyday.items()} == {
        "first held-out set, digits": (140, 50),
        "first held-out set, words": (140, 50),
        "second held-out set, digits": (100, 0),
        "second held-out set, words": (100, 0),
    }
    assert all(rates["recall"] == 1.0 and rates["false_positive_rate"] in (0.0, None) for rates in everyday.values())
    others = result["other_shapes"]
    assert len(others) == 6 and all(
        rates["recall"] == 1.0 and rates["false_positive_rate"] == 0.0 for rates in others.values()
    )
    assert result["math500_given_value_equal_to_answer"]["redacted"] == 0
    reply = result["long_reply"]
    assert reply["expressions"] == 600 and reply["characters"] == 600 * 28
    assert (
        reply["cpu_seconds"]["prepare_feedback"] < reply["cpu_seconds"]["guard on the whole reply"]
    )  # the reply is cut before the guard runs
    assert set(result["milliseconds_per_1000_token_feedback"]) == {
        "42",
        "2\\sqrt{3}",
        "x^2 + 3x - 10",
        "MATH-500 #1 solution",
    }


def test_every_corpus_builds_on_three_problems(shared_data):
    """The slow section test below runs every corpus in `CORPORA` on MATH-500's first three problems (and the first
    three of each other benchmark, for a corpus that reads them); a corpus that cannot build on so few rows (a sample
    larger than its population) fails here, in the main suite."""
    import importlib

    sys.path.insert(0, str(SCRIPT.parent))
    import leak_corpus
    from leak_guard import CORPORA, _by_dataset

    rows = leak_corpus.load_problems(shared_data / "math500" / "test.jsonl")[:3]
    for name, module_name in CORPORA.items():
        module = importlib.import_module(module_name)
        extra = None
        if hasattr(module, "load_extra"):
            extra = [row for rows_of in _by_dataset(module.load_extra()).values() for row in rows_of[:3]]
        cases = module.corpus(rows) if extra is None else module.corpus(rows, extra=extra)
        assert cases or name == "given", name  # none of the three answers is a number its problem states
        assert all(0 <= case["index"] < len(rows) + len(extra or []) for case in cases), name


@pytest.mark.slow
def test_independent_critiques_section_on_three_problems(shared_data, tmp_path):
    """`--only independent` on MATH-500's first three problems (an ordered pair, p - q, 14/3): the JSON has its
    shape, both corpora in it, and the first corpus's counts are what `prepare_feedback` does to its texts,
    recomputed here."""
    from trl_mulferl.smollm2 import gguf_path

    try:
        gguf = gguf_path()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    from transformers import AutoTokenizer

    from trl_mulferl.core.schema import control_tokens
    from trl_mulferl.feedback import prepare_feedback

    sys.path.insert(0, str(SCRIPT.parent))
    import leak_corpus

    output = tmp_path / "leak_guard.json"
    output.write_text(json.dumps({"bare_answer_table": {"leaks": 37}}))  # another section's figures are kept
    data = shared_data / "math500" / "test.jsonl"
    command = [sys.executable, str(SCRIPT), "--only", "independent", "--data", str(data)]
    command += ["--independent-problems", "3", "--timing-repeats", "1", "--timing-texts", "2", "--output", str(output)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["bare_answer_table"] == {"leaks": 37}
    section = result["independent_critiques"]
    assert section["settings"]["problems"] == 3 and section["settings"]["max_tokens"] == 1024
    assert {kind for kind, count in section["answer_types"].items() if count} == {
        "ordered pair",
        "expression",
        "fraction",
    }
    first, second, third = (section["corpora"][name] for name in ("first", "second", "third"))
    assert (
        set(first["recall_by_family"])
        == set(second["recall_by_family"])
        == {"rendering", "arithmetic", "approximation"}
    )
    assert set(first["clean"]) == {"development", "held_out"}
    # The second corpus is held out whole: its misses and changed quotes are counted, never listed.
    assert set(second["clean"]) == {"held_out"}
    assert second["development_misses"] == {} and second["wrong_attempt_quotes"]["examples"] == []
    assert set(third["clean"]) == {"held_out"} and third["development_misses"] == {}
    # The third corpus also reads the other benchmarks (their first three rows here), each scored on its own.
    assert set(third["recall_by_dataset"]) == {"math500", "minerva_math", "aime24", "amc23", "gsm8k"}
    assert all(
        set(section["corpora"][name]["clean"]) == {"held_out"}
        for name in (
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
            "twentyfirst",
            "twentysecond",
            "twentythird",
            "twentyfourth",
        )
    )
    # The twenty-fifth halves its frames and styles, as the first does: a round may read its development split only.
    assert set(section["corpora"]["twentyfifth"]["clean"]) == {"development", "held_out"}
    # None of the three problems' answers is a number the problem states: the given-value corpus has no case.
    assert section["corpora"]["given"]["cases"] == 0 and section["corpora"]["given"]["clean"] == {}
    timing = section["worst_case_time"]
    assert list(timing["texts"]) == [
        "radical pairs",
        "radical pairs in $",
        "radical pairs, character cut",
        "radical pairs in $, character cut",
    ]
    assert all(timing["texts"][name]["tokens"] <= 1024 for name in ("radical pairs", "radical pairs in $"))
    assert all(8000 < timing["texts"][name]["characters"] <= 1024 * 8 for name in list(timing["texts"])[2:])
    assert timing["max_cpu_seconds"] == max(row["cpu_seconds"] for row in timing["texts"].values())

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    rows = leak_corpus.load_problems(data)[:3]

    def prepare(text: str):  # as the trainer calls it: the solution column, SmolLM2's control tokens
        return prepare_feedback(
            text, rows[2]["solution"], tokenizer, 1024, control_tokens(tokenizer), problem=rows[2]["problem"]
        )

    # A critique written by hand: caught exactly when the guard flags it and no "14/3" is left.
    by_hand = {"parts": ["14/3"], "context": "You wrote 5; the value is ."}
    prepared = prepare("You wrote 5; the value is 14/3.")
    assert leak_corpus.stated(by_hand, prepared.text) == ("14/3" in prepared.text)

    fraction_cases = [
        case
        for case in leak_corpus.corpus(rows)
        if case["answer_type"] == "fraction" and case["family"] == "rendering" and case["split"] == "held_out"
    ]
    caught = 0
    for case in fraction_cases:
        prepared = prepare(case["text"])
        caught += prepared.leaked and not leak_corpus.stated(case, prepared.text)
    assert first["recall_by_type"]["fraction"]["held_out"]["all"] == {
        "cases": len(fraction_cases),
        "caught": caught,
        "recall": caught / len(fraction_cases),
    }
