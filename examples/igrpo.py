"""iGRPO: GRPO conditioned on the best of the policy's own drafts, at GRPO's sampling budget (4 drafts + 4).

accelerate launch examples/igrpo.py
"""

from datasets import load_dataset

from trl_mulferl import IGRPOConfig, IGRPOTrainer
from trl_mulferl.rewards import accuracy_reward


dataset = load_dataset("HuggingFaceH4/MATH-500", split="test")
# The paper rewards answer-only correctness; here the MulFeRL schema reward, or any TRL reward function.
dataset = dataset.map(lambda row: {"prompt": [{"role": "user", "content": row["problem"]}], "solution": row["answer"]})

trainer = IGRPOTrainer(
    model="Qwen/Qwen2.5-0.5B-Instruct",
    reward_funcs=accuracy_reward,
    args=IGRPOConfig(output_dir="Qwen2.5-0.5B-iGRPO", num_drafts=4, num_generations=4, max_draft_length=1024),
    train_dataset=dataset,
)
trainer.train()
