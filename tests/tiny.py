"""A tiny Qwen2 model and a byte-level BPE tokenizer trained in-process (no Hub access needed)."""

from pathlib import Path

import torch
import trl
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM


# The pre-tokenizer split pattern of Qwen2/Qwen2.5/Qwen3 tokenizers, so that token boundaries behave like theirs.
QWEN2_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TRAINING_TEXT = [
    "<|im_start|>system\nYou are a careful mathematical problem solver.<|im_end|>\n",
    "<|im_start|>user\nWhat is 12 + 30? Compute the sum of the numbers.<|im_end|>\n<|im_start|>assistant\n",
    "<thinking><feedback>Issue: the carry was dropped. Fix steps: 1. Add the units. 2. Add the tens.</feedback>",
    "First add 2 and 0, then 1 and 3, so the result is 42.</thinking> The final answer is \\boxed{42}",
    "\\frac{1}{3} + \\sqrt{2} = x^2 - 5 (3, 4) [0, 1] 0123456789",
]


def chat_template(name: str) -> str:
    """A chat template shipped with TRL, e.g. `qwen2_5` or `qwen3_instruct_2507`."""
    return (Path(trl.__file__).parent / "chat_templates" / f"{name}.jinja").read_text()


def build_tiny_tokenizer(template: str = "qwen2_5") -> PreTrainedTokenizerFast:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(TRAINING_TEXT * 20, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = chat_template(template)
    return fast


def build_tiny_model(tokenizer, seed: int = 0) -> Qwen2ForCausalLM:
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    return Qwen2ForCausalLM(config).eval()
