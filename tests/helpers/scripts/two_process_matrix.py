"""The feature x engine matrix on 2 CPU processes (gloo), launched by tests/mulferl/test_multiprocess.py as
`accelerate launch --config_file tests/helpers/engine_configs/<engine>.yaml two_process_matrix.py OUTPUT_DIR RUN...` with
TORCH_DISTRIBUTED_DEBUG=DETAIL except under DDP (gloo then names a collective that one process skips instead of
hanging), and a collective timeout of 90 s.

Every run gives the processes asymmetric work: rank 0's groups never fail (but one in `fco_chunks`), rank 1's fail at
every turn 0; the policy stops at end-of-sequence after a varied number of tokens (`stopping_policy.py`), except where
a scripted policy plays the tool episodes. Runs (each into `OUTPUT_DIR/<run>/`):
- `openai`: the OpenAI provider against a local HTTP server (one per process), FCO with the permutation pairing,
  `feedback_replay`, and `EvaluationCallback` on 1 problem, so that rank 1 has none.
- `self`: self-feedback, FCO with the all-pairs pairing, rank 1's provider failing at step 1 (its groups end
  unresolved), and `EvaluationCallback` on 3 problems one per `generate`: 2 calls on rank 0 against 1.
- `self_tokenization`: self-feedback, FCO off, rank 1's chat template failing on its review request at step 1 (its
  groups end unresolved; where `generate` is collective it still joins rank 0's with the dummy request), and
  `max_feedback_groups_per_step=1`: each step one of rank 1's 2 failed groups is asked, by a draw from the counts
  gathered from both processes (rank 0 has none). Each process records the conversations of each tokenization.
- `fco_chunks` (launched where forwards are collective): groups fail at turn 0 and are solved by the column
  provider, both of rank 1's 2 at every step, none of rank 0's at step 1 and 1 at step 2, so FCO's reference forwards
  take 4 rows on rank 1 and 0, then 2, on rank 0: with `per_device_train_batch_size=2`, 2 chunks against 0, then 1,
  unless rank 0 pads to rank 1's rows. Each process records the FCO rows of each such forward.
- `column_tools`: the column provider; with `tools` (a scripted policy calls them) where feedback turns can
  regenerate episodes, else alone after the refusal of `tools` is recorded.
- `environment`: `environment_factory` with the environment's own feedback (scripted), or its refusal.
- `igrpo`: `IGRPOTrainer` with rewards that differ between ranks (the vLLM launch's; the other engines run it in
  two_process_training.py).
- `fco_window_skipped` (launched alone: it must fail): the column provider's training in which rank 1 skips the FCO
  window's all-reduce, out of step on purpose; each rank writes `error_rank{r}.txt`, the error that stopped it.

With `--vllm` (in `.venv-vllm`, launched by tests/mulferl/test_vllm.py under ZeRO-3) every run generates through vLLM
colocate (TRL's `external_launcher`, one engine per process, tests/helpers/vllm_cpu.py). All runs load one policy folder, the
stopping policy 128 wide (vLLM's CPU attention takes head sizes from 32), so one engine per process serves them all
and samples from the stopping policy too; where a script plays the tool episodes it rewrites vLLM's samples
(`SharedEngines.scripted`). Importance sampling is off where vLLM's log-probs are not the trained rows' (scripted
samples, `feedback_replay`). `EvaluationCallback` and self-feedback's writer generate with transformers, as on any
vLLM run.

Each rank writes `result_rank{r}.json`: the engine in use, the log history, the full (gathered) weights, how far they
moved, how many problems each evaluation answered (dummies included), the vLLM generate calls (rows per call); or
`refused_rank{r}.txt` with a start-up refusal.
"""

import json
import sys
import time
import traceback
from pathlib import Path

from datasets import Dataset


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helpers.agentic import (  # noqa: E402
    AGENT_TRAINING,
    LockEnv,
    ScriptedPolicy,
    answer_reward,
    hinted_multiply_script,
    lock_dataset,
    lock_script,
    multiply,
    user,
)
from tests.helpers.fault_server import FaultServer  # noqa: E402
from tests.helpers.scripts.stopping_policy import build_stopping_model  # noqa: E402
from tests.helpers.scripts.two_process_training import TIMEOUT, engine_facts, full_parameters, set_up_engine  # noqa: E402
from tests.helpers.scripts.two_process_training import igrpo as igrpo_training  # noqa: E402
from tests.helpers.self_feedback import injected_feedback_reward  # noqa: E402
from tests.helpers.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from tests.helpers.trainer import TINY_TRAINING, make_dataset  # noqa: E402
from trl_mulferl import (  # noqa: E402
    ColumnFeedbackProvider,
    MulFeRLConfig,
    MulFeRLTrainer,
    SelfFeedbackProvider,
    make_conversation,
)
from trl_mulferl.evaluation import backends  # noqa: E402
from trl_mulferl.evaluation.callback import EvaluationCallback  # noqa: E402
from trl_mulferl.feedback import OpenAIFeedbackProvider  # noqa: E402
from trl_mulferl.feedback import self_feedback as self_feedback_module  # noqa: E402
from trl_mulferl.feedback.environment import EnvironmentFeedbackProvider  # noqa: E402
from trl_mulferl.mulferl import fco_rows as fco_rows_module  # noqa: E402
from trl_mulferl.tiny import build_qwen2  # noqa: E402
from trl_mulferl.train import exit_launched_process  # noqa: E402


VLLM = "--vllm" in sys.argv
COLOCATE = {"use_vllm": True, "vllm_mode": "colocate"} if VLLM else {}
if VLLM:
    from tests.helpers.vllm_cpu import SharedEngines, colocate_on_cpu

    ENGINES = SharedEngines()


COMMON = {
    "max_steps": 2,
    "max_feedback_turns": 1,
    "fco_weight": 1.0,
    "activation_checkpointing": False,
    "ddp_timeout": TIMEOUT,  # a process left waiting in a collective fails fast
}
SERVER_FEEDBACK = "Add every term"  # in the local server's reviews (tests/helpers/fault_server.py)
# vLLM's log-probs are not those of the rows trained: a script's samples carry none, and `feedback_replay` trains rows
# sampled under the feedback as rows without it (MulFeRLConfig refuses it with importance sampling on).
WITHOUT_VLLM_LOGPROBS = {"vllm_importance_sampling_correction": False} if VLLM else {}
# The tool runs' context: their prompts with tool schemas and feedback reach 781 tokens; vLLM's context is the model's
# 1,024 positions.
AGENT_COMPLETION = {"max_completion_length": 192} if VLLM else {}


def config(run_dir: Path, base: dict, engine_kwargs: dict, **overrides) -> MulFeRLConfig:
    return MulFeRLConfig(output_dir=str(run_dir), **(base | COMMON | engine_kwargs | COLOCATE | overrides))


def rank_dependent(rank: int, rank1_reward):
    """Rank 0's rewards are mixed (GRPO, no feedback); rank 1's are `rank1_reward`'s, 0 at turn 0."""

    def reward(completions, **kwargs):
        if rank == 0:
            return [float(i % 2 == 0) for i in range(len(completions))]
        return rank1_reward(completions)

    return reward


def texts(completions) -> list[str]:
    return [c if isinstance(c, str) else c[-1]["content"] for c in completions]


def evaluation(trainer, num_problems: int) -> list[int]:
    """`EvaluationCallback` every step on `num_problems` problems, one per `generate`; returns, filled as it runs,
    how many problems (dummies included) each evaluation on this process answered."""
    rows = [
        {"problem_id": i, "prompt": make_conversation(f"What is {i} + {i}?"), "solution": str(2 * i)}
        for i in range(num_problems)
    ]
    callback = EvaluationCallback(trainer, {"sums": [{**row, "answer_type": "math"} for row in rows]}, 1, batch_size=1)
    trainer.add_callback(callback)
    answered, generate = [], backends.TransformersBackend.generate

    def recorded(backend, requests, progress=None):
        answered.append(len(requests))
        return generate(backend, requests, progress)

    backends.TransformersBackend.generate = recorded
    return answered


def train(trainer, run_dir: Path, rank: int, after=dict):
    """Train; `after()` adds to the result what the training left."""
    initial = full_parameters(trainer)
    if VLLM:
        ENGINES.generate_calls.clear()
    trainer.train()
    final = full_parameters(trainer)
    result = {
        "engine": engine_facts(trainer),
        "log_history": trainer.state.log_history,
        "parameters": {name: p.flatten().tolist() for name, p in final.items()},
        "moved": max((final[name] - p).abs().max().item() for name, p in initial.items()),
        "vllm_generate_calls": [len(prompts) for prompts, _ in ENGINES.generate_calls] if VLLM else None,
        **after(),
    }
    (run_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


def model_dir(run_dir: Path, args, tokenizer, build, name: str = "model") -> str:
    """The policy saved to disk: the reference policy (FCO's, self-feedback's writer) is loaded by path. With vLLM,
    every run's is the one folder of the 128-wide stopping policy."""
    path = run_dir / name
    if VLLM:
        path, build = run_dir.parent / "vllm_model", build_vllm_stopping_model
    with args.main_process_first(desc="save the tiny model"):
        if args.process_index == 0 and not (VLLM and path.exists()):
            build(tokenizer).save_pretrained(path)
            tokenizer.save_pretrained(path)  # vLLM reads its tokenizer from the folder
    return str(path)


def build_vllm_stopping_model(tokenizer):
    """At 128 wide the final norm leaves the stopping feature smaller: EOS at 0.5 per token stops 81% of 8-token
    completions (0.2 stopped 41%)."""
    return build_stopping_model(tokenizer, 0.5, build=lambda t, seed: build_qwen2(t, hidden_size=128, seed=seed))


def scripted(trainer, tokenizer, script):
    """The tool episodes played by `script`: in place of `model.generate`, or of vLLM's samples."""
    if VLLM:
        ENGINES.scripted(tokenizer, script)
    else:
        trainer.model.generate = ScriptedPolicy(tokenizer, script)


def openai(run_dir: Path, engine_kwargs: dict):
    args = config(run_dir, TINY_TRAINING, engine_kwargs, feedback_replay=True, **WITHOUT_VLLM_LOGPROBS)
    rank, tokenizer = args.process_index, build_tiny_tokenizer()
    with FaultServer() as server:
        trainer = MulFeRLTrainer(
            model=model_dir(run_dir, args, tokenizer, build_stopping_model),
            reward_funcs=rank_dependent(rank, lambda c: [float(SERVER_FEEDBACK in t) for t in texts(c)]),
            args=args,
            train_dataset=make_dataset(num_prompts=8),
            processing_class=tokenizer,
            feedback_provider=OpenAIFeedbackProvider(model="fault-model", base_url=server.base_url, max_retries=1),
        )
        requests = evaluation(trainer, num_problems=1)
        train(trainer, run_dir, rank, lambda: {"evaluation_requests": requests, "requests": len(server.requests)})


def self_feedback_trainer(run_dir: Path, engine_kwargs: dict, max_new_tokens: int, **overrides) -> MulFeRLTrainer:
    args = config(run_dir, TINY_TRAINING, engine_kwargs, beta=0.0, **overrides)
    tokenizer = build_tiny_tokenizer()
    return MulFeRLTrainer(
        model=model_dir(run_dir, args, tokenizer, build_stopping_model),
        reward_funcs=rank_dependent(args.process_index, injected_feedback_reward),
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
        # Sampled: greedy decoding of the stopping policy would write EOS at once, leaving no feedback.
        feedback_provider=SelfFeedbackProvider(max_new_tokens=max_new_tokens, temperature=1.0),
    )


def self_feedback(run_dir: Path, engine_kwargs: dict):
    trainer = self_feedback_trainer(run_dir, engine_kwargs, max_new_tokens=16, fco_pairing="all")
    rank = trainer.args.process_index
    review_request = self_feedback_module.review_request

    def failing_on_rank_1_at_step_1(*args, **kwargs):
        if rank == 1 and trainer.state.global_step == 0:
            raise RuntimeError("the reviewer prompt could not be built")
        return review_request(*args, **kwargs)

    self_feedback_module.review_request = failing_on_rank_1_at_step_1
    requests = evaluation(trainer, num_problems=3)
    train(trainer, run_dir, rank, lambda: {"evaluation_requests": requests})


def self_tokenization(run_dir: Path, engine_kwargs: dict):
    trainer = self_feedback_trainer(
        run_dir, engine_kwargs, max_new_tokens=8, fco_weight=0.0, max_feedback_groups_per_step=1
    )
    rank = trainer.args.process_index
    tokenized, conversations_per_call = self_feedback_module._tokenized, []

    def failing_on_rank_1_at_step_1(tokenizer, conversations, device):
        conversations_per_call.append(len(conversations))
        if rank == 1 and trainer.state.global_step == 0 and conversations:  # the dummy request still tokenizes
            raise ValueError("the chat template rejected the review request")
        return tokenized(tokenizer, conversations, device)

    self_feedback_module._tokenized = failing_on_rank_1_at_step_1
    try:
        train(trainer, run_dir, rank, lambda: {"conversations_per_tokenization": conversations_per_call})
    finally:
        self_feedback_module._tokenized = tokenized


def fco_chunks(run_dir: Path, engine_kwargs: dict):
    args = config(
        run_dir,
        TINY_TRAINING,
        engine_kwargs,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=2,  # 2 groups per process and step
        shuffle_dataset=False,
        beta=0.0,  # no KL forward of TRL's: FCO forwards its reference rows itself
    )
    rank, tokenizer = args.process_index, build_tiny_tokenizer()
    # 2 prompts per process and step, in order: both of rank 1's fail until their feedback, rank 0's first at step 2.
    needs_feedback = [False, False, True, True] + [True, False, True, True]
    dataset = make_dataset(num_prompts=8).add_column("needs_feedback", needs_feedback)
    dataset = dataset.add_column("privileged_context", [f"Write {SERVER_FEEDBACK}."] * 8)

    def reward(completions, needs_feedback, **kwargs):
        return [
            float(SERVER_FEEDBACK in text) if needs else float(i % 2 == 0)  # a mixed group otherwise
            for i, (text, needs) in enumerate(zip(texts(completions), needs_feedback, strict=True))
        ]

    trainer = MulFeRLTrainer(
        model=model_dir(run_dir, args, tokenizer, build_stopping_model),
        reward_funcs=reward,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        feedback_provider=ColumnFeedbackProvider(),
    )
    rows_per_forward, forward_rows = [], fco_rows_module.forward_rows

    def recorded(trainer, sequences, rows, policy):
        rows_per_forward.append(len(rows))
        return forward_rows(trainer, sequences, rows, policy)

    fco_rows_module.forward_rows = recorded
    try:
        train(trainer, run_dir, rank, lambda: {"fco_rows_per_forward": rows_per_forward})
    finally:
        fco_rows_module.forward_rows = forward_rows


def built_or_refused(run_dir: Path, rank: int, build):
    """The trainer `build` makes, or None where it is refused at start-up (the refusal: `refused_rank{r}.txt`)."""
    try:
        return build()
    except ValueError as error:
        (run_dir / f"refused_rank{rank}.txt").write_text(str(error))
        return None


def column_tools(run_dir: Path, engine_kwargs: dict):
    """Rank 0's questions already say to use the tool (solved at turn 0); rank 1's hint comes from the column."""
    args = config(
        run_dir, AGENT_TRAINING, engine_kwargs, shuffle_dataset=False, **WITHOUT_VLLM_LOGPROBS | AGENT_COMPLETION
    )
    rank, tokenizer = args.process_index, build_tiny_tokenizer()
    questions = ["What is 3 * 4? Use multiply."] * 2 + ["What is 3 * 4?"] * 2  # 2 prompts per process and step
    dataset = Dataset.from_list([{"prompt": user(q), "privileged_context": "Use multiply."} for q in questions])
    path = model_dir(run_dir, args, tokenizer, build_tiny_model)

    trainer = built_or_refused(
        run_dir,
        rank,
        lambda: MulFeRLTrainer(
            model=path,
            reward_funcs=answer_reward,
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            tools=[multiply],
            feedback_provider=ColumnFeedbackProvider(),
        ),
    )
    if trainer is not None:
        scripted(trainer, tokenizer, hinted_multiply_script)
    else:  # the column provider alone, with the stopping policy
        trainer = column_trainer(run_dir, engine_kwargs)
    train(trainer, run_dir, rank)


def column_trainer(run_dir: Path, engine_kwargs: dict) -> MulFeRLTrainer:
    """The column provider with the stopping policy: rank 1's groups fail, get the column's hint and are solved."""
    args = config(run_dir, TINY_TRAINING, engine_kwargs)
    tokenizer = build_tiny_tokenizer()
    dataset = make_dataset(num_prompts=8).add_column("privileged_context", [f"Write {SERVER_FEEDBACK}."] * 8)
    return MulFeRLTrainer(
        model=model_dir(run_dir, args, tokenizer, build_stopping_model, name="stopping_model"),
        reward_funcs=rank_dependent(args.process_index, lambda c: [float(SERVER_FEEDBACK in t) for t in texts(c)]),
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        feedback_provider=ColumnFeedbackProvider(),
    )


def fco_window_skipped(run_dir: Path, engine_kwargs: dict):
    """Rank 1 skips the FCO window's all-reduce, on purpose, and goes on to the engine's gradient reduction (ZeRO-2's:
    on DeepSpeed's own process group); rank 0 comes to the window's all-reduce (on the default group) 30 s late, so
    that rank 1's wait ends first, at the timeout of DeepSpeed's group. Each rank records the error that stopped it in
    `error_rank{r}.txt`, with its traceback."""
    trainer = column_trainer(run_dir, engine_kwargs)
    rank, add = trainer.args.process_index, trainer._fco_window.add

    def late_add(*args):
        time.sleep(30)
        add(*args)

    trainer._fco_window.add = late_add if rank == 0 else lambda *args: None
    try:
        trainer.train()
    except RuntimeError:
        (run_dir / f"error_rank{rank}.txt").write_text(traceback.format_exc())
        raise


def environment(run_dir: Path, engine_kwargs: dict):
    """Rank 0's locks open at turn 0; rank 1's fail, get the environment's feedback and are regenerated."""
    args = config(
        run_dir, AGENT_TRAINING, engine_kwargs, shuffle_dataset=False, **WITHOUT_VLLM_LOGPROBS | AGENT_COMPLETION
    )
    rank, tokenizer = args.process_index, build_tiny_tokenizer()
    path = model_dir(run_dir, args, tokenizer, build_tiny_model)

    trainer = built_or_refused(
        run_dir,
        rank,
        lambda: MulFeRLTrainer(
            model=path,
            args=args,
            train_dataset=lock_dataset(["0", "0", "7", "5"]),
            processing_class=tokenizer,
            environment_factory=LockEnv,
            feedback_provider=EnvironmentFeedbackProvider(),
        ),
    )
    if trainer is None:
        return
    scripted(trainer, tokenizer, lock_script)
    train(trainer, run_dir, rank, lambda: {"tried": [env.tried for env in trainer.environments]})


def igrpo(run_dir: Path, engine_kwargs: dict):
    """tests/helpers/scripts/two_process_training.py's iGRPO run, on vLLM (its rewards differ between ranks)."""
    args = config(run_dir, TINY_TRAINING, engine_kwargs)
    model = model_dir(run_dir, args, build_tiny_tokenizer(), build_stopping_model)
    igrpo_training(run_dir, engine_kwargs | COLOCATE | {"ddp_timeout": TIMEOUT}, False, model=model)


RUNS = {
    "openai": openai,
    "self": self_feedback,
    "self_tokenization": self_tokenization,
    "fco_chunks": fco_chunks,
    "column_tools": column_tools,
    "environment": environment,
    "igrpo": igrpo,
    "fco_window_skipped": fco_window_skipped,
}


if __name__ == "__main__":
    output_dir, *run_names = [argument for argument in sys.argv[1:] if argument != "--vllm"]
    engine_kwargs = set_up_engine()
    for run_name in run_names:
        run_dir = Path(output_dir) / run_name
        run_dir.mkdir(parents=True, exist_ok=True)
        if VLLM:
            ENGINES.scripted(None, None)
            with colocate_on_cpu(ENGINES):
                RUNS[run_name](run_dir, engine_kwargs)
        else:
            RUNS[run_name](run_dir, engine_kwargs)
    exit_launched_process()
