from dataclasses import dataclass, field

from trl import GRPOConfig


FCO_PAIRINGS = ("permutation", "all")
FEEDBACK_INJECTIONS = ("structured", "plain")


@dataclass
class MulFeRLConfig(GRPOConfig):
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
        > Parameters that control the feedback turns

        max_feedback_turns (`int`, *optional*, defaults to `2`):
            Number of feedback-guided regeneration turns after the first one, so a prompt is sampled at most
            `1 + max_feedback_turns` times. Paper: 2. `0` disables regeneration (the paper's "no regeneration"
            ablation).
        feedback_injection (`str`, *optional*, defaults to `"structured"`):
            Where the feedback goes. `"structured"` (paper): the assistant turn is prefilled with
            `<thinking><feedback>{feedback}</feedback>` and the model continues it; the injected tokens are masked
            out of every loss. `"plain"` (the paper's ablation): the feedback is appended to the user prompt and the
            model writes the whole answer.
        feedback_group_size (`int`, *optional*, defaults to `2`):
            Number of failed rollouts shown to the feedback model per request; the K rollouts of a failed group are
            split into `ceil(K / feedback_group_size)` random subgroups whose feedback is then merged. Paper: 2.
        max_feedback_length (`int`, *optional*, defaults to `1024`):
            Maximum number of policy tokens of injected feedback; longer feedback is truncated. Paper: 1024.
        feedback_max_concurrency (`int`, *optional*, defaults to `16`):
            Maximum number of feedback requests in flight at once on each process. All FAILED groups of a batch are
            asked concurrently, up to this bound.
        success_threshold (`float`, *optional*, defaults to `1.0`):
            A rollout succeeds when the weighted sum of its rewards is at least this value. Groups are SOLVED (all
            succeed), FAILED (none succeeds) or CONTRASTIVE (mixed). Paper: binary reward, success = 1.

        > Parameters that control Feedback-Contrastive Optimization (FCO)

        fco_weight (`float`, *optional*, defaults to `0.01`):
            Weight of the FCO loss (lambda_FCO). Paper: 0.01. `0` disables FCO (the paper's "no FCO" ablation).
        fco_tau (`float`, *optional*, defaults to `0.005`):
            Inverse temperature tau of the pairwise FCO loss `-log sigmoid(tau * (s+ - s- - margin))`. Paper: 0.005.
        fco_margin (`float`, *optional*, defaults to `0.0`):
            Margin gamma of the pairwise FCO loss. Paper: 0.
        fco_pairing (`str`, *optional*, defaults to `"permutation"`):
            How positives (the solved group) are paired with negatives (the failed group before it).
            `"permutation"` (paper default): K pairs `(y+_j, y-_pi(j))` under a uniformly random permutation, an
            unbiased estimate of the all-pairs mean. `"all"`: all K*K pairs.
    """

    max_feedback_turns: int = field(
        default=2,
        metadata={
            "help": "Number of feedback-guided regeneration turns after the first one (paper: 2). 0 disables "
            "regeneration."
        },
    )
    feedback_injection: str = field(
        default="structured",
        metadata={
            "help": "Where the feedback goes: 'structured' prefills the assistant turn with "
            "<thinking><feedback>...</feedback> (paper), 'plain' appends it to the user prompt (ablation).",
            "choices": list(FEEDBACK_INJECTIONS),
        },
    )
    feedback_group_size: int = field(
        default=2,
        metadata={"help": "Failed rollouts per feedback request; subgroup feedback is merged (paper: 2)."},
    )
    max_feedback_length: int = field(
        default=1024,
        metadata={"help": "Maximum number of policy tokens of injected feedback (paper: 1024)."},
    )
    feedback_max_concurrency: int = field(
        default=16,
        metadata={"help": "Maximum number of feedback requests in flight at once on each process."},
    )
    success_threshold: float = field(
        default=1.0,
        metadata={
            "help": "A rollout succeeds when the weighted sum of its rewards is at least this value (paper: binary "
            "reward, 1.0)."
        },
    )
    fco_weight: float = field(
        default=0.01,
        metadata={"help": "Weight of the Feedback-Contrastive Optimization loss (paper: 0.01). 0 disables FCO."},
    )
    fco_tau: float = field(
        default=0.005,
        metadata={"help": "Inverse temperature of the pairwise FCO loss (paper: 0.005)."},
    )
    fco_margin: float = field(
        default=0.0,
        metadata={"help": "Margin of the pairwise FCO loss (paper: 0)."},
    )
    fco_pairing: str = field(
        default="permutation",
        metadata={
            "help": "FCO pairs: 'permutation' (K pairs under a random permutation, paper default) or 'all' (K*K).",
            "choices": list(FCO_PAIRINGS),
        },
    )

    def __post_init__(self):
        if self.num_generations is not None and self.num_generations < 2:
            raise ValueError(
                f"num_generations (K, rollouts per prompt) must be >= 2 to tell solved, failed and contrastive groups "
                f"apart, got {self.num_generations}. The paper uses 8."
            )
        super().__post_init__()

        if self.max_feedback_turns < 0:
            raise ValueError(f"max_feedback_turns must be >= 0, got {self.max_feedback_turns}.")
        if self.feedback_injection not in FEEDBACK_INJECTIONS:
            raise ValueError(
                f"feedback_injection must be one of {FEEDBACK_INJECTIONS}, got {self.feedback_injection!r}."
            )
        if self.feedback_group_size < 1:
            raise ValueError(f"feedback_group_size must be >= 1, got {self.feedback_group_size}.")
        if self.max_feedback_length < 1:
            raise ValueError(f"max_feedback_length must be >= 1 token, got {self.max_feedback_length}.")
        if self.feedback_max_concurrency < 1:
            raise ValueError(f"feedback_max_concurrency must be >= 1, got {self.feedback_max_concurrency}.")
        if self.fco_weight < 0:
            raise ValueError(f"fco_weight must be >= 0 (0 disables FCO), got {self.fco_weight}.")
        if self.fco_tau <= 0:
            raise ValueError(f"fco_tau must be > 0, got {self.fco_tau}.")
        if self.fco_margin < 0:
            raise ValueError(f"fco_margin must be >= 0, got {self.fco_margin}.")
        if self.fco_pairing not in FCO_PAIRINGS:
            raise ValueError(f"fco_pairing must be one of {FCO_PAIRINGS}, got {self.fco_pairing!r}.")

        # Groups are classified, paired and regenerated on the process that holds them (decision 4 of the spec).
        local_rows = self.per_device_train_batch_size * self.steps_per_generation
        if local_rows % self.num_generations != 0:
            raise ValueError(
                f"per_device_train_batch_size ({self.per_device_train_batch_size}) * steps_per_generation "
                f"({self.steps_per_generation}) = {local_rows} must be divisible by num_generations "
                f"({self.num_generations}), so that no prompt group is split across processes. Raise "
                "per_device_train_batch_size or steps_per_generation, or lower num_generations."
            )

        # FCO's gradient is precomputed at generation time with the parameters of that moment (decision 2).
        if self.fco_weight > 0 and self.max_feedback_turns > 0:
            if self.num_iterations != 1:
                raise ValueError(
                    f"num_iterations ({self.num_iterations}) must be 1 when fco_weight > 0: FCO scores are computed "
                    "once per generation batch. Set num_iterations=1 or fco_weight=0."
                )
            if self.steps_per_generation != self.gradient_accumulation_steps:
                raise ValueError(
                    f"steps_per_generation ({self.steps_per_generation}) must equal gradient_accumulation_steps "
                    f"({self.gradient_accumulation_steps}) when fco_weight > 0: FCO scores are computed with the "
                    "parameters of the generation step. Leave steps_per_generation unset or set fco_weight=0."
                )
