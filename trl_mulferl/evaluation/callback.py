"""`EvaluationCallback`: pass@1 on a benchmark slice every N training steps, to pick the best checkpoint."""

from transformers import Trainer, TrainerCallback

from ..mulferl.lockstep import Lockstep
from .backends import TransformersBackend
from .benchmarks import load_benchmark, parse_benchmarks
from .metrics import summarize
from .runner import evaluate


class EvaluationCallback(TrainerCallback):
    """Runs benchmarks with the trainer's current model every `eval_steps` steps and logs `eval/<name>/pass@1` and
    their average `eval/pass@1` (the paper selects the checkpoint with the best validation score).

    Generation is batched `model.generate` under TRL's `unwrap_model_for_generation` (DeepSpeed ZeRO-3 weights are
    gathered); each process answers its share of the problems, and the verdicts are gathered before scoring. Under
    ZeRO-3 and FSDP transformers synchronises every `generate`, so there every process answers as many problems (see
    `Lockstep`), padding its share with copies of the first problem whose answers are dropped.

    Usage:
    ```python
    >>> trainer = MulFeRLTrainer(...)
    >>> trainer.add_callback(EvaluationCallback(trainer, ["math500", "aime24"], eval_steps=50, limit=100))
    ```

    Args:
        trainer: The trainer to evaluate and log through.
        benchmarks: Benchmark names or `name=path` strings (see `trl_mulferl.evaluation.benchmarks`), or a dict of
            ready datasets `name -> rows of problem_id, prompt, solution, answer_type`.
        eval_steps: Evaluate when the global step is a multiple of it.
        limit: The first `limit` problems of each named benchmark.
        num_samples: Samples per problem.
        max_tokens: New tokens per sample (default: the trainer's `max_completion_length`).
        temperature: Sampling temperature (default: the trainer's `temperature`).
        batch_size: Samples per `generate` call (default: the trainer's `per_device_eval_batch_size`).
        require_schema: Score only schema-compliant responses, as training does.
        system_prompt: `"schema"` (MulFeRL's system prompt), `None` (the problem alone), or another text.
    """

    def __init__(
        self,
        trainer: Trainer,
        benchmarks: list[str] | dict,
        eval_steps: int,
        limit: int | None = None,
        num_samples: int = 1,
        max_tokens: int | None = None,
        temperature: float | None = None,
        batch_size: int | None = None,
        require_schema: bool = True,
        system_prompt: str | None = "schema",
    ):
        if eval_steps < 1:
            raise ValueError(f"EvaluationCallback needs eval_steps >= 1 (got {eval_steps}).")
        self.trainer, self.eval_steps, self.num_samples = trainer, eval_steps, num_samples
        self.require_schema = require_schema
        args = trainer.args
        self.max_tokens = max_tokens or getattr(args, "max_completion_length", None) or 256
        self.temperature = temperature if temperature is not None else getattr(args, "temperature", 1.0)
        self.batch_size = batch_size or args.per_device_eval_batch_size
        if not isinstance(benchmarks, dict):
            sources = parse_benchmarks(",".join(benchmarks))
            benchmarks = {
                name: load_benchmark(name, path, limit=limit, system_prompt=system_prompt)
                for name, path in sources.items()
            }
        self.problems = [{"benchmark": name, **row} for name, rows in benchmarks.items() for row in rows]
        self._last_step = -1

    def run(self) -> dict:
        """Evaluate the trainer's current model now; returns the summary (see `trl_mulferl.evaluation.metrics`)."""
        from accelerate.utils import gather_object
        from trl.models.utils import unwrap_model_for_generation

        trainer = self.trainer
        tokenizer = getattr(trainer.processing_class, "tokenizer", trainer.processing_class)
        lockstep = getattr(trainer, "lockstep", None) or Lockstep.of(trainer)
        with trainer.accelerator.split_between_processes(self.problems) as shard:
            problems = padded_problems(shard, lockstep.forward_rows(len(shard)), self.problems)
        with unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator) as model:
            backend = TransformersBackend(model, tokenizer, self.max_tokens, self.temperature, 1.0, self.batch_size)
            records = evaluate(
                problems, backend, self.num_samples, self.require_schema, show_progress=False, seed=trainer.args.seed
            )
        reshard(trainer.model_wrapped)
        records = [record for record in records if not is_padding(record["problem_id"])]
        return summarize(gather_object(records), self.num_samples)

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step % self.eval_steps != 0 or state.global_step == self._last_step:
            return
        self._last_step = state.global_step
        summary = self.run()
        metrics = {f"eval/{name}/pass@1": m["pass@1"] for name, m in summary["benchmarks"].items()}
        metrics["eval/pass@1"] = summary["average"]["pass@1"]
        # The base Trainer.log: GRPOTrainer.log would flush the step's pending training metrics into this entry.
        # Logging clears `control.should_log`; restore it so that the step's own training log still happens.
        should_log = control.should_log
        Trainer.log(self.trainer, metrics)
        control.should_log = should_log
        return control


_PADDING = "mulferl-padding"


def padded_problems(shard: list[dict], count: int, problems: list[dict]) -> list[dict]:
    """`shard`, then copies of the first of `problems` up to `count`, each with its own padding id (`is_padding`)."""
    return shard + [{**problems[0], "problem_id": (_PADDING, i)} for i in range(count - len(shard))]


def is_padding(problem_id) -> bool:
    return isinstance(problem_id, tuple) and problem_id[0] == _PADDING


def reshard(model):
    """Free the parameters FSDP2 left whole: it keeps the root module's after a forward, for the backward that
    training runs next and an evaluation does not."""
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        if isinstance(module, FSDPModule):
            module.reshard()
