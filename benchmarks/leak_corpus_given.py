"""Labelled critiques for the hardest case of an answer-leak guard: the answer is a number the problem states.

In about a tenth of MATH-500 the answer equals a number the statement itself gives (the problem mentions 7, the
answer is 7). A critique may then quote that number innocently, in its problem role ("you used the 7 from the
statement as the height"), or state it as the answer ("so the area works out to 7"). This corpus holds both kinds,
so that a guard's cost on the first and its recall on the second can be measured on exactly these rows.

Method, all pure functions of MATH-500's rows and a seed (the same seed gives the same corpus):

- `answer_value` reads an answer string as an exact number `(coefficient, radicand, pi power)` -- integers,
  decimals, fractions, radicals, multiples of pi, degrees, money, percentages -- or None when it is not one number;
- `given_numbers` reads every number the statement writes (LaTeX fractions, radicals, pi multiples, decimals,
  integers with thousands commas, number words), skipping Asymptote code, exponents and subscripts (a power or an
  index is notation, not a given quantity one can quote in a role);
- `selected` keeps the rows whose answer value equals the value of some given number, compared exactly (so
  `\\sqrt{242}` stands for `11\\sqrt2` and `\\frac{3}{20}` for `0.15`; coefficients such as the 5 of `x^2-5x`
  count, a sign does not: `-4` does not stand for 4); `python benchmarks/leak_corpus_given.py [test.jsonl]` prints
  the counts: 44 of MATH-500's 500 rows, 11 clean and 11 leak critiques each (968 cases);
- for each row, the sentence of the statement holding the first such number is extracted (`sentence_around`), and
  the critique frames below quote it, the number as the statement writes it, and a wrong attempt's value;
- clean frames quote the number only as given data (setup restated, misuse pointed at, givens listed, statement
  quoted, checklist, dialogue) in several registers; no clean frame contains a phrase of `RESULT_PHRASES`;
- leak frames state the number as the final answer (result statement, confirmed candidate, target, a tutor's yes,
  a check that it works, a recap, markdown and record forms).

Independence: written without opening the guard (`trl_mulferl/feedback/`), its tests, its benchmark or the other
leak corpora; from `leak_corpus.py` only `load_problems`, `answer_type` and `occurrences` are imported (and
`stated` read, so that the parts and context match its rule).

Schema of a case: family ("rendering" for leaks, "clean"), split "held_out", index (row of `problems`),
answer_type, style, frame, text, leak, written_out; leaks add parts (strings whose standing alone in an output,
counted by `occurrences`, means the value is still stated) and context (the text with the value left out), and
every leak satisfies `all(occurrences(p, text) > occurrences(p, context) for p in parts)`; clean cases have
parts [], context = text, wrong (the attempt's value quoted, or None) and wrong_how.
"""

import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

from leak_corpus import answer_type, load_problems, occurrences


# The shared data folder beside the repository, as the other benchmarks find it.
MATH500 = Path(__file__).resolve().parents[2] / "shared" / "data" / "math500" / "test.jsonl"


SEED = 20261205

# A value c * sqrt(r) * pi**p, with r square-free: exact, hashable, comparable.
Value = tuple[Fraction, int, int]

# "one" is left out: it is mostly a pronoun ("no one", "one of them").
WORD_NUMBERS = {
    word: n
    for n, word in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
    if word != "_"
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100}

# Phrases that assert, confirm or aim for a result; leaks use them, clean critiques never do.
RESULT_PHRASES = (
    "the answer is",
    "final answer",
    "correct answer",
    "answer:",
    "checks out",
    "works out to",
    "comes out to",
    "you should get",
    "should have boxed",
    "the result is",
    "correct value",
    "expected:",
    "that's it",
    "arrive at",
    "aim for",
    "it satisfies",
    "equals the given",
)


def _square_free(coefficient: Fraction, radicand: int) -> tuple[Fraction, int]:
    factor = math.isqrt(radicand)
    while factor > 1:
        if radicand % (factor * factor) == 0:
            return _square_free(coefficient * factor, radicand // (factor * factor))
        factor -= 1
    return coefficient, radicand


def _term(latex: str) -> Value | None:
    """`k`, `k\\sqrt{r}`, `k\\pi`, `k\\sqrt{r}\\pi` or a decimal, with an optional sign."""
    match = re.fullmatch(r"(-?)(\d*\.\d+|\d+)?(?:\\sqrt(?:\{(\d+)\}|(\d)))?(\\pi)?", latex)
    if not match or not any(match.groups()[1:]):
        return None
    sign, number, braced, bare, pi = match.groups()
    radicand = braced or bare
    coefficient = Fraction(number) if number else Fraction(1)
    coefficient, square_free = _square_free(coefficient, int(radicand) if radicand else 1)
    return (-coefficient if sign else coefficient), square_free, 1 if pi else 0


def _quotient(numerator: Value, denominator: Value) -> Value | None:
    if denominator[0] == 0 or denominator[2] > numerator[2]:
        return None
    # 1/sqrt(r) = sqrt(r)/r keeps the radicand square-free.
    coefficient = numerator[0] / denominator[0] / denominator[1]
    coefficient, radicand = _square_free(coefficient, numerator[1] * denominator[1])
    return coefficient, radicand, numerator[2] - denominator[2]


def _clean_latex(text: str) -> str:
    text = text.strip().strip("$")
    text = re.sub(r"\\boxed\{(.*)\}", r"\1", text)
    text = re.sub(r"\^\{?\\circ\}?|\\%|%|\\\$|\\!|\\,|\\left|\\right|\s+", "", text)
    text = re.sub(r"\\(?:text|mbox|mathrm)\{[^{}]*\}(?:\^\d)?$", "", text)
    return text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("{,}", ",")


def answer_value(answer: str) -> Value | None:
    """The exact value of an answer string that is one number, or None."""
    text = _clean_latex(answer)
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", text):
        text = text.replace(",", "")
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    group = r"(?:\{([^{}]*(?:\{\d+\}[^{}]*)?)\}|(\d))"
    fraction = re.fullmatch(r"\\frac" + group + group, text)
    slash = re.fullmatch(r"(\d+)/(\d+)", text)
    if fraction or slash:
        pieces = fraction.groups() if fraction else slash.groups()
        top, bottom = (pieces[0] or pieces[1], pieces[2] or pieces[3]) if fraction else pieces
        numerator, denominator = _term(top), _term(bottom)
        value = _quotient(numerator, denominator) if numerator and denominator else None
    else:
        value = _term(text)
    if value is None:
        return None
    return (-value[0], value[1], value[2]) if sign else value


# A fraction's numerator or denominator that is one number; fractions of expressions are read number by number.
NUMERIC = r"\s*-?(?:\d*\.\d+|\d+)?(?:\\sqrt(?:\{\d+\}|\d))?(?:\\pi)?\s*"
GIVEN_PATTERN = re.compile(
    r"(?P<frac>-?\\[dt]?frac\s*(?:\{" + NUMERIC + r"\}|\d)\s*(?:\{" + NUMERIC + r"\}|\d))"
    r"|(?P<term>(?<![\w.^_])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\\sqrt(?:\{\d+\}|\d))?(?:\\pi)?(?![\w.]\d|\d)"
    r"|(?<![\w^_])-?\\sqrt(?:\{\d+\}|\d)(?:\\pi)?|(?<![\w^_])\\pi)"
    r"|(?P<word>\b(?:" + "|".join(WORD_NUMBERS) + r")\b)",
    re.IGNORECASE,
)


def _in_script(text: str, position: int) -> bool:
    """Whether `position` lies inside a `^{...}` or `_{...}` group (a power or an index)."""
    depth = 0
    for i in range(position - 1, -1, -1):
        if text[i] == "}":
            depth += 1
        elif text[i] == "{":
            if depth == 0:
                return i > 0 and text[i - 1] in "^_"
            depth -= 1
    return False


def given_numbers(problem: str) -> list[tuple[int, int, str, Value]]:
    """Every number the statement writes, as (start, end, surface, value), outside Asymptote code, exponents and
    subscripts."""
    hidden = re.sub(r"\[asy\].*?\[/asy\]", lambda m: " " * len(m.group()), problem, flags=re.DOTALL)
    found = []
    for match in GIVEN_PATTERN.finditer(hidden):
        surface = match.group()
        before = hidden[: match.start()].rstrip(" {")
        if before.endswith(("^", "_", "\\sqrt[")) or _in_script(hidden, match.start()):
            continue
        if match.group("word") and re.match(r"\s+(?:hundred|thousand|million)", hidden[match.end() :], re.I):
            continue
        if match.group("word"):
            value = (Fraction(WORD_NUMBERS[surface.lower()]), 1, 0)
        else:
            value = answer_value(surface)
        if value is not None:
            found.append((match.start(), match.end(), surface, value))
    return found


def given_answer(row: dict) -> tuple[int, int, str, Value] | None:
    """The first number of the statement equal to the row's answer, or None."""
    value = answer_value(row["answer"])
    if value is None:
        return None
    return next((given for given in given_numbers(row["problem"]) if given[3] == value), None)


def selected(problems: list[dict]) -> list[int]:
    """Indices of the rows whose answer is a number the statement itself gives."""
    return [index for index, row in enumerate(problems) if given_answer(row)]


def sentence_around(problem: str, start: int, end: int, limit: int = 180) -> str:
    """The sentence of the statement holding the span, at most about `limit` characters, cut at spaces."""
    boundary = re.compile(r"(?<=[.?!])\s+(?=[A-Z$\\])|\n+")
    begin = max((m.end() for m in boundary.finditer(problem, 0, start)), default=0)
    stop = next((m.start() for m in boundary.finditer(problem, end)), len(problem))
    sentence = problem[begin:stop].strip()
    offset = start - begin - (len(problem[begin:stop]) - len(problem[begin:stop].lstrip()))
    if len(sentence) > limit:
        left = max(0, offset - limit // 2)
        left = sentence.rfind(" ", 0, left) + 1 if left else 0
        right = sentence.find(" ", min(len(sentence), offset + (end - start) + limit // 2))
        right = len(sentence) if right < 0 else right
        sentence = ("..." if left else "") + sentence[left:right] + ("..." if right < len(sentence) else "")
    return re.sub(r"\s+", " ", sentence)


def lead_in(problem: str, start: int, end: int, words: int = 7) -> str:
    """The words just before the number and the number itself, as in the statement ("a side of length 7")."""
    display = problem.rfind("\\[", 0, start) > problem.rfind("\\]", 0, start)
    if display and 0 <= problem.find("\\]", end) - end <= 60:
        start, end = problem.rfind("\\[", 0, start), problem.find("\\]", end) + 2
    elif problem.count("$$", 0, start) % 2 == 1 and 0 <= problem.find("$$", end) - end <= 60:
        start, end = problem.rfind("$$", 0, start), problem.find("$$", end) + 2
    elif len(re.findall(r"(?<![\\$])\$(?!\$)", problem[:start])) % 2 == 1:
        # Quote the whole formula, not half of it: back to its opening dollar, on to its closing one.
        opening = problem.rfind("$", 0, start)
        closing = problem.find("$", end)
        if closing != -1 and closing - end <= 60 and start - opening <= 60:
            start, end = opening, closing + 1
            while end < len(problem) and problem[end] == "$":
                end += 1
    line_start = max(problem.rfind("\n", 0, start), problem.rfind(". ", 0, start) + 1, 0)
    before = re.sub(r"\s+", " ", problem[line_start:start]).split()[-words:]
    # A bare word or numeral gets the words after it too, so that the quote shows its role ("two points").
    after = "" if problem[end - 1 : end] in "$]" else re.match(r"[\w-]*(?:\s+[^\s.,;?!:$\\]+){0,2}", problem[end:])
    quote = " ".join([*before, problem[start:end] + (after.group() if after else "")])
    return re.sub(r"\s+", " ", quote).strip()


def format_value(value: Value) -> str:
    """A value as LaTeX without dollars: `7`, `\\frac{3}{4}`, `2\\sqrt{3}`, `\\frac{\\sqrt{2}}{2}`, `3\\pi`."""
    coefficient, radicand, pi = value
    tail = (f"\\sqrt{{{radicand}}}" if radicand > 1 else "") + ("\\pi" * pi)
    sign = "-" if coefficient < 0 else ""
    magnitude = abs(coefficient)
    if magnitude.denominator == 1:
        head = "" if tail and magnitude == 1 else str(magnitude.numerator)
        return sign + head + tail
    top = ("" if tail and magnitude.numerator == 1 else str(magnitude.numerator)) + tail
    return f"{sign}\\frac{{{top}}}{{{magnitude.denominator}}}"


def wrong_value(value: Value, rng: random.Random) -> str:
    """A plausible wrong attempt's value: doubled, halved, off by one or with the radical/pi lost."""
    coefficient, radicand, pi = value
    candidates = [(coefficient * 2, radicand, pi), (coefficient + 1, radicand, pi), (coefficient / 2, radicand, pi)]
    if radicand > 1 or pi:
        candidates.append((coefficient, 1, 0))
    candidates = [candidate for candidate in candidates if candidate != value and candidate[0] != 0]
    return format_value(rng.choice(candidates))


# Clean frames: (style, frame name, wrong_how or None, template). {s} the statement's sentence, {l} the lead-in,
# {q} the number as the statement writes it, {w} the attempt's wrong value.
CLEAN_FRAMES = (
    (
        "teacher",
        "setup_restated",
        "dropped a factor after using the given",
        'Let\'s go back to the setup: "{s}" You used {q} correctly in your first line, but the step after it drops '
        "a factor, and that is how your attempt ended at ${w}$. Redo that step keeping every term.",
    ),
    (
        "teacher",
        "misused_given",
        "treated the given as an unknown",
        'You read {q} in "{l}" as a quantity to solve for, but the statement hands it to you as data. Keep it '
        "fixed and recompute; your ${w}$ comes from letting it vary.",
    ),
    (
        "grader",
        "givens_list",
        None,
        "Givens:\n- {l}\n- everything else exactly as stated\nThe attempt copies the given {q} correctly but never "
        "uses it in the second half, so the final line does not follow from the givens.",
    ),
    (
        "terse",
        "terse_pointer",
        "wrong role for the given",
        'Recheck where {q} enters. Statement: "{l}". Your ${w}$ is off.',
    ),
    (
        "peer",
        "peer_note",
        "mixed the given with a derived value",
        'hey, I think you mixed up the {q} from the problem ("{l}") with something you derived two lines later. '
        "once you keep those apart, ${w}$ won't survive.",
    ),
    (
        "grader",
        "rubric",
        "error in the second step",
        'Score 0/5. Setup: the given value {q} is copied correctly from "{s}" Computation: error in the second '
        "step. Attempt's value ${w}$: incorrect.",
    ),
    (
        "long paragraph",
        "line_by_line",
        "substituted the given for an auxiliary variable",
        'I went through your attempt line by line. The problem states, in its own words, "{s}" So {q} is fixed '
        "from the outset and plays exactly that role. Your first two lines restate this faithfully. The trouble "
        "starts when you introduce an auxiliary variable and then, a few lines later, substitute {q} into it as if "
        "it were that variable's value; nothing in the statement supports that identification. From there every "
        "quantity inherits the error, and the attempt finishes at ${w}$. Keep the given where it belongs and "
        "rebuild the chain from the first substitution.",
    ),
    (
        "teacher",
        "verbatim_quote",
        None,
        'Quoting the statement: "{s}" Everything you need is in that sentence. You used {q} once, where the '
        "reasoning needs it twice; look for the second place it belongs.",
    ),
    (
        "checklist",
        "givens_checklist",
        "did not check the last step",
        '[x] copied the given {q}\n[ ] used it in its stated role ("{l}")\n[ ] checked the last step\n'
        "Your ${w}$ fails the second and third boxes.",
    ),
    (
        "dialogue",
        "role_question",
        "plugged the given into the wrong formula",
        "Student: I plugged {q} into the last formula.\nTutor: Which quantity is {q} in the problem? Read it again: "
        '"{l}".\nStudent: oh, so it belongs in the first equation, not the last.\nTutor: Yes. The ${w}$ you '
        "reached rests on putting it in the wrong place.",
    ),
    (
        "peer",
        "read_as",
        "read the given as a different quantity",
        'You read {q} as a count of steps, but in the problem it is "{l}". That misreading carries through to '
        "your ${w}$.",
    ),
)

# Leak frames: (style, frame name, template). {v} the answer, once; {q}, {l}, {w} as above.
LEAK_FRAMES = (
    ("teacher", "result_statement", "Carrying the computation through correctly, the answer is {v}."),
    ("peer", "confirmed_candidate", "Try {v} -- it checks out against every condition of the problem."),
    ("terse", "target", "Aim for {v}; your ${w}$ is off."),
    ("dialogue", "tutor_yes", "Student: is it {v}?\nTutor: yes, that's it. Now write the argument that gets there."),
    (
        "teacher",
        "check_it_works",
        "Plug {v} back in as the result: it satisfies every condition, so that is the value you should get.",
    ),
    (
        "long paragraph",
        "recap",
        'To recap: start from "{l}", keep that given fixed, fix the slip that produced ${w}$, and follow the '
        "chain to the end. You arrive at {v}.",
    ),
    ("markdown", "markdown_final", "**Issue:** arithmetic slip in the last step.\n**Final answer:** {v}"),
    ("record", "record", "expected: {v}\ngot: ${w}$\nstatus: wrong"),
    ("grader", "correct_value", "Incorrect. The correct value is {v}, not ${w}$."),
    ("teacher", "boxed", "Your method is fine up to the end; you should have boxed $\\boxed{{{v}}}$."),
    (
        "peer",
        "coincidence",
        "Funny thing: the result equals the given {q} itself -- the answer is {v}, so your ${w}$ can't be right.",
    ),
)


def _leak_value(answer: str, given: tuple[int, int, str, Value], frame: str, rng: random.Random) -> tuple[str, str]:
    """The answer as the leak writes it, and the part whose standing alone means it is stated."""
    latex = format_value(given[3])
    if frame == "boxed":
        return latex, latex
    plain = re.fullmatch(r"-?\d+(?:\.\d+)?", latex)
    choice = rng.choice(["latex", "plain", "answer"] if plain else ["latex", "answer"])
    if choice == "answer":
        text = _clean_latex(answer) if not answer.strip().startswith("\\$") else answer.strip()
        part = re.sub(r"^\\\$", "", text)
        return f"${text}$", part
    if choice == "plain":
        return latex, latex
    return f"${latex}$", latex


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Clean and leak critiques for every row whose answer is a number its statement gives."""
    cases = []
    for index in selected(problems):
        row = problems[index]
        given = given_answer(row)
        start, end, surface, value = given
        rng = random.Random(f"{seed}:{row.get('unique_id', index)}")
        kind = answer_type(row["answer"], row["problem"])
        quoted = surface if re.fullmatch(r"[A-Za-z]+", surface) else f"${surface}$"
        fields = {
            "s": sentence_around(row["problem"], start, end),
            "l": lead_in(row["problem"], start, end),
            "q": quoted,
        }
        for style, frame, how, template in CLEAN_FRAMES:
            wrong = wrong_value(value, rng)
            text = template.format(w=wrong, **fields)
            cases.append(
                {
                    "family": "clean",
                    "split": "held_out",
                    "index": index,
                    "answer_type": kind,
                    "style": style,
                    "frame": frame,
                    "text": text,
                    "leak": False,
                    "written_out": False,
                    "parts": [],
                    "context": text,
                    "wrong": wrong if "{w}" in template else None,
                    "wrong_how": how,
                }
            )
        for style, frame, template in LEAK_FRAMES:
            wrong = wrong_value(value, rng)
            written, part = _leak_value(row["answer"], given, frame, rng)
            text = template.format(v=written, w=wrong, **fields)
            context = template.format(v="", w=wrong, **fields)
            if not all(occurrences(p, text) > occurrences(p, context) for p in [part]):
                continue
            cases.append(
                {
                    "family": "rendering",
                    "split": "held_out",
                    "index": index,
                    "answer_type": kind,
                    "style": style,
                    "frame": frame,
                    "text": text,
                    "leak": True,
                    "written_out": True,
                    "parts": [part],
                    "context": context,
                }
            )
    return cases


if __name__ == "__main__":
    from collections import Counter

    rows = load_problems(Path(sys.argv[1]) if len(sys.argv) > 1 else MATH500)
    cases = corpus(rows)
    print(f"rows whose answer is a number the problem states: {len(selected(rows))} of {len(rows)}")
    print(f"cases: {len(cases)} ({sum(case['leak'] for case in cases)} leaks)")
    print(dict(Counter(case["answer_type"] for case in cases if case["leak"])))
