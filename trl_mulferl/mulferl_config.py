from dataclasses import dataclass, field

from trl import GRPOConfig

from .validation import check_groups_within_process, check_num_generations


FCO_PAIRINGS = ("permutation", "all")
FCO_SCORE_NORMALIZATIONS = ("sum", "mean")
FEEDBACK_INJECTIONS = ("structured", "plain")
FEEDBACK_PROVIDERS = ("openai",)


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
        feedback_turn_deadline (`float`, *optional*, defaults to `600.0`):
            Seconds a feedback turn may wait for its requests; groups not answered by then are unresolved. Keep it
            well below `ddp_timeout` (TRL default 1800), since the other processes wait at the next collective.
        success_threshold (`float`, *optional*, defaults to `1.0`):
            A rollout succeeds when the weighted sum of its rewards is at least this value. Groups are SOLVED (all
            succeed), FAILED (none succeeds) or CONTRASTIVE (mixed). Paper: binary reward, success = 1.

        > Parameters that select a built-in feedback provider (when the trainer gets no `feedback_provider=`)

        feedback_provider (`str` or `None`, *optional*, defaults to `None`):
            `"openai"`: an [`OpenAIFeedbackProvider`] on `feedback_base_url` (GPT-4o in the paper, or any
            OpenAI-compatible server such as `vllm serve` or `transformers serve`). A provider passed to the trainer
            wins over this field.
        feedback_model (`str` or `None`, *optional*, defaults to `None`):
            Model name sent to the endpoint, e.g. `"gpt-4o"` (the paper's).
        feedback_base_url (`str` or `None`, *optional*, defaults to `None`):
            Endpoint URL, e.g. `"http://127.0.0.1:8000/v1"`; `None` for OpenAI's API.
        feedback_api_key_env (`str` or `None`, *optional*, defaults to `None`):
            Name of the environment variable holding the API key (the key itself is never stored in the config).
            `None`: `OPENAI_API_KEY` for OpenAI's API, and no key for a `feedback_base_url`, so that an exported
            OpenAI key is never sent to another server.
        feedback_temperature (`float`, *optional*, defaults to `0.0`):
            Sampling temperature of the feedback model.
        feedback_timeout (`float`, *optional*, defaults to `60.0`):
            Seconds per feedback request attempt.
        feedback_max_retries (`int`, *optional*, defaults to `4`):
            Retries of a feedback request after a 429, 5xx, timeout or connection error (exponential backoff).
        feedback_reasoning_model (`bool`, *optional*, defaults to `False`):
            The feedback model rejects `stop`, `temperature` and `max_tokens` (reasoning models): send none of them.
        feedback_reference_column (`str`, *optional*, defaults to `"solution"`):
            Dataset column holding the reference answer that the answer-leak guard looks for in every feedback text
            (decision 8); any value is compared as text. A row without it is not checked.

        > Parameters that control Feedback-Contrastive Optimization (FCO)

        fco_weight (`float`, *optional*, defaults to `0.01`):
            Weight of the FCO loss (lambda_FCO). Paper: 0.01. `0` disables FCO (the paper's "no FCO" ablation).
        fco_tau (`float`, *optional*, defaults to `0.005`):
            Inverse temperature tau of the pairwise FCO loss `-log sigmoid(tau * (s+ - s- - margin))`. Paper: 0.005.
        fco_margin (`float`, *optional*, defaults to `0.0`):
            Margin gamma of the pairwise FCO loss. Paper: 0.
        fco_score_normalization (`str`, *optional*, defaults to `"sum"`):
            How a sequence's log-ratio to the reference is turned into its FCO score. `"sum"`: the sum over its
            generated tokens, as in the authors' released code, with which the paper's numbers (and its tau = 0.005)
            were obtained; FCO is then standard DPO with beta = tau. `"mean"`: divided by the number of generated
            tokens, as eq. 13 is written; at tau = 0.005 the pair loss then barely leaves log 2 and FCO is nearly
            inert unless tau is raised by about the rollout length.
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
    feedback_turn_deadline: float = field(
        default=600.0,
        metadata={
            "help": "Seconds a feedback turn waits for its requests; unanswered groups are unresolved. Keep it well "
            "below ddp_timeout."
        },
    )
    feedback_provider: str | None = field(
        default=None,
        metadata={
            "help": "Built-in feedback provider used when the trainer gets none: 'openai' (any OpenAI-compatible "
            "endpoint; GPT-4o in the paper).",
            "choices": [None, *FEEDBACK_PROVIDERS],
        },
    )
    feedback_model: str | None = field(
        default=None, metadata={"help": "Feedback model name sent to the endpoint, e.g. 'gpt-4o' (the paper's)."}
    )
    feedback_base_url: str | None = field(
        default=None,
        metadata={"help": "OpenAI-compatible endpoint, e.g. 'http://127.0.0.1:8000/v1'; None for OpenAI's API."},
    )
    feedback_api_key_env: str | None = field(
        default=None,
        metadata={
            "help": "Environment variable holding the feedback endpoint's API key (never stored). Default: "
            "OPENAI_API_KEY for OpenAI's API, none for a feedback_base_url."
        },
    )
    feedback_temperature: float = field(default=0.0, metadata={"help": "Sampling temperature of the feedback model."})
    feedback_timeout: float = field(default=60.0, metadata={"help": "Seconds per feedback request attempt."})
    feedback_max_retries: int = field(
        default=4,
        metadata={"help": "Retries of a feedback request after a 429, 5xx, timeout or connection error."},
    )
    feedback_reasoning_model: bool = field(
        default=False,
        metadata={"help": "The feedback model rejects stop, temperature and max_tokens (reasoning models)."},
    )
    feedback_reference_column: str = field(
        default="solution",
        metadata={
            "help": "Dataset column with the reference answer that the answer-leak guard looks for in feedback."
        },
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
    fco_score_normalization: str = field(
        default="sum",
        metadata={
            "help": "FCO score of a sequence: 'sum' of its token log-ratios to the reference (the authors' released "
            "code, with which the paper's tau = 0.005 was run) or their 'mean' (eq. 13 as written).",
            "choices": list(FCO_SCORE_NORMALIZATIONS),
        },
    )
    fco_pairing: str = field(
        default="permutation",
        metadata={
            "help": "FCO pairs: 'permutation' (K pairs under a random permutation, paper default) or 'all' (K*K).",
            "choices": list(FCO_PAIRINGS),
        },
    )

    @property
    def fco_enabled(self) -> bool:
        """FCO trains only when feedback turns can turn a failed group into a solved one."""
        return self.fco_weight > 0 and self.max_feedback_turns > 0

    def __post_init__(self):
        check_num_generations(self.num_generations, "to tell solved, failed and contrastive groups apart (paper: 8)")
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
        if self.feedback_turn_deadline <= 0 or self.feedback_timeout <= 0 or self.feedback_max_retries < 0:
            raise ValueError(
                "feedback_turn_deadline and feedback_timeout must be > 0 and feedback_max_retries >= 0, got "
                f"{self.feedback_turn_deadline}, {self.feedback_timeout}, {self.feedback_max_retries}."
            )
        if self.feedback_provider is not None and self.feedback_provider not in FEEDBACK_PROVIDERS:
            raise ValueError(
                f"Unknown feedback_provider {self.feedback_provider!r}: use one of {FEEDBACK_PROVIDERS}, or pass any "
                "callable to MulFeRLTrainer(feedback_provider=...)."
            )
        if self.feedback_provider == "openai" and not self.feedback_model:
            raise ValueError("feedback_provider='openai' needs feedback_model, e.g. feedback_model='gpt-4o'.")
        if self.fco_weight < 0:
            raise ValueError(f"fco_weight must be >= 0 (0 disables FCO), got {self.fco_weight}.")
        if self.fco_tau <= 0:
            raise ValueError(f"fco_tau must be > 0, got {self.fco_tau}.")
        if self.fco_margin < 0:
            raise ValueError(f"fco_margin must be >= 0, got {self.fco_margin}.")
        if self.fco_pairing not in FCO_PAIRINGS:
            raise ValueError(f"fco_pairing must be one of {FCO_PAIRINGS}, got {self.fco_pairing!r}.")
        if self.fco_score_normalization not in FCO_SCORE_NORMALIZATIONS:
            raise ValueError(
                f"fco_score_normalization must be one of {FCO_SCORE_NORMALIZATIONS}, got "
                f"{self.fco_score_normalization!r}."
            )

        check_groups_within_process(self)

        # FCO's gradient is precomputed at generation time with the parameters of that moment (decision 2).
        if self.fco_enabled:
            if self.sync_ref_model:
                raise ValueError(
                    "sync_ref_model=True moves the reference policy towards the current one, but FCO scores against "
                    "the frozen starting policy (the paper's pi_ref). Set sync_ref_model=False, or fco_weight=0."
                )
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
