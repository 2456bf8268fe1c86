"""Collective communication helpers every trainer uses: the timeout of every process group (`set_collective_timeout`,
which each config calls), and telling a collective's failure from a failure of the work around it, for every site that
catches errors so that training goes on (a feedback provider's, self-feedback's generation): after a collective
fails, the processes no longer agree on which calls come next, so such a site re-raises it (see
`trl_mulferl.mulferl.lockstep`)."""

from datetime import timedelta

import torch
from torch.distributed import distributed_c10d


# Collective failures that torch 2.13 raises as plain RuntimeErrors (gloo's and TORCH_DISTRIBUTED_DEBUG=DETAIL's), told
# by their messages.
_COLLECTIVE_FAILURES = (
    "Detected mismatch between collectives",  # DETAIL: the processes called different collectives
    "monitoredBarrier",  # DETAIL: a process never came ("Ranks 1 failed to pass monitoredBarrier in 90000 ms")
    "Monitored Barrier encountered error",  # DETAIL: that check itself failed
    "third_party/gloo/",  # gloo's transport: a timeout, a lost peer (the message names gloo's source file)
    "Application timeout caused pair closure",  # gloo: a call on a connection that a timeout closed
)


def is_collective_error(error: BaseException) -> bool:
    """Whether `error` is a collective's failure (mismatched calls, a timeout, a lost peer) rather than one of the work
    around it: torch.distributed's `DistError`s (NCCL's, the store's), and gloo's and DETAIL's RuntimeErrors."""
    if isinstance(error, torch.distributed.DistError):
        return True
    return isinstance(error, RuntimeError) and any(failure in str(error) for failure in _COLLECTIVE_FAILURES)


def set_collective_timeout(timeout: timedelta):
    """Every process group made from now on waits at most `timeout` in a collective; a config calls this with its
    `ddp_timeout` before it makes the default group.

    torch gives a group made without a timeout its own default (30 minutes, NCCL's 10), not the default group's, and
    groups are made so: the default group of a CPU run (transformers passes `ddp_timeout` only off the CPU), and
    DeepSpeed's (ZeRO's data-parallel group, a copy of the world's). A process left waiting there by one that skipped
    the collective hung the run that long. Torch's default is changed rather than each group's timeout: under
    TORCH_DISTRIBUTED_DEBUG=DETAIL the barrier that checks a collective runs on a gloo group of its own, which keeps the
    timeout the group was made with. Groups made earlier (a `PartialState` made before the config) keep theirs.
    """
    distributed_c10d.default_pg_timeout = timeout
    distributed_c10d.default_pg_nccl_timeout = timeout
