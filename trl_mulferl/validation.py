"""Start-up checks shared by MulFeRLConfig/Trainer and IGRPOConfig/Trainer: each error names the field and the fix."""

import inspect

import torch
from trl.trainer.utils import get_config_model_id


# Parameters TRL passes to every reward function; any other parameter without a default must be a dataset column.
TRAINER_REWARD_KWARGS = {"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric"}


def resolve_args(args, config_class, model, run_suffix: str):
    """The trainer's config: `args`, or `config_class` with TRL's default output dir `<model>-<run_suffix>`."""
    if args is None:
        model_name = model if isinstance(model, str) else get_config_model_id(model.config)
        return config_class(f"{model_name.split('/')[-1]}-{run_suffix}")
    if not isinstance(args, config_class):
        raise TypeError(f"args must be a {config_class.__name__}, got {type(args).__name__}.")
    return args


def check_num_generations(num_generations: int | None, why: str):
    if num_generations is not None and num_generations < 2:
        raise ValueError(f"num_generations must be >= 2 {why}, got {num_generations}.")


def check_groups_within_process(config):
    """Decision 4 of the spec: a prompt's group is classified and regenerated on the process that holds it."""
    local_rows = config.per_device_train_batch_size * config.steps_per_generation
    if local_rows % config.num_generations != 0:
        raise ValueError(
            f"per_device_train_batch_size ({config.per_device_train_batch_size}) * steps_per_generation "
            f"({config.steps_per_generation}) = {local_rows} must be divisible by num_generations "
            f"({config.num_generations}), so that no prompt group is split across processes. Raise "
            "per_device_train_batch_size or steps_per_generation, or lower num_generations."
        )


def refuse_unsupported(trainer_name: str, kwargs: dict):
    for unsupported in ("tools", "rollout_func", "environment_factory"):
        if kwargs.get(unsupported) is not None:
            raise ValueError(
                f"{trainer_name} does not support `{unsupported}`: its extra generation stage owns the prompts and "
                "the completion mask. Use GRPOTrainer for tool or environment rollouts."
            )


def check_dataset_columns(trainer_name: str, reward_funcs, reward_func_names, dataset):
    """Images are not supported; every reward function must find its required parameters among the columns."""
    if dataset is None or getattr(dataset, "column_names", None) is None:
        return
    columns = set(dataset.column_names)
    if "image" in columns or "images" in columns:
        raise ValueError(f"{trainer_name} does not support image inputs yet; drop the image column(s).")
    for reward_func, name in zip(reward_funcs, reward_func_names, strict=True):
        if isinstance(reward_func, torch.nn.Module):
            continue
        for parameter in inspect.signature(reward_func).parameters.values():
            required = parameter.default is inspect.Parameter.empty and parameter.kind in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                inspect.Parameter.KEYWORD_ONLY,
            )
            if required and parameter.name not in TRAINER_REWARD_KWARGS and parameter.name not in columns:
                raise ValueError(
                    f"The reward function '{name}' needs a '{parameter.name}' column, but the training dataset only "
                    f"has {sorted(columns)}. Add it, e.g. dataset.map(lambda row: {{'{parameter.name}': ...}})."
                )


def weighted_rewards(rewards_per_func: torch.Tensor, reward_weights: torch.Tensor) -> torch.Tensor:
    """Weighted sum of the reward functions per rollout; any missing (NaN) reward makes it NaN (decision 5)."""
    return (rewards_per_func * reward_weights.to(rewards_per_func.device).unsqueeze(0)).sum(dim=1)
