"""iGRPO: GRPO conditioned on the best of the policy's own drafts, at GRPO's sampling budget (4 drafts + 4).

accelerate launch examples/igrpo.py
python examples/igrpo.py --tiny    # offline on CPU in seconds: a tiny local model, one-digit sums, 2 steps
"""

import argparse

from datasets import load_dataset

from trl_mulferl import IGRPOConfig, IGRPOTrainer, accuracy_reward, make_conversation


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--tiny", action="store_true", help="a tiny local model and one-digit sums, 2 steps on CPU")
args = parser.parse_args()

if args.tiny:
    # Written by trl_mulferl.tiny (no Hub access). A random tiny model never writes the schema, so the reward is the
    # sums' own checker: the first digit the answer writes.
    from trl_mulferl.tiny import digit_reward, tiny_training_args, write_tiny

    model, data_dir = write_tiny("tiny-mulferl")
    dataset = load_dataset(data_dir, split="train")
    reward = digit_reward
else:
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    dataset = load_dataset("HuggingFaceH4/MATH-500", split="test")
    reward = accuracy_reward
# accuracy_reward pays for a correct answer in the MulFeRL schema (<thinking>...</thinking> \boxed{...}), so the
# prompt must ask for that schema; with another reward (the paper's answer-only check) any prompt will do.
dataset = dataset.map(lambda row: {"prompt": make_conversation(row["problem"]), "solution": row["answer"]})

settings = {"output_dir": "Qwen2.5-0.5B-iGRPO", "num_drafts": 4, "num_generations": 4}
if args.tiny:
    settings |= tiny_training_args(settings["num_generations"]) | {"output_dir": "tiny-mulferl/igrpo"}
trainer = IGRPOTrainer(model=model, reward_funcs=reward, args=IGRPOConfig(**settings), train_dataset=dataset)
trainer.train()
trainer.save_model()
