"""iGRPO on TRL's `GRPOTrainer`: a second group conditioned on the best of N drafts."""

from .igrpo_config import IGRPOConfig
from .igrpo_trainer import IGRPOTrainer


__all__ = ["IGRPOConfig", "IGRPOTrainer"]
