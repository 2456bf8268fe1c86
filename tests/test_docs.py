"""The documentation cannot rot: every Python block of README.md and docs/*.md runs offline, every link resolves, and
every design decision the package's code cites ("decision 5") has its heading in docs/design.md.

A page's blocks run in order in one namespace (a page reads as one script), in a fresh folder, as written except
that: the Hub model ids below load the tests' tiny model; `datasets.load_dataset` of a Hub benchmark reads its test
file in `../shared/data/` (the page skips where that folder is absent); `MulFeRLConfig` and `IGRPOConfig` train 1
step of tiny sizes, whatever the block asks. A block right after `<!-- docs-test: skip, REASON -->` is not run.
"""

import io
import re
import tokenize
from pathlib import Path

import datasets
import huggingface_hub
import pytest

import trl_mulferl


ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_MARKER = re.compile(r"<!-- docs-test: skip, (.+?) -->")
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)

HUB_MODELS = ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen3-0.6B")
HUB_DATASETS = {
    "HuggingFaceH4/MATH-500": "math500",
    "math-ai/aime24": "aime24",
    "math-ai/amc23": "amc23",
    "math-ai/minervamath": "minerva_math",
    "openai/gsm8k": "gsm8k",
}
TINY = {
    "max_steps": 1,
    "per_device_train_batch_size": 2,
    "num_generations": 2,
    "max_completion_length": 8,
    "use_cpu": True,
    "bf16": False,
    "activation_checkpointing": False,
    "logging_steps": 1,
    "report_to": "none",
    "save_strategy": "no",
}


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, source, skip reason or None) of each fenced Python block."""
    text = page.read_text()
    blocks = []
    for match in BLOCK.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP_MARKER.fullmatch(before.strip())
        blocks.append((text.count("\n", 0, match.start()) + 2, match.group(1), skip and skip.group(1)))
    return blocks


def test_every_page_is_found():
    names = {page.relative_to(ROOT).as_posix() for page in PAGES}
    assert {"README.md", "docs/mulferl_trainer.md", "docs/feedback_providers.md", "docs/evaluation.md"} <= names


def test_skipped_blocks_are_few_and_say_why():
    skipped = [(page.name, line, reason) for page in PAGES for line, _, reason in python_blocks(page) if reason]
    ran = [1 for page in PAGES for _, _, reason in python_blocks(page) if not reason]
    assert len(skipped) <= 2 and len(ran) >= 6, skipped
    assert all(len(reason) > 10 for *_, reason in skipped), skipped


def test_python_blocks_reads_skip_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```python\nx = 1\n```\n\n<!-- docs-test: skip, needs an OpenAI key -->\n```python\ny = 2\n```\n"
        "\n```bash\nls\n```\n"
    )
    assert python_blocks(page) == [(4, "x = 1\n", None), (9, "y = 2\n", "needs an OpenAI key")]


@pytest.fixture
def offline_docs(tmp_path, monkeypatch, tiny_model_dir):
    """A fresh folder where Hub ids resolve to local files and trainers train 1 tiny step."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # a missed Hub id fails at once
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-test")  # read when a provider is built, sent only on a request
    monkeypatch.setenv("MY_KEY", "docs-test")
    from tests.conftest import SHARED_DATA

    load_dataset = datasets.load_dataset

    def local_load_dataset(path, *args, **kwargs):
        if path not in HUB_DATASETS:
            return load_dataset(path, *args, **kwargs)
        files = sorted((SHARED_DATA / HUB_DATASETS[path]).glob("*.jsonl"))
        if not files:
            pytest.skip(f"{path}: no local copy in {SHARED_DATA}")
        return load_dataset("json", data_files=[str(file) for file in files], split="train")

    monkeypatch.setattr(datasets, "load_dataset", local_load_dataset)
    for name in ("MulFeRLConfig", "IGRPOConfig"):
        config_class = getattr(trl_mulferl, name)
        tiny = TINY | ({"num_drafts": 2} if name == "IGRPOConfig" else {})
        monkeypatch.setattr(
            trl_mulferl,
            name,
            lambda *args, _class=config_class, _tiny=tiny, **kwargs: _class(*args, **(kwargs | _tiny)),
        )
    return tiny_model_dir


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_python_blocks_run(page, offline_docs):
    namespace = {"__name__": "__docs__"}
    for line, source, skip in python_blocks(page):
        if skip:
            continue
        for model_id in HUB_MODELS:
            source = source.replace(f'"{model_id}"', repr(offline_docs))
        code = compile(source, f"{page.relative_to(ROOT)}:{line}", "exec")
        exec(code, namespace)
        if "trainer.train()" in source:  # it trained, not just built: one optimizer step
            assert namespace["trainer"].state.global_step == TINY["max_steps"], f"{page.name}:{line}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, formatting and punctuation dropped, spaces to dashes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} (.+)$", strip_fences(page.read_text()), re.MULTILINE):
        anchor = slug(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(f"{anchor}-{count}" if count else anchor)
    return found


def strip_fences(text: str) -> str:
    return re.sub(r"^```.*?^```$", "", text, flags=re.DOTALL | re.MULTILINE)


def strip_code(text: str) -> str:
    return re.sub(r"`[^`\n]*`", "", strip_fences(text))


LINKED_PAGES = [*PAGES, ROOT / "benchmarks" / "README.md", ROOT / "CHANGELOG.md"]


def broken_links(page: Path) -> list[str]:
    """Relative links of `page` whose file does not exist or whose `#anchor` names no heading there."""
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", strip_code(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_links_resolve(page):
    assert broken_links(page) == []


def test_broken_links_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## `a.py`: its part\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#apy-its-part) [ok](#page) [web](https://example.com/x#y) `[code](missing.md)`\n"
        "[no file](missing.md) [no anchor](other.md#its-part) [no local anchor](#other-page)\n"
    )
    assert broken_links(page) == ["missing.md", "other.md#its-part", "#other-page"]


def test_slug_follows_github():
    assert slug("How it sits on TRL, and where it differs from the paper") == (
        "how-it-sits-on-trl-and-where-it-differs-from-the-paper"
    )
    assert slug("Test-time feedback (paper §5.2)") == "test-time-feedback-paper-52"
    assert slug("`learning.py`: does MulFeRL learn more than GRPO?") == "learningpy-does-mulferl-learn-more-than-grpo"


# Design decisions: the code cites docs/design.md's numbered headings as "decision 5", "decisions 6 and 8", "spec
# decision 2" or "decision 2 of the spec", in comments and strings, possibly across a line break ("(decision\n    3)",
# "decision\n    # 3").
DESIGN = ROOT / "docs" / "design.md"
DECISION_HEADING = re.compile(r"^## (\d+)\. ", re.MULTILINE)
_GAP = r"[\s#]"  # what separates the words of a citation: spaces, line breaks, a comment's next "#"
_NUMBERS = rf"\d+(?:{_GAP}*(?:,{_GAP}*(?:and{_GAP}+)?|and{_GAP}+|or{_GAP}+)\d+)*"
CITATION = re.compile(rf"\bdecision{_GAP}+(\d+)|\bdecisions{_GAP}+({_NUMBERS})", re.IGNORECASE)
# Comments and strings; on Python 3.12+ an f-string's literal parts are tokens of their own.
_PROSE_TOKENS = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def prose(source: str) -> str:
    """`source` with everything but its comments and strings blanked out (line breaks kept), so that code such as
    `decision = route(...)` or `if decision is Route.GRPO:` is never read as a citation."""
    lines = io.StringIO(source).readlines()
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = "".join(lines)
    chars = [c if c == "\n" else " " for c in text]
    for token in tokenize.generate_tokens(iter(lines).__next__):
        if token.type in _PROSE_TOKENS:
            start = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            chars[start:end] = text[start:end]
    return "".join(chars)


def decision_citations(source: str) -> list[tuple[int, int]]:
    """`(line, decision number)` of every decision cited in the comments and strings of a Python source."""
    text = prose(source)
    citations = []
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        citations += [(line, int(number)) for number in re.findall(r"\d+", match.group(1) or match.group(2))]
    return citations


def unresolved_citations(root: Path, package: Path, design: Path) -> list[str]:
    """`path:line: decision N` of each decision cited in `package`'s Python files that has no heading in `design`."""
    headings = {int(number) for number in DECISION_HEADING.findall(strip_fences(design.read_text()))}
    return [
        f"{path.relative_to(root).as_posix()}:{line}: decision {number}"
        for path in sorted(package.rglob("*.py"))
        for line, number in decision_citations(path.read_text())
        if number not in headings
    ]


def test_design_decisions_are_numbered_from_1_in_order():
    numbers = DECISION_HEADING.findall(strip_fences(DESIGN.read_text()))
    assert len(numbers) >= 13  # 13: the asynchronous pipeline's two ages
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)]


def test_every_cited_decision_has_a_heading():
    package = ROOT / "trl_mulferl"
    cited = {number for path in package.rglob("*.py") for _, number in decision_citations(path.read_text())}
    assert cited, "no decision cited: is `decision_citations` broken?"
    unresolved = unresolved_citations(ROOT, package, DESIGN)
    assert unresolved == [], "cited, but no heading in docs/design.md:\n" + "\n".join(unresolved)


def test_decision_citations_are_read_in_every_form():
    source = (
        '"""Cites decision 5, spec decision 2, decision 2 of the spec; decisions 6 and 8, decisions 1, 3 and 4.\n'
        "Split in a docstring (decision\n"
        "    3); Algorithm 1's decision for a prompt; the decision whether to run one.\n"
        '"""\n'
        "decision = route(states, 3)  # the variable, then a comment that ends with decision\n"
        "# 7, continued on the next comment line\n"
        "if decision is Route.GRPO or decision in (1, 2):\n"
        "    value = decision\n"
        "    other = [decision, 9]\n"
        "message = f'{decision} of group 4'  # Decision 12 in capitals\n"
    )
    assert decision_citations(source) == [
        (1, 5), (1, 2), (1, 2), (1, 6), (1, 8), (1, 1), (1, 3), (1, 4), (2, 3), (5, 7), (10, 12)
    ]  # fmt: skip


def test_an_unresolved_citation_names_its_file_and_line(tmp_path):
    design = tmp_path / "design.md"
    design.write_text("# Design decisions\n\n" + "".join(f"## {n}. Decision {n}\n\ntext\n\n" for n in range(1, 13)))
    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "module.py").write_text(
        "x = 1  # see decision 12\n\n\ndef f():\n    # as decision\n    # 13 says\n"
    )
    assert unresolved_citations(tmp_path, package, design) == ["package/sub/module.py:5: decision 13"]
