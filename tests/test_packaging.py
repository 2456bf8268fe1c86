from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement


tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def requirements() -> list[Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras = [line for lines in project["optional-dependencies"].values() for line in lines]
    return [Requirement(line) for line in project["dependencies"] + extras]


def test_every_requested_extra_exists_as_spelled():
    """pip before 24 compares extras as written: `math-verify[antlr4_13_2]` warned on every install."""
    for requirement in requirements():
        if not requirement.extras:
            continue
        try:
            provided = metadata.metadata(requirement.name).get_all("Provides-Extra") or []
        except metadata.PackageNotFoundError:
            continue  # an extra's package this environment does not install (e.g. vllm)
        missing = requirement.extras - set(provided)
        assert not missing, f"{requirement.name} provides no extra {missing} (it has {provided})"
