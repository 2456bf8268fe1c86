"""The package's layers (docs/design.md, "Layers"): `core/` is the base and imports no other part of `trl_mulferl`;
`feedback/` stands on `core/` alone and imports no trainer's folder and not `evaluation/`. Every module is parsed, and
every import counted, at the top of the module or inside a function."""

import ast
from pathlib import Path

import pytest

import trl_mulferl


PACKAGE = Path(trl_mulferl.__file__).parent
TRAINER_FOLDERS = ("mulferl", "async_mulferl", "igrpo")


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path = PACKAGE) -> set[str]:
    """The absolute names of the `trl_mulferl` modules (or packages) a module imports; `from X import name` counts as
    an import of `X.name` where that is a module of the package, else of `X`."""
    package = module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                is_module = (root.parent / Path(*submodule.split("."))).with_suffix(".py").exists() or (
                    root.parent / Path(*submodule.split("."))
                ).is_dir()
                names.add(submodule if is_module else base)
    return {name for name in names if name == root.name or name.startswith(root.name + ".")}


def layer_violations(root: Path = PACKAGE) -> list[str]:
    """Every import that breaks a layer rule, as `module -> imported module`."""
    violations = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        subpackage = module.split(".")[1] if module.count(".") else None
        for imported in sorted(imported_modules(path, root)):
            target = imported.split(".")[1] if imported.count(".") else None
            core_upward = subpackage == "core" and target != "core"
            feedback_upward = subpackage == "feedback" and target in (*TRAINER_FOLDERS, "evaluation")
            if core_upward or feedback_upward:
                violations.append(f"{module} -> {imported}")
    return violations


def test_core_and_feedback_import_nothing_above_them():
    assert layer_violations() == []


@pytest.mark.parametrize(
    ("module", "source", "violation"),
    [
        (
            "core/metrics.py",
            "from ..feedback import feedback_totals\n",
            "trl_mulferl.core.metrics -> trl_mulferl.feedback",
        ),
        (
            "core/x.py",
            "def f():\n    from ..evaluation.benchmarks import g\n",
            "trl_mulferl.core.x -> trl_mulferl.evaluation.benchmarks",
        ),
        ("core/x.py", "import trl_mulferl.feedback.protocol\n", "trl_mulferl.core.x -> trl_mulferl.feedback.protocol"),
        ("core/x.py", "from trl_mulferl import tiny\n", "trl_mulferl.core.x -> trl_mulferl.tiny"),
        (
            "feedback/x.py",
            "from ..mulferl.lockstep import f\n",
            "trl_mulferl.feedback.x -> trl_mulferl.mulferl.lockstep",
        ),
        (
            "feedback/guard/x.py",
            "from ...evaluation import f\n",
            "trl_mulferl.feedback.guard.x -> trl_mulferl.evaluation",
        ),
    ],
)
def test_the_check_finds_an_upward_import(tmp_path, module, source, violation):
    """A scratch package laid out as ours, with one upward import: the check names it; the imports allowed (core from
    core, feedback from core, a trainer from feedback) are not named."""
    root = tmp_path / "trl_mulferl"
    for folder in ("core", "feedback", "feedback/guard", "mulferl", "evaluation"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "tiny.py").write_text("")
    (root / "core" / "totals.py").write_text("from .summary import f\n")
    (root / "feedback" / "step.py").write_text("from ..core.totals import f\nfrom .protocol import g\n")
    (root / "mulferl" / "trainer.py").write_text("from ..feedback.step import f\nfrom ..evaluation import g\n")
    assert layer_violations(root) == []
    (root / module).write_text(source)
    assert layer_violations(root) == [violation]
