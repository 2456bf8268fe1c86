import logging
from dataclasses import dataclass, field

from trl import GRPOConfig

from ..core.collectives import set_collective_timeout
from ..core.validation import (
    check_groups_within_process,
    check_num_generations,
    default_activation_checkpointing,
    gradient_checkpointing_field,
)


logger = logging.getLogger(__name__)

DEFAULT_DRAFT_TEMPLATE = (
    "\n\nHere is a previous attempt at this problem:\n\n{draft}\n\n"
    "Use it as a starting point: check it, fix any mistake, and write a complete, improved solution."
)


@dataclass
class IGRPOConfig(GRPOConfig):
    r"""
    Configuration class for [`IGRPOTrainer`].

    iGRPO is a two-stage GRPO. Stage 1 samples `num_drafts` drafts from each prompt, scores them with the reward
    functions and keeps the best. Stage 2 appends that draft to the prompt with `draft_template` and samples
    `num_generations` completions, which are trained with TRL's GRPO loss; Stage 1 is never differentiated. At
    inference the model answers the plain prompt in one shot.

    The paper keeps the sampling budget of GRPO: `num_drafts + num_generations` equals GRPO's group size (8 = 4 + 4,
    or 16 = 8 + 8), so the defaults are N = 4 and G = 4 (GRPOConfig's default group size is 8). Stage 2 is trained
    with the paper's eq. 5, the per-sequence mean (`loss_type="grpo"`). Every other parameter of
    [`~trl.GRPOConfig`] is inherited with its TRL default; `num_generations` is the paper's G.

    Parameters:
        num_drafts (`int`, *optional*, defaults to `4`):
            Number of Stage 1 drafts N per prompt. Paper: 4 (with G = 4) or 8 (with G = 8).
        num_generations (`int`, *optional*, defaults to `4`):
            Number of Stage 2 completions G per prompt, the GRPO group. Paper: N + G = GRPO's group size.
        loss_type (`str`, *optional*, defaults to `"grpo"`):
            TRL's loss type for Stage 2; the paper's eq. 5 averages each sequence's tokens, then the sequences
            (`"grpo"`). TRL's own default is `"dapo"`.
        max_draft_length (`int` or `None`, *optional*, defaults to `None`):
            `None` puts the best draft whole into the Stage 2 prompt, as the paper's `Concat(q, d)` does. A number cuts
            it to that many tokens (which drops the draft's final answer when it is longer). Drafts are sampled with
            the same settings as Stage 2 (`max_completion_length`, temperature) and scored whole.
        sampling_budget (`int` or `None`, *optional*, defaults to `None`):
            Rollouts per prompt you compare against, e.g. the group size of the GRPO run you match (8). A warning is
            given when `num_drafts + num_generations` exceeds it.
        draft_template (`str`, *optional*, defaults to [`DEFAULT_DRAFT_TEMPLATE`]):
            Text appended to the prompt (to the last user message of a conversation) with the best draft in place of
            `{draft}`: the paper's `Concat(q, d)`. The paper's own template is in supplementary material we do not
            have; ours asks the model to check, fix and complete the draft.
        success_threshold (`float`, *optional*, defaults to `1.0`):
            A draft is correct when the weighted sum of its rewards is at least this value; only used for the metric
            `igrpo/frac_prompts_with_correct_draft`.

    Ties between equally rewarded drafts are broken at random, with a generator seeded from (`seed`, step, prompt)
    so that every process agrees.
    """

    gradient_checkpointing: bool | None = gradient_checkpointing_field()
    num_drafts: int = field(
        default=4,
        metadata={"help": "Stage 1 drafts N per prompt (paper: N + G = GRPO's group size, e.g. 4 + 4)."},
    )
    num_generations: int | None = field(
        default=4,
        metadata={"help": "Stage 2 completions G per prompt (paper: N + G = GRPO's group size, e.g. 4 + 4)."},
    )
    loss_type: str = field(
        default="grpo",
        metadata={"help": "TRL loss type of Stage 2; 'grpo' is the paper's eq. 5 (per-sequence mean)."},
    )
    max_draft_length: int | None = field(
        default=None,
        metadata={"help": "Tokens of the best draft kept in the Stage 2 prompt; None keeps it whole (paper)."},
    )
    sampling_budget: int | None = field(
        default=None,
        metadata={"help": "Rollouts per prompt to match (e.g. GRPO's group size); warns when N + G exceeds it."},
    )
    draft_template: str = field(
        default=DEFAULT_DRAFT_TEMPLATE,
        metadata={"help": "Appended to the prompt with the best draft in place of {draft} (the paper's Concat)."},
    )
    success_threshold: float = field(
        default=1.0,
        metadata={"help": "A draft is correct when its weighted reward sum reaches this (for the metrics only)."},
    )

    def __post_init__(self):
        default_activation_checkpointing(self)
        check_num_generations(self.num_generations, "(G, Stage 2 completions per prompt) for GRPO advantages")
        set_collective_timeout(self.ddp_timeout_delta)  # before TrainingArguments makes the default group
        super().__post_init__()
        if self.num_drafts < 1:
            raise ValueError(f"num_drafts (N, Stage 1 drafts per prompt) must be >= 1, got {self.num_drafts}.")
        if self.max_draft_length is not None and self.max_draft_length < 1:
            raise ValueError(
                f"max_draft_length must be >= 1 token or None (whole draft), got {self.max_draft_length}."
            )
        rollouts = self.num_drafts + self.num_generations
        if self.sampling_budget is not None and rollouts > self.sampling_budget:
            logger.warning(
                "num_drafts + num_generations = %d + %d = %d rollouts per prompt exceed sampling_budget = %d: the "
                "comparison is not at matched budget (the paper uses N + G = GRPO's group size).",
                self.num_drafts,
                self.num_generations,
                rollouts,
                self.sampling_budget,
            )
        if "{draft}" not in self.draft_template:
            raise ValueError("draft_template must contain the placeholder {draft}, where the best draft goes.")
        check_groups_within_process(self)
