"""The tests' tiny model and tokenizer: `trl_mulferl.tiny` trained on text shaped like the MulFeRL schema."""

from trl_mulferl.tiny import build_qwen2, chat_template, train_tokenizer


TRAINING_TEXT = [
    "<|im_start|>system\nYou are a careful mathematical problem solver.<|im_end|>\n",
    "<|im_start|>user\nWhat is 12 + 30? Compute the sum of the numbers.<|im_end|>\n<|im_start|>assistant\n",
    "<thinking><feedback>Issue: the carry was dropped. Fix steps: 1. Add the units. 2. Add the tens.</feedback>",
    "First add 2 and 0, then 1 and 3, so the result is 42.</thinking> The final answer is \\boxed{42}",
    "\\frac{1}{3} + \\sqrt{2} = x^2 - 5 (3, 4) [0, 1] 0123456789",
]

__all__ = ["build_tiny_model", "build_tiny_tokenizer", "chat_template"]


def build_tiny_tokenizer(template: str = "qwen2_5"):
    return train_tokenizer(TRAINING_TEXT * 20, vocab_size=512, template=template)


def build_tiny_model(tokenizer, seed: int = 0):
    return build_qwen2(tokenizer, hidden_size=32, num_layers=2, seed=seed)
