"""The synchronous MulFeRL trainer on TRL's `GRPOTrainer`: its config, the turn loop over a generation batch, FCO's rows
in the loss, which process runs which collective (lockstep), tool episodes, and vLLM's context check."""

from .mulferl_config import MulFeRLConfig
from .mulferl_trainer import MulFeRLTrainer


__all__ = ["MulFeRLConfig", "MulFeRLTrainer"]
