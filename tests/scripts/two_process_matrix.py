"""The feature x engine matrix on 2 CPU processes (gloo), launched by tests/test_multiprocess.py as
`accelerate launch --config_file tests/engine_configs/<engine>.yaml two_process_matrix.py OUTPUT_DIR RUN...` with
TORCH_DISTRIBUTED_DEBUG=DETAIL except under DDP (gloo then names a collective that one process skips instead of
hanging), and a collective timeout of 90 s.

Every run gives the processes asymmetric work: rank 0's groups never fail, rank 1's fail at every turn 0; the policy
stops at end-of-sequence after a varied number of tokens (`stopping_policy.py`), except where a scripted policy plays
the tool episodes. Runs (each into `OUTPUT_DIR/<run>/`):
- `openai`: the OpenAI provider against a local HTTP server (one per process), FCO with the permutation pairing,
  `feedback_replay`, and `EvaluationCallback` on 1 problem, so that rank 1 has none.
- `self`: self-feedback, FCO with the all-pairs pairing, rank 1's provider failing at step 1 (its groups end
  unresolved), and `EvaluationCallback` on 3 problems one per `generate`: 2 calls on rank 0 against 1.
- `column_tools`: the column provider; with `tools` (a scripted policy calls them) where feedback turns can
  regenerate episodes, else alone after the refusal of `tools` is recorded.
- `environment`: `environment_factory` with the environment's own feedback (scripted), or its refusal.

Each rank writes `result_rank{r}.json`: the engine in use, the log history, the full (gathered) weights, how far they
moved, how many problems each evaluation answered (dummies included); or `refused_rank{r}.txt` with a start-up refusal.
"""

import json
import sys
from pathlib import Path

import torch
from datasets import Dataset


sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fault_server import FaultServer  # noqa: E402
from tests.scripts.stopping_policy import build_stopping_model  # noqa: E402
from tests.scripts.two_process_training import TIMEOUT, engine_facts, full_parameters, set_up_engine  # noqa: E402
from tests.test_agentic import (  # noqa: E402
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
from tests.test_self_feedback import injected_feedback_reward  # noqa: E402
from tests.test_trainer import TINY_TRAINING, make_dataset  # noqa: E402
from tests.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from trl_mulferl import (  # noqa: E402
    ColumnFeedbackProvider,
    MulFeRLConfig,
    MulFeRLTrainer,
    SelfFeedbackProvider,
    make_conversation,
)
from trl_mulferl.environment_provider import EnvironmentFeedbackProvider  # noqa: E402
from trl_mulferl.evaluation import backends  # noqa: E402
from trl_mulferl.evaluation.callback import EvaluationCallback  # noqa: E402
from trl_mulferl.feedback import OpenAIFeedbackProvider  # noqa: E402
from trl_mulferl.feedback import self_feedback as self_feedback_module  # noqa: E402


COMMON = {
    "max_steps": 2,
    "max_feedback_turns": 1,
    "fco_weight": 1.0,
    "activation_checkpointing": False,
    "ddp_timeout": TIMEOUT,  # a process left waiting in a collective fails fast
}
SERVER_FEEDBACK = "Add every term"  # in the local server's reviews (tests/fault_server.py)


def config(run_dir: Path, base: dict, engine_kwargs: dict, **overrides) -> MulFeRLConfig:
    return MulFeRLConfig(output_dir=str(run_dir), **(base | COMMON | engine_kwargs | overrides))


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
    trainer.train()
    final = full_parameters(trainer)
    result = {
        "engine": engine_facts(trainer),
        "log_history": trainer.state.log_history,
        "parameters": {name: p.flatten().tolist() for name, p in final.items()},
        "moved": max((final[name] - p).abs().max().item() for name, p in initial.items()),
        **after(),
    }
    (run_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


def model_dir(run_dir: Path, args, tokenizer, build, name: str = "model") -> str:
    """The policy saved to disk: the reference policy (FCO's, self-feedback's writer) is loaded by path."""
    path = run_dir / name
    with args.main_process_first(desc="save the tiny model"):
        if args.process_index == 0:
            build(tokenizer).save_pretrained(path)
    return str(path)


def openai(run_dir: Path, engine_kwargs: dict):
    args = config(run_dir, TINY_TRAINING, engine_kwargs, feedback_replay=True)
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


def self_feedback(run_dir: Path, engine_kwargs: dict):
    args = config(run_dir, TINY_TRAINING, engine_kwargs, fco_pairing="all", beta=0.0)
    rank, tokenizer = args.process_index, build_tiny_tokenizer()
    trainer = MulFeRLTrainer(
        model=model_dir(run_dir, args, tokenizer, build_stopping_model),
        reward_funcs=rank_dependent(rank, injected_feedback_reward),
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
        # Sampled: greedy decoding of the stopping policy would write EOS at once, leaving no feedback.
        feedback_provider=SelfFeedbackProvider(max_new_tokens=16, temperature=1.0),
    )
    review_request = self_feedback_module.review_request

    def failing_on_rank_1_at_step_1(*args, **kwargs):
        if rank == 1 and trainer.state.global_step == 0:
            raise RuntimeError("the reviewer prompt could not be built")
        return review_request(*args, **kwargs)

    self_feedback_module.review_request = failing_on_rank_1_at_step_1
    requests = evaluation(trainer, num_problems=3)
    train(trainer, run_dir, rank, lambda: {"evaluation_requests": requests})


def built_or_refused(run_dir: Path, rank: int, build):
    """The trainer `build` makes, or None where it is refused at start-up (the refusal: `refused_rank{r}.txt`)."""
    try:
        return build()
    except ValueError as error:
        (run_dir / f"refused_rank{rank}.txt").write_text(str(error))
        return None


def column_tools(run_dir: Path, engine_kwargs: dict):
    """Rank 0's questions already say to use the tool (solved at turn 0); rank 1's hint comes from the column."""
    args = config(run_dir, AGENT_TRAINING, engine_kwargs, shuffle_dataset=False)
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
        trainer.model.generate = ScriptedPolicy(tokenizer, hinted_multiply_script)
    else:  # the column provider alone, with the stopping policy
        args = config(run_dir, TINY_TRAINING, engine_kwargs)
        dataset = make_dataset(num_prompts=8).add_column("privileged_context", [f"Write {SERVER_FEEDBACK}."] * 8)
        trainer = MulFeRLTrainer(
            model=model_dir(run_dir, args, tokenizer, build_stopping_model, name="stopping_model"),
            reward_funcs=rank_dependent(rank, lambda c: [float(SERVER_FEEDBACK in t) for t in texts(c)]),
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            feedback_provider=ColumnFeedbackProvider(),
        )
    train(trainer, run_dir, rank)


def environment(run_dir: Path, engine_kwargs: dict):
    """Rank 0's locks open at turn 0; rank 1's fail, get the environment's feedback and are regenerated."""
    args = config(run_dir, AGENT_TRAINING, engine_kwargs, shuffle_dataset=False)
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
    trainer.model.generate = ScriptedPolicy(tokenizer, lock_script)
    train(trainer, run_dir, rank, lambda: {"tried": [env.tried for env in trainer.environments]})


RUNS = {"openai": openai, "self": self_feedback, "column_tools": column_tools, "environment": environment}


if __name__ == "__main__":
    output_dir, *run_names = sys.argv[1:]
    engine_kwargs = set_up_engine()
    for run_name in run_names:
        run_dir = Path(output_dir) / run_name
        run_dir.mkdir(parents=True, exist_ok=True)
        RUNS[run_name](run_dir, engine_kwargs)
    torch.distributed.destroy_process_group()  # before exit: at the interpreter's teardown gloo can abort a rank
