"""Start-up checks shared by MulFeRLConfig/Trainer and IGRPOConfig/Trainer: each error names the field and the fix."""

import functools
import inspect
import logging
from dataclasses import field

import torch
from trl.trainer.utils import get_callable_name, get_config_model_id, is_async_callable

from .rewards import requires_schema
from .schema import FEEDBACK_OPEN, THINKING_OPEN, asks_for_schema


logger = logging.getLogger(__name__)


# Parameters TRL passes to every reward function; any other parameter without a default must be a dataset column.
TRAINER_REWARD_KWARGS = {"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric"}
# The training prompts the start-up schema check reads: spread over the dataset, few enough to cost nothing.
SCHEMA_SAMPLE_SIZE = 16


def resolve_args(args, config_class, model, run_suffix: str):
    """The trainer's config: `args`, or `config_class` with TRL's default output dir `<model>-<run_suffix>`."""
    if args is None:
        model_name = model if isinstance(model, str) else get_config_model_id(model.config)
        return config_class(f"{model_name.split('/')[-1]}-{run_suffix}")
    if not isinstance(args, config_class):
        raise TypeError(f"args must be a {config_class.__name__}, got {type(args).__name__}.")
    return args


def gradient_checkpointing_field():
    """Our configs' `gradient_checkpointing`: unset by default, where TRL's base config sets the deprecated name."""
    return field(
        default=None,
        metadata={
            "help": "Deprecated alias of `activation_checkpointing` (on by default, as in TRL).",
            "nargs": "?",
            "const": True,
        },
    )


def default_activation_checkpointing(config):
    """TRL's default, checkpointing on, under transformers' current name.

    TRL's base config defaults the deprecated `gradient_checkpointing` to True, so every config warned (a
    FutureWarning per config); ours leaves it unset and sets `activation_checkpointing` instead.
    """
    if config.activation_checkpointing is None and config.gradient_checkpointing is None:
        config.activation_checkpointing = True


def check_num_generations(num_generations: int | None, why: str):
    if num_generations is not None and num_generations < 2:
        raise ValueError(f"num_generations must be >= 2 {why}, got {num_generations}.")


def check_groups_within_process(config):
    """Decision 4: a prompt's group is classified and regenerated on the process that holds it."""
    local_rows = config.per_device_train_batch_size * config.steps_per_generation
    if local_rows % config.num_generations != 0:
        raise ValueError(
            f"per_device_train_batch_size ({config.per_device_train_batch_size}) * steps_per_generation "
            f"({config.steps_per_generation}) = {local_rows} must be divisible by num_generations "
            f"({config.num_generations}), so that no prompt group is split across processes. Raise "
            "per_device_train_batch_size or steps_per_generation, or lower num_generations."
        )


def refuse_unsupported(trainer_name: str, **generation_owners):
    """Tools, `rollout_func` and `environment_factory` own the prompts and the completion mask, as our stages do."""
    for name, value in generation_owners.items():
        if value is not None:
            raise ValueError(
                f"{trainer_name} does not support `{name}`: its extra generation stage owns the prompts and the "
                "completion mask. Use GRPOTrainer for tool or environment rollouts."
            )


def check_dataset_columns(
    trainer_name: str, reward_funcs, reward_func_names, dataset, has_environments=False, has_rollout_func=False
):
    """A `prompt` column, no images, and every reward function's required parameters among the columns.

    With `environment_factory` (`has_environments`), the prompt may come from the environments' `reset()` instead, and
    reward functions also get the `environments`, as in TRL. A `rollout_func` may return any column as an extra field,
    so the reward functions' parameters are not checked then.
    """
    if dataset is None or getattr(dataset, "column_names", None) is None:
        return
    columns = set(dataset.column_names)
    trainer_kwargs = TRAINER_REWARD_KWARGS | {"environments"} if has_environments else TRAINER_REWARD_KWARGS
    if "prompt" not in columns and not has_environments:
        raise ValueError(
            f"{trainer_name} needs a 'prompt' column in the training dataset, which has {sorted(columns)}. Map your "
            "problem column to one, e.g. dataset.map(lambda row: {'prompt': make_conversation(row['problem'])})."
        )
    if "image" in columns or "images" in columns:
        raise ValueError(f"{trainer_name} does not support image inputs yet; drop the image column(s).")
    for reward_func, name in zip(reward_funcs, reward_func_names, strict=True):
        if isinstance(reward_func, torch.nn.Module) or has_rollout_func:
            continue
        for parameter in inspect.signature(reward_func).parameters.values():
            required = parameter.default is inspect.Parameter.empty and parameter.kind in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                inspect.Parameter.KEYWORD_ONLY,
            )
            if required and parameter.name not in trainer_kwargs and parameter.name not in columns:
                raise ValueError(
                    f"The reward function '{name}' needs a '{parameter.name}' column, but the training dataset only "
                    f"has {sorted(columns)}. Add it, e.g. dataset.map(lambda row: {{'{parameter.name}': ...}})."
                )


def check_reward_outputs(reward_funcs, reward_func_names):
    """Each reward function wrapped so that returning something other than a list fails at once, naming it.

    TRL would otherwise fail inside its own loop with `'NoneType' object is not iterable`.
    """

    def check(rewards, name):
        if isinstance(rewards, (str, bytes)) or not hasattr(rewards, "__len__"):
            raise TypeError(
                f"The reward function '{name}' returned {type(rewards).__name__}; it must return a list with one "
                "reward per completion (a float, or None for a completion it does not score)."
            )
        return rewards

    def wrap(reward_func, name):
        if isinstance(reward_func, torch.nn.Module):
            return reward_func
        if is_async_callable(reward_func):

            @functools.wraps(reward_func)
            async def checked(*args, **kwargs):
                return check(await reward_func(*args, **kwargs), name)

        else:

            @functools.wraps(reward_func)
            def checked(*args, **kwargs):
                return check(reward_func(*args, **kwargs), name)

        return checked

    return [wrap(reward_func, name) for reward_func, name in zip(reward_funcs, reward_func_names, strict=True)]


def refuse_episodes_out_of_step(args, lockstep, tools: list):
    """Regenerated tool episodes run TRL's tool loop, a data-dependent number of `generate` calls on each process:
    where `generate` is collective (see `Lockstep`) the processes would fall out of step, so refuse at start-up."""
    if tools and args.max_feedback_turns > 0 and lockstep.collective_generation:
        raise ValueError(
            f"Feedback turns (max_feedback_turns={args.max_feedback_turns}) cannot regenerate tool episodes (`tools` "
            "or `environment_factory`) where generation is collective (DeepSpeed ZeRO-3, FSDP, vLLM server mode, "
            "vllm_tensor_parallel_size > 1 or vllm_enable_sleep_mode): TRL's tool loop makes a different number of "
            "generate calls on each process. Use DDP or ZeRO-1/2 (with vLLM: colocate, tensor parallel size 1, no "
            "sleep mode), or max_feedback_turns=0."
        )


def sample_prompts(dataset, size: int = SCHEMA_SAMPLE_SIZE) -> list:
    """Up to `size` prompts spread evenly over a map-style dataset with a `prompt` column; none from a streamed
    dataset (it is not read ahead) or one without the column (`environment_factory` writes the prompts)."""
    if "prompt" not in (getattr(dataset, "column_names", None) or []) or not hasattr(dataset, "__len__"):
        return []
    step = max(1, len(dataset) // size)
    return dataset.select(range(0, len(dataset), step)[:size])["prompt"]


def check_prompts_ask_for_schema(reward_funcs, dataset, args) -> list[str]:
    """Warn in one line, before any feedback request, when most sampled training prompts (`sample_prompts`) do not
    ask for the schema (`asks_for_schema`) while a reward function requires it (`requires_schema`): every answer then
    scores 0, and every group fails and goes to the feedback provider.

    Returns:
        The names of the reward functions that require the schema, for the run-time warning (`SchemaFailures`).
    """
    funcs = reward_funcs if isinstance(reward_funcs, list) else [] if reward_funcs is None else [reward_funcs]
    schema_rewards = [get_callable_name(func) for func in funcs if requires_schema(func)]
    prompts = sample_prompts(dataset) if schema_rewards else []
    asking = sum(asks_for_schema(prompt) for prompt in prompts)
    if 2 * asking >= len(prompts):
        return schema_rewards
    logger.warning(
        "Only %d of %d sampled training prompts ask for the answer schema (naming %s and %s), which %s %s: an answer "
        "without it scores 0, so its group fails%s, unless the policy writes the schema unasked. Put the schema "
        "instruction in the prompts (trl_mulferl.make_conversation(problem) puts trl_mulferl.SYSTEM_PROMPT first), or "
        "use a reward that does not require it (trl.rewards.accuracy_reward).",
        asking,
        len(prompts),
        THINKING_OPEN,
        FEEDBACK_OPEN,
        ", ".join(schema_rewards),
        "requires" if len(schema_rewards) == 1 else "require",
        " and goes to the feedback provider" if args.max_feedback_turns > 0 else "",
    )
    return schema_rewards
