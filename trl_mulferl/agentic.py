"""TRL's agentic rollouts under MulFeRL: `tools`, `environment_factory` (one or a dict) and `rollout_func`.

With `max_feedback_turns=0` all three are GRPOTrainer's, unchanged. `rollout_func` owns the prompts, the chat template
and the backend, so the trainer cannot prefill the feedback slot of a regenerated row through it: feedback turns with
`rollout_func` are refused.
"""


def check_generation_owners(args, tools=None, rollout_func=None, environment_factory=None):
    """Refuse what the feedback turns cannot regenerate, naming the fix."""
    if args.max_feedback_turns == 0:
        return
    if rollout_func is not None:
        raise ValueError(
            f"MulFeRLTrainer cannot run feedback turns (max_feedback_turns={args.max_feedback_turns}) with "
            "`rollout_func`: the function owns the prompts and the chat template, so the trainer cannot prefill the "
            "feedback into a regenerated rollout. Set max_feedback_turns=0 (plain GRPO with your rollout_func), or "
            "move the rollout into `environment_factory` (tools and reset()), which the feedback turns regenerate."
        )
    for name, value in (("tools", tools), ("environment_factory", environment_factory)):
        if value:
            raise ValueError(
                f"MulFeRLTrainer does not yet run feedback turns (max_feedback_turns={args.max_feedback_turns}) with "
                f"`{name}`. Set max_feedback_turns=0 for GRPO's tool loop unchanged."
            )


def merge_extra_fields(inputs: list[dict], extra_fields: dict):
    """`rollout_func`'s extra fields into the dataset rows, as GRPOTrainer merges them before scoring.

    The turn loop scores turn 0 inside `_generate`, before GRPOTrainer's own merge, so reward functions would miss them.
    """
    for i, row in enumerate(inputs):
        for key, values in extra_fields.items():
            if not isinstance(values, list):
                row[key] = values
            elif i < len(values):
                row[key] = values[i]
