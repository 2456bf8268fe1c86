"""From GRPO to MulFeRL: the same TRL script, three changes (marked). Run with `accelerate launch` or `python`.

accelerate launch examples/grpo_to_mulferl.py
python examples/grpo_to_mulferl.py --tiny    # offline on CPU in seconds: a tiny local model, one-digit sums, 2 steps
"""

import argparse

from datasets import load_dataset

# 1. MulFeRLConfig / MulFeRLTrainer instead of GRPOConfig / GRPOTrainer.
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, accuracy_reward, make_conversation


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--tiny", action="store_true", help="a tiny local model and one-digit sums, 2 steps on CPU")
args = parser.parse_args()

if args.tiny:
    # Written by trl_mulferl.tiny (no Hub access). A random tiny model never writes the schema, so the reward is the
    # sums' own checker: the first digit after the feedback block.
    from trl_mulferl.tiny import digit_reward, tiny_training_args, write_tiny

    model, data_dir = write_tiny("tiny-mulferl")
    dataset = load_dataset(data_dir, split="train")
    reward = digit_reward
else:
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    dataset = load_dataset("HuggingFaceH4/MATH-500", split="test")
    reward = accuracy_reward
# The prompt asks for the MulFeRL schema (<thinking><feedback>...</feedback> ... </thinking> \boxed{...});
# the reference answer goes in "solution", which the reward and the feedback provider receive as a column.
dataset = dataset.map(lambda row: {"prompt": make_conversation(row["problem"]), "solution": row["answer"]})


# 2. A feedback provider: any callable (prompt, completions, rewards, **columns) -> str, sync or async. Here a
#    stand-in; in practice a strong model that reviews the failed group (Issue: ... Fix steps: ...).
def feedback_provider(prompt, completions, rewards, solution, **columns):
    return "Issue: the first step misreads the problem. Fix steps: 1. Restate what is asked. 2. Check each step."


settings = {
    "output_dir": "Qwen2.5-0.5B-MulFeRL",
    "num_generations": 8,
    "max_completion_length": 1024,
    "learning_rate": 1e-6,
    "beta": 0.001,
    "loss_type": "grpo",
    # The MulFeRL fields, at the paper's values.
    "max_feedback_turns": 2,
    "fco_weight": 0.01,
    "fco_tau": 0.005,
}
if args.tiny:
    settings |= tiny_training_args(settings["num_generations"]) | {"output_dir": "tiny-mulferl/grpo_to_mulferl"}
trainer = MulFeRLTrainer(
    model=model,
    reward_funcs=reward,
    args=MulFeRLConfig(**settings),
    train_dataset=dataset,
    feedback_provider=feedback_provider,  # 3. the provider
)
trainer.train()
trainer.save_model()
