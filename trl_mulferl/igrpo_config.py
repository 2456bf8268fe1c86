from dataclasses import dataclass, field

from trl import GRPOConfig

from .validation import check_groups_within_process, check_num_generations


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
    or 16 = 8 + 8). Every parameter of [`~trl.GRPOConfig`] is inherited with its TRL default; `num_generations` is
    the paper's G.

    Parameters:
        num_drafts (`int`, *optional*, defaults to `4`):
            Number of Stage 1 drafts N per prompt. Paper: 4 (with G = 4) or 8 (with G = 8).
        max_draft_length (`int`, *optional*, defaults to `1024`):
            The best draft is truncated to this many tokens before it is put in the Stage 2 prompt. Drafts are
            sampled with the same settings as Stage 2 (`max_completion_length`, temperature) and scored whole.
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

    num_drafts: int = field(
        default=4,
        metadata={"help": "Stage 1 drafts N per prompt (paper: N + G = GRPO's group size, e.g. 4 + 4)."},
    )
    max_draft_length: int = field(
        default=1024,
        metadata={"help": "Tokens of the best draft kept in the Stage 2 prompt; longer drafts are truncated."},
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
        check_num_generations(self.num_generations, "(G, Stage 2 completions per prompt) for GRPO advantages")
        super().__post_init__()
        if self.num_drafts < 1:
            raise ValueError(f"num_drafts (N, Stage 1 drafts per prompt) must be >= 1, got {self.num_drafts}.")
        if self.max_draft_length < 1:
            raise ValueError(f"max_draft_length must be >= 1 token, got {self.max_draft_length}.")
        if "{draft}" not in self.draft_template:
            raise ValueError("draft_template must contain the placeholder {draft}, where the best draft goes.")
        check_groups_within_process(self)
