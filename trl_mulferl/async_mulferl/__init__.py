"""The asynchronous MulFeRL trainer on TRL's `AsyncGRPOTrainer`: its config and trainer, the spawned rollout process's
loop and worker (`async_rollout_worker`), and MulFeRL's samples from the rollout queue to the loss."""

from .async_mulferl_config import AsyncMulFeRLConfig
from .async_mulferl_trainer import AsyncMulFeRLTrainer


__all__ = ["AsyncMulFeRLConfig", "AsyncMulFeRLTrainer"]
