"""A tiny Qwen2 model and a byte-level BPE tokenizer trained in-process: no Hub access, for the demo and tests."""

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


def chat_template(name: str) -> str:
    """A chat template shipped with TRL, e.g. `qwen2_5` or `qwen3_instruct_2507`."""
    return (Path(trl.__file__).parent / "chat_templates" / f"{name}.jinja").read_text()


def train_tokenizer(texts: list[str], vocab_size: int, template: str = "qwen2_5") -> PreTrainedTokenizerFast:
    """A Qwen2-style byte-level BPE tokenizer trained on `texts`, with ChatML special tokens and a TRL chat template."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = chat_template(template)
    return fast


def build_qwen2(tokenizer, hidden_size: int = 32, num_layers: int = 2, seed: int = 0) -> Qwen2ForCausalLM:
    """A randomly initialised Qwen2 causal LM sized for CPU, over `tokenizer`'s vocabulary."""
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    return Qwen2ForCausalLM(config).eval()
