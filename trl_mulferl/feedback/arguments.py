"""The feedback arguments both MulFeRL configs inherit (`FeedbackArguments`): the fields, their documentation and their
checks, written once."""

import inspect
import re
from dataclasses import dataclass, field, fields

from ..core.credentials import check_api_key_variable
from ..core.losses import FCO_SCORE_NORMALIZATIONS
from .build import FEEDBACK_PROVIDERS


FCO_PAIRINGS = ("permutation", "all")
FEEDBACK_INJECTIONS = ("structured", "plain")
FEEDBACK_LEAK_GUARDS = ("strict", "exempt_given")


@dataclass
class FeedbackArguments:
    r"""
    The feedback arguments that [`MulFeRLConfig`] and [`AsyncMulFeRLConfig`] share: the feedback turns, the built-in
    provider, FCO and `feedback_replay`, with their checks. A mixin of a TRL config: each config's `__post_init__`
    runs TRL's, then these checks (`check_feedback_arguments`).

    Parameters:
        > Parameters that control the feedback turns

        max_feedback_turns (`int`, *optional*, defaults to `2`):
            Number of feedback-guided regeneration turns after the first one, so a prompt is sampled at most
            `1 + max_feedback_turns` times. Paper: 2. `0` disables regeneration (the paper's "no regeneration"
            ablation). [`MulFeRLConfig`]'s `feedback_turns_decay_steps` anneals it.
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
        feedback_leak_guard (`str`, *optional*, defaults to `"strict"`):
            What the answer-leak guard lets feedback quote of the problem (`redact_answer_leak`). `"strict"`: every
            standalone mention of the answer's value is redacted, a quote of a number the problem states included (the
            problem is read for a multiple-choice option's words and formula only). `"exempt_given"`: a value the
            problem states may be quoted and is redacted only where it is stated as the result; it keeps those quotes
            but misses statements of such a value without a result cue (held-out recall 0.956 against 0.969 on the
            seventh corpus, 0.740 against 1.000 on the problems whose answer is a number they state).
        feedback_max_concurrency (`int`, *optional*, defaults to `16`):
            Maximum number of feedback requests in flight at once on each process. All FAILED groups of a batch are
            asked concurrently, up to this bound.
        feedback_turn_deadline (`float`, *optional*, defaults to `600.0`):
            Seconds a feedback turn may wait for its requests; groups not answered by then are unresolved. Keep it
            well below `ddp_timeout` (TRL default 1800), since the other processes wait at the next collective.
            Batched providers (`"self"`) generate to the end instead.
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
            trainer gets a provider (`MulFeRLTrainer(feedback_provider=...)`), which wins over this field. The names
            are the keys of `trl_mulferl.feedback.build.FEEDBACK_PROVIDERS`, where a built-in provider is registered.
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
        metadata={
            "help": "Failed rollouts per feedback request of the 'openai' and 'self' providers; subgroup feedback is "
            "merged (paper: 2). A provider of your own gets the whole group."
        },
    )
    max_feedback_length: int = field(
        default=1024,
        metadata={"help": "Maximum number of policy tokens of injected feedback (paper: 1024)."},
    )
    feedback_leak_guard: str = field(
        default="strict",
        metadata={
            "help": "'strict': the answer-leak guard redacts every standalone mention of the answer's value, "
            "quotes of a value the problem states included; 'exempt_given': such a value only where stated as the "
            "result.",
            "choices": list(FEEDBACK_LEAK_GUARDS),
        },
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
    feedback_skip_truncated: bool = field(
        default=False,
        metadata={
            "help": "Ask no feedback for a failed group whose rollouts all hit max_completion_length; it is "
            "unresolved (paper: no skipping)."
        },
    )
    success_threshold: float = field(
        default=1.0,
        metadata={
            "help": "A rollout succeeds when the weighted sum of its rewards is at least this value (paper: binary "
            "reward, 1.0)."
        },
    )
    feedback_provider: str | None = field(
        default=None,
        metadata={
            "help": "Built-in feedback provider used when the trainer gets none: 'openai' (any OpenAI-compatible "
            "endpoint; GPT-4o in the paper), 'self' (the frozen starting policy; paper Table 13), 'column' (a "
            "dataset column), 'checker' (the function feedback_checker), 'none' (no feedback), or any name "
            "registered in trl_mulferl.feedback.build.FEEDBACK_PROVIDERS."
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

    @property
    def fco_enabled(self) -> bool:
        """FCO trains only when feedback turns can turn a failed group into a solved one."""
        return self.fco_weight > 0 and self.max_feedback_turns > 0

    def __post_init__(self):
        super().__post_init__()  # TRL's config's
        check_feedback_arguments(self)


def check_feedback_arguments(config):
    """The checks of the feedback arguments, each error naming the field and the fix; the selected built-in provider
    checks the fields it reads (`BuiltinProvider.check`)."""
    if config.max_feedback_turns < 0:
        raise ValueError(f"max_feedback_turns must be >= 0, got {config.max_feedback_turns}.")
    if config.feedback_injection not in FEEDBACK_INJECTIONS:
        raise ValueError(
            f"feedback_injection must be one of {FEEDBACK_INJECTIONS}, got {config.feedback_injection!r}."
        )
    if config.feedback_leak_guard not in FEEDBACK_LEAK_GUARDS:
        raise ValueError(
            f"feedback_leak_guard must be one of {FEEDBACK_LEAK_GUARDS}, got {config.feedback_leak_guard!r}."
        )
    if config.feedback_group_size < 1:
        raise ValueError(f"feedback_group_size must be >= 1, got {config.feedback_group_size}.")
    if config.max_feedback_length < 1:
        raise ValueError(f"max_feedback_length must be >= 1 token, got {config.max_feedback_length}.")
    # None: a config that derives it (AsyncMulFeRLConfig) sets it after this check.
    if config.feedback_max_concurrency is not None and config.feedback_max_concurrency < 1:
        raise ValueError(f"feedback_max_concurrency must be >= 1, got {config.feedback_max_concurrency}.")
    if config.feedback_turn_deadline <= 0 or config.feedback_timeout <= 0 or config.feedback_max_retries < 0:
        raise ValueError(
            "feedback_turn_deadline and feedback_timeout must be > 0 and feedback_max_retries >= 0, got "
            f"{config.feedback_turn_deadline}, {config.feedback_timeout}, {config.feedback_max_retries}."
        )
    if config.feedback_provider is not None:
        if config.feedback_provider not in FEEDBACK_PROVIDERS:
            raise ValueError(
                f"Unknown feedback_provider {config.feedback_provider!r}: use one of {tuple(FEEDBACK_PROVIDERS)}, or "
                "pass any callable as the trainer's feedback_provider=...."
            )
        FEEDBACK_PROVIDERS[config.feedback_provider].check(config)
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
    if config.feedback_replay and config.feedback_injection != "structured":
        raise ValueError(
            "feedback_replay removes the feedback from the answer's <feedback> slot, so it needs "
            f"feedback_injection='structured' (got {config.feedback_injection!r})."
        )
    if config.feedback_replay_shaping is not None and config.feedback_replay_shaping <= 0:
        raise ValueError(
            f"feedback_replay_shaping must be > 0 or None (the plain ratio), got {config.feedback_replay_shaping}."
        )


# A parameter's entry in a TRL-style docstring: its line `name (`type`...):` and the more indented lines under it.
_PARAMETER_ENTRY = re.compile(r"^        (\w+) \(`.*?(?=^        \S|^    \S|\Z)", re.MULTILINE | re.DOTALL)


def with_feedback_parameters(config_class):
    """Class decorator: the config's docstring with `FeedbackArguments`' parameter groups after its own, less the
    entries of the fields the config redefines (documented in its own groups), so that each field is documented once
    and every one shows in the config's help."""
    own = set(inspect.get_annotations(config_class)) & {f.name for f in fields(FeedbackArguments)}
    groups = FeedbackArguments.__doc__.split("    Parameters:\n", 1)[1]
    groups = _PARAMETER_ENTRY.sub(lambda entry: "" if entry.group(1) in own else entry.group(0), groups)
    config_class.__doc__ = config_class.__doc__.rstrip() + "\n\n" + groups
    return config_class
