from dataclasses import dataclass, field

from trl import GRPOConfig

from ..core.collectives import set_collective_timeout
from ..core.credentials import MaskedEndpointURLs
from ..core.validation import (
    check_groups_within_process,
    check_num_generations,
    default_activation_checkpointing,
    gradient_checkpointing_field,
)
from ..feedback.arguments import FeedbackArguments, with_feedback_parameters


@with_feedback_parameters
@dataclass
class MulFeRLConfig(MaskedEndpointURLs, FeedbackArguments, GRPOConfig):
    r"""
    Configuration class for [`MulFeRLTrainer`].

    MulFeRL (Multi-turn Feedback-guided Reinforcement Learning) regenerates every prompt whose K rollouts all fail,
    conditioning the new group on verbal feedback injected into a `<feedback>` slot of the answer, and trains the
    first turn that shows contrast: clipped GRPO on a mixed group, or Feedback-Contrastive Optimization (FCO) when
    feedback turns an all-failed group into an all-solved one.

    [`MulFeRLConfig`] inherits every parameter of [`~trl.GRPOConfig`] with its TRL default, so that the trainer is a
    drop-in replacement for [`~trl.GRPOTrainer`]. The paper's GRPO settings (Table 4: `loss_type="grpo"`,
    `beta=0.001`, `num_generations=8`, `learning_rate=1e-6`) are set by the recipes in `recipes/`, not here.

    Parameters:
        > Parameters that anneal and cap the feedback turns (not in [`AsyncMulFeRLConfig`])

        min_feedback_turns (`int`, *optional*, defaults to `0`):
            The number of feedback turns that `feedback_turns_decay_steps` anneals `max_feedback_turns` down to.
        feedback_turns_decay_steps (`int` or `None`, *optional*, defaults to `None`):
            Anneal the number of feedback turns over training, the cost lever of the paper's section 5.3 (failures,
            and so feedback requests, are most frequent early on): the budget decreases linearly with the global
            step from `max_feedback_turns` at step 0 to `min_feedback_turns` at this step, rounded up so that each
            value lasts equally long, and stays there. Logged as `mulferl/feedback/max_turns`. `None`: constant, as
            the paper trains.
        max_feedback_groups_per_step (`int` or `None`, *optional*, defaults to `None`):
            At most this many FAILED groups per generation batch (one optimizer step with TRL's default
            `steps_per_generation`), over all processes and turns, get feedback; the others, chosen uniformly at
            random and identically on every process, are unresolved and counted in `mulferl/feedback/capped_groups`.
            `None`: no cap (the paper's setting).

        and the feedback arguments of [`FeedbackArguments`], which [`AsyncMulFeRLConfig`] shares:

    """

    gradient_checkpointing: bool | None = gradient_checkpointing_field()
    min_feedback_turns: int = field(
        default=0,
        metadata={"help": "Number of feedback turns that feedback_turns_decay_steps anneals max_feedback_turns to."},
    )
    feedback_turns_decay_steps: int | None = field(
        default=None,
        metadata={
            "help": "Anneal the number of feedback turns linearly from max_feedback_turns at step 0 to "
            "min_feedback_turns at this global step (paper section 5.3's cost lever). None: constant (paper)."
        },
    )
    max_feedback_groups_per_step: int | None = field(
        default=None,
        metadata={
            "help": "At most this many failed groups per generation batch (all processes and turns) get feedback; "
            "the others, chosen at random, are unresolved. None: no cap (paper)."
        },
    )

    def feedback_turns_at(self, global_step: int) -> int:
        """The number of feedback turns at this global step: `max_feedback_turns`, or its annealed value."""
        if self.feedback_turns_decay_steps is None:
            return self.max_feedback_turns
        steps_left = max(0, self.feedback_turns_decay_steps - global_step)
        span = self.max_feedback_turns - self.min_feedback_turns
        return self.min_feedback_turns + -(-span * steps_left // self.feedback_turns_decay_steps)  # rounded up

    __repr__ = MaskedEndpointURLs.__str__  # as TrainingArguments has it (a dataclass repr would show no field of ours)

    def __post_init__(self):
        default_activation_checkpointing(self)
        check_num_generations(self.num_generations, "to tell solved, failed and contrastive groups apart (paper: 8)")
        set_collective_timeout(self.ddp_timeout_delta)  # before TrainingArguments makes the default group
        super().__post_init__()  # TRL's, then the feedback arguments' checks (`FeedbackArguments`)

        if self.feedback_turns_decay_steps is not None and self.feedback_turns_decay_steps < 1:
            raise ValueError(
                f"feedback_turns_decay_steps must be >= 1 or None, got {self.feedback_turns_decay_steps}."
            )
        if not 0 <= self.min_feedback_turns <= self.max_feedback_turns:
            raise ValueError(
                f"min_feedback_turns must be between 0 and max_feedback_turns ({self.max_feedback_turns}), got "
                f"{self.min_feedback_turns}."
            )
        if self.min_feedback_turns and self.feedback_turns_decay_steps is None:
            raise ValueError(
                "min_feedback_turns is the floor of the annealed turn budget: set feedback_turns_decay_steps too, or "
                "leave min_feedback_turns at 0."
            )
        if self.max_feedback_groups_per_step is not None and self.max_feedback_groups_per_step < 1:
            raise ValueError(
                f"max_feedback_groups_per_step must be >= 1 or None (no cap), got {self.max_feedback_groups_per_step}"
                ". Set max_feedback_turns=0 for no feedback at all."
            )
        if self.feedback_replay and (
            self.scale_rewards == "batch" or self.multi_objective_aggregation != "sum_then_normalize"
        ):
            raise ValueError(
                "feedback_replay takes a replayed group's advantages over the union with its turn-0 group, group by "
                "group: it needs scale_rewards='group' or 'none' and multi_objective_aggregation='sum_then_normalize' "
                f"(got {self.scale_rewards!r}, {self.multi_objective_aggregation!r})."
            )
        if self.feedback_replay and self.use_vllm and self.vllm_importance_sampling_correction:
            raise ValueError(
                "feedback_replay trains rows vLLM sampled under the feedback as rows of the context without it, so "
                "vLLM's log-probs are not theirs: set vllm_importance_sampling_correction=False (the replayed rows' "
                "off-policy weight is feedback_replay_shaping)."
            )

        check_groups_within_process(self)

        if self.fco_enabled:
            if self.sync_ref_model:
                raise ValueError(
                    "sync_ref_model=True moves the reference policy towards the current one, but FCO scores against "
                    "the frozen starting policy (the paper's pi_ref). Set sync_ref_model=False, or fco_weight=0."
                )
            # The all-pairs surrogate's coefficients come from the policy of generation time (decision 2); the
            # permutation's pair losses are computed in the loss, exact at every iteration.
            if self.fco_pairing == "all" and self.num_iterations != 1:
                raise ValueError(
                    f"num_iterations ({self.num_iterations}) must be 1 with fco_pairing='all': its FCO gradient is "
                    "computed from the policy of the generation step. Set num_iterations=1, or "
                    "fco_pairing='permutation'."
                )
            if self.fco_pairing == "all" and self.steps_per_generation != self.gradient_accumulation_steps:
                raise ValueError(
                    f"steps_per_generation ({self.steps_per_generation}) must equal gradient_accumulation_steps "
                    f"({self.gradient_accumulation_steps}) with fco_pairing='all': its FCO gradient is computed from "
                    "the policy of the generation step. Leave steps_per_generation unset, or use "
                    "fco_pairing='permutation'."
                )
