"""MulFeRL with a LoRA adapter: the FCO reference is the base model with the adapter disabled (no second copy).

accelerate launch examples/lora.py
python examples/lora.py --tiny    # offline on CPU in seconds: a tiny local model, one-digit sums, 2 steps
"""

import argparse

from datasets import load_dataset
from peft import LoraConfig

from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, accuracy_reward, make_conversation


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--tiny", action="store_true", help="a tiny local model and one-digit sums, 2 steps on CPU")
args = parser.parse_args()

if args.tiny:
    # Written by trl_mulferl.tiny (no Hub access). A random tiny model never writes the schema, so the reward is the
    # sums' own checker: the first digit after the feedback block.
    from trl_mulferl.tiny import digit_reward, tiny_training_args, write_tiny

    model, data_dir = write_tiny("tiny-mulferl")
    dataset = load_dataset(data_dir, split="train").rename_column("problem", "question")
    reward = digit_reward
else:
    model = "Qwen/Qwen3-4B-Instruct-2507"
    dataset = load_dataset("openai/gsm8k", "main", split="train")
    dataset = dataset.map(lambda row: {"answer": row["answer"].split("####")[-1].strip()})  # the final number
    reward = accuracy_reward
dataset = dataset.map(lambda row: {"prompt": make_conversation(row["question"]), "solution": row["answer"]})


async def feedback_provider(prompt, completions, rewards, **columns):
    """Async providers run concurrently, `feedback_max_concurrency` at a time."""
    return "Issue: a quantity is dropped midway. Fix steps: 1. List the quantities. 2. Use each one once."


settings = {"output_dir": "Qwen3-4B-MulFeRL-LoRA", "learning_rate": 1e-5, "num_generations": 8}
if args.tiny:
    settings |= tiny_training_args(settings["num_generations"]) | {"output_dir": "tiny-mulferl/lora"}
trainer = MulFeRLTrainer(
    model=model,
    reward_funcs=reward,
    args=MulFeRLConfig(**settings),
    train_dataset=dataset,
    feedback_provider=feedback_provider,
    peft_config=LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM"),
)
trainer.train()
trainer.save_model()
