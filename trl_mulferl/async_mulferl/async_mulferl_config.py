import math
from dataclasses import dataclass, field

from trl.experimental.async_grpo import AsyncGRPOConfig

from ..core.collectives import set_collective_timeout
from ..core.credentials import MaskedEndpointURLs
from ..core.validation import check_num_generations, default_activation_checkpointing, gradient_checkpointing_field
from ..feedback.arguments import FeedbackArguments, with_feedback_parameters
from ..feedback.build import FEEDBACK_PROVIDERS
from .pipeline import (
    default_feedback_slots,
    default_trajectory_budget,
    feedback_requests_per_group,
)


@with_feedback_parameters
@dataclass
class AsyncMulFeRLConfig(MaskedEndpointURLs, FeedbackArguments, AsyncGRPOConfig):
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
    --scheduling-policy priority` honours, on connections of their own. Two ages are bounded apart:
    `max_staleness` (TRL's) bounds the trained tokens' age, counted from the policy that sampled them, turn 0 or a
    regeneration, whose log-probs the importance ratio uses; `max_feedback_age` bounds the age of the attempt a
    feedback critiques when the group is regenerated with it, and a trajectory past it ends before its feedback
    request or its regeneration.

    Not available yet: the annealed and capped feedback budgets (`feedback_turns_decay_steps`,
    `max_feedback_groups_per_step`), tools and environments.

    Parameters:
        > Parameters that control the rollout pipeline (not in [`MulFeRLConfig`])

        max_open_trajectories (`int` or `None`, *optional*, defaults to `None`):
            Generation places of the rollout pipeline: the prompts' trajectories held at once while they are
            generated (turn 0 or a regeneration) and scored, and while their rows wait for the trainer; a new prompt
            starts only when one is free. `None`: `max(max_staleness - 1, 1)` x the prompts of an optimizer step,
            which keeps the rows of a full pipeline within `max_staleness` (Little's law).
        max_feedback_age (`int`, *optional*, defaults to `12`):
            Policy versions (optimizer steps) from the attempt a feedback critiques to the regeneration with it, at
            most; a trajectory past it ends before its feedback request or its regeneration
            (`mulferl/pipeline/expired_feedback`). It bounds the feedback's relevance, not the trained tokens' age
            (`max_staleness`, counted from the regeneration). 12: the feedback slots it leaves beyond the generation
            places hide a feedback round trip of up to 8 steps, and on the learning benchmark's task the rescue rate
            was flat over 40 steps of age (`benchmarks/feedback_age.py`, docs/design.md decision 13).
        feedback_max_concurrency (`int` or `None`, *optional*, defaults to `None`):
            Feedback slots: failed groups asked for feedback at once in the rollout process; a failed group that
            finds none free waits for one, holding its generation place. `None`: the prompts of the steps
            `max_feedback_age` leaves beyond the generation places, one step under it (`max_feedback_age -
            max(max_staleness - 1, 1) - 1` steps), within 256 requests in flight to the provider. The `"openai"`
            provider's requests are bounded at this x its requests per group (a review per `feedback_group_size`
            rollouts, and the merge).
        feedback_turn_deadline (`float`, *optional*, defaults to `600.0`):
            Seconds the rollout process waits for one failed group's feedback request (there is no batch-wide
            feedback turn); a group left unanswered ends unresolved and the run goes on.

        and the feedback arguments of [`FeedbackArguments`], which [`MulFeRLConfig`] shares:

    """

    __repr__ = MaskedEndpointURLs.__str__  # a dataclass repr would show the URL's credentials

    gradient_checkpointing: bool | None = gradient_checkpointing_field()
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
            "max(max_staleness - 1, 1) - 1 steps), within 256 requests in flight to the provider. The OpenAI provider's "
            "requests are bounded at this x its requests per group (a review per feedback_group_size rollouts, and the merge)."
        },
    )
    feedback_turn_deadline: float = field(
        default=600.0,
        metadata={
            "help": "Seconds the rollout process waits for one failed group's feedback request; a group left "
            "unanswered ends unresolved and the run goes on."
        },
    )

    def __post_init__(self):
        default_activation_checkpointing(self)
        check_num_generations(self.num_generations, "to tell solved, failed and contrastive groups apart (paper: 8)")
        set_collective_timeout(self.ddp_timeout_delta)  # before TrainingArguments makes the default group
        super().__post_init__()  # TRL's, then the feedback arguments' checks (`FeedbackArguments`)
        refusal = self.feedback_provider and FEEDBACK_PROVIDERS[self.feedback_provider].unavailable_async
        if refusal:
            raise ValueError(
                f"feedback_provider={self.feedback_provider!r} is not available in AsyncMulFeRLConfig: {refusal}"
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
