"""Pieces `(start, end, replacement)` of a text that `_Normalised.rewritten` applies: the helpers and the number-word
patterns the readers of notation share."""

import re


# A number word in a compound adjective ("two-digit", "a three-step plan") is no number: its hyphen stays, unless a
# number or fraction word follows ("forty-two", "two-thirds")
_CARDINAL_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
    r"|billion)"
)
COUNT_IN_A_COMPOUND = re.compile(rf"(?<![A-Za-z]){_CARDINAL_WORD}$", re.IGNORECASE)
NUMBER_WORD_AHEAD = re.compile(
    rf"(?:{_CARDINAL_WORD}|half|halves|quarters?|firsts?|seconds?|thirds?|[a-z]*(?:th|ths))(?![A-Za-z])",
    re.IGNORECASE,
)


def wrapper_pieces(match: re.Match, inner: tuple[str, ...], replacements: tuple[str, ...]) -> list:
    """Pieces that rewrite a wrapper around the `inner` groups of `match` (before the first, between two, after the
    last) to `replacements`, leaving what they wrap to the other pieces: `Sqrt[Pi]` is `sqrt(` `Pi` `)`."""
    bounds = [match.start(), *(position for name in inner for position in match.span(name)), match.end()]
    return [(bounds[2 * index], bounds[2 * index + 1], text) for index, text in enumerate(replacements)]


def first_of_overlapping(pieces: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """`pieces` sorted, each one that overlaps an earlier one left out: `_Normalised.rewritten` takes no overlap."""
    kept, taken = [], set()
    for start, end, replacement in pieces:
        if not taken.intersection(range(start, end)):
            kept.append((start, end, replacement))
            taken.update(range(start, end))
    return sorted(kept)


def free(group: list[tuple[int, int, str]], pieces: list[tuple[int, int, str]]) -> bool:
    """Whether no piece of `group` overlaps one of `pieces`."""
    return not any(
        start < other_end and other_start < end for start, end, _ in group for other_start, other_end, _ in pieces
    )
