from dataclasses import dataclass, field

from trl import GRPOConfig

from ..core.credentials import check_api_key_variable, masked_url
from ..core.validation import (
    check_groups_within_process,
    check_num_generations,
    default_activation_checkpointing,
    gradient_checkpointing_field,
)
from .lockstep import set_collective_timeout


FCO_PAIRINGS = ("permutation", "all")
FCO_SCORE_NORMALIZATIONS = ("sum", "mean")
FEEDBACK_INJECTIONS = ("structured", "plain")
FEEDBACK_PROVIDERS = ("openai", "self", "column", "checker", "none")


class MaskedFeedbackURL:
    """Endpoint credentials kept out of what shows the arguments: wandb's and trackio's config (`to_dict`), logs
    (`str`) and `training_args.bin` (a pickle of the arguments). Each URL keeps its scheme, host, port and path."""

    _URL_FIELDS = ("feedback_base_url", "vllm_server_base_url")

    def _masked_urls(self) -> dict[str, str | None]:
        return {name: masked_url(getattr(self, name)) for name in self._URL_FIELDS if hasattr(self, name)}

    def __getstate__(self):
        return {**self.__dict__, **self._masked_urls()}

    def to_dict(self):
        return {**super().to_dict(), **self._masked_urls()}

    def __str__(self):
        text = super().__str__()
        for name, masked in self._masked_urls().items():
            if getattr(self, name):
                text = text.replace(getattr(self, name), masked)
        return text


@dataclass
class MulFeRLConfig(MaskedFeedbackURL, GRPOConfig):
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
            ablation). `feedback_turns_decay_steps` anneals it.
        min_feedback_turns (`int`, *optional*, defaults to `0`):
            The number of feedback turns that `feedback_turns_decay_steps` anneals `max_feedback_turns` down to.
        feedback_turns_decay_steps (`int` or `None`, *optional*, defaults to `None`):
            Anneal the number of feedback turns over training, the cost lever of the paper's section 5.3 (failures,
            and so feedback requests, are most frequent early on): the budget decreases linearly with the global
            step from `max_feedback_turns` at step 0 to `min_feedback_turns` at this step, rounded up so that each
            value lasts equally long, and stays there. Logged as `mulferl/feedback/max_turns`. `None`: constant, as
            the paper trains.
        feedback_injection (`str`, *optional*, defaults to `"structured"`):
            Where the feedback goes. `"structured"` (paper): the assistant turn is prefilled with
            `<thinking><feedback>{feedback}</feedback>` and the model continues it; the injected tokens are masked
            out of every loss. `"plain"` (the paper's ablation): the feedback is appended to the user prompt and the
            model writes the whole answer.
        feedback_group_size (`int`, *optional*, defaults to `2`):
            Number of failed rollouts shown to the feedback model per request; the K rollouts of a failed group are
            split into `ceil(K / feedback_group_size)` random subgroups whose feedback is then merged. Paper: 2. For
            the built-in `"openai"` and `"self"` providers only: a `feedback_provider` of your own gets the whole
            group (a split needs a merge step that only the provider can define), and setting this warns.
        max_feedback_length (`int`, *optional*, defaults to `1024`):
            Maximum number of policy tokens of injected feedback; longer feedback is truncated. Paper: 1024. Also the
            reply budget per request of the `"openai"` and `"self"` providers.
        feedback_max_concurrency (`int`, *optional*, defaults to `16`):
            Maximum number of feedback requests in flight at once on each process. All FAILED groups of a batch are
            asked concurrently, up to this bound.
        feedback_turn_deadline (`float`, *optional*, defaults to `600.0`):
            Seconds a feedback turn may wait for its requests; groups not answered by then are unresolved. Keep it
            well below `ddp_timeout` (TRL default 1800), since the other processes wait at the next collective.
            Batched providers (`"self"`) generate to the end instead.
        max_feedback_groups_per_step (`int` or `None`, *optional*, defaults to `None`):
            At most this many FAILED groups per generation batch (one optimizer step with TRL's default
            `steps_per_generation`), over all processes and turns, get feedback; the others, chosen uniformly at
            random and identically on every process, are unresolved and counted in `mulferl/feedback/capped_groups`.
            `None`: no cap (the paper's setting).
        feedback_skip_truncated (`bool`, *optional*, defaults to `False`):
            Ask no feedback for a FAILED group whose rollouts all hit `max_completion_length` (they never reached a
            final answer to review); such a group is unresolved and counted in `mulferl/feedback/skipped_truncated`.
            The paper asks feedback for every failed group.
        success_threshold (`float`, *optional*, defaults to `1.0`):
            A rollout succeeds when the weighted sum of its rewards is at least this value. Groups are SOLVED (all
            succeed), FAILED (none succeeds) or CONTRASTIVE (mixed). Paper: binary reward, success = 1.

        > Parameters that select a built-in feedback provider (when the trainer gets no `feedback_provider=`)

        feedback_provider (`str` or `None`, *optional*, defaults to `None`):
            `"openai"`: an [`OpenAIFeedbackProvider`] on `feedback_base_url` (GPT-4o in the paper, or any
            OpenAI-compatible server such as `vllm serve` or `transformers serve`). `"self"`: a
            [`SelfFeedbackProvider`], the frozen starting policy as its own reviewer (the paper's "self" simulator,
            Tables 3 and 13), with the same prompts. `"column"`: a [`ColumnFeedbackProvider`] reading
            `feedback_column`. `"checker"`: a [`CheckerFeedbackProvider`] around the function `feedback_checker`.
            `"none"`: no feedback, for the "no regeneration" ablation (needs `max_feedback_turns=0`). `None`: the
            trainer gets a provider (`MulFeRLTrainer(feedback_provider=...)`), which wins over this field.
        feedback_model (`str` or `None`, *optional*, defaults to `None`):
            Model name sent to the endpoint, e.g. `"gpt-4o"` (the paper's).
        feedback_base_url (`str` or `None`, *optional*, defaults to `None`):
            Endpoint URL, e.g. `"http://127.0.0.1:8000/v1"`; `None` for OpenAI's API. Credentials in it (`user:password@`,
            query values) are masked wherever the arguments are shown or saved (`to_dict`, `repr`, `training_args.bin`).
        feedback_api_key_env (`str` or `None`, *optional*, defaults to `None`):
            Name of the environment variable holding the API key (the key itself is never stored in the config). A
            value that is no variable name, such as a key, or that names no variable set in the environment is
            refused without being shown.
            `None`: `OPENAI_API_KEY` for OpenAI's API, and no key for a `feedback_base_url`, so that an exported
            OpenAI key is never sent to another server.
        feedback_temperature (`float`, *optional*, defaults to `0.0`):
            Sampling temperature of the feedback model (`"openai"` and `"self"`; `0` is greedy). The paper does not
            give it.
        feedback_timeout (`float`, *optional*, defaults to `60.0`):
            Seconds per feedback request attempt.
        feedback_max_retries (`int`, *optional*, defaults to `4`):
            Retries of a feedback request after a 408, 409, 429, 5xx, timeout or connection error (exponential backoff).
        feedback_reasoning_model (`bool`, *optional*, defaults to `False`):
            The feedback model rejects `stop`, `temperature` and `max_tokens` (reasoning models): send none of them.
        feedback_requests_per_minute (`float` or `None`, *optional*, defaults to `None`):
            `"openai"`: at most this many requests per minute per process, evenly spaced and shared by all concurrent
            requests (retries and merges count), so a rate-limited API is not hammered into 429s. `None`: no limit.
        feedback_tokens_per_minute (`float` or `None`, *optional*, defaults to `None`):
            `"openai"`: at most this many tokens per minute per process, each request counting its estimated prompt
            tokens (characters / 4) plus `max_feedback_length`, as OpenAI counts for its limits. `None`: no limit.
        feedback_input_token_price (`float`, *optional*, defaults to `0.0`):
            Price per 1M prompt tokens of the feedback model, in any currency (GPT-4o, the paper's model: 2.50 USD
            at the time of writing). With the output price it gives `mulferl/feedback/cost`, the running cost of the
            run from the token usage the provider reports, and the total in the summary logged when training ends;
            with both at 0 the cost is "not priced", and an `"openai"` endpoint that may bill (not this machine or a
            private network address) is warned about at start.
        feedback_output_token_price (`float`, *optional*, defaults to `0.0`):
            Price per 1M completion tokens of the feedback model (GPT-4o: 10.00 USD at the time of writing).
        feedback_column (`str`, *optional*, defaults to `"privileged_context"`):
            `"column"`: the dataset column holding the feedback (a string), or one hint per turn (a list; turn t
            gets element t - 1). The default is the column TRL's SDPO trainer reads.
        feedback_checker (`str` or `None`, *optional*, defaults to `None`):
            `"checker"`: the import path (`package.module.function`) of a function `check(problem, completion,
            columns) -> str | None` that diagnoses one failed attempt.
        feedback_checker_max_reports (`int`, *optional*, defaults to `3`):
            `"checker"`: distinct diagnostics kept per group, most frequent first.
        feedback_checker_max_chars (`int`, *optional*, defaults to `300`):
            `"checker"`: characters kept of each diagnostic.
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

        > Parameters beyond the paper: transfer to the feedback-free context (off by default)

        feedback_replay (`bool`, *optional*, defaults to `False`):
            Train the rows regenerated after feedback as samples of the feedback-free context: when a prompt is
            trained at a feedback turn (GRPO on its mixed group, or FCO), the injected text is removed from the slot
            of its rows (and of its FCO negatives), keeping the empty `<thinking><feedback></feedback>` the policy
            writes at turn 0, so its losses train the policy that answers without feedback instead of the one that
            reads it. Their advantages are taken over the union of the prompt's turn-0 rows (feedback-free, all
            failed) and the replayed ones, as Critique-GRPO (arXiv:2506.03106) takes them over initial responses and
            refinements, so an FCO prompt (all solved after feedback) is trained by GRPO too; the turn-0 rows only
            enter the baseline. The replayed rows are off-policy (sampled under the feedback);
            `feedback_replay_shaping` weighs them. Not in the paper, whose gains with feedback can stay conditional
            on it. Needs `feedback_injection="structured"` and group-wise advantages (`scale_rewards` "group" or
            "none", `multi_objective_aggregation="sum_then_normalize"`).
        feedback_replay_shaping (`float` or `None`, *optional*, defaults to `0.1`):
            gamma of Critique-GRPO's policy shaping for the replayed rows: each of their tokens gets the gradient of
            `f(p) = p / (p + gamma)` (p its probability under the policy) where an on-policy token gets that of its
            ratio, i.e. `gamma / (p + gamma)**2` times it, which damps the tokens the feedback-free policy finds
            unlikely and those it already writes. Critique-GRPO: 0.1. `None`: the plain ratio, as on-policy.
    """

    gradient_checkpointing: bool | None = gradient_checkpointing_field()
    max_feedback_turns: int = field(
        default=2,
        metadata={
            "help": "Number of feedback-guided regeneration turns after the first one (paper: 2). 0 disables "
            "regeneration."
        },
    )
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
        metadata={
            "help": "Failed rollouts per feedback request of the 'openai' and 'self' providers; subgroup feedback is "
            "merged (paper: 2). A provider of your own gets the whole group."
        },
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
    max_feedback_groups_per_step: int | None = field(
        default=None,
        metadata={
            "help": "At most this many failed groups per generation batch (all processes and turns) get feedback; "
            "the others, chosen at random, are unresolved. None: no cap (paper)."
        },
    )
    feedback_skip_truncated: bool = field(
        default=False,
        metadata={
            "help": "Ask no feedback for a failed group whose rollouts all hit max_completion_length; it is "
            "unresolved (paper: no skipping)."
        },
    )
    feedback_provider: str | None = field(
        default=None,
        metadata={
            "help": "Built-in feedback provider used when the trainer gets none: 'openai' (any OpenAI-compatible "
            "endpoint; GPT-4o in the paper), 'self' (the frozen starting policy; paper Table 13), 'column' (a "
            "dataset column), 'checker' (the function feedback_checker), 'none' (no feedback).",
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
    feedback_temperature: float = field(
        default=0.0, metadata={"help": "Sampling temperature of the feedback model ('openai', 'self'); 0 is greedy."}
    )
    feedback_timeout: float = field(default=60.0, metadata={"help": "Seconds per feedback request attempt."})
    feedback_max_retries: int = field(
        default=4,
        metadata={"help": "Retries of a feedback request after a 408, 409, 429, 5xx, timeout or connection error."},
    )
    feedback_reasoning_model: bool = field(
        default=False,
        metadata={"help": "The feedback model rejects stop, temperature and max_tokens (reasoning models)."},
    )
    feedback_requests_per_minute: float | None = field(
        default=None,
        metadata={"help": "'openai': at most this many requests per minute per process, evenly spaced. None: none."},
    )
    feedback_tokens_per_minute: float | None = field(
        default=None,
        metadata={
            "help": "'openai': at most this many tokens per minute per process (prompt characters / 4 + "
            "max_feedback_length per request). None: no limit."
        },
    )
    feedback_input_token_price: float = field(
        default=0.0,
        metadata={
            "help": "Price per 1M prompt tokens of the feedback model, for mulferl/feedback/cost (GPT-4o: 2.50)."
        },
    )
    feedback_output_token_price: float = field(
        default=0.0,
        metadata={"help": "Price per 1M completion tokens of the feedback model (GPT-4o: 10.00)."},
    )
    feedback_column: str = field(
        default="privileged_context",
        metadata={
            "help": "'column': dataset column with the feedback, or a list of one hint per turn (default: SDPO's)."
        },
    )
    feedback_checker: str | None = field(
        default=None,
        metadata={"help": "'checker': import path of check(problem, completion, columns) -> str | None."},
    )
    feedback_checker_max_reports: int = field(
        default=3, metadata={"help": "'checker': distinct diagnostics kept per group, most frequent first."}
    )
    feedback_checker_max_chars: int = field(
        default=300, metadata={"help": "'checker': characters kept of each diagnostic."}
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
    feedback_replay: bool = field(
        default=False,
        metadata={
            "help": "Beyond the paper: train the rows of a prompt trained after feedback with the feedback removed "
            "from their slot, as off-policy samples of the feedback-free context (also its FCO negatives), with "
            "advantages over the union with its turn-0 group (Critique-GRPO)."
        },
    )
    feedback_replay_shaping: float | None = field(
        default=0.1,
        metadata={
            "help": "gamma of the policy shaping f(p) = p / (p + gamma) whose gradient the replayed tokens get "
            "instead of their ratio's (Critique-GRPO: 0.1). None: the plain ratio."
        },
    )

    def feedback_turns_at(self, global_step: int) -> int:
        """The number of feedback turns at this global step: `max_feedback_turns`, or its annealed value."""
        if self.feedback_turns_decay_steps is None:
            return self.max_feedback_turns
        steps_left = max(0, self.feedback_turns_decay_steps - global_step)
        span = self.max_feedback_turns - self.min_feedback_turns
        return self.min_feedback_turns + -(-span * steps_left // self.feedback_turns_decay_steps)  # rounded up

    @property
    def fco_enabled(self) -> bool:
        """FCO trains only when feedback turns can turn a failed group into a solved one."""
        return self.fco_weight > 0 and self.max_feedback_turns > 0

    __repr__ = MaskedFeedbackURL.__str__  # as TrainingArguments has it (a dataclass repr would show no field of ours)

    def __post_init__(self):
        default_activation_checkpointing(self)
        check_num_generations(self.num_generations, "to tell solved, failed and contrastive groups apart (paper: 8)")
        set_collective_timeout(self.ddp_timeout_delta)  # before TrainingArguments makes the default group
        super().__post_init__()

        if self.max_feedback_turns < 0:
            raise ValueError(f"max_feedback_turns must be >= 0, got {self.max_feedback_turns}.")
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
        check_feedback_fields(self, FEEDBACK_PROVIDERS)
        check_fco_fields(self)

        check_replay_fields(self)
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


def check_replay_fields(config):
    """The checks of the `feedback_replay` fields that `MulFeRLConfig` and `AsyncMulFeRLConfig` share."""
    if config.feedback_replay and config.feedback_injection != "structured":
        raise ValueError(
            "feedback_replay removes the feedback from the answer's <feedback> slot, so it needs "
            f"feedback_injection='structured' (got {config.feedback_injection!r})."
        )
    if config.feedback_replay_shaping is not None and config.feedback_replay_shaping <= 0:
        raise ValueError(
            f"feedback_replay_shaping must be > 0 or None (the plain ratio), got {config.feedback_replay_shaping}."
        )


def check_fco_fields(config):
    """The checks of the FCO fields that `MulFeRLConfig` and `AsyncMulFeRLConfig` share."""
    if config.fco_weight < 0:
        raise ValueError(f"fco_weight must be >= 0 (0 disables FCO), got {config.fco_weight}.")
    if config.fco_tau <= 0:
        raise ValueError(f"fco_tau must be > 0, got {config.fco_tau}.")
    if config.fco_margin < 0:
        raise ValueError(f"fco_margin must be >= 0, got {config.fco_margin}.")
    if config.fco_pairing not in FCO_PAIRINGS:
        raise ValueError(f"fco_pairing must be one of {FCO_PAIRINGS}, got {config.fco_pairing!r}.")
    if config.fco_score_normalization not in FCO_SCORE_NORMALIZATIONS:
        raise ValueError(
            f"fco_score_normalization must be one of {FCO_SCORE_NORMALIZATIONS}, got "
            f"{config.fco_score_normalization!r}."
        )


def check_feedback_fields(config, providers: tuple[str, ...]):
    """The checks of the feedback fields that `MulFeRLConfig` and `AsyncMulFeRLConfig` share; `providers`: the names
    of the built-in providers the config accepts."""
    if config.feedback_injection not in FEEDBACK_INJECTIONS:
        raise ValueError(
            f"feedback_injection must be one of {FEEDBACK_INJECTIONS}, got {config.feedback_injection!r}."
        )
    if config.feedback_group_size < 1:
        raise ValueError(f"feedback_group_size must be >= 1, got {config.feedback_group_size}.")
    if config.max_feedback_length < 1:
        raise ValueError(f"max_feedback_length must be >= 1 token, got {config.max_feedback_length}.")
    if config.feedback_max_concurrency < 1:
        raise ValueError(f"feedback_max_concurrency must be >= 1, got {config.feedback_max_concurrency}.")
    if config.feedback_turn_deadline <= 0 or config.feedback_timeout <= 0 or config.feedback_max_retries < 0:
        raise ValueError(
            "feedback_turn_deadline and feedback_timeout must be > 0 and feedback_max_retries >= 0, got "
            f"{config.feedback_turn_deadline}, {config.feedback_timeout}, {config.feedback_max_retries}."
        )
    if config.feedback_provider is not None and config.feedback_provider not in providers:
        raise ValueError(
            f"Unknown feedback_provider {config.feedback_provider!r}: use one of {providers}, or pass any "
            "callable as the trainer's feedback_provider=...."
        )
    if config.feedback_provider == "openai" and not config.feedback_model:
        raise ValueError("feedback_provider='openai' needs feedback_model, e.g. feedback_model='gpt-4o'.")
    if config.feedback_provider == "checker" and not config.feedback_checker:
        raise ValueError(
            "feedback_provider='checker' needs feedback_checker, the import path of a function "
            "check(problem, completion, columns) -> str, e.g. feedback_checker='my_checks.unit_tests'."
        )
    if config.feedback_provider == "none" and config.max_feedback_turns > 0:
        raise ValueError(
            f"feedback_provider='none' gives no feedback, so there can be no feedback turns: set "
            f"max_feedback_turns=0 (got {config.max_feedback_turns}), the paper's no-regeneration ablation."
        )
    check_api_key_variable(config.feedback_api_key_env, "feedback_api_key_env")
    if config.feedback_temperature < 0:
        raise ValueError(f"feedback_temperature must be >= 0, got {config.feedback_temperature}.")
    for name in ("feedback_requests_per_minute", "feedback_tokens_per_minute"):
        if getattr(config, name) is not None and getattr(config, name) <= 0:
            raise ValueError(f"{name} must be > 0 or None (no limit), got {getattr(config, name)}.")
    if config.feedback_input_token_price < 0 or config.feedback_output_token_price < 0:
        raise ValueError(
            "feedback_input_token_price and feedback_output_token_price must be >= 0, got "
            f"{config.feedback_input_token_price} and {config.feedback_output_token_price}."
        )
    if config.feedback_checker_max_reports < 1 or config.feedback_checker_max_chars < 1:
        raise ValueError(
            "feedback_checker_max_reports and feedback_checker_max_chars must be >= 1, got "
            f"{config.feedback_checker_max_reports} and {config.feedback_checker_max_chars}."
        )
