"""MulFeRL and iGRPO on 2 CPU processes (gloo) under every engine: DDP, DeepSpeed ZeRO-2 and ZeRO-3, FSDP2, FSDP1.

The hard case throughout: rank 1 needs a feedback turn (and, with FCO on, FCO partner sequences) every step, rank 0
never. Each engine is launched once (`accelerate launch --config_file tests/helpers/engine_configs/<engine>.yaml`) and runs
every training of tests/helpers/scripts/two_process_training.py in turn; the tests then compare what each rank wrote.
The feature x engine matrix (below) runs tests/helpers/scripts/two_process_matrix.py the same way. Under every engine but
DDP the processes run with TORCH_DISTRIBUTED_DEBUG=DETAIL, and a collective waits at most 90 s, so that a process
skipping a collective fails the launch at once instead of hanging it.
"""

import json
import multiprocessing
import re
import socket
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.helpers.multiprocess import (
    COLLECTIVE_GENERATION,
    FCO_KEYS,
    MATRIX,
    ROUTE_KEYS,
    check_matrix_cell,
    check_varied_lengths,
    evaluation_logs,
    launch_pair,
    step_logs,
)


SCRIPT = Path(__file__).parents[1] / "helpers" / "scripts" / "two_process_training.py"

ENGINES = ("ddp", "zero2", "zero3", "fsdp2", "fsdp1")
# Equal to DDP's weights within float32 noise where the sums run in another order: ZeRO-3 gathers partitioned
# parameters and reduce-scatters gradients, and with FCO each process's partner rows differ in number between
# engines' buckets. Otherwise exactly equal.
TOLERANCE = 5e-5
# `feedback_replay`'s plain ratio trains rows sampled under the feedback as rows without it, so their ratios are far
# from 1 and scale those last-bit differences up: 9.9e-5 measured on an Intel Xeon (the AMD EPYC before it: < 5e-5).
REPLAY_TOLERANCE = 2e-4
ACTIVATION_CHECKPOINTING = {"zero3", "fsdp2"}  # gradient checkpointing
RESUMED = {"ddp", "zero3"}  # one sharded engine (FSDP1's FULL_STATE_DICT checkpoint segfaults on CPU)
IGRPO = {"ddp", "zero2", "zero3", "fsdp2"}
ALL_PAIRS = {"ddp", "zero3", "fsdp2"}  # FCO's all-pairs surrogate
REPLAY = {"ddp", "zero3", "fsdp2"}  # feedback_replay


class Launches:
    """Each engine launched once per module: all its trainings, one after the other, in one pair of processes."""

    def __init__(self, root: Path):
        self.root = root
        self.outcomes = {}  # (engine, resumed) -> "" when the launch finished, else why it stopped

    def output(self, engine: str) -> Path:
        return self.root / engine

    def result(self, engine: str, run: str, resumed: bool = False) -> list[dict]:
        """Each rank's result of `run`; the runs a launch finished before it failed still count."""
        if (engine, resumed) not in self.outcomes:
            self.outcomes[engine, resumed] = self.launch(engine, resumed)
        name = "resumed" if resumed else "result"
        files = [self.output(engine) / run / f"{name}_rank{rank}.json" for rank in (0, 1)]
        if not all(file.exists() for file in files):
            pytest.fail(f"{engine}: the launch stopped before `{run}` finished: {self.outcomes[engine, resumed]}")
        return [json.loads(file.read_text()) for file in files]

    def launch(self, engine: str, resumed: bool) -> str:
        if resumed:
            self.result(engine, "mulferl")  # the uninterrupted runs write the checkpoints
        runs = ["mulferl", "mulferl_fco"]
        if not resumed:
            runs += (["igrpo"] if engine in IGRPO else []) + (["fco_all"] if engine in ALL_PAIRS else [])
            runs += ["replay"] if engine in REPLAY else []
            runs += ["lora", "lora_fco"]
        env = {
            "MULFERL_TEST_ACTIVATION_CHECKPOINTING": str(int(engine in ACTIVATION_CHECKPOINTING)),
            "MULFERL_TEST_CHECKPOINTS": str(int(engine in RESUMED)),
        }
        return launch_pair(SCRIPT, engine, [str(self.output(engine)), *runs] + (["--resume"] if resumed else []), env)


@pytest.fixture(scope="module")
def launches(tmp_path_factory):
    return Launches(tmp_path_factory.mktemp("engines"))


def max_difference(parameters: dict, reference: dict) -> float:
    assert parameters.keys() == reference.keys()
    return max(abs(a - b) for name in parameters for a, b in zip(parameters[name], reference[name], strict=True))


def check_engine(engine: str, facts: dict):
    """The engine really ran: on CPU accelerate can silently fall back to DDP and still exit 0."""
    assert facts["num_processes"] == 2
    assert facts["deepspeed"] == engine.startswith("zero")
    assert facts["fsdp"] == engine.startswith("fsdp")
    if engine.startswith("zero"):
        assert facts["zero_stage"] == int(engine[-1])
    if engine.startswith("fsdp"):
        assert facts["fsdp_version"] == int(engine[-1])
    # ZeRO-3 and FSDP hold half of every parameter per process (ZeRO-3: persistence threshold 0).
    sharded = engine in ("zero3", "fsdp2", "fsdp1")
    assert facts["local_parameter_fraction"] == pytest.approx(0.5 if sharded else 1.0, abs=0.01)
    assert facts["activation_checkpointing"] == (engine in ACTIVATION_CHECKPOINTING)


def weight_tolerance(engine: str, fco: bool) -> float:
    return TOLERANCE if engine == "zero3" or (fco and engine != "ddp") else 0.0


def check_like_ddp(
    engine: str, results: list[dict], ddp_results: list[dict], fco: bool, tolerance: float | None = None
):
    """Both ranks hold the same weights, equal to the DDP run's, and log the DDP run's routing metrics."""
    for result in results:
        check_engine(engine, result["engine"])
    assert results[0]["parameters"] == results[1]["parameters"]
    tolerance = weight_tolerance(engine, fco) if tolerance is None else tolerance
    assert max_difference(results[0]["parameters"], ddp_results[0]["parameters"]) <= tolerance
    assert results[0]["moved"] > 50 * max(tolerance, 1e-5)  # the weights moved far more than the tolerance
    keys = ROUTE_KEYS + (FCO_KEYS if "mulferl/fco/pairs" in step_logs(ddp_results[0])[0] else ())
    # A metric without a value at a step (a turn no group reached) is not logged: then on no rank.
    expected = [{key: entry[key] for key in keys if key in entry} for entry in step_logs(ddp_results[0])]
    for result in results:
        assert [{key: entry[key] for key in keys if key in entry} for entry in step_logs(result)] == expected


@pytest.mark.parametrize("script", sorted(SCRIPT.parent.glob("two_process_*.py")), ids=lambda path: path.stem)
def test_every_launched_script_exits_without_the_interpreters_teardown(script):
    """Left to the interpreter's teardown, gloo's worker threads can abort a rank after training has finished
    ("terminate called without an active exception", SIGABRT: twice in CI's ZeRO-3 self-feedback launch, the second
    time after the script had destroyed its process group), so each script ends with `exit_launched_process`."""
    assert "\n    exit_launched_process()\n" in script.read_text(), f"{script.name} leaves its end to the teardown"


def test_a_rank_whose_gloo_worker_runs_past_the_script_exits_cleanly_through_exit_launched_process():
    """The abort above, made certain: a completion callback that gloo's worker runs after the main thread is done.
    Ended by the interpreter, the rank aborts; ended as `trl_mulferl.train` ends a launched run, both exit 0."""
    script = SCRIPT.parent / "two_process_late_release.py"
    assert launch_pair(script, "ddp", ["exit_launched_process"], {}, timeout=120) == ""
    outcome = launch_pair(script, "ddp", ["teardown"], {}, timeout=120)
    # The worker finds the interpreter finalising: std::terminate, or CPython's own fatal error, by where it stops.
    aborted = "terminate called without an active exception" in outcome or "Fatal Python error" in outcome
    assert outcome.startswith("exit status") and aborted, f"the teardown no longer aborts (torch fixed?): {outcome}"


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_launch_finishes(launches, engine):
    """Every training of the engine's launch ran, and both processes exited cleanly."""
    launches.result(engine, "mulferl")
    assert launches.outcomes[engine, False] == ""


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("run", ["mulferl", "mulferl_fco"], ids=["fco_off", "fco_on"])
def test_one_rank_needing_feedback_every_step(launches, engine, run):
    results = launches.result(engine, run)
    check_like_ddp(engine, results, launches.result("ddp", run), fco=run == "mulferl_fco")
    # 4 groups per rank and step: rank 0's are mixed, rank 1's fail and are solved by the feedback turn.
    for entry in step_logs(results[0]):
        assert (entry["mulferl/route/grpo"], entry["mulferl/route/fco"]) == (0.5, 0.5)
        assert entry["mulferl/turn_0/failed_groups"] == entry["mulferl/feedback/requests"] == 4.0
        assert entry["mulferl/turn_1/escape_rate"] == 1.0
        if run == "mulferl_fco":
            assert (entry["mulferl/fco/pairs"], entry["mulferl/fco/dropped_pairs"]) == (8.0, 0.0)
    assert len(step_logs(results[0])) == 2
    # Rank 0 needs no feedback turn: under DDP it generates turn 0 only; where `generate` is collective (ZeRO-3 and
    # FSDP gather or summon the parameters) it joins rank 1's regeneration with dummy rows.
    sharded = engine in ("zero3", "fsdp2", "fsdp1")
    assert [len(result["generation_calls"]) for result in results] == [4 if sharded else 2, 4]
    # One request per failed group, each asked by the rank that holds the group.
    assert not (launches.output(engine) / run / "requests_rank0.txt").exists()
    assert len((launches.output(engine) / run / "requests_rank1.txt").read_text().splitlines()) == 4 * 2


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ALL_PAIRS))
def test_all_pairs_fco(launches, engine):
    """The all-pairs surrogate forwards the policy at generation time: every process as many rows (ZeRO-3, FSDP2)."""
    results = launches.result(engine, "fco_all")
    check_like_ddp(engine, results, launches.result("ddp", "fco_all"), fco=True)
    for entry in step_logs(results[0]):
        assert (entry["mulferl/route/fco"], entry["mulferl/fco/pairs"]) == (0.5, 4 * 4.0)
    assert max_difference(results[0]["parameters"], launches.result(engine, "mulferl_fco")[0]["parameters"]) > 0


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(REPLAY))
def test_feedback_replay(launches, engine):
    """Rank 1's 8 rows a step are replayed (rank 0 has none to replay): the weights agree with DDP's, and differ from
    the same run without replay."""
    results = launches.result(engine, "replay")
    check_like_ddp(
        engine,
        results,
        launches.result("ddp", "replay"),
        fco=True,
        tolerance=REPLAY_TOLERANCE if engine != "ddp" else None,
    )
    assert [entry["mulferl/replayed_rows"] for entry in step_logs(results[0])] == [8.0, 8.0]
    without_replay = max_difference(results[0]["parameters"], launches.result(engine, "mulferl_fco")[0]["parameters"])
    print(f"{engine}: replay moved the weights {without_replay} from the run without it")
    assert without_replay > 10 * REPLAY_TOLERANCE


@pytest.mark.slow
def test_fco_changes_the_ddp_weights(launches):
    """FCO's gradient is a large part of the update, so the FCO runs' comparison with DDP checks it."""
    with_fco, without_fco = launches.result("ddp", "mulferl_fco"), launches.result("ddp", "mulferl")
    assert max_difference(with_fco[0]["parameters"], without_fco[0]["parameters"]) > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("run", ["lora", "lora_fco"], ids=["fco_off", "fco_on"])
def test_lora(launches, engine, run):
    """A new LoRA adapter; with FCO, the reference is the model with the adapter disabled."""
    results = launches.result(engine, run)
    check_like_ddp(engine, results, launches.result("ddp", run), fco=run == "lora_fco")
    assert any(".lora_A." in name for name in results[0]["parameters"])  # the adapter is in the engine's model
    if run == "lora_fco":
        assert max_difference(results[0]["parameters"], launches.result("ddp", "lora")[0]["parameters"]) > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(IGRPO))
def test_igrpo(launches, engine):
    results = launches.result(engine, "igrpo")
    for result in results:
        check_engine(engine, result["engine"])
    assert results[0]["parameters"] == results[1]["parameters"]
    ddp_results = launches.result("ddp", "igrpo")
    assert max_difference(results[0]["parameters"], ddp_results[0]["parameters"]) <= weight_tolerance(engine, False)
    assert results[0]["moved"] > 1e-3

    def igrpo_metrics(result):
        return [
            {k: v for k, v in entry.items() if k.startswith("igrpo/")}
            for entry in step_logs(result, "igrpo/best_draft_reward")
        ]

    assert len(igrpo_metrics(results[0])) == 2
    assert igrpo_metrics(results[0]) == igrpo_metrics(results[1]) == igrpo_metrics(ddp_results[0])


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(RESUMED))
def test_resume_from_a_checkpoint_equals_the_uninterrupted_run(launches, engine):
    """Resumed from the checkpoint after step 1 (inside an epoch): step 2 gives the same weights and metrics."""
    for run in ["mulferl", "mulferl_fco"]:
        uninterrupted, resumed = launches.result(engine, run), launches.result(engine, run, resumed=True)
        for rank in (0, 1):
            assert resumed[rank]["parameters"] == uninterrupted[rank]["parameters"]
            assert resumed[rank]["moved"] == uninterrupted[rank]["moved"]
            keys = [key for key in step_logs(uninterrupted[rank])[-1] if key.startswith(("mulferl/", "rewards/"))]
            keys = [key for key in keys if "latency" not in key]
            final_step = [{key: entry[key] for key in keys} for entry in step_logs(resumed[rank])[-1:]]
            assert final_step == [{key: step_logs(uninterrupted[rank])[-1][key] for key in keys}]
            assert [entry["step"] for entry in step_logs(resumed[rank])] == [1, 2]
        # The resumed run generated step 2 only: one feedback request per failed group of rank 1.
        requests = launches.output(engine) / run / "resumed_requests_rank1.txt"
        assert len(requests.read_text().splitlines()) == 4


# ---------------------------------------------------------------------------------------------------------------------
# The feature x engine matrix (tests/helpers/scripts/two_process_matrix.py): rank 0's groups never fail (but one in
# `fco_chunks`), rank 1's always do, and the policy stops at varied lengths; each cell trains with the processes'
# weights identical, or is refused.

MATRIX_ENGINES = ("ddp", "zero2", "zero3", "fsdp2")
MATRIX_RUNS = ("openai", "self", "column_tools", "environment")
# Where `generate` is collective the failing rank must still join it; elsewhere DDP stands for ZeRO-2.
SELF_TOKENIZATION_ENGINES = ("ddp", "zero3", "fsdp2")
EPISODES_REFUSED = "Feedback turns (max_feedback_turns=1) cannot regenerate tool episodes"
# Seconds a launch may take besides its collectives' waits: to its first training step (15 s on 2 cores), and its exit.
START_UP = 60


class MatrixLaunches:
    """Each engine launched once per module, all the matrix's runs in one pair of processes."""

    def __init__(self, root: Path):
        self.root, self.outcomes = root, {}

    def directory(self, engine: str, run: str) -> Path:
        if engine not in self.outcomes:
            runs = MATRIX_RUNS + (("self_tokenization",) if engine in SELF_TOKENIZATION_ENGINES else ())
            runs += ("fco_chunks",) if engine in COLLECTIVE_GENERATION else ()
            self.outcomes[engine] = launch_pair(MATRIX, engine, [str(self.root / engine), *runs], {}, 600)
        return self.root / engine / run

    def result(self, engine: str, run: str) -> list[dict]:
        files = [self.directory(engine, run) / f"result_rank{rank}.json" for rank in (0, 1)]
        if not all(file.exists() for file in files):
            pytest.fail(f"{engine}: the launch stopped before `{run}` finished: {self.outcomes[engine]}")
        return [json.loads(file.read_text()) for file in files]

    def refusals(self, engine: str, run: str) -> list[str]:
        files = [self.directory(engine, run) / f"refused_rank{rank}.txt" for rank in (0, 1)]
        return [file.read_text() if file.exists() else "" for file in files]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    return MatrixLaunches(tmp_path_factory.mktemp("matrix"))


@pytest.mark.slow
@pytest.mark.parametrize("engine", MATRIX_ENGINES)
def test_matrix_launch_finishes(matrix, engine):
    matrix.directory(engine, "openai")
    assert matrix.outcomes[engine] == ""


@pytest.mark.slow
@pytest.mark.parametrize("engine", MATRIX_ENGINES)
def test_matrix_openai_provider_fco_replay_and_evaluation_without_a_problem(matrix, engine):
    """The OpenAI provider (a local server), FCO (permutation), feedback_replay; one evaluation problem, so that
    rank 1 has none: where `generate` is collective it joins rank 0's with a dummy problem."""
    results = matrix.result(engine, "openai")
    logs = check_matrix_cell(engine, results, ROUTE_KEYS + FCO_KEYS)
    check_varied_lengths(logs)
    for entry in logs:  # rank 1's 2 groups fail, get the server's review and are solved
        assert (entry["mulferl/route/grpo"], entry["mulferl/route/fco"]) == (0.5, 0.5)
        assert (entry["mulferl/feedback/requests"], entry["mulferl/feedback/errors"]) == (2.0, 0.0)
        assert entry["mulferl/replayed_rows"] == 4.0
    assert [result["requests"] for result in results] == [0, 2 * 2]  # to the server: 1 review per group
    assert len(evaluation_logs(results[0])) == 2 and evaluation_logs(results[0]) == evaluation_logs(results[1])
    padded = engine in COLLECTIVE_GENERATION
    assert [result["evaluation_requests"] for result in results] == [[1, 1], [1, 1] if padded else []]


@pytest.mark.slow
@pytest.mark.parametrize("engine", MATRIX_ENGINES)
def test_matrix_self_feedback_failing_on_one_process_and_uneven_evaluation(matrix, engine):
    """Self-feedback and FCO (all pairs); at step 1 rank 1's provider fails (its groups end unresolved, rank 0 still
    generates with it where that is collective); 3 evaluation problems: 2 `generate` calls on rank 0, 1 on rank 1."""
    results = matrix.result(engine, "self")
    logs = check_matrix_cell(engine, results)
    check_varied_lengths(logs)
    assert [entry["mulferl/feedback/requests"] for entry in logs] == [2.0, 2.0]
    assert logs[0]["mulferl/feedback/errors"] == 2.0 and logs[0]["mulferl/route/unresolved"] == 0.5
    assert logs[1]["mulferl/route/fco"] > 0  # the provider works again at step 2
    assert len(evaluation_logs(results[0])) == 2 and evaluation_logs(results[0]) == evaluation_logs(results[1])
    padded = engine in COLLECTIVE_GENERATION
    assert [result["evaluation_requests"] for result in results] == [[2, 2], [2, 2] if padded else [1, 1]]


@pytest.mark.slow
@pytest.mark.parametrize("engine", SELF_TOKENIZATION_ENGINES)
def test_matrix_self_feedback_failing_to_tokenize_on_one_process_and_capped_feedback(matrix, engine):
    """`max_feedback_groups_per_step=1`: each step rank 1's 2 failed groups and rank 0's none are gathered (a
    collective at every turn, on both processes), and one of rank 1's is asked; the other is capped. At step 1 rank 1's
    chat template rejects its review request: both its groups end unresolved and training goes on. Where `generate` is
    collective, rank 1 still joins that step's `generate` with the dummy request, as rank 0 (no request of its own)
    does at both steps."""
    results = matrix.result(engine, "self_tokenization")
    logs = check_matrix_cell(engine, results, ROUTE_KEYS + ("mulferl/feedback/capped_groups",))
    assert [entry["mulferl/feedback/capped_groups"] for entry in logs] == [1.0, 1.0]
    assert [entry["mulferl/feedback/requests"] for entry in logs] == [1.0, 1.0]
    assert logs[0]["mulferl/feedback/errors"] == 1.0 and logs[0]["mulferl/route/unresolved"] == 0.5
    assert logs[1]["mulferl/route/unresolved"] >= 0.25  # the capped group, at least
    # The conversations of each tokenization, in order (0: the dummy request); rank 1's first one fails.
    expected = [[0, 0], [1, 0, 1]] if engine in COLLECTIVE_GENERATION else [[], [1, 1]]
    assert [result["conversations_per_tokenization"] for result in results] == expected


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(COLLECTIVE_GENERATION))
def test_matrix_fco_forwards_uneven_rows_in_chunks(matrix, engine):
    """FCO's reference forwards take 4 rows on rank 1 and 0, then 2, on rank 0, which TRL forwards in chunks of
    `per_device_train_batch_size` = 2: where forwards are collective, rank 0 forwards 4 rows (2 chunks) as rank 1
    does, with none of its own and with fewer."""
    results = matrix.result(engine, "fco_chunks")
    logs = check_matrix_cell(engine, results, ROUTE_KEYS + FCO_KEYS)
    # Both of rank 1's groups fail and are solved by the feedback turn, and at step 2 rank 0's first.
    assert [(entry["mulferl/route/fco"], entry["mulferl/fco/pairs"]) for entry in logs] == [(0.5, 4.0), (0.75, 6.0)]
    assert [entry["mulferl/turn_1/escape_rate"] for entry in logs] == [1.0, 1.0]
    # The FCO rows of each reference forward (the positives', then their partners').
    assert [result["fco_rows_per_forward"] for result in results] == [[0, 0, 2, 2], [4, 4, 4, 4]]


@pytest.mark.slow
@pytest.mark.parametrize("engine", MATRIX_ENGINES)
def test_matrix_column_provider_with_tools(matrix, engine):
    """The column provider regenerates rank 1's tool episodes; where `generate` is collective `tools` with feedback
    turns are refused at start-up, in one line, and the column provider trains without tools."""
    results = matrix.result(engine, "column_tools")
    logs = check_matrix_cell(engine, results)
    refusals = matrix.refusals(engine, "column_tools")
    if engine in COLLECTIVE_GENERATION:
        assert all(text.startswith(EPISODES_REFUSED) and "\n" not in text for text in refusals)
        check_varied_lengths(logs)
        expected = {"mulferl/route/grpo": 0.5, "mulferl/route/fco": 0.5}
    else:
        assert refusals == ["", ""]
        # one tool call per regenerated episode: rank 1's 4 rows
        expected = {"mulferl/route/solved_skip": 0.5, "mulferl/route/fco": 0.5, "mulferl/tools/calls": 4.0}
    assert [{key: entry[key] for key in expected} for entry in logs] == [expected] * 2


@pytest.mark.slow
@pytest.mark.parametrize("engine", MATRIX_ENGINES)
def test_matrix_environment_factory(matrix, engine):
    """Rank 1's lock episodes fail and are regenerated with the environment's feedback; refused where `generate` is
    collective."""
    refusals = matrix.refusals(engine, "environment")
    if engine in COLLECTIVE_GENERATION:
        assert all(text.startswith(EPISODES_REFUSED) and "\n" not in text for text in refusals)
        return
    assert refusals == ["", ""]
    results = matrix.result(engine, "environment")
    logs = check_matrix_cell(engine, results)
    expected = {"mulferl/route/solved_skip": 0.5, "mulferl/route/fco": 0.5, "mulferl/feedback/requests": 2.0}
    assert [{key: entry[key] for key in expected} for entry in logs] == [expected] * 2
    assert results[0]["tried"] == [["0"]] * 4
    assert results[1]["tried"] == [["7"], ["7"], ["5"], ["5"]]


@pytest.mark.slow
def test_a_process_skipping_a_collective_fails_the_zero2_launch_within_the_collective_timeout(tmp_path):
    """Rank 1 skips the FCO window's all-reduce and waits in ZeRO-2's gradient reduction, on DeepSpeed's own process
    group, while rank 0 comes late to the window's, on the default group. Every group waits the run's `ddp_timeout`,
    DeepSpeed's too (torch gives a group made without a timeout 30 minutes), so the launch fails at once."""
    from tests.helpers.scripts.two_process_training import TIMEOUT

    start = time.monotonic()
    outcome = launch_pair(MATRIX, "zero2", [str(tmp_path), "fco_window_skipped"], {}, TIMEOUT + START_UP)
    print(f"the launch stopped after {time.monotonic() - start:.0f} s: {outcome[:200]}")
    assert outcome.startswith("exit status")
    error = (tmp_path / "fco_window_skipped" / "error_rank1.txt").read_text()
    assert "zero/stage_1_and_2.py" in error  # in ZeRO-2's reduction
    assert f"Timed out waiting {TIMEOUT * 1000}ms" in error  # gloo's words: that group's own timeout ended the wait


@pytest.mark.parametrize("config_name", ["MulFeRLConfig", "IGRPOConfig", "AsyncMulFeRLConfig"])
def test_the_process_groups_made_after_a_config_wait_its_ddp_timeout(monkeypatch, tmp_path, config_name):
    """torch's default timeout, which the default group of a CPU run and DeepSpeed's groups are made with."""
    from torch.distributed import distributed_c10d

    import trl_mulferl

    for name in ("default_pg_timeout", "default_pg_nccl_timeout"):
        monkeypatch.setattr(distributed_c10d, name, getattr(distributed_c10d, name))  # torch's again after the test
    getattr(trl_mulferl, config_name)(str(tmp_path), use_cpu=True, bf16=False, num_generations=2, ddp_timeout=90)
    for backend in ("gloo", "nccl"):
        assert distributed_c10d._get_default_timeout(backend) == timedelta(seconds=90)


def test_evaluation_shares_are_padded_with_dummies_that_are_dropped():
    from trl_mulferl.evaluation.callback import is_padding, padded_problems

    problems = [{"benchmark": "sums", "problem_id": i, "prompt": f"p{i}"} for i in range(3)]
    padded = padded_problems(problems[2:], 2, problems)  # rank 1's share of 3 problems, to rank 0's 2
    assert [(p["problem_id"], p["prompt"]) for p in padded] == [(2, "p2"), (("mulferl-padding", 0), "p0")]
    assert [is_padding(p["problem_id"]) for p in padded] == [False, True]
    assert padded_problems([], 0, problems) == []


@pytest.mark.parametrize(
    "collective_generation, turns, refused", [(True, 1, True), (True, 0, False), (False, 1, False)]
)
def test_tool_episodes_with_feedback_turns_are_refused_where_generation_is_collective(
    collective_generation, turns, refused
):
    from types import SimpleNamespace

    from trl_mulferl.core.validation import refuse_episodes_out_of_step
    from trl_mulferl.mulferl.lockstep import Lockstep

    lockstep = Lockstep(SimpleNamespace(num_processes=2), collective_generation, collective_generation)
    args = SimpleNamespace(max_feedback_turns=turns)
    if refused:
        with pytest.raises(ValueError, match=re.escape(EPISODES_REFUSED)):
            refuse_episodes_out_of_step(args, lockstep, tools=[print])
    else:
        refuse_episodes_out_of_step(args, lockstep, tools=[print])
    refuse_episodes_out_of_step(args, lockstep, tools=[])  # no tool loop: nothing to refuse


def out_of_step(rank: int, port: int, errors, rank0_done):
    """On 2 gloo processes: rank 0 all-reduces where rank 1 all-gathers, then all-reduces alone until its timeout;
    each error raised, as `(rank, message, is_collective_error)`."""
    import torch
    import torch.distributed as dist

    from trl_mulferl.core.collectives import is_collective_error

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2, timeout=timedelta(seconds=1)
    )
    if rank == 0:  # the first against rank 1's all-gather, the second alone
        calls = [lambda: dist.all_reduce(torch.ones(1))] * 2
    else:
        calls = [lambda: dist.all_gather([torch.ones(1), torch.ones(1)], torch.ones(1))]
    for call in calls:
        try:
            call()
        except RuntimeError as error:
            errors.put((rank, str(error), is_collective_error(error)))
    if rank == 0:
        rank0_done.set()
    else:
        rank0_done.wait()


@pytest.mark.slow
def test_the_errors_of_processes_out_of_step_are_collective_errors(monkeypatch):
    """What torch raises on processes out of step, for real (gloo, TORCH_DISTRIBUTED_DEBUG=DETAIL as in the launches
    above): a feedback provider's error handling lets exactly these through, so that the run stops with them."""
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "DETAIL")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    context = multiprocessing.get_context("spawn")
    errors, rank0_done = context.Queue(), context.Event()
    processes = [context.Process(target=out_of_step, args=(rank, port, errors, rank0_done)) for rank in (0, 1)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert [process.exitcode for process in processes] == [0, 0]
    raised = sorted(errors.get(timeout=10) for _ in range(3))
    expected = [
        (0, "Detected mismatch between collectives"),
        (0, "failed to pass monitoredBarrier"),  # rank 0 alone, after its 1 s timeout
        (1, "Detected mismatch between collectives"),
    ]
    for (rank, message, collective), (expected_rank, text) in zip(raised, expected, strict=True):
        assert (rank, text in message, collective) == (expected_rank, True, True), message
