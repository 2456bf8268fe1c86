"""AsyncMulFeRLTrainer: MulFeRL's feedback turns in the rollout process of TRL's AsyncGRPOTrainer.

The config tests run everywhere. The tests marked `vllm` train against a real `vllm serve` (vLLM's CPU build) that the
module starts once, with TRL's two GPU assumptions replaced for the test (tests/helpers/async_cpu.py) and the weights synced
through the disk (NCCL needs CUDA): every run begins with a sync of its initial weights, so runs do not see each
other's policy.
"""

import json
import math
import queue
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from datasets import Dataset
from transformers import TrainerCallback

from tests.helpers.trainer import CPU, SCRIPTED_REWARDS, K, completion_texts, round_provider, scripted_reward, turn_of
from trl_mulferl import AsyncMulFeRLConfig, MulFeRLConfig, make_conversation
from trl_mulferl.async_mulferl.async_mulferl_trainer import window_counts
from trl_mulferl.core.metrics import FCO_PAIRS
from trl_mulferl.core.schema import control_tokens, feedback_prefill, sanitize_feedback
from trl_mulferl.core.summary import run_summary


def test_config_shares_the_feedback_fields_of_mulferl_config(tmp_path):
    """The feedback fields have MulFeRLConfig's defaults and help, and its checks."""
    config = AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2)
    names = ("max_feedback_turns", "max_feedback_length", "feedback_group_size", "success_threshold", "fco_weight")
    for name in (*names, "fco_tau", "fco_margin", "fco_score_normalization", "fco_pairing"):
        assert getattr(config, name) == MulFeRLConfig.__dataclass_fields__[name].default
        assert (
            AsyncMulFeRLConfig.__dataclass_fields__[name].metadata == MulFeRLConfig.__dataclass_fields__[name].metadata
        )
    assert config.fco_enabled
    with pytest.raises(ValueError, match="fco_tau must be > 0"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, fco_tau=0.0)
    with pytest.raises(ValueError, match="max_feedback_length must be >= 1 token"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, max_feedback_length=0)
    with pytest.raises(ValueError, match="feedback_provider='openai' needs feedback_model"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="openai")
    with pytest.raises(ValueError, match="num_generations must be >= 2"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=1)


def test_config_keeps_the_feedback_endpoints_credentials_out_of_logs(tmp_path):
    import torch

    url = "https://user:secret-password@example.com/v1?key=secret-password"
    config = AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_base_url=url)
    assert config.feedback_base_url == url  # the rollout process still reaches the endpoint
    for shown in (repr(config), str(config), json.dumps(config.to_dict(), default=str)):
        assert "secret-password" not in shown
    torch.save(config, tmp_path / "training_args.bin")  # as Trainer.save_model writes it
    assert b"secret-password" not in (tmp_path / "training_args.bin").read_bytes()
    with pytest.raises(ValueError, match="feedback_api_key_env must be the name") as error:
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_api_key_env="sk-Abc123Def456Ghi789Jkl")
    assert "Abc123" not in str(error.value)


def test_a_logging_window_gives_the_run_counts():
    """The async trainer's window, as its `log` holds it: the rollout process's counts summed, its rates as
    `(numerator, denominator)` per group, and the trained rows' routes, a rate per row (K = 2 rows a prompt): 3
    prompts trained, one of each of GRPO, FCO and solved."""
    routes = {"grpo": [1, 1, 0, 0, 0, 0], "fco": [0, 0, 1, 1, 0, 0], "solved_skip": [0, 0, 0, 0, 1, 1]}
    metrics = {
        "mulferl/feedback/requests": [5.0],
        "mulferl/feedback/prompt_tokens": [500.0],
        "mulferl/feedback/completion_tokens": [100.0],
        "mulferl/feedback/latency_s": [(2.0, 3.0), (1.5, 2.0)],
        "mulferl/regenerated_tokens": [40.0],
        "mulferl/turn_0/success_rate": [(1.0, 2.0), (0.0, 2.0), (2.0, 2.0)],
        "mulferl/turn_0/varied_groups": [1.0],
        "mulferl/turn_0/failed_groups": [1.0],
        "mulferl/turn_1/failed_groups": [0.0],
        "mulferl/turn_1/reached_groups": [1.0],
        **{
            f"mulferl/route/{r}": [(float(v), 1.0) for v in routes.get(r, [0] * 6)]
            for r in ("grpo", "fco", "solved_skip", "unresolved", "unscorable")
        },
    }
    counts = window_counts(metrics, group_size=2, max_feedback_turns=2)
    assert counts == {
        "feedback/requests": 5.0,
        "feedback/prompt_tokens": 500.0,
        "feedback/completion_tokens": 100.0,
        "feedback/latency_sum": 3.5,
        "regenerated_tokens": 40.0,
        "turn_0/successes": 3.0,
        "turn_0/scored_rows": 6.0,
        "turn_0/varied": 1.0,
        "turn_0/failed": 1.0,
        "turn_1/failed": 0.0,
        "turn_1/reached": 1.0,
        "turn_2/failed": 0,
        "turn_2/reached": 0,
        "route/grpo": 1.0,
        "route/fco": 1.0,
        "route/solved_skip": 1.0,
        "route/unresolved": 0.0,
        "route/unscorable": 0.0,
    }
    summary = run_summary(counts, fco_trains=True, cost=None)
    assert (summary.groups, summary.gradient_groups, summary.grpo_gradient_groups) == (3, 2, 1)
    assert summary.rescued == {1: (1, 1), 2: (0, 0)}


def test_config_refuses_self_feedback(tmp_path):
    with pytest.raises(ValueError, match="feedback_provider='self' is not available in AsyncMulFeRLConfig"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="self")


# ---------------------------------------------------------------------------------------------------------------------
# Against a real vLLM server

KINDS = list(SCRIPTED_REWARDS)
ASYNC_TRAINING = {
    "per_device_train_batch_size": 2 * K,
    "num_generations": K,
    "max_completion_length": 8,
    "learning_rate": 1e-2,
    "logging_steps": 1,
    "save_strategy": "no",
    "report_to": "none",
    "use_cpu": True,
    "bf16": False,
    "seed": 0,
    "token_budget": 0,  # a fixed count of samples per micro-batch
    "max_staleness": 8,
    "max_inflight_tasks": 8,
    "activation_checkpointing": False,
}


def read_step(step_file: str) -> int:
    try:
        return int(Path(step_file).read_text())
    except (FileNotFoundError, ValueError):
        return 0


def step_gated_provider(prompt, completions, rewards, step_file, log_file, **columns):
    """`round_provider`'s feedback, given only once the trainer has taken `GATE_STEPS` more optimizer steps (or after
    `GATE_TIMEOUT_S`): a provider that cannot answer unless training goes on without it."""
    start, first = time.monotonic(), read_step(step_file)
    while read_step(step_file) < first + GATE_STEPS and time.monotonic() - start < GATE_TIMEOUT_S:
        time.sleep(0.05)
    with open(log_file, "a") as log:
        log.write(json.dumps({"first": first, "last": read_step(step_file), "seconds": time.monotonic() - start}))
        log.write("\n")
    return round_provider(prompt, completions, rewards, **columns)


GATE_STEPS, GATE_TIMEOUT_S = 1, 120.0


class StopAtFeedbackRow(TrainerCallback):
    """Stops training after the step that trained a row regenerated after feedback."""

    def __init__(self, consumed: list, tokenizer):
        self.consumed, self.tokenizer = consumed, tokenizer

    def on_step_end(self, args, state, control, **kwargs):
        if any(turn_of(self.tokenizer.decode(sample["input_ids"].tolist())) for sample in self.consumed):
            control.should_training_stop = True


class StepFile(TrainerCallback):
    """Writes the trainer's global step to a file after each optimizer step, for `step_gated_provider`."""

    def __init__(self, path: Path):
        self.path = path

    def on_step_end(self, args, state, control, **kwargs):
        self.path.with_suffix(".tmp").write_text(str(state.global_step))
        self.path.with_suffix(".tmp").replace(self.path)


@pytest.fixture(scope="module")
def async_model_dir(tmp_path_factory, tiny_tokenizer):
    """The tests' tiny model 128 wide (vLLM's CPU attention takes head sizes from 32 up)."""
    from trl_mulferl.tiny import build_qwen2

    path = tmp_path_factory.mktemp("async-model")
    build_qwen2(tiny_tokenizer, hidden_size=128, num_layers=2).save_pretrained(path)
    tiny_tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory, async_model_dir):
    from tests.helpers.async_cpu import VLLMServer

    # Priority scheduling, as the docs recommend: regenerations go first (the other modules' servers are FCFS).
    log = tmp_path_factory.mktemp("vllm-serve") / "vllm-serve.log"
    server = VLLMServer(async_model_dir, log, scheduling_policy="priority")
    try:
        server.wait_until_healthy()
        yield server
    finally:
        server.stop()


class RecordingQueue:
    """The trainer's end of the rollout queue, keeping every `RolloutSample` it hands out in `received`."""

    def __init__(self, rollout_queue, received: list):
        self.rollout_queue, self.received = rollout_queue, received

    def get(self, *args, **kwargs):
        sample = self.rollout_queue.get(*args, **kwargs)
        self.received.append(sample)
        return sample

    def __getattr__(self, name):
        return getattr(self.rollout_queue, name)


def train_recording(
    tmp_path,
    server,
    model_dir,
    dataset,
    provider,
    callbacks=None,
    consumed=None,
    reward_funcs=scripted_reward,
    received=None,
    **overrides,
):
    """Train an AsyncMulFeRLTrainer; returns it and every sample it took from the rollout queue, in order (appended
    to `consumed` as they come; the `RolloutSample`s themselves to `received`)."""
    from trl.experimental.async_grpo import async_grpo_trainer

    from tests.helpers.async_cpu import DiskWeightTransfer, cpu_substitutions
    from trl_mulferl import AsyncMulFeRLTrainer

    consumed = [] if consumed is None else consumed
    queue_iter = async_grpo_trainer.RolloutQueueDataset.__iter__

    def recording_iter(self):
        if received is not None:
            self.queue = RecordingQueue(self.queue, received)
        for sample in queue_iter(self):
            consumed.append(sample)
            yield sample

    settings = {**ASYNC_TRAINING, **overrides}
    args = AsyncMulFeRLConfig(output_dir=str(tmp_path), vllm_server_base_url=server.url, **settings)
    async_grpo_trainer.RolloutQueueDataset.__iter__ = recording_iter
    try:
        with cpu_substitutions():
            trainer = AsyncMulFeRLTrainer(
                model=model_dir,
                reward_funcs=reward_funcs,
                args=args,
                train_dataset=dataset,
                weight_transfer=DiskWeightTransfer(server.url, str(tmp_path / "weights")),
                feedback_provider=provider,
                callbacks=callbacks,
            )
            trainer.train()
    finally:
        async_grpo_trainer.RolloutQueueDataset.__iter__ = queue_iter
    return trainer, consumed


def kinds_dataset(kinds) -> Dataset:
    return Dataset.from_list([{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in kinds])


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory, vllm_server, async_model_dir):
    """The three-turn oracle of tests/mulferl/test_mulferl_trainer.py: 7 prompts down every branch of Algorithm 1."""
    tmp_path = tmp_path_factory.mktemp("async-oracle")
    return train_recording(tmp_path, vllm_server, async_model_dir, kinds_dataset(KINDS), round_provider, max_steps=8)


def prefills(tokenizer) -> dict[int, list[int]]:
    """Per turn, the token ids of the prefill `round_provider`'s feedback makes."""
    texts = {turn: round_provider("", [text], []) for turn, text in ((1, ""), (2, "ROUND1"))}
    return {
        turn: tokenizer(
            feedback_prefill(sanitize_feedback(text, control_tokens(tokenizer))),
            add_special_tokens=False,
            split_special_tokens=True,
        )["input_ids"]
        for turn, text in texts.items()
    }


@pytest.mark.vllm
def test_failed_group_is_regenerated_with_the_prefill_masked(oracle_run, tiny_tokenizer):
    """A regenerated row is its prompt, the prefill (mask 0, log-prob 0: context), then the continuation the server
    generated from prompt + prefill (mask 1, its sampling log-probs), with the whole continuation budget."""
    _, consumed = oracle_run
    prefill_ids = prefills(tiny_tokenizer)
    regenerated = 0
    for sample in consumed:
        kind = KINDS[sample["group_id"] % len(KINDS)]
        prompt = make_conversation(f"Question {kind}?")
        prompt_ids = tiny_tokenizer.apply_chat_template(prompt, add_generation_prompt=True, return_dict=False)
        ids, mask, logps = (sample[key].tolist() for key in ("input_ids", "completion_mask", "old_log_probs"))
        assert ids[: len(prompt_ids)] == prompt_ids and not any(mask[: len(prompt_ids)])
        completion, completion_mask = ids[len(prompt_ids) :], mask[len(prompt_ids) :]
        turn = turn_of(tiny_tokenizer.decode(completion))
        generated = completion
        if turn:
            regenerated += 1
            prefill = prefill_ids[turn]
            assert completion[: len(prefill)] == prefill
            assert completion_mask[: len(prefill)] == [0] * len(prefill)  # token by token
            assert logps[len(prompt_ids) : len(prompt_ids) + len(prefill)] == [0.0] * len(prefill)
            generated = completion[len(prefill) :]
        assert completion_mask[len(completion) - len(generated) :] == [1] * len(generated)
        assert all(logp < 0 for logp in logps[len(ids) - len(generated) :])
        ends_on_eos = generated[-1] == tiny_tokenizer.eos_token_id
        assert len(generated) == ASYNC_TRAINING["max_completion_length"] or (ends_on_eos and len(generated) <= 8)
    assert regenerated > 0


@pytest.mark.vllm
def test_routes_follow_the_scripted_rewards(oracle_run, tiny_tokenizer):
    """Each prompt is trained on the turn that ends its trajectory: with TRL's advantages when its group is mixed
    (GRPO), with advantage 0 otherwise (solved at turn 0, solved after feedback: FCO, unresolved, unscorable)."""
    trainer, consumed = oracle_run
    expected = {  # kind: (the turn its rows come from, whether they carry an advantage)
        "solved_skip": (0, False),
        "grpo_turn0": (0, True),
        "grpo_turn1": (1, True),
        "fco_turn1": (1, False),
        "fco_turn2": (2, False),
        "unresolved": (2, False),
        "unscorable": (0, False),
    }
    seen = set()
    for sample in consumed:
        kind = KINDS[sample["group_id"] % len(KINDS)]
        turn, trained = expected[kind]
        assert turn_of(tiny_tokenizer.decode(sample["input_ids"].tolist())) == turn, kind
        assert (sample["advantage"] != 0) == trained, kind
        if trained:  # TRL's (r - mean) / (std + 1e-8) over the scripted rewards [1, 0]
            assert abs(sample["advantage"]) == pytest.approx(1.0, abs=1e-6)
        seen.add(kind)
        pairs = sample["metrics"].get(FCO_PAIRS)
        if pairs is not None:  # a positive of an FCO prompt, carrying its pair's negative (the permutation pairing)
            (negative,) = pairs["negatives"]
            assert turn_of(tiny_tokenizer.decode(negative["input_ids"].tolist())) == turn - 1, kind
            assert negative["advantage"] == 0 and pairs["pair_weight"] == 1 / K
            seen.add(f"{kind} carrier")
    assert {"grpo_turn0", "grpo_turn1"} <= seen
    assert {"fco_turn1 carrier", "fco_turn2 carrier"} <= seen
    history = trainer.state.log_history
    assert sum(entry.get("mulferl/fco/pairs", 0) for entry in history) > 0
    routes = [entry for entry in history if "mulferl/route/grpo" in entry]
    assert routes and all(
        sum(entry[f"mulferl/route/{r}"] for r in ("grpo", "fco", "solved_skip", "unresolved", "unscorable"))
        == pytest.approx(1.0)
        for entry in routes
    )
    requests = sum(entry.get("mulferl/feedback/requests", 0) for entry in history if "train_runtime" not in entry)
    assert requests > 0
    assert history[-1]["mulferl/feedback/total_requests"] >= requests  # the bill over the run
    assert 0 < history[-1]["mulferl/total_gradient_share"] <= 1  # the run's summary
    assert [key for entry in history for key, value in entry.items() if value is None] == []


@pytest.mark.vllm
def test_the_model_card_tells_what_feedback_bought(oracle_run, async_model_dir):
    trainer, _ = oracle_run
    trainer.create_model_card(dataset_name="./data/kinds")
    card = (Path(trainer.args.output_dir) / "README.md").read_text()
    assert "None" not in card and f"\n# Model Card for {Path(trainer.args.output_dir).name}\n" in card
    assert f"of the local model `{async_model_dir}` on the local dataset `./data/kinds`." in card
    assert "| `max_feedback_turns` | 2 |" in card and "| `num_generations` | 2 |" in card
    history = trainer.state.log_history
    rescued = int(history[-1]["mulferl/turn_1/total_rescued_groups"])
    assert f"\n- feedback turn 1: rescued {rescued} of the " in card
    assert f"\n- prompts with a gradient: {history[-1]['mulferl/total_gradient_share']:.1%} (" in card
    links = re.findall(r"\]\(([^)]*)\)", card)
    assert links and all(link.startswith("https://") and "huggingface.co" not in link for link in links), links


@pytest.mark.vllm
def test_reward_metrics_describe_turn_0(oracle_run):
    """TRL's `reward` metrics of the rows trained are their prompt's turn-0 rewards (decision 9), as in MulFeRLTrainer,
    so runs compare with AsyncGRPO; `mulferl/reward_final` is the reward of the rows trained."""
    from trl_mulferl.async_mulferl.async_samples import opened_sample

    trainer, consumed = oracle_run
    rewards = defaultdict(list)
    for sample in consumed:  # as the trainer's queue hands them to TRL's planner, whose collator logs their metrics
        rewards[sample["group_id"]].append(opened_sample(sample)["metrics"]["reward"])
    regenerated = 0
    for group_id, group_rewards in rewards.items():
        kind = KINDS[group_id % len(KINDS)]
        turn0 = [math.nan if reward is None else reward for reward in SCRIPTED_REWARDS[kind][0]]
        if len(group_rewards) == K:
            assert sorted(group_rewards) == pytest.approx(sorted(turn0), nan_ok=True), kind
            regenerated += len(SCRIPTED_REWARDS[kind]) > 1
    assert regenerated > 0
    final = [entry["mulferl/reward_final"] for entry in trainer.state.log_history if "mulferl/reward_final" in entry]
    assert max(final) > 0.5  # FCO prompts' rows, solved after feedback


@pytest.mark.vllm
def test_weights_sync_to_the_server(oracle_run, vllm_server, async_model_dir, tiny_tokenizer):
    """After training, the server samples from the trained policy: its log-probs of its own samples equal the
    trainer's (a plain forward of the trained weights), and differ from the initial model's. It reads the weights
    oracle_run left on the shared server, so it comes before every test that trains against that server."""
    import requests
    import torch
    from transformers import AutoModelForCausalLM

    trainer, _ = oracle_run
    prompt_ids = tiny_tokenizer.apply_chat_template(
        make_conversation("Question grpo_turn0?"), add_generation_prompt=True, return_dict=False
    )
    payload = {"model": async_model_dir, "prompt": prompt_ids, "max_tokens": 8, "temperature": 1.0, "seed": 1}
    choice = requests.post(
        f"{vllm_server.url}/v1/completions", json={**payload, "logprobs": 0, "return_token_ids": True}, timeout=60
    ).json()["choices"][0]
    ids, server_logps = choice["token_ids"], choice["logprobs"]["token_logprobs"]

    def logps(model):
        logits = model(torch.tensor([prompt_ids + ids])).logits[0, len(prompt_ids) - 1 : -1]
        return logits.log_softmax(-1).gather(1, torch.tensor(ids).unsqueeze(1)).squeeze(1).tolist()

    initial = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")
    trained = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")
    trained.load_state_dict(trainer.model.state_dict())
    with torch.no_grad():
        assert logps(trained) == pytest.approx(server_logps, abs=1e-4)
        assert max(abs(a - b) for a, b in zip(logps(initial), server_logps, strict=True)) > 1e-2
    assert trainer.weight_transfer.syncs == trainer.state.global_step + 1  # the initial sync, then one per step


@pytest.mark.vllm
def test_a_feedback_turn_over_the_servers_context_ends_its_group_unresolved(
    tmp_path, capfd, vllm_server, async_model_dir, tiny_tokenizer
):
    """A prompt that fits the server's context (512) at turn 0 but not with the feedback prefilled: its group ends
    unresolved and counted, with MulFeRLTrainer's message naming the server's setting and the length it needs (once),
    and the run goes on (vLLM would answer the regeneration with a bare 400, which fails the rollout process)."""

    def prompt_ids(question):
        return tiny_tokenizer.apply_chat_template(
            make_conversation(question), add_generation_prompt=True, return_dict=False
        )

    question, completion_length = "Question grpo_turn1?", ASYNC_TRAINING["max_completion_length"]
    while len(prompt_ids(question + " x")) + completion_length <= 512:
        question += " x"
    dataset = Dataset.from_list([{"prompt": make_conversation(question), "kind": "grpo_turn1"}])
    trainer, consumed = train_recording(tmp_path, vllm_server, async_model_dir, dataset, round_provider, max_steps=2)
    assert trainer.state.global_step == 2
    assert consumed and not any(turn_of(tiny_tokenizer.decode(sample["input_ids"].tolist())) for sample in consumed)
    history = trainer.state.log_history
    # Over the whole history: the rollout process sends its counts every second, and on a slow server all four
    # groups can reach the trainer in the run's last second, their counts then only in the final entry.
    assert sum(entry.get("mulferl/feedback/over_context", 0) for entry in history) >= 2
    assert all(entry["mulferl/route/unresolved"] == 1.0 for entry in history if "mulferl/route/unresolved" in entry)
    err = capfd.readouterr().err  # the rollout process's log
    assert err.count("A feedback turn's prompt does not fit vLLM's context") == 1
    assert "over vLLM's max_model_len of 512. Set the server's --max-model-len to at least" in err


@pytest.mark.vllm
def test_a_slow_feedback_provider_does_not_slow_the_steps(tmp_path, vllm_server, async_model_dir, tiny_tokenizer):
    """A provider that answers only after the trainer has taken another optimizer step: every request is answered
    (a trainer that waited for feedback would never get there), and the rows regenerated after it are trained (the
    run stops at the step that trains the first of them)."""
    step_file, log_file = tmp_path / "step", tmp_path / "requests.jsonl"
    rows = [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in ("grpo_turn0", "grpo_turn1")]
    dataset = Dataset.from_list([{**row, "step_file": str(step_file), "log_file": str(log_file)} for row in rows])
    consumed = []
    callbacks = [StepFile(step_file), StopAtFeedbackRow(consumed, tiny_tokenizer)]
    trainer, _ = train_recording(
        tmp_path, vllm_server, async_model_dir, dataset, step_gated_provider, callbacks, consumed, max_steps=60
    )
    requests = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert requests and all(r["last"] >= r["first"] + GATE_STEPS and r["seconds"] < GATE_TIMEOUT_S for r in requests)
    turns = [turn_of(tiny_tokenizer.decode(sample["input_ids"].tolist())) for sample in consumed]
    assert 1 in turns and 0 in turns  # rows regenerated after feedback, and turn-0 rows trained meanwhile
    assert trainer.state.global_step < 60


def expression_reply(count: int) -> str:
    """A long reviewer reply: `count` statements of an angle in degrees, each of which the leak guard reads and
    compares (about 0.3 ms each: its math-verify path is bounded per call, so the reply's length makes it slow)."""
    return "".join(f"Angle ${angle // 100}.{angle % 100:02d}^\\circ$ is off. " for angle in range(1000, 1000 + count))


SLOW_GUARD_EXPRESSIONS = 16_000


def long_reply_provider(prompt, completions, rewards, log_file, **columns):
    with open(log_file, "a") as log:
        log.write(json.dumps({"returned": time.time()}) + "\n")
    return expression_reply(SLOW_GUARD_EXPRESSIONS)


def timed_scripted_reward(completions, kind, log_file, **kwargs):
    """`scripted_reward`, logging when each group is scored (in the rollout process's event loop)."""
    with open(log_file[0], "a") as log:
        log.write(json.dumps({"kind": kind[0], "scored": time.time()}) + "\n")
    return scripted_reward(completions, kind)


class StopAfterFirstReply(TrainerCallback):
    """Stops training `seconds` after the provider's first reply."""

    def __init__(self, log_file: Path, seconds: float):
        self.log_file, self.seconds = log_file, seconds

    def on_step_end(self, args, state, control, **kwargs):
        if self.log_file.exists():
            replies = [json.loads(line) for line in self.log_file.read_text().splitlines() if "returned" in line]
            control.should_training_stop = bool(replies) and time.time() > replies[0]["returned"] + self.seconds


@pytest.mark.vllm
def test_the_leak_guard_does_not_stall_other_groups(tmp_path, vllm_server, async_model_dir, tiny_tokenizer):
    """A reviewer's long reply keeps the leak guard busy for seconds (timed here first); meanwhile the rollout process
    goes on scoring other prompts' groups, which it cannot while the guard holds its event loop (from the first second
    after the reply on, to leave the loop time to start the guard). The reply is longer than the server's context
    allows as a prefill, so its group then ends unresolved. One feedback slot serialises the guards; 64 generation
    places leave the other prompts room while the failed groups wait for it."""
    from trl_mulferl.feedback.prepare import prepare_feedback

    start = time.perf_counter()
    prepare_feedback(expression_reply(SLOW_GUARD_EXPRESSIONS), "42", tiny_tokenizer, 100_000, problem="Question?")
    guard_s = time.perf_counter() - start
    assert guard_s > 3.0
    log_file = tmp_path / "times.jsonl"
    rows = [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in ("unresolved", "grpo_turn0")]
    dataset = Dataset.from_list([{**row, "log_file": str(log_file), "solution": "42"} for row in rows])
    train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        dataset,
        long_reply_provider,
        [StopAfterFirstReply(log_file, guard_s)],
        max_steps=400,  # the callback ends the run, after the guard's window: on a fast machine 40 steps end before it
        max_feedback_length=100_000,
        reward_funcs=timed_scripted_reward,
        feedback_max_concurrency=1,
        max_open_trajectories=64,
    )
    events = [json.loads(line) for line in log_file.read_text().splitlines()]
    returned = min(event["returned"] for event in events if "returned" in event)
    during = [
        event
        for event in events
        if event.get("kind") == "grpo_turn0" and returned + 1.0 < event["scored"] < returned + 0.8 * guard_s
    ]
    assert len(during) >= 2, (guard_s, events)


def counting_provider(prompt, completions, rewards, calls_file, **columns):
    """`round_provider`, counting its calls in `calls_file`."""
    with open(calls_file, "a") as calls:
        calls.write("call\n")
    return round_provider(prompt, completions, rewards, **columns)


ROUTE_OF_KIND = {
    "solved_skip": "solved_skip",
    "grpo_turn0": "grpo",
    "grpo_turn1": "grpo",
    "fco_turn1": "fco",
    "unresolved": "unresolved",
}


@pytest.mark.vllm
def test_every_feedback_request_and_trained_route_is_counted(tmp_path, vllm_server, async_model_dir):
    """One logging window of 20 steps (the rollout process sends far more than the few entries this run has room for
    when each group sends its own): the feedback requests logged over the run, window and end, equal the provider's
    own count of its calls, and so does the run's bill; the routes logged are those of the prompts trained, which
    TRL's queue hands the planner after dropping stale rows."""
    calls_file = tmp_path / "calls"
    kinds = list(ROUTE_OF_KIND)
    rows = [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in kinds]
    dataset = Dataset.from_list([{**row, "calls_file": str(calls_file)} for row in rows])
    trainer, consumed = train_recording(
        tmp_path, vllm_server, async_model_dir, dataset, counting_provider, max_steps=20, logging_steps=20
    )
    calls = len(calls_file.read_text().splitlines())
    history = trainer.state.log_history
    assert calls > 20
    assert sum(entry.get("mulferl/feedback/requests", 0) for entry in history) == calls
    assert history[-1]["mulferl/feedback/total_requests"] == calls
    trained = Counter(ROUTE_OF_KIND[kinds[sample["group_id"] % len(kinds)]] for sample in consumed)
    logged = Counter()
    for entry in history:
        for route in ("grpo", "fco", "solved_skip", "unresolved", "unscorable"):
            logged[route] += entry.get(f"mulferl/route/{route}", 0) * entry.get("mulferl/route/prompts_total", 0)
    assert sum(entry.get("mulferl/route/prompts_total", 0) for entry in history) == len(consumed) / K
    assert {route: count / K for route, count in trained.items()} == pytest.approx(+logged)


def hanging_provider(prompt, completions, rewards, **columns):
    """A sync provider whose endpoint never answers within the run."""
    time.sleep(120)


class StepEnds(TrainerCallback):
    def __init__(self):
        self.times = []

    def on_step_end(self, args, state, control, **kwargs):
        self.times.append(time.monotonic())


@pytest.mark.vllm
def test_a_stop_mid_request_is_clean(tmp_path, capfd, vllm_server, async_model_dir):
    """Training ends while the provider's calls hang (each group gives up on its call after 1 s and ends unresolved,
    the call goes on): the rollout process stops at once (no provider thread holds it, no task is left pending, TRL
    does not have to terminate it) and reports no failure; the requests made count."""
    steps = StepEnds()
    dataset = kinds_dataset(["unresolved", "grpo_turn0"])
    trainer, _ = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        dataset,
        hanging_provider,
        [steps],
        max_steps=3,
        feedback_turn_deadline=1.0,
    )
    stopped_s = time.monotonic() - steps.times[-1]
    err = capfd.readouterr().err
    assert stopped_s < 10
    for failure in ("did not exit", "Worker process failed", "Task was destroyed", "Traceback"):
        assert failure not in err
    assert trainer.state.log_history[-1]["mulferl/feedback/total_requests"] >= 1


@pytest.mark.vllm
@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_fco_micro_batches_stay_within_the_token_budget(tmp_path, vllm_server, async_model_dir, pairing):
    """K = 8 and a budget of 520 tokens (a 459-token prompt; a positive with one negative fits, with its 8 negatives
    it does not): TRL's largest row of each step, logged as `batch/row_tokens_max`, stays within the budget while FCO
    trains, the pairs beyond it counted."""
    budget = 520
    trainer, _ = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        kinds_dataset(["fco_turn1"]),
        round_provider,
        max_steps=3,
        num_generations=8,
        per_device_train_batch_size=8,
        token_budget=budget,
        fco_pairing=pairing,
    )
    history = [entry for entry in trainer.state.log_history if "batch/row_tokens_max" in entry]
    assert history and max(entry["batch/row_tokens_max"] for entry in history) <= budget
    assert sum(entry.get("mulferl/fco/pairs", 0) for entry in history) > 0
    over_budget = sum(entry.get("mulferl/fco/over_budget_pairs_total", 0) for entry in trainer.state.log_history)
    assert (over_budget > 0) == (pairing == "all")


class WeightSnapshots(TrainerCallback):
    """The policy's weights at the beginning of each optimizer step: those its micro-batches are scored with."""

    def __init__(self):
        self.weights = []

    def on_step_begin(self, args, state, control, model=None, **kwargs):
        self.weights.append({name: value.detach().clone() for name, value in model.state_dict().items()})


@pytest.mark.vllm
def test_fco_loss_is_the_spec_equation_recomputed_by_hand(tmp_path, vllm_server, async_model_dir):
    """FCO prompts alone, one pair per optimizer step (a micro-batch of one positive, carrying its negative): each
    step's logged FCO loss and score gap equal eq. 14 for that pair, with scores (eq. 13, summed as the released code) recomputed here by
    plain forwards of each member under the step's weights and under the starting model. Every advantage is 0, so
    the weights move by FCO alone."""
    import torch
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM

    tau, margin, steps = 1.0, 0.5, 3
    snapshots = WeightSnapshots()
    trainer, consumed = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        kinds_dataset(["fco_turn1"] * 8),
        round_provider,
        [snapshots],
        max_steps=steps,
        per_device_train_batch_size=1,
        fco_weight=1.0,
        fco_tau=tau,
        fco_margin=margin,
    )
    model = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")
    reference = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")

    def score_sums(policy, members):
        sums = []
        for member in members:
            ids, mask = torch.tensor(member["input_ids"]), torch.tensor(member["completion_mask"])
            logps = policy(ids.unsqueeze(0)).logits[0, :-1].log_softmax(-1).gather(1, ids[1:, None]).squeeze(1)
            sums.append((logps * mask[1:]).sum())
        return torch.stack(sums)

    logged = [entry for entry in trainer.state.log_history if "mulferl/fco/loss" in entry]
    assert [entry["step"] for entry in logged] == list(range(1, steps + 1))
    for step, entry in enumerate(logged):
        positive = consumed[step]  # the micro-batch: one positive, with the negative of its pair
        (negative,) = positive["metrics"][FCO_PAIRS]["negatives"]
        model.load_state_dict(snapshots.weights[step])
        with torch.no_grad():
            scores = score_sums(model, [positive, negative]) - score_sums(reference, [positive, negative])
        gap = scores[0] - scores[1]
        assert entry["mulferl/fco/pairs"] == 1
        assert entry["mulferl/fco/loss"] == pytest.approx(F.softplus(-tau * (gap - margin)).item(), abs=1e-4)
        assert entry["mulferl/fco/score_gap"] == pytest.approx(gap.item(), abs=1e-4)
        assert positive["advantage"] == 0 and negative["advantage"] == 0
    assert logged[0]["mulferl/fco/loss"] == pytest.approx(F.softplus(torch.tensor(tau * margin)).item(), abs=1e-6)
    assert all(abs(entry["mulferl/fco/score_gap"]) > 1e-3 for entry in logged[1:])  # the policy has left the reference
    trained = trainer.model.state_dict()
    moved = max((trained[name] - value).abs().max().item() for name, value in snapshots.weights[0].items())
    assert moved > 1e-4


@pytest.mark.vllm
def test_feedback_replay_trains_the_feedback_turn_without_the_feedback(
    tmp_path, vllm_server, async_model_dir, tiny_tokenizer
):
    """Prompts that a feedback turn makes mixed (GRPO) or solved (FCO off): every trained row is its feedback turn's
    with the feedback cut out of the slot (the empty slot masked), TRL's advantage 0 and, for the replay term,
    Critique-GRPO's advantage over the union with the turn-0 group, by hand. Step 1's logged loss is that term,
    `-sum A * gamma p / (p + gamma)^2 / tokens`, with p each replayed token's probability under the starting model."""
    import torch
    from transformers import AutoModelForCausalLM

    from trl_mulferl.core.metrics import REPLAY_ADVANTAGE

    gamma, received = 0.1, []
    trainer, consumed = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        kinds_dataset(["grpo_turn1", "fco_turn1"] * 2),
        round_provider,
        max_steps=2,
        received=received,
        feedback_replay=True,
        feedback_replay_shaping=gamma,
        fco_weight=0.0,
    )
    # (r - mean) / (unbiased std + 1e-4) over turn 0's rewards [0, 0] and the feedback turn's [1, 0] or [1, 1].
    expected = {
        "grpo_turn1": {1.0: 0.75 / (0.5 + 1e-4), 0.0: -0.25 / (0.5 + 1e-4)},
        "fco_turn1": {1.0: 0.5 / ((1 / 3) ** 0.5 + 1e-4)},
    }
    slot = tiny_tokenizer(feedback_prefill(""), add_special_tokens=False)["input_ids"]
    for sample in consumed:
        kind = ["grpo_turn1", "fco_turn1"][sample["group_id"] % 2]
        prompt_ids = tiny_tokenizer.apply_chat_template(
            make_conversation(f"Question {kind}?"), add_generation_prompt=True, return_dict=False
        )
        ids, mask = sample["input_ids"].tolist(), sample["completion_mask"].tolist()
        assert "ROUND" not in tiny_tokenizer.decode(ids)
        assert ids[len(prompt_ids) : len(prompt_ids) + len(slot)] == slot
        assert not any(mask[: len(prompt_ids) + len(slot)]) and all(mask[len(prompt_ids) + len(slot) :])
        assert sample["advantage"] == 0.0
        advantage = sample["metrics"][REPLAY_ADVANTAGE]
        assert advantage == pytest.approx(expected[kind][sample["metrics"]["reward"]], rel=1e-6)
    history = trainer.state.log_history
    assert sum(entry.get("mulferl/replayed_rows", 0) for entry in history) >= len(consumed)
    # The completion TRL logs (its completions table) is the one trained, without the feedback.
    assert received and not any("ROUND" in json.dumps(sample.completion) for sample in received)
    assert all("<feedback></feedback>" in json.dumps(sample.completion) for sample in received)

    model = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")
    loss, tokens = 0.0, 0
    with torch.no_grad():
        for sample in consumed[: ASYNC_TRAINING["per_device_train_batch_size"]]:  # step 1's micro-batch
            ids, mask = torch.tensor(sample["input_ids"]), torch.tensor(sample["completion_mask"]).bool()
            logps = model(ids.unsqueeze(0)).logits[0, :-1].log_softmax(-1).gather(1, ids[1:, None]).squeeze(1)
            p = logps[mask[1:]].exp()
            loss -= sample["metrics"][REPLAY_ADVANTAGE] * (gamma * p / (p + gamma) ** 2).sum().item()
            tokens += int(mask.sum())
    assert history[0]["loss"] == pytest.approx(loss / tokens, rel=1e-3)


def built_trainer(tmp_path, model_dir, peft_config=None):
    """An AsyncMulFeRLTrainer built, not trained: no server is reached."""
    from tests.helpers.async_cpu import DiskWeightTransfer
    from trl_mulferl import AsyncMulFeRLTrainer

    url = "http://127.0.0.1:9"  # never reached
    return AsyncMulFeRLTrainer(
        model_dir,
        scripted_reward,
        args=AsyncMulFeRLConfig(output_dir=str(tmp_path), vllm_server_base_url=url, **ASYNC_TRAINING),
        train_dataset=kinds_dataset(["fco_turn1"]),
        weight_transfer=DiskWeightTransfer(url, str(tmp_path / "weights")),
        feedback_provider=round_provider,
        peft_config=peft_config,
    )


class ArrivingQueue:
    """A metrics queue that empties, then receives `later`: the rollout process sends on while `log` runs."""

    def __init__(self, first: list, later: list):
        self.batches = [list(first), list(later)]

    def get_nowait(self):
        if self.batches[0]:
            return self.batches[0].pop(0)
        if len(self.batches) > 1:
            self.batches.pop(0)
        raise queue.Empty


@pytest.mark.vllm
def test_feedback_counts_are_summed_per_window_whatever_arrives_while_logging(tmp_path, async_model_dir):
    """The rollout process's counts are summed over the window they were drained in; what arrives while `log` runs
    waits for the next window (TRL's `log` used to drain it into the summed list and average the two)."""
    from tests.helpers.async_cpu import cpu_substitutions

    with cpu_substitutions():
        trainer = built_trainer(tmp_path, async_model_dir)
        requests = {"mulferl/feedback/requests": 1.0}
        trainer.rollout_worker.metrics_queue = ArrivingQueue([requests] * 3, [requests] * 2)
        trainer.model.train()
        trainer.log({"loss": 0.0})
        trainer.log({"loss": 0.0})
    logged = [entry["mulferl/feedback/requests"] for entry in trainer.state.log_history]
    assert logged == [3.0, 2.0]


@pytest.mark.vllm
@pytest.mark.parametrize("peft", [False, True], ids=["frozen_copy", "lora"])
def test_the_fco_reference_is_the_starting_policy(tmp_path, async_model_dir, tiny_tokenizer, peft):
    """The reference of FCO's scores, on the packed row of a micro-batch holding an FCO prompt, is the starting model
    (a frozen copy; under PEFT the base model with the adapter disabled) while the policy has moved: its log-probs
    equal a plain forward of the starting model, token by token. No server: the trainer is only built."""
    import torch
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM
    from trl.experimental.async_grpo.async_grpo_trainer import DataCollatorForRollout, FixedCountBatcher
    from trl.experimental.async_grpo.async_rollout_worker import RolloutSample

    from tests.helpers.async_cpu import cpu_substitutions
    from trl_mulferl.async_mulferl.async_samples import MulFeRLCollator, MulFeRLQueue, fco_carriers
    from trl_mulferl.core.metrics import ROUTE

    peft_config = LoraConfig(r=4, target_modules=["q_proj", "v_proj"]) if peft else None
    with cpu_substitutions():
        trainer = built_trainer(tmp_path, async_model_dir, peft_config)
        assert (trainer.ref_model is None) == peft
        trained = [parameter for parameter in trainer.model.parameters() if parameter.requires_grad]
        assert (
            trained and all("lora" in name for name, p in trainer.model.named_parameters() if p.requires_grad) == peft
        )
        with torch.no_grad():  # the policy leaves the starting point
            for parameter in trainer.model.parameters():
                if parameter.requires_grad:
                    parameter.add_(0.05 * torch.randn_like(parameter))
        prompt = tiny_tokenizer.apply_chat_template(
            make_conversation("Question fco_turn1?"), add_generation_prompt=True, return_dict=False
        )
        completions = [[11, 12, 13], [11, 14], [15, 16, 17, 18], [19]]

        def row(completion, reward):
            ids = prompt + completion
            mask = [0] * len(prompt) + [1] * len(completion)
            arrays = (np.asarray(ids), np.asarray(mask), np.zeros(len(ids), dtype=np.float32))
            return RolloutSample([], [], *arrays, 0.0, 0, 0, {"reward": reward, ROUTE: "fco"})

        members = [row(c, r) for c, r in zip(completions, [1.0, 1.0, 0.0, 0.0], strict=True)]
        carriers, _ = fco_carriers(members[:K], members[K:], torch.tensor([[0, 1], [1, 0]]))
        keys = ("input_ids", "completion_mask", "old_log_probs", "advantage", "group_id", "metrics")
        queued = [{key: getattr(carrier, key) for key in keys} for carrier in carriers]
        (rows,) = list(
            FixedCountBatcher(MulFeRLQueue(queued, defaultdict(list), K), num_processes=1, microbatch_size=K)
        )
        inputs = MulFeRLCollator(DataCollatorForRollout(0, 1, metrics=defaultdict(list)), K)([rows])
        # Every member's scored tokens, segment by segment: TRL's loss terms (the positives') and the negatives'.
        terms = [(inputs["token_index"][0], inputs["segment_id"][0])]
        terms.append((inputs["mulferl_negative_token_index"][0], inputs["mulferl_negative_segment_id"][0]))
        index, segment = (torch.cat(parts) for parts in zip(*terms, strict=True))
        index = index[index >= 0][segment[index >= 0].argsort(stable=True)]
        with torch.no_grad():
            reference = trainer._reference_log_probs(trainer.model, inputs).flatten()[index]
    starting = AutoModelForCausalLM.from_pretrained(async_model_dir, attn_implementation="eager")
    expected = []
    with torch.no_grad():
        for member in [members[0], members[3], members[1], members[2]]:  # each positive, then its negative
            ids = torch.tensor(member.input_ids)
            logps = starting(ids.unsqueeze(0)).logits[0, :-1].log_softmax(-1).gather(1, ids[1:, None]).squeeze(1)
            expected += logps[len(prompt) - 1 :].tolist()
    assert reference.tolist() == pytest.approx(expected, abs=1e-5)


@pytest.mark.vllm
def test_trls_policy_metrics_leave_out_the_fco_negatives(tmp_path, async_model_dir, tiny_tokenizer):
    """On a micro-batch of FCO carriers, TRL's `ratio`, `kl`, `entropy` and clip metrics are those of TRL's own loss on
    the same rows without the negatives (which TRL's loss gives advantage 0 and does not train). No server: the
    trainer is only built, the policy moved off the sampling log-probs."""
    import torch
    from trl.experimental.async_grpo import AsyncGRPOTrainer
    from trl.experimental.async_grpo.async_grpo_trainer import DataCollatorForRollout, FixedCountBatcher
    from trl.experimental.async_grpo.async_rollout_worker import RolloutSample

    from tests.helpers.async_cpu import cpu_substitutions
    from trl_mulferl.async_mulferl.async_samples import MulFeRLCollator, MulFeRLQueue, fco_carriers
    from trl_mulferl.core.metrics import ROUTE

    names = ("ratio", "kl", "entropy", "clip_ratio/low_mean", "clip_ratio/high_mean", "clip_ratio/region_mean")
    generator = np.random.default_rng(0)
    with cpu_substitutions():
        trainer = built_trainer(tmp_path, async_model_dir)
        trainer.current_gradient_accumulation_steps = 1
        prompt = tiny_tokenizer.apply_chat_template(
            make_conversation("Question fco_turn1?"), add_generation_prompt=True, return_dict=False
        )

        def row(completion, reward):
            ids = prompt + completion
            mask = [0] * len(prompt) + [1] * len(completion)
            old_logps = np.where(np.asarray(mask) == 1, generator.uniform(-4, -1, len(ids)), 0).astype(np.float32)
            return RolloutSample([], [], np.asarray(ids), np.asarray(mask), old_logps, 0.0, 0, 0, {"reward": reward})

        members = [row(c, r) for c, r in zip([[11, 12, 13], [11, 14], [15, 16, 17, 18], [19]], [1, 1, 0, 0])]
        for member in members:
            member.metrics[ROUTE] = "fco"
        keys = ("input_ids", "completion_mask", "old_log_probs", "advantage", "group_id", "metrics")

        def metrics_of(samples, loss_of):
            queued = [{key: getattr(sample, key) for key in keys} for sample in samples]
            (rows,) = list(FixedCountBatcher(MulFeRLQueue(queued, defaultdict(list), K), 1, K))
            inputs = MulFeRLCollator(DataCollatorForRollout(0, 1, metrics=defaultdict(list)), K)([rows])
            trainer._metrics["train"].clear()
            loss_of(trainer.model, inputs)
            return {name: trainer._metrics["train"][name][-1] for name in names}

        carriers, _ = fco_carriers(members[:K], members[K:], torch.tensor([[0, 1], [1, 0]]))
        with_negatives = metrics_of(carriers, trainer.compute_loss)
        without = metrics_of(members[:K], lambda model, inputs: AsyncGRPOTrainer.compute_loss(trainer, model, inputs))
    assert with_negatives == pytest.approx(without, abs=1e-6)
    assert abs(without["ratio"] - 1) > 1e-3  # the policy is off the sampling log-probs


def test_the_constructor_takes_async_grpo_trainers_parameters_in_order():
    """`AsyncGRPOTrainer`'s parameters, in its order, then the feedback provider (keyword-only); tools,
    `environment_factory` and `rollout_worker` are refused in one line, before anything is loaded."""
    import inspect

    from trl.experimental.async_grpo import AsyncGRPOTrainer

    from trl_mulferl import AsyncMulFeRLTrainer

    ours = inspect.signature(AsyncMulFeRLTrainer.__init__).parameters
    theirs = inspect.signature(AsyncGRPOTrainer.__init__).parameters
    assert list(ours) == [*theirs, "feedback_provider"]
    assert ours["feedback_provider"].kind is inspect.Parameter.KEYWORD_ONLY

    def lookup(query: str) -> str:
        return query

    for keyword, value in (("tools", [lookup]), ("environment_factory", object), ("rollout_worker", object())):
        with pytest.raises(ValueError, match=f"AsyncMulFeRLTrainer does not support {keyword} yet"):
            AsyncMulFeRLTrainer("no-such-model", **{keyword: value})


# ---------------------------------------------------------------------------------------------------------------------
# The pipeline's budget


def timed_provider(prompt, completions, rewards, log_file, feedback_seconds, **columns):
    """`round_provider` after `feedback_seconds`, logging when each call starts and ends."""
    started = time.time()
    time.sleep(feedback_seconds)
    with open(log_file, "a") as log:
        log.write(json.dumps({"started": started, "ended": time.time()}) + "\n")
    return round_provider(prompt, completions, rewards, **columns)


def logged_scripted_reward(completions, kind, log_file, **kwargs):
    """`scripted_reward`, logging the turn of each group it scores."""
    with open(log_file[0], "a") as log:
        log.write(json.dumps({"turn": turn_of(completion_texts(completions)[0])}) + "\n")
    return scripted_reward(completions, kind)


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    at_once, most = 0, 0
    for _, change in events:
        at_once += change
        most = max(most, at_once)
    return most


@pytest.mark.vllm
def test_the_budget_bounds_open_trajectories_with_a_slow_provider(tmp_path, vllm_server, async_model_dir):
    """Every group fails at turn 0 and the provider takes 1.5 s: the calls in flight at once (timed by the provider)
    and the feedback slots (logged) never exceed their 3, and reach it, as the generation places reach and never
    exceed their 3 when a prompt opens; the run scores exactly the turn-0 groups it trains (it opens none it does not
    train, and the micro-batch accelerate fetches ahead of the last step is no prompt's) and asks once for each."""
    log_file = tmp_path / "log.jsonl"
    rows = [
        {"prompt": make_conversation(f"Question {kind} {i}?"), "kind": kind}
        for i, kind in enumerate(["fco_turn1"] * 3)
    ]
    dataset = Dataset.from_list([{**row, "log_file": str(log_file), "feedback_seconds": 1.5} for row in rows])
    budget, steps = 3, 4
    trainer, consumed = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        dataset,
        timed_provider,
        max_steps=steps,
        reward_funcs=logged_scripted_reward,
        max_open_trajectories=budget,
        feedback_max_concurrency=budget,
    )
    events = [json.loads(line) for line in log_file.read_text().splitlines()]
    calls = [(event["started"], event["ended"]) for event in events if "started" in event]
    history = trainer.state.log_history
    assert most_at_once(calls) == budget
    assert max(entry.get("mulferl/pipeline/open_trajectories_max", 0) for entry in history) == budget
    assert max(entry.get("mulferl/pipeline/feedback_slots_max", 0) for entry in history) == budget
    taken_prompts = steps * ASYNC_TRAINING["per_device_train_batch_size"] // K
    assert len(consumed) == taken_prompts * K
    assert sum(event.get("turn") == 0 for event in events) == taken_prompts
    assert sum(entry.get("mulferl/pipeline/turn0_groups", 0) for entry in history) == taken_prompts
    assert len(calls) == taken_prompts


@pytest.mark.vllm
def test_a_regeneration_is_served_before_turn_0_work_queued_with_it(tmp_path, vllm_server, async_model_dir):
    """The server runs 64 sequences at once; 768 turn-0 rollouts (TRL's own request) are queued, 12 waves of them, and
    once the server holds every one, one regenerated group (its K rollouts in one request): it is served in the next
    wave, and comes back before half the turn-0 rollouts still waiting when it was sent (first come, first served,
    it would come back after all of them). A warm server serves waves within a second (CI's did three): a fixed
    sleep before the regeneration let them finish first, so the test counts only the rollouts still waiting."""
    import asyncio
    import multiprocessing

    import aiohttp
    from transformers import AutoTokenizer

    from trl_mulferl.async_mulferl.async_rollout_worker import (
        FeedbackSettings,
        MulFeRLRolloutLoop,
        regeneration_session,
    )
    from trl_mulferl.async_mulferl.pipeline import TrainerProgress

    tokenizer = AutoTokenizer.from_pretrained(async_model_dir)
    args = AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=K, vllm_server_base_url=vllm_server.url)
    context = multiprocessing.get_context("spawn")
    loop = MulFeRLRolloutLoop(
        model_name=async_model_dir,
        dataset=kinds_dataset(["grpo_turn0"]),
        reward_funcs=[scripted_reward],
        processing_class=tokenizer,
        eos_token_ids=[tokenizer.eos_token_id],
        rollout_buffer=queue.Queue(),
        model_version_value=context.Value("i", 0),
        heartbeat_value=context.Value("d", 0.0),
        failed_event=context.Event(),
        exception_info_queue=queue.Queue(),
        metrics_queue=queue.Queue(),
        num_generations=K,
        vllm_server_url=vllm_server.url,
        max_tokens=32,
        feedback_provider=round_provider,
        feedback_settings=FeedbackSettings.of(args),
        feedback_fields=None,
        trainer_progress=TrainerProgress(),
    )
    prompt_ids = tokenizer.apply_chat_template(
        make_conversation("Question?"), add_generation_prompt=True, return_dict=False
    )

    async def serve() -> tuple[list[float], float]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1024)) as session:
            loop.session, loop._regeneration_session = session, regeneration_session()

            async def timed(coroutine):
                await coroutine
                return time.monotonic()

            turn0 = [asyncio.ensure_future(timed(loop._generate_one_turn(prompt_ids))) for _ in range(768)]
            while sum(request.done() for request in turn0) + await requests_on_server(session) < len(turn0):
                await asyncio.sleep(0.01)
            waiting = [request for request in turn0 if not request.done()]
            regenerated = await loop._generate_group_turn(prompt_ids)
            served = time.monotonic()
            assert len(regenerated) == K and all(ids for ids, _ in regenerated)
            await loop._regeneration_session.close()
            await asyncio.gather(*turn0)
            return [request.result() for request in waiting], served

    async def requests_on_server(session) -> int:
        async with session.get(f"{vllm_server.url}/metrics") as response:
            lines = (await response.text()).splitlines()
        gauges = ("vllm:num_requests_running", "vllm:num_requests_waiting")
        return sum(round(float(line.split()[-1])) for line in lines if line.startswith(gauges))

    waiting_served, regeneration_served = asyncio.run(serve())
    assert len(waiting_served) >= 5 * 64, len(waiting_served)
    before = sum(served < regeneration_served for served in waiting_served)
    assert before < len(waiting_served) / 2, (before, len(waiting_served))


def gated_provider(prompt, completions, rewards, step_file, gate_steps, **columns):
    """`round_provider`, answering only once the trainer has taken `gate_steps` more optimizer steps (or after 120 s)."""
    start, first = time.monotonic(), read_step(step_file)
    while read_step(step_file) < first + gate_steps and time.monotonic() - start < 120:
        time.sleep(0.05)
    return round_provider(prompt, completions, rewards, **columns)


@pytest.mark.vllm
@pytest.mark.parametrize("max_feedback_age", [1, 8])
def test_the_trained_tokens_age_counts_from_their_regeneration_and_the_feedbacks_apart(
    tmp_path, vllm_server, async_model_dir, tiny_tokenizer, max_feedback_age
):
    """With max_staleness 2, the first prompt's group fails and its feedback comes 4 optimizer steps after its turn 0
    (the other 31 prompts' groups are mixed at turn 0, and the run takes 16 of them; 2 generation places, a step's
    prompts, keep the two a step trains flowing while it waits, and no row waits in the queue for long). With
    max_feedback_age 1 the feedback is too old by then: the trajectory ends without a regeneration, and nothing
    regenerated is trained. With max_feedback_age 8 it is regenerated, and its rows are trained: they are as old as
    the policy that sampled them, within max_staleness, while the feedback's age (logged) is past it."""
    step_file = tmp_path / "step"
    kinds = ["grpo_turn1"] + ["grpo_turn0"] * 31
    rows = [{"prompt": make_conversation(f"Question {kind} {i}?"), "kind": kind} for i, kind in enumerate(kinds)]
    dataset = Dataset.from_list([{**row, "step_file": str(step_file), "gate_steps": 4} for row in rows])
    trainer, consumed = train_recording(
        tmp_path,
        vllm_server,
        async_model_dir,
        dataset,
        gated_provider,
        [StepFile(step_file)],
        max_steps=8,
        max_staleness=2,
        max_feedback_age=max_feedback_age,
        max_open_trajectories=2,
    )
    history = trainer.state.log_history
    expired = sum(entry.get("mulferl/pipeline/expired_feedback", 0) for entry in history)
    regenerated = [sample for sample in consumed if turn_of(tiny_tokenizer.decode(sample["input_ids"].tolist()))]
    assert max(entry.get("sample/staleness_max", 0) for entry in history) <= 2
    assert trainer.state.global_step == 8
    if max_feedback_age == 1:
        assert (expired, len(regenerated)) == (1, 0)
    else:
        assert (expired, len(regenerated)) == (0, K)
        assert max(entry.get("mulferl/pipeline/feedback_age_max", 0) for entry in history) > 2


class RowsDeadline:
    """Makes `trainer`'s run fail when it is still waiting for rows after `seconds`: TRL's queue dataset asks the
    rollout worker's health every 5 s while it waits."""

    def __init__(self, trainer, seconds: float):
        self.check_health, self.deadline = trainer.rollout_worker.check_health, time.monotonic() + seconds
        trainer.rollout_worker.check_health = self.checked

    def checked(self, stale_after_s):
        self.check_health(stale_after_s)
        if time.monotonic() > self.deadline:
            raise RuntimeError("the run waits for rows that never come")


@pytest.mark.vllm
@pytest.mark.parametrize("steps", [2, 3])
def test_a_run_ends_whatever_its_rows_a_step(tmp_path, vllm_server, async_model_dir, steps):
    """K = 2 and 3 rows a step. K1's rule also took the micro-batch fetched ahead of the last step: over 2 steps it
    opened 4 prompts for 9 rows and waited forever for the ninth; over 3 it paid for 12 rows. Now the run ends having
    opened the prompts of its 6 or 9 rows (over 3 steps, one row of the fifth prompt is not trained), and none for
    the micro-batch fetched ahead."""
    from trl.experimental.async_grpo import async_grpo_trainer

    dataset = kinds_dataset(["grpo_turn0", "fco_turn1", "grpo_turn1"])
    train = async_grpo_trainer.AsyncGRPOTrainer.train

    def train_with_a_deadline(trainer, *args, **kwargs):
        RowsDeadline(trainer, 150)
        return train(trainer, *args, **kwargs)

    async_grpo_trainer.AsyncGRPOTrainer.train = train_with_a_deadline
    try:
        trainer, consumed = train_recording(
            tmp_path,
            vllm_server,
            async_model_dir,
            dataset,
            round_provider,
            max_steps=steps,
            per_device_train_batch_size=3,
        )
    finally:
        async_grpo_trainer.AsyncGRPOTrainer.train = train
    history = trainer.state.log_history
    prompts = math.ceil(3 * steps / K)
    assert trainer.state.global_step == steps
    assert len(consumed) == 3 * steps
    assert len({sample["group_id"] for sample in consumed}) == prompts
    assert sum(entry.get("mulferl/pipeline/turn0_groups", 0) for entry in history) == prompts


def test_the_rollout_process_counts_the_schema_breaking_rows_of_failed_turn_0_groups():
    """`mulferl/schema_noncompliant`: the turn-0 rows of a failed group that break the schema; 0 for any other
    group, none at a feedback turn."""
    from types import SimpleNamespace

    from trl_mulferl.async_mulferl.async_rollout_worker import MulFeRLRolloutLoop
    from trl_mulferl.async_mulferl.metrics import MetricWindow
    from trl_mulferl.core.routing import GroupState

    loop = SimpleNamespace(settings=SimpleNamespace(success_threshold=1.0), _window=MetricWindow())
    bare = [{"role": "assistant", "content": "So \\boxed{7}."}]
    compliant = [{"role": "assistant", "content": "<thinking><feedback></feedback>7</thinking> \\boxed{7}"}]
    MulFeRLRolloutLoop._push_turn_metrics(loop, [0.0, 0.0], [GroupState.FAILED], [bare, compliant])
    MulFeRLRolloutLoop._push_turn_metrics(loop, [1.0, 0.0], [GroupState.CONTRASTIVE], [bare, compliant])
    MulFeRLRolloutLoop._push_turn_metrics(loop, [0.0, 0.0], [GroupState.FAILED] * 2, [bare, bare])
    assert loop._window.values["mulferl/schema_noncompliant"] == 1.0
    assert loop._window.values["mulferl/turn_0/failed_groups"] == 1.0


@pytest.mark.vllm
def test_prompts_that_never_ask_for_the_schema_are_told_at_start_up_and_in_the_window(
    tmp_path, async_model_dir, caplog
):
    """The async trainer runs the sync one's checks: the start-up line as it is built (before its rollout process
    starts, so before any feedback request), and the run-time warning from the counts the rollout process sends."""
    import logging

    from tests.helpers.async_cpu import DiskWeightTransfer, cpu_substitutions
    from trl_mulferl import AsyncMulFeRLTrainer, accuracy_reward

    rows = [{"prompt": make_conversation(f"What is {i} + {i}?", None), "solution": str(2 * i)} for i in range(4)]
    url = "http://127.0.0.1:9"  # never reached
    with cpu_substitutions(), caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        trainer = AsyncMulFeRLTrainer(
            async_model_dir,
            accuracy_reward,
            args=AsyncMulFeRLConfig(output_dir=str(tmp_path), vllm_server_base_url=url, **ASYNC_TRAINING),
            train_dataset=Dataset.from_list(rows),
            weight_transfer=DiskWeightTransfer(url, str(tmp_path / "weights")),
            feedback_provider=round_provider,
        )
        start_up = [r.getMessage() for r in caplog.records if "ask for the answer schema" in r.getMessage()]
        window = {"mulferl/turn_0/failed_groups": 1.0, "mulferl/schema_noncompliant": float(K)}
        trainer.rollout_worker.metrics_queue = ArrivingQueue([window] * 2, [window])
        trainer.model.train()
        trainer.log({"loss": 0.0})
        trainer.log({"loss": 0.0})
    assert len(start_up) == 1 and start_up[0].startswith("Only 0 of 4 sampled training prompts")
    run_time = [r.getMessage() for r in caplog.records if "break the answer schema" in r.getMessage()]
    assert len(run_time) == 1 and run_time[0].startswith(f"{2 * K} of the {2 * K} rows of the groups that failed")
    assert [entry["mulferl/schema_noncompliant"] for entry in trainer.state.log_history] == [2.0 * K, K]
