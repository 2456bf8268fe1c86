"""TRL's agentic rollouts under MulFeRL: `tools`, `environment_factory` (one or a dict) and `rollout_func`.

With `max_feedback_turns=0` all three are GRPOTrainer's, unchanged. With feedback turns, a failed group of episodes is
regenerated as episodes: its environments are reset (TRL's pooled instances, `reset()` again, with the row's
columns), the feedback is prefilled at the head of the first assistant turn, and TRL's own tool loop runs each episode
to its end. The prefill and every tool result are masked out of the loss (`tool_mask`), so FCO scores and GRPO train
the model's own tokens only.

`rollout_func` owns the prompts, the chat template and the backend, so the trainer cannot prefill a regenerated
rollout through it: feedback turns with `rollout_func` are refused.
"""

import copy
from contextlib import contextmanager

from trl.chat_template_utils import parse_response


# TRL's per-row state of a generation batch, one entry per row, which its tokenization, tool loop and rewards read.
_PER_ROW_STATE = ("environments", "_batch_environments", "_sync_tool_dicts", "_async_tool_dicts")


def check_generation_owners(args, rollout_func=None, environment_factory=None, train_dataset=None):
    """Refuse what the feedback turns cannot regenerate, naming the fix."""
    if args.max_feedback_turns > 0 and rollout_func is not None:
        raise ValueError(
            f"MulFeRLTrainer cannot run feedback turns (max_feedback_turns={args.max_feedback_turns}) with "
            "`rollout_func`: the function owns the prompts and the chat template, so the trainer cannot prefill the "
            "feedback into a regenerated rollout. Set max_feedback_turns=0 (plain GRPO with your rollout_func), or "
            "move the rollout into `environment_factory` (tools and reset()), which the feedback turns regenerate."
        )
    if args.max_feedback_turns > 0 and environment_factory is not None and train_dataset is None:
        raise ValueError(
            f"MulFeRLTrainer cannot run feedback turns (max_feedback_turns={args.max_feedback_turns}) with an "
            "environment that owns its data (train_dataset=None): the regenerated episode's reset() would draw "
            "another task than the feedback was about. Pass a train_dataset whose rows name each task (reset(**row) "
            "gets them), or set max_feedback_turns=0."
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


@contextmanager
def batch_rows(trainer, rows: list[int]):
    """TRL's per-row state (environment instances and names, tool dicts) narrowed to `rows` of the batch, so that
    its tokenization, tool loop and reward functions run on those rows alone."""
    saved = {name: getattr(trainer, name, None) for name in _PER_ROW_STATE}
    for name, value in saved.items():
        if value:
            setattr(trainer, name, [value[row] for row in rows])
    try:
        yield
    finally:
        for name, value in saved.items():
            if value:
                setattr(trainer, name, value)


def reset_episodes(trainer, rows: list[int], inputs: list[dict]) -> list:
    """Reset the environments of `rows` for a new episode, as GRPOTrainer does before generating; returns each row's
    prompt with the text `reset()` returned appended to its last message."""
    prompts = []
    for row in rows:
        x = inputs[row]
        prompt = x.get("prompt", [{"role": "user", "content": ""}])
        # `environment` selects the environment of a dict `environment_factory`; TRL does not forward it to `reset`.
        reset_kwargs = {k: v for k, v in x.items() if k != "environment"} if trainer._multi_environment else x
        observation = trainer.environments[row].reset(**reset_kwargs)
        if observation is None:
            prompts.append(prompt)
            continue
        content = prompt[-1]["content"]
        if isinstance(observation, list) and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if isinstance(observation, str) and isinstance(content, list):
            observation = [{"type": "text", "text": observation}]
        prompts.append(prompt[:-1] + [{**prompt[-1], "content": content + observation}])
    return prompts


def continue_episodes(trainer, contexts, prompt_ids, prefill_ids, continuation_ids, logprobs):
    """TRL's tool loop for the regenerated rows of `contexts` (`(row, prompt, prefill)`), from their first assistant
    turn (the prefill and its continuation) to the end of each episode. Rows past `contexts` (dummies) are dropped.

    The feedback is data, never an action (decision 6): the first turn's tool calls are parsed from the continuation
    alone, with the prompt as its context, so a call written in the feedback never runs. The prefill joins the prompt
    TRL's loop sees, so `max_completion_length` budgets what the policy writes after it (and the tool results).

    Returns:
        Per row: the continuation ids after the prefill (first turn, tool results, later turns), their tool mask (0 on
        tool results), their log-probs (None when the backend gives none) and the episode's messages, the first one's
        content led by the prefill (what the rewards read); then the number of tool calls and of failed ones.
    """
    rows = [row for row, _, _ in contexts]
    if not rows:
        return [], [], [], [], 0, 0
    continuation_ids, logprobs = continuation_ids[: len(rows)], logprobs[: len(rows)]
    with batch_rows(trainer, rows):
        if trainer.environment_factories is not None:
            tools = [trainer._env_tools[name] for name in trainer._batch_environments]
        else:
            tools = [trainer.tools] * len(rows)
        completions = [
            [parse_response(trainer._tokenizer, ids, prefix=prefix, tools=row_tools)]
            for ids, prefix, row_tools in zip(continuation_ids, prompt_ids, tools, strict=True)
        ]
        tool_mask, completions, continuation_ids, logprobs, calls, failures, _ = trainer._tool_call_loop(
            copy.deepcopy([prompt for _, prompt, _ in contexts]),
            [p + f for p, f in zip(prompt_ids, prefill_ids, strict=True)],
            continuation_ids,
            completions,
            None if logprobs[0] is None else logprobs,
            None,
            {},
        )
    for completion, (_, _, prefill) in zip(completions, contexts, strict=True):
        completion[0]["content"] = prefill + completion[0]["content"]
    logprobs = [None] * len(rows) if logprobs is None else logprobs
    return continuation_ids, tool_mask, logprobs, completions, calls, failures
