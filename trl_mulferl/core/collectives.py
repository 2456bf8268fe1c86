"""Telling a collective's failure from a failure of the work around it, for every site that catches errors so that
training goes on (a feedback provider's, self-feedback's generation): after a collective fails, the processes no longer
agree on which calls come next, so such a site re-raises it (see `trl_mulferl.mulferl.lockstep`)."""

import torch


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
