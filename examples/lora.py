"""MulFeRL with a LoRA adapter: the FCO reference is the base model with the adapter disabled (no second copy).

accelerate launch examples/lora.py
"""

from datasets import load_dataset
from peft import LoraConfig

from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation
from trl_mulferl.rewards import accuracy_reward


dataset = load_dataset("openai/gsm8k", "main", split="train")
dataset = dataset.map(
    lambda row: {"prompt": make_conversation(row["question"]), "solution": row["answer"].split("####")[-1].strip()}
)


async def feedback_provider(prompt, completions, rewards, **columns):
    """Async providers run concurrently, `feedback_max_concurrency` at a time."""
    return "Issue: a quantity is dropped midway. Fix steps: 1. List the quantities. 2. Use each one once."


trainer = MulFeRLTrainer(
    model="Qwen/Qwen3-4B-Instruct-2507",
    reward_funcs=accuracy_reward,
    args=MulFeRLConfig(output_dir="Qwen3-4B-MulFeRL-LoRA", learning_rate=1e-5, num_generations=8),
    train_dataset=dataset,
    feedback_provider=feedback_provider,
    peft_config=LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM"),
)
trainer.train()
