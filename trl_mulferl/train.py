"""Train MulFeRL on a math dataset from a YAML recipe, as TRL's own scripts do.

    accelerate launch -m trl_mulferl.train --config recipes/mulferl_qwen2.5-7b-base.yaml
    trl-mulferl train --config recipes/mulferl_qwen3-4b-instruct-2507.yaml --max_steps 10   # same, one process

Every key of the recipe is a field of `MathScriptArguments`, `MulFeRLConfig` or `trl.ModelConfig`, and any of them
can be overridden on the command line. Each row's `problem_column` becomes a conversational prompt asking for the
MulFeRL schema, its `answer_column` the reference final answer (`solution`) that `accuracy_reward` verifies.
"""

from dataclasses import dataclass, field

from datasets import load_dataset
from trl import ModelConfig, ScriptArguments, TrlParser, get_peft_config, get_quantization_config

from .mulferl_config import MulFeRLConfig
from .mulferl_trainer import MulFeRLTrainer
from .rewards import accuracy_reward
from .schema import make_conversation


@dataclass
class MathScriptArguments(ScriptArguments):
    """
    Script arguments for `trl_mulferl.train`: TRL's dataset arguments, plus the columns that hold the problem and
    its reference final answer.
    """

    problem_column: str = field(default="problem", metadata={"help": "Dataset column holding the problem text."})
    answer_column: str = field(
        default="answer",
        metadata={"help": "Dataset column holding the reference final answer (not a worked solution)."},
    )


def make_math_dataset(dataset, problem_column: str, answer_column: str):
    """Rows of `prompt` (the schema-asking conversation) and `solution` (the reference answer, as text)."""
    missing = [column for column in (problem_column, answer_column) if column not in dataset.column_names]
    if missing:
        raise ValueError(
            f"The dataset has no column {missing[0]!r} (it has {dataset.column_names}). Set --problem_column / "
            "--answer_column (problem_column / answer_column in the recipe) to the columns that hold them."
        )
    return dataset.map(
        lambda row: {"prompt": make_conversation(row[problem_column]), "solution": str(row[answer_column])},
        remove_columns=dataset.column_names,
    )


def main(argv=None):
    parser = TrlParser((MathScriptArguments, MulFeRLConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config(argv)
    # As TRL's own scripts/grpo.py: the model arguments become the policy's (and the reference's) loading arguments.
    training_args.model_init_kwargs = {
        "revision": model_args.model_revision,
        "trust_remote_code": training_args.trust_remote_code,
        "attn_implementation": model_args.attn_implementation,
        "dtype": model_args.dtype,
        **(training_args.model_init_kwargs or {}),
    }
    dataset = load_dataset(
        script_args.dataset_name, name=script_args.dataset_config, split=script_args.dataset_train_split
    )
    trainer = MulFeRLTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=accuracy_reward,
        args=training_args,
        train_dataset=make_math_dataset(dataset, script_args.problem_column, script_args.answer_column),
        quantization_config=get_quantization_config(model_args),
        peft_config=get_peft_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)
    trainer.create_model_card(dataset_name=script_args.dataset_name)  # README.md next to the weights, Hub-ready
    if training_args.push_to_hub:
        trainer.push_to_hub(dataset_name=script_args.dataset_name)
    return trainer


if __name__ == "__main__":
    main()
