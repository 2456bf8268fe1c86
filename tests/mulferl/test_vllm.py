"""MulFeRL and iGRPO on TRL's vLLM generation (vLLM's CPU build: colocate and `trl vllm-serve`), and `trl-mulferl eval`
with its vLLM backend.

They run in CI's vLLM environment (`.ci/vllm-env`, then `python -m pytest -q -m vllm`); where vLLM is not installed
they are deselected, and selected there they fail on the missing import. The colocate weight sync goes through vLLM's
own `reload_weights` (tests/helpers/vllm_cpu.py): these tests check MulFeRL on vLLM generation, not TRL's CUDA sync.
"""

import json
import math
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from datasets import Dataset

from tests.helpers.async_cpu import free_port
from tests.helpers.multiprocess import (
    FCO_KEYS,
    MATRIX,
    ROUTE_KEYS,
    check_matrix_cell,
    check_varied_lengths,
    evaluation_logs,
    launch_pair,
)
from tests.helpers.trainer import (
    SCRIPTED_REWARDS,
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    count_generation_calls,
    logged,
    make_dataset,
    marker_provider,
    marker_reward,
    round_provider,
    scripted_reward,
)
from tests.helpers.vllm_cpu import CPU_ENVIRONMENT, SharedEngines, colocate_on_cpu
from trl_mulferl import IGRPOConfig, IGRPOTrainer, MulFeRLConfig, MulFeRLTrainer, make_conversation
from trl_mulferl.core.schema import feedback_prefill, sanitize_feedback
from trl_mulferl.igrpo.igrpo_config import DEFAULT_DRAFT_TEMPLATE


pytestmark = pytest.mark.vllm

VLLM = {"use_vllm": True, "vllm_mode": "colocate"}
# Logged values that measure time, not what was computed.
TIMINGS = ("mulferl/feedback/latency_s", "mulferl/feedback/latency_max_s")
# The prefills `round_provider`'s feedback makes at turns 1 and 2.
ROUND_PREFILLS = {feedback_prefill(sanitize_feedback(round_provider("", [text], []))) for text in ("", "ROUND1")}


@pytest.fixture(scope="module")
def vllm_model_dir(tmp_path_factory, tiny_tokenizer):
    """The tests' tiny model 128 wide: vLLM's CPU attention takes head sizes from 32 up (4 heads of 32)."""
    from trl_mulferl.tiny import build_qwen2

    path = tmp_path_factory.mktemp("vllm-model")
    build_qwen2(tiny_tokenizer, hidden_size=128, num_layers=2).save_pretrained(path)
    tiny_tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def engines():
    return SharedEngines()


@pytest.fixture
def colocate(engines):
    with colocate_on_cpu(engines):
        engines.generate_calls.clear()
        yield engines


def oracle_run(tmp_path, model_dir, tokenizer, **overrides):
    """The three-turn oracle of tests/mulferl/test_mulferl_trainer.py: scripted rewards send 7 prompts down every branch."""
    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in SCRIPTED_REWARDS]
    )
    settings = {**TINY_TRAINING, "per_device_train_batch_size": K * len(SCRIPTED_REWARDS), "max_steps": 1}
    trainer = MulFeRLTrainer(
        model=model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**{**settings, **overrides}, output_dir=str(tmp_path), beta=0.04, loss_type="grpo"),
        train_dataset=dataset,
        processing_class=tokenizer,
        feedback_provider=round_provider,
    )
    calls = count_generation_calls(trainer)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    return trainer, calls, outputs[0]


def mulferl_metrics(trainer) -> dict:
    (step,) = [entry for entry in trainer.state.log_history if "mulferl/route/grpo" in entry]
    return {key: value for key, value in step.items() if key.startswith("mulferl/") and key not in TIMINGS}


def unpadded(ids, mask) -> list[int]:
    return [token for token, keep in zip(ids.tolist(), mask.tolist(), strict=True) if keep]


def check_prefill_is_prompt_and_masked(batch, vllm_prompts, tokenizer):
    """Each row regenerated with feedback was generated from its prompt + the prefill (vLLM's prompt tokens), and the
    prefill heads its completion with tool_mask 0: context, outside the loss."""
    regenerated = 0
    for row in range(batch["completion_ids"].size(0)):
        prefill_length = int((batch["tool_mask"][row] == 0).sum())
        if prefill_length == 0:
            continue
        regenerated += 1
        completion = batch["completion_ids"][row].tolist()
        prefill = completion[:prefill_length]
        assert batch["tool_mask"][row, :prefill_length].eq(0).all() and batch["tool_mask"][row, prefill_length] == 1
        assert tokenizer.decode(prefill) in ROUND_PREFILLS
        prompt = unpadded(batch["prompt_ids"][row], batch["prompt_mask"][row])
        assert vllm_prompts is None or tuple(prompt + prefill) in vllm_prompts
    return regenerated


def test_feedback_turns_through_vllm_route_as_transformers(tmp_path, colocate, vllm_model_dir, tiny_tokenizer):
    """The same scripted run on vLLM colocate and on transformers generation: one vLLM call per turn (all rows of
    the turn), the injected prefill handed to vLLM as prompt tokens and masked out of the loss, the same routes and
    metrics."""
    on_vllm, vllm_calls, batch = oracle_run(tmp_path / "vllm", vllm_model_dir, tiny_tokenizer, **VLLM)
    reference, transformers_calls, _ = oracle_run(tmp_path / "transformers", vllm_model_dir, tiny_tokenizer)

    assert [rows for _, rows in vllm_calls] == [rows for _, rows in transformers_calls] == [14, 8, 4]
    assert [len(prompts) for prompts, _ in colocate.generate_calls] == [14, 8, 4]  # what reached vLLM, unbatched
    # FCO's score gap is float noise of summed scores, a few 1e-6 (the policy's side in the joined loss batch).
    assert mulferl_metrics(on_vllm) == pytest.approx(mulferl_metrics(reference), abs=1e-5)
    assert mulferl_metrics(on_vllm)["mulferl/route/fco"] == pytest.approx(2 / 7)
    vllm_prompts = {tuple(ids) for prompts, _ in colocate.generate_calls[1:] for ids in prompts}
    # fco_turn1 and grpo_turn1 rows at turn 1, fco_turn2 and unresolved rows at turn 2: 8 rows with feedback.
    assert check_prefill_is_prompt_and_masked(batch, vllm_prompts, tiny_tokenizer) == 8
    assert "sampling/importance_sampling_ratio/mean" in on_vllm.state.log_history[0]  # TRL's vLLM path ran


@pytest.mark.parametrize("importance_sampling", [True, False])
def test_fco_scores_are_a_training_forward(tmp_path, colocate, vllm_model_dir, tiny_tokenizer, importance_sampling):
    """At the first step the policy is the reference, so FCO scores from a forward of the trained model are all 0:
    the loss is log 2 and the score gap 0. Scores from vLLM's log-probs (of bf16 weights, after temperature) would
    differ from the reference by about 1e-3 per token."""
    trainer = MulFeRLTrainer(
        model=vllm_model_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "max_steps": 1},
            **VLLM,
            output_dir=str(tmp_path),
            vllm_importance_sampling_correction=importance_sampling,
        ),
        train_dataset=make_dataset(),
        processing_class=tiny_tokenizer,
        feedback_provider=marker_provider,
    )
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    assert logged(trainer, "mulferl/fco/pairs") == [4.0]
    assert logged(trainer, "mulferl/fco/loss")[0] == pytest.approx(math.log(2), abs=1e-6)
    assert logged(trainer, "mulferl/fco/score_gap")[0] == pytest.approx(0.0, abs=1e-6)
    if importance_sampling:  # vLLM's own log-probs are another model's: FCO must not use them
        assert logged(trainer, "sampling/sampling_logp_difference/mean")[0] > 1e-5


def test_context_too_short_for_a_feedback_turn_names_the_setting(tmp_path, colocate, vllm_model_dir, tiny_tokenizer):
    """A context that holds turn 0 but not a feedback turn's prompt + prefill + completion: a clear error before
    generation, not vLLM's traceback."""
    dataset = make_dataset()
    prompt_length = max(
        len(tiny_tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True)["input_ids"])
        for row in dataset
    )
    context = prompt_length + TINY_TRAINING["max_completion_length"]
    trainer = MulFeRLTrainer(
        model=vllm_model_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "max_steps": 1}, **VLLM, output_dir=str(tmp_path), vllm_max_model_length=context
        ),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=marker_provider,
    )
    with pytest.raises(ValueError, match=rf"max_model_len of {context}\. Set vllm_max_model_length to at least"):
        trainer.train()
    assert len(colocate.generate_calls) == 1  # turn 0 ran; the feedback turn stopped before vLLM


def test_igrpo_drafts_and_stage_2_through_vllm(tmp_path, colocate, vllm_model_dir, tiny_tokenizer):
    """Stage 1's drafts and Stage 2's completions are both vLLM generations; Stage 2's prompts hold a Stage 1 draft."""
    num_drafts, group_size = 3, 2
    dataset = Dataset.from_list([{"prompt": make_conversation(f"What is {i} + 1?")} for i in range(4)])
    trainer = IGRPOTrainer(
        model=vllm_model_dir,
        reward_funcs=lambda completions, **kwargs: [float(len(str(c)) % 3 == 0) for c in completions],
        args=IGRPOConfig(
            **{**TINY_TRAINING, "num_generations": group_size, "max_steps": 1},
            **VLLM,
            output_dir=str(tmp_path),
            num_drafts=num_drafts,
            max_draft_length=6,
        ),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
    )
    trainer.train()

    (draft_prompts, drafts), (stage_2_prompts, _) = colocate.generate_calls
    assert (len(drafts), len(stage_2_prompts)) == (2 * num_drafts, 2 * group_size)  # 2 prompts per step
    for prompt_index in range(2):
        own_drafts = drafts[prompt_index * num_drafts : (prompt_index + 1) * num_drafts]
        kept = [tiny_tokenizer.decode(ids[:6], skip_special_tokens=True) for ids in own_drafts]
        for prompt in stage_2_prompts[prompt_index * group_size : (prompt_index + 1) * group_size]:
            conditioned = tiny_tokenizer.decode(prompt, skip_special_tokens=True)
            assert any(DEFAULT_DRAFT_TEMPLATE.format(draft=draft) in conditioned for draft in kept)
            assert DEFAULT_DRAFT_TEMPLATE.split("{draft}")[0] not in tiny_tokenizer.decode(draft_prompts[0])
    assert len(logged(trainer, "igrpo/best_draft_reward")) == 1


def test_eval_command_on_the_vllm_backend(tmp_path, monkeypatch, vllm_model_dir, tiny_tokenizer):
    """`trl-mulferl eval --backend vllm` on a slice of 3 problems, 2 samples, one turn of test-time feedback: the
    feedback's prefill reaches vLLM as prompt tokens and heads the revised response."""
    import vllm

    from trl_mulferl.evaluation.cli import main

    problems = tmp_path / "problems.jsonl"
    rows = [{"problem": f"What is {i} + {i}?", "answer": str(2 * i)} for i in range(4)]
    problems.write_text("".join(json.dumps(row) + "\n" for row in rows))
    engines = SharedEngines()
    monkeypatch.setattr(vllm, "LLM", engines)  # eager, and its generate calls recorded
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the engine in this process, like TRL's colocate
    output = tmp_path / "eval"
    argv = ["--model", vllm_model_dir, "--benchmarks", f"math500={problems}", "--limit", "3", "--num_samples", "2"]
    argv += ["--max_tokens", "8", "--max_model_len", "512", "--backend", "vllm", "--output_dir", str(output)]
    main([*argv, "--feedback_turns", "1", "--feedback_provider", "tests.helpers.trainer:marker_provider"])

    summary = json.loads((output / "summary.json").read_text())
    metrics = summary["benchmarks"]["math500"]
    assert metrics["problems"] == 3 and metrics["num_samples"] == 2
    records = [json.loads(line) for line in (output / "samples.jsonl").read_text().splitlines()]
    first, revised = [r for r in records if r["turn"] == 0], [r for r in records if r["turn"] == 1]
    assert len(first) == 6 and len(revised) == sum(r["verdict"] is not True for r in first) > 0
    assert [len(prompts) for prompts, _ in engines.generate_calls] == [6, len(revised)]
    prefill = feedback_prefill(sanitize_feedback(marker_provider("", [], [])))
    prefill_ids = tiny_tokenizer(prefill, add_special_tokens=False)["input_ids"]
    for record in revised:
        assert record["response"].startswith(prefill)
    for ids in engines.generate_calls[1][0]:
        assert ids[-len(prefill_ids) :] == prefill_ids


# ---------------------------------------------------------------------------------------------------------------------
# Server mode


def wait_until_healthy(url: str, process: subprocess.Popen, log: Path, timeout: float = 300.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"trl vllm-serve exited with code {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health/", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(2)
    pytest.fail(f"trl vllm-serve not healthy after {timeout:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def vllm_server(tmp_path, vllm_model_dir):
    """`trl vllm-serve` on 127.0.0.1, stopped (its process group) when the test ends, passed or not."""
    port, log = free_port(), tmp_path / "vllm-serve.log"
    command = [str(Path(sys.executable).parent / "trl"), "vllm-serve", "--model", vllm_model_dir]
    command += ["--host", "127.0.0.1", "--port", str(port), "--enforce_eager", "--dtype", "float32"]
    command += ["--max_model_len", "512"]
    with log.open("w") as output:
        process = subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **CPU_ENVIRONMENT},
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, log)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_feedback_turns_through_trl_vllm_serve(tmp_path, monkeypatch, vllm_server, vllm_model_dir, tiny_tokenizer):
    """Generation and routing through `trl vllm-serve`: the same routes and metrics as on transformers generation.

    TRL's server weight sync is skipped (its communicator and `sync_weights` made no-ops): it broadcasts the weights
    over NCCL, which needs CUDA, so the server keeps the initial weights. Routing is scripted, so the routes do not
    depend on them; the sync itself is checked by scripts/gpu_check.py on a GPU.
    """
    from trl.generation.vllm_client import VLLMClient
    from trl.generation.vllm_generation import VLLMGeneration

    monkeypatch.setattr(VLLMClient, "init_communicator", lambda self, device=0: None)
    monkeypatch.setattr(VLLMGeneration, "sync_weights", lambda self: None)
    server = {"use_vllm": True, "vllm_mode": "server", "vllm_server_base_url": vllm_server}
    on_server, calls, batch = oracle_run(tmp_path / "server", vllm_model_dir, tiny_tokenizer, **server)
    reference, _, _ = oracle_run(tmp_path / "transformers", vllm_model_dir, tiny_tokenizer)

    assert [rows for _, rows in calls] == [14, 8, 4]
    assert mulferl_metrics(on_server) == pytest.approx(mulferl_metrics(reference), abs=1e-5)  # FCO: float noise
    assert check_prefill_is_prompt_and_masked(batch, None, tiny_tokenizer) == 8


# ---------------------------------------------------------------------------------------------------------------------
# Two processes: vLLM colocate under ZeRO-3, one process with a feedback turn (and FCO partners) every step


TWO_PROCESS_SCRIPT = Path(__file__).parents[1] / "helpers" / "scripts" / "two_process_vllm.py"


@pytest.fixture(scope="module")
def zero3_launch(tmp_path_factory):
    """One launch of both runs (`mulferl`, then `mulferl_fco`) on 2 CPU processes; what it printed if it failed."""
    output = tmp_path_factory.mktemp("two-process-vllm")
    command = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", "zero3.yaml"]
    command += [str(TWO_PROCESS_SCRIPT), str(output), "mulferl", "mulferl_fco"]
    try:  # a timeout, not a hang: a rank that skips a collective the other runs blocks forever
        completed = subprocess.run(
            command,
            cwd=Path(__file__).parents[1] / "helpers" / "engine_configs",
            env={**os.environ, "OMP_NUM_THREADS": "1"},
            capture_output=True,
            text=True,
            timeout=420,
        )
        outcome = "" if completed.returncode == 0 else completed.stderr[-4000:]
    except subprocess.TimeoutExpired:
        outcome = "timed out"
    return output, outcome


def two_process_results(launch, run: str) -> list[dict]:
    """Both ranks' results of `run` in a 2-process launch, `(output folder, outcome)` (`launch_pair`)."""
    output, outcome = launch
    files = [output / run / f"result_rank{rank}.json" for rank in (0, 1)]
    if not all(file.exists() for file in files):
        pytest.fail(f"the launch stopped before `{run}` finished:\n{outcome}")
    return [json.loads(file.read_text()) for file in files]


def check_two_process_run(results):
    for rank, result in enumerate(results):
        engine = result["engine"]
        assert engine["num_processes"] == 2 and engine["process_index"] == rank
        assert engine["deepspeed"] and engine["zero_stage"] == 3 and engine["local_parameter_fraction"] < 1
    # vLLM colocate (one engine per process, TP 1) generates without a collective: rank 0, which needs no feedback
    # turn, generates turn 0 only; rank 1 regenerates its 4 failed rows at each of the 2 steps.
    assert [result["generate_calls"] for result in results] == [[4, 4], [4, 4, 4, 4]]
    for result in results:
        assert [entry["mulferl/route/fco"] for entry in result["log_history"] if "mulferl/route/fco" in entry] == [
            0.5,
            0.5,
        ]
    assert results[0]["parameters"] == results[1]["parameters"]


def test_two_processes_zero3_vllm_colocate(zero3_launch):
    """ZeRO-3 (every parameter partitioned) + vLLM colocate (TRL's external_launcher, one engine per process) on 2 CPU
    processes, FCO off: both steps run, the same weights on both ranks, the same routes."""
    check_two_process_run(two_process_results(zero3_launch, "mulferl"))


def test_two_processes_zero3_vllm_colocate_fco(zero3_launch):
    """The paper recipe's shape: ZeRO-3 + vLLM colocate + FCO, one process needing FCO every step and the other never.

    No policy log-probs come from vLLM; FCO scores the policy in the loss's own forward (H1), so neither process runs
    a forward the other skips (before, DeepSpeed stopped both: "Detected a disagreement on list contents")."""
    check_two_process_run(two_process_results(zero3_launch, "mulferl_fco"))


# ---------------------------------------------------------------------------------------------------------------------
# The feature x engine matrix's vLLM colocate column: tests/helpers/scripts/two_process_matrix.py --vllm under ZeRO-3 (the
# recipes' engine), with TORCH_DISTRIBUTED_DEBUG=DETAIL, in one launch. Rank 0's groups never fail, rank 1's always
# do; colocate generation is not collective, so rank 0 makes no regeneration call.

VLLM_MATRIX_RUNS = ("openai", "self", "column_tools", "environment", "igrpo")


@pytest.fixture(scope="module")
def vllm_matrix(tmp_path_factory):
    """The output folder and "" when both processes exited cleanly, else why not."""
    output = tmp_path_factory.mktemp("vllm-matrix")
    return output, launch_pair(MATRIX, "zero3", [str(output), *VLLM_MATRIX_RUNS, "--vllm"], {}, 420)


def vllm_calls(results: list[dict]) -> list[list[int]]:
    return [result["vllm_generate_calls"] for result in results]


def test_vllm_matrix_launch_finishes(vllm_matrix):
    two_process_results(vllm_matrix, VLLM_MATRIX_RUNS[-1])
    assert vllm_matrix[1] == ""


def test_vllm_matrix_openai_provider_fco_replay_and_evaluation_without_a_problem(vllm_matrix):
    """The OpenAI provider (a local server), FCO (permutation) and feedback_replay on vLLM; one evaluation problem:
    rank 1 joins rank 0's transformers `generate` (collective under ZeRO-3) with a dummy."""
    results = two_process_results(vllm_matrix, "openai")
    logs = check_matrix_cell("zero3", results, ROUTE_KEYS + FCO_KEYS)
    check_varied_lengths(logs)
    for entry in logs:
        assert (entry["mulferl/route/grpo"], entry["mulferl/route/fco"]) == (0.5, 0.5)
        assert (entry["mulferl/feedback/requests"], entry["mulferl/feedback/errors"]) == (2.0, 0.0)
        assert entry["mulferl/replayed_rows"] == 4.0
    assert [result["requests"] for result in results] == [0, 2 * 2]
    assert vllm_calls(results) == [[4, 4], [4, 4, 4, 4]]  # turn 0 per step; rank 1 also regenerates its 4 rows
    assert len(evaluation_logs(results[0])) == 2 and evaluation_logs(results[0]) == evaluation_logs(results[1])
    assert [result["evaluation_requests"] for result in results] == [[1, 1], [1, 1]]


def test_vllm_matrix_self_feedback_failing_on_one_process_and_uneven_evaluation(vllm_matrix):
    """Self-feedback (its writer generates with transformers) and FCO (all pairs) on vLLM; rank 1's provider fails at
    step 1, so rank 1 regenerates at step 2 only; 3 evaluation problems, padded to 2 each."""
    results = two_process_results(vllm_matrix, "self")
    logs = check_matrix_cell("zero3", results)
    check_varied_lengths(logs)
    assert [entry["mulferl/feedback/requests"] for entry in logs] == [2.0, 2.0]
    assert logs[0]["mulferl/feedback/errors"] == 2.0 and logs[0]["mulferl/route/unresolved"] == 0.5
    assert logs[1]["mulferl/route/fco"] > 0
    # Rank 1 regenerates at step 2 only, the 2 rows of each group whose review was written.
    reviewed = logs[1]["mulferl/feedback/requests"] - logs[1]["mulferl/feedback/errors"]
    assert vllm_calls(results) == [[4, 4], [4, 4, 2 * reviewed]]
    assert len(evaluation_logs(results[0])) == 2 and evaluation_logs(results[0]) == evaluation_logs(results[1])
    assert [result["evaluation_requests"] for result in results] == [[2, 2], [2, 2]]


def test_vllm_matrix_column_provider_with_tools(vllm_matrix):
    """The column provider's hint regenerates rank 1's tool episodes through TRL's tool loop on vLLM (not refused:
    colocate generation is not collective): 3 vLLM calls per step on rank 1 against rank 0's 2."""
    results = two_process_results(vllm_matrix, "column_tools")
    logs = check_matrix_cell("zero3", results)
    expected = {"mulferl/route/solved_skip": 0.5, "mulferl/route/fco": 0.5, "mulferl/tools/calls": 4.0}
    assert [{key: entry[key] for key in expected} for entry in logs] == [expected] * 2
    assert vllm_calls(results) == [[4] * 4, [4] * 6]


def test_vllm_matrix_environment_factory(vllm_matrix):
    results = two_process_results(vllm_matrix, "environment")
    logs = check_matrix_cell("zero3", results)
    expected = {"mulferl/route/solved_skip": 0.5, "mulferl/route/fco": 0.5, "mulferl/feedback/requests": 2.0}
    assert [{key: entry[key] for key in expected} for entry in logs] == [expected] * 2
    assert results[0]["tried"] == [["0"]] * 4
    assert results[1]["tried"] == [["7"], ["7"], ["5"], ["5"]]
    assert vllm_calls(results) == [[4] * 4, [4] * 8]


def test_vllm_matrix_igrpo(vllm_matrix):
    """iGRPO's drafts and Stage 2 through vLLM, rewards differing between ranks: the same weights and metrics."""
    results = two_process_results(vllm_matrix, "igrpo")
    for result in results:
        check_engine_is_zero3(result["engine"])
    assert results[0]["parameters"] == results[1]["parameters"]
    assert results[0]["moved"] > 1e-4
    logs = [[entry for entry in result["log_history"] if "igrpo/best_draft_reward" in entry] for result in results]
    computed = [[{k: v for k, v in entry.items() if k != "step_time"} for entry in rank_logs] for rank_logs in logs]
    assert len(logs[0]) == 2 and computed[0] == computed[1]
    assert [result["generation_calls"] for result in results] == [[6, 4, 6, 4]] * 2  # 2 x 3 drafts, 2 x 2 rows
    check_varied_lengths(logs[0][:1])  # Stage 2 of step 1 (at step 2 the trained policy wrote 8 tokens every time)


def check_engine_is_zero3(facts: dict):
    assert facts["num_processes"] == 2 and facts["deepspeed"] and facts["zero_stage"] == 3
    assert facts["local_parameter_fraction"] == pytest.approx(0.5, abs=0.02)


def test_overhead_benchmark_on_vllm_smoke(tmp_path):
    """`benchmarks/overhead.py --vllm --smoke` runs end to end, each trainer generating through its vLLM engine."""
    output = tmp_path / "overhead.json"
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "overhead.py"
    command = [sys.executable, str(script), "--smoke", "--vllm", "--regimes", "slow_reward", "--json", str(output)]
    completed = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=420
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(output.read_text())["slow_reward"]
    assert result["settings"]["vllm"] and result["settings"]["hidden_size"] == 128
    # As on transformers generation: 3 generation calls, 16 + 4 + 8 rows scored, every completion 8 tokens long.
    assert result["generation_calls"] == 3 and result["grpo"]["generation_calls"] == 1
    assert result["reward_rows"] == result["expected_reward_rows"] == 28
    assert result["token_ratio"] == 28 / 16
