"""Which work every process must run together (decision 4): one policy that every site asks.

A forward under DeepSpeed ZeRO-3 or FSDP gathers parameters, a `generate` under them (or through vLLM's server, its
tensor-parallel groups or its sleep mode) synchronises, and every `gather` is collective: if one process runs such a
call that another skips, or runs it a different number of times, the run fails or hangs. So the decision whether to
run one, and on how many rows, is taken on gathered data, here; where the call is not collective (a forward or a
`generate` under DDP), each process runs only its own rows and skips the call when it has none.

One site cannot be padded: TRL's tool loop over regenerated episodes makes a data-dependent number of `generate`
calls, so feedback turns with tools are refused at start-up where generation is collective
(`validation.refuse_episodes_out_of_step`).

A process that skips a collective anyway leaves the others waiting in theirs: every process group waits at most the
run's `ddp_timeout` (`core.collectives.set_collective_timeout`), so that the run fails then instead of hanging.

A site that catches failures so that training goes on (a feedback provider's) re-raises a collective's failure
(`core.collectives.is_collective_error`): after one the processes no longer agree on which calls come next, so
carrying on would hang them or pair up the wrong calls, far from the cause.
"""

import torch


class Lockstep:
    """The cross-process consistency policy of one trainer.

    `collective_forwards` also decides every transformers `generate` outside the training backend (self-feedback's
    writer, `EvaluationCallback`): it is a run of forwards, so `synced_gpus` is on exactly where forwards are
    collective, and every process makes as many calls. ZeRO-1/2 keep whole parameters on every process, so there a
    process without rows makes no call.

    Args:
        accelerator: The trainer's `Accelerator`.
        collective_forwards: Whether a forward is a collective (ZeRO-3, FSDP).
        collective_generation: Whether a `generate` call of the training backend is a collective.
    """

    def __init__(self, accelerator, collective_forwards: bool, collective_generation: bool):
        self.accelerator = accelerator
        distributed = accelerator.num_processes > 1
        self.collective_forwards = collective_forwards and distributed
        self.collective_generation = collective_generation and distributed

    @classmethod
    def of(cls, trainer) -> "Lockstep":
        """The policy of a trainer's engine and (for a `GRPOTrainer`) generation backend."""
        zero3 = trainer.is_deepspeed_enabled and trainer.accelerator.state.deepspeed_plugin.zero_stage == 3
        sharded = zero3 or trainer.is_fsdp_enabled  # ZeRO-1/2 keep whole parameters on every process
        if getattr(trainer, "use_vllm", False):
            args = trainer.args
            collective_generation = (
                args.vllm_mode == "server" or args.vllm_tensor_parallel_size > 1 or args.vllm_enable_sleep_mode
            )
        else:
            collective_generation = sharded  # ZeRO-3 gathers and FSDP summons the parameters for `generate`
        return cls(trainer.accelerator, collective_forwards=sharded, collective_generation=collective_generation)

    def most(self, value: int) -> int:
        """The largest `value` over processes; a collective, so every process calls it at the same point."""
        if self.accelerator.num_processes == 1:
            return value
        return int(self.accelerator.gather(torch.tensor([value], device=self.accelerator.device)).max())

    def forward_rows(self, num_rows: int) -> int:
        """How many rows a process with `num_rows` forwards: the most any process has when forwards are collective
        (also equal chunk counts under TRL's `batch_size` chunking), else its own."""
        return self.most(num_rows) if self.collective_forwards else num_rows

    def generation_rows(self, num_rows: int) -> int:
        """How many rows a process with `num_rows` to regenerate sends to the backend (vLLM's server and TP groups
        also need equal counts)."""
        return self.most(num_rows) if self.collective_generation else num_rows


def padded(rows: list[int], count: int, filler: int = 0) -> list[int]:
    """`rows` then `filler` up to `count` entries: the dummy rows a process runs so that its collectives match."""
    return rows + [filler] * (count - len(rows))
