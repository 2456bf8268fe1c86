import math
from dataclasses import MISSING, dataclass, field

from trl.experimental.async_grpo import AsyncGRPOConfig

from ..core.validation import check_num_generations, default_activation_checkpointing, gradient_checkpointing_field
from ..mulferl.lockstep import set_collective_timeout
from ..mulferl.mulferl_config import (
    MaskedFeedbackURL,
    MulFeRLConfig,
    check_fco_fields,
    check_feedback_fields,
    check_replay_fields,
)
from .pipeline import (
    default_feedback_slots,
    default_trajectory_budget,
    feedback_requests_per_group,
)


# The built-in providers a spawned rollout process can run: "self" generates with the trainer's own weights.
ASYNC_FEEDBACK_PROVIDERS = ("openai", "column", "checker", "none")


def _mulferl_field(name: str, help: str | None = None):
    """`MulFeRLConfig`'s field `name` (default and help), so that both configs document it once; `help` where it means
    something else in the rollout process."""
    source = MulFeRLConfig.__dataclass_fields__[name]
    metadata = dict(source.metadata)
    if help is not None:
        metadata["help"] = help
    if name == "feedback_provider":
        metadata["choices"] = [None, *ASYNC_FEEDBACK_PROVIDERS]
    if source.default_factory is not MISSING:
        return field(default_factory=source.default_factory, metadata=metadata)
    return field(default=source.default, metadata=metadata)


@dataclass
class AsyncMulFeRLConfig(MaskedFeedbackURL, AsyncGRPOConfig):
    r"""
    Configuration class for [`AsyncMulFeRLTrainer`]: TRL's [`~trl.experimental.async_grpo.AsyncGRPOConfig`] (every
    parameter with its TRL default) plus MulFeRL's feedback turns.

    The feedback fields mean what they mean in [`MulFeRLConfig`] (same names, defaults and paper values:
    `max_feedback_turns=2`, `feedback_group_size=2`, `max_feedback_length=1024`, `success_threshold=1.0`; FCO:
    `fco_weight=0.01`, `fco_tau=0.005`, `fco_margin=0`, the permutation pairing), with these differences, since each
    failed group is handled on its own while the trainer trains:

    - `feedback_turn_deadline` bounds one group's feedback request (there is no batch-wide feedback turn);
    - `feedback_provider="self"` is not available (the rollout process holds no copy of the policy): serve the model
      and use `"openai"`;
    - a group's rewards are the plain sum of the reward functions (AsyncGRPO has no `reward_weights`), and
      `success_threshold` applies to that sum;
    - each FCO pair reaches the trainer whole (a positive carrying its negatives) and is trained in one micro-batch,
      where its loss is computed exactly for either pairing (no generation-time surrogate); the FCO term of a
      micro-batch is `fco_weight` x the sum over its pairs of their loss / their prompt's pairs, over the prompts it
      trains; under `token_budget` a positive is priced with the negatives it carries, so that no micro-batch row
      exceeds the budget (a negative that fits in no row with its positive is dropped with its pair);
    - the reference policy of FCO is the base model with the adapter disabled under PEFT, else a frozen copy of the
      starting model (AsyncGRPO has none), which costs one more copy of the weights and one no-grad forward of each
      micro-batch holding an FCO pair;
    - `feedback_replay`: the replayed rows' advantages are taken over the union with the prompt's turn-0 group as in
      `MulFeRLTrainer`, scaled as `GRPOTrainer`'s are (`(r - mean) / (std + 1e-4)`, unbiased std), always (there is
      no `scale_rewards`); every other row has AsyncGRPO's own advantage, `(r - mean) / (std + 1e-8)` with the
      population std. Their tokens get the gradient of the shaped objective at the policy that trains them, in a term
      of their own, with no trust region or KL term (TRL's clipped ratio would compare them to their log-probs under
      the feedback; TRL's `ratio`, `kl` and clip metrics still count them so). See design decision 15.

    The rollout process is a pipeline with a budget: a prompt's trajectory (turn 0, its feedback turns and
    regenerations) holds one of `max_open_trajectories` generation places while it is generated and its rows wait
    for the trainer, and one of `feedback_max_concurrency` feedback slots while it waits for feedback (then a
    generation place again, ahead of new prompts); a new prompt starts only when a generation place is free and while
    the run still takes its rows (a run starts no prompt it does not train, beyond a part of one step's under a token
    budget). Regenerations go first: one request of `n=K` per group with vLLM's request priority, which `vllm serve
    --scheduling-policy priority` honours, on connections of their own. Two ages are bounded apart: `max_staleness` (TRL's) bounds the trained tokens' age, counted from
    the policy that sampled them, turn 0 or a regeneration, whose log-probs the importance ratio uses;
    `max_feedback_age` bounds the age of the attempt a feedback critiques when the group is regenerated with it, and
    a trajectory past it ends before its feedback request or its regeneration.

    Not available yet: the annealed and capped feedback budgets
    (`feedback_turns_decay_steps`, `max_feedback_groups_per_step`), tools and environments.
    """

    __repr__ = MaskedFeedbackURL.__str__  # a dataclass repr would show the URL's credentials

    gradient_checkpointing: bool | None = gradient_checkpointing_field()
    max_feedback_turns: int = _mulferl_field("max_feedback_turns")
    feedback_injection: str = _mulferl_field("feedback_injection")
    feedback_group_size: int = _mulferl_field("feedback_group_size")
    max_feedback_length: int = _mulferl_field("max_feedback_length")
    max_open_trajectories: int | None = field(
        default=None,
        metadata={
            "help": "Generation places of the rollout pipeline: prompts' trajectories held at once while they are "
            "generated (turn 0 or a regeneration), scored, and while their rows wait for the trainer. None: "
            "max(max_staleness - 1, 1) x the prompts of a step, which keeps the rows of a full pipeline within "
            "max_staleness (Little's law)."
        },
    )
    max_feedback_age: int = field(
        default=12,
        metadata={
            "help": "Policy versions (optimizer steps) from the attempt a feedback critiques to the regeneration with "
            "it, at most; a trajectory past it ends before its feedback request or its regeneration "
            "(mulferl/pipeline/expired_feedback). It bounds the feedback's relevance, not the trained tokens' age "
            "(max_staleness, from the regeneration). 12: the feedback slots it leaves beyond the generation places "
            "hide a feedback round trip of up to 8 steps, and on the learning benchmark's task the rescue rate was "
            "flat over 40 steps of age (benchmarks/feedback_age.py, docs/design.md decision 13)."
        },
    )
    feedback_max_concurrency: int | None = field(
        default=None,
        metadata={
            "help": "Feedback slots: failed groups asked for feedback at once in the rollout process; a failed group "
            "that finds none free waits for one holding its generation place. None: the prompts of the steps "
            "max_feedback_age leaves beyond the generation places, one step under it (max_feedback_age - "
            "max(max_staleness - 1, 1) - 1 steps), within 256 requests in flight to the provider. The OpenAI provider's requests "
            "are bounded at this x its requests per group (a review per feedback_group_size rollouts, and the merge)."
        },
    )
    feedback_turn_deadline: float = _mulferl_field(
        "feedback_turn_deadline",
        help="Seconds the rollout process waits for one failed group's feedback request; a group left unanswered "
        "ends unresolved and the run goes on.",
    )
    feedback_skip_truncated: bool = _mulferl_field("feedback_skip_truncated")
    success_threshold: float = _mulferl_field("success_threshold")
    feedback_provider: str | None = _mulferl_field("feedback_provider")
    feedback_model: str | None = _mulferl_field("feedback_model")
    feedback_base_url: str | None = _mulferl_field("feedback_base_url")
    feedback_api_key_env: str | None = _mulferl_field("feedback_api_key_env")
    feedback_temperature: float = _mulferl_field("feedback_temperature")
    feedback_timeout: float = _mulferl_field("feedback_timeout")
    feedback_max_retries: int = _mulferl_field("feedback_max_retries")
    feedback_reasoning_model: bool = _mulferl_field("feedback_reasoning_model")
    feedback_requests_per_minute: float | None = _mulferl_field("feedback_requests_per_minute")
    feedback_tokens_per_minute: float | None = _mulferl_field("feedback_tokens_per_minute")
    feedback_input_token_price: float = _mulferl_field("feedback_input_token_price")
    feedback_output_token_price: float = _mulferl_field("feedback_output_token_price")
    feedback_column: str = _mulferl_field("feedback_column")
    feedback_checker: str | None = _mulferl_field("feedback_checker")
    feedback_checker_max_reports: int = _mulferl_field("feedback_checker_max_reports")
    feedback_checker_max_chars: int = _mulferl_field("feedback_checker_max_chars")
    feedback_reference_column: str = _mulferl_field("feedback_reference_column")
    fco_weight: float = _mulferl_field("fco_weight")
    fco_tau: float = _mulferl_field("fco_tau")
    fco_margin: float = _mulferl_field("fco_margin")
    fco_score_normalization: str = _mulferl_field("fco_score_normalization")
    fco_pairing: str = _mulferl_field("fco_pairing")
    feedback_replay: bool = _mulferl_field("feedback_replay")
    feedback_replay_shaping: float | None = _mulferl_field("feedback_replay_shaping")

    fco_enabled = MulFeRLConfig.fco_enabled

    def __post_init__(self):
        default_activation_checkpointing(self)
        check_num_generations(self.num_generations, "to tell solved, failed and contrastive groups apart (paper: 8)")
        set_collective_timeout(self.ddp_timeout_delta)  # before TrainingArguments makes the default group
        super().__post_init__()
        if self.max_feedback_turns < 0:
            raise ValueError(f"max_feedback_turns must be >= 0, got {self.max_feedback_turns}.")
        if self.feedback_provider == "self":
            raise ValueError(
                "feedback_provider='self' is not available in AsyncMulFeRLConfig: the rollout process holds no copy "
                "of the policy. Serve the starting model (vllm serve) and use feedback_provider='openai'."
            )
        samples_per_step = self.per_device_train_batch_size * self.gradient_accumulation_steps * self.world_size
        if self.max_open_trajectories is None:
            self.max_open_trajectories = default_trajectory_budget(
                self.max_staleness, samples_per_step, self.num_generations
            )
        if self.max_open_trajectories < 1:
            raise ValueError(f"max_open_trajectories must be >= 1 (or None), got {self.max_open_trajectories}.")
        if self.max_feedback_age < 0:
            raise ValueError(f"max_feedback_age must be >= 0, got {self.max_feedback_age}.")
        if self.feedback_max_concurrency is None:
            self.feedback_max_concurrency = default_feedback_slots(
                self.max_feedback_age,
                self.max_staleness,
                math.ceil(samples_per_step / self.num_generations),
                feedback_requests_per_group(self.num_generations, self.feedback_group_size),
            )
        # The queue holds what every place and slot may hand over, so that the score loop never waits on a full queue
        # while the trainer still takes rows.
        pipeline_rows = (self.max_open_trajectories + self.feedback_max_concurrency) * self.num_generations
        self.queue_maxsize = max(self.queue_maxsize, pipeline_rows)
        check_feedback_fields(self, ASYNC_FEEDBACK_PROVIDERS)
        check_fco_fields(self)
        check_replay_fields(self)
