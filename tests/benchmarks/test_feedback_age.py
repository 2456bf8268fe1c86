"""`benchmarks/feedback_age.py`: its smoke run ends to end, and its summary pools by age as its docstring says."""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path


SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "feedback_age.py"


def load_script(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # as when run: it imports benchmarks/learning.py
    spec = importlib.util.spec_from_file_location("feedback_age", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_summary_pools_bases_and_takes_the_lifts_change_per_seed(monkeypatch):
    feedback_age = load_script(monkeypatch)

    def row(seed, base, age, rescue, without, before=0.5, later=0.5):
        return {
            "seed": seed,
            "base": base,
            "age": age,
            "rescue": rescue,
            "without_feedback": without,
            "lift": rescue - without,
            "pass_at_1_base": before,
            "pass_at_1_later": later,
        }

    rows = [
        row(0, 0, 0, 0.6, 0.1),
        row(0, 10, 0, 0.8, 0.1),
        row(0, 0, 5, 0.5, 0.2, later=0.6),
        row(0, 10, 5, 0.7, 0.2, later=0.7),
        row(1, 0, 0, 0.4, 0.0),
        row(1, 10, 0, 0.4, 0.0),
        row(1, 0, 5, 0.4, 0.1),
        row(1, 10, 5, 0.4, 0.1),
    ]
    table = feedback_age.summarize(rows, [0, 5])
    assert math.isclose(table[5]["rescue"], (0.5 + 0.7 + 0.4 + 0.4) / 4)
    assert math.isclose(table[5]["without_feedback"], 0.15)
    assert math.isclose(table[5]["pass_at_1_change"], (0.1 + 0.2) / 4)
    # Seed 0's lift at age 5 is 0.4 against 0.6 at age 0; seed 1's 0.3 against 0.4: changes -0.2 and -0.1, whose
    # mean -0.15 has a 95% interval of 12.706 x 0.05 either side (t with 1 degree of freedom, std 0.0707 / sqrt 2).
    change = table[5]["lift_change"]
    assert math.isclose(change["mean"], -0.15)
    assert math.isclose(change["high"] - change["mean"], 12.706 * 0.05, rel_tol=1e-9)
    assert table[0]["lift_change"]["mean"] == 0.0


def test_the_smoke_run_writes_a_row_per_base_and_age(tmp_path):
    output = tmp_path / "feedback_age.json"
    command = [sys.executable, str(SCRIPT), "--smoke", "--json", str(output)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(output.read_text())
    assert [(row["base"], row["age"]) for row in result["rows"]] == [(0, 0), (0, 2)]
    for row in result["rows"]:
        assert 0.0 <= row["rescue"] <= 1.0 and math.isclose(row["lift"], row["rescue"] - row["without_feedback"])
    assert set(result["by_age"]) == {"0", "2"}
