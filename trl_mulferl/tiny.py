"""Everything to run MulFeRL offline: a tiny Qwen2, a tokenizer trained in-process, and a checkable task.

The task is one-digit sums ("What is 3 + 4? Answer with one digit."). Its checker reads the first digit a response
writes after any feedback block: as a reward (`digit_reward`) and as a feedback provider (`checker_feedback`) that
says how the failed answers went wrong, never the answer.

    trl-mulferl make-tiny tiny-mulferl     # the model and dataset that recipes/tiny_cpu.yaml and `--tiny` use
"""

import argparse
import json
import re
from pathlib import Path

import torch
import trl
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

from .core.schema import SYSTEM_PROMPT


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


_DIGIT = re.compile(r"\d")
_SUM_QUESTION = re.compile(r"What is (\d) \+ (\d)\?")


def sum_problems(seed: int) -> list[tuple[int, int]]:
    """All 55 pairs (a, b) with a + b <= 9, in a seeded random order."""
    problems = [(a, b) for a in range(10) for b in range(10) if a + b <= 9]
    order = torch.randperm(len(problems), generator=torch.Generator().manual_seed(seed)).tolist()
    return [problems[i] for i in order]


def sum_question(a: int, b: int) -> str:
    return f"What is {a} + {b}? Answer with one digit."


def sum_operands(prompt) -> tuple[int, int]:
    """The a and b of "What is a + b?" in a prompt: plain text, or a conversation ending with the question."""
    text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
    match = _SUM_QUESTION.search(text)
    if match is None:
        raise ValueError(f"Not a one-digit sum ('What is a + b?'): {text!r}")
    return int(match.group(1)), int(match.group(2))


def given_digit(completion) -> str | None:
    """The first digit written after the feedback block (if any): the answer the checker reads."""
    text = completion if isinstance(completion, str) else completion[0]["content"]
    match = _DIGIT.search(text.split("</feedback>", 1)[-1])
    return match.group(0) if match else None


def digit_reward(prompts, completions, **kwargs) -> list[float]:
    """1.0 when the first digit after the feedback block is the sum the prompt asks for, else 0.0."""
    return [float(given_digit(c) == str(sum(sum_operands(p)))) for p, c in zip(prompts, completions, strict=True)]


def checker_feedback(prompt, completions, rewards, **columns) -> str:
    """Feedback from the task's checker: how the failed answers went wrong and the steps to fix them.

    It names no number at all (beyond its step numbers), so it can never state the answer, not even through an
    operand when the other one is 0.
    """
    a, b = sum_operands(prompt)
    given = [given_digit(c) for c in completions]
    kinds = {
        "give no digit at all": sum(digit is None for digit in given),
        "are larger than the sum": sum(digit is not None and int(digit) > a + b for digit in given),
        "are smaller than the sum": sum(digit is not None and int(digit) < a + b for digit in given),
    }
    problems = [f"{'all' if count == len(given) else 'some'} answers {kind}" for kind, count in kinds.items() if count]
    return (
        f"Issue: {'; '.join(problems)}. Fix steps: 1. Start from the first number and count up by the second. "
        "2. Write that single digit first, before any other digit."
    )


def tiny_training_args(num_generations: int) -> dict:
    """Training arguments that run a script on CPU in seconds: 2 steps of 8 prompts, 16 new tokens, no checkpoints."""
    return {
        "max_steps": 2,
        "per_device_train_batch_size": 8 * num_generations,
        "max_completion_length": 16,
        "use_cpu": True,
        "bf16": False,
        "activation_checkpointing": False,
        "logging_steps": 1,
        "report_to": "none",
        "save_strategy": "no",
    }


def write_tiny(directory: str | Path, seed: int = 0) -> tuple[str, str]:
    """Writes a tiny Qwen2 and its tokenizer to `directory/model`, and one-digit sums to `directory/data`.

    The data are JSONL files with `problem` and `answer` columns, as MATH-500: `train.jsonl` (35 sums) and
    `test.jsonl` (the other 20). The tokenizer is trained on the task, the schema and the training system prompt, so
    prompts built with `make_conversation` stay short. Returns the two folders.
    """
    directory = Path(directory)
    problems = sum_problems(seed)
    splits = {"train": problems[:35], "test": problems[35:]}
    questions = [sum_question(a, b) for a, b in problems]
    texts = [SYSTEM_PROMPT, checker_feedback(sum_question(2, 3), ["7", "1", "x"], [0.0] * 3)] + questions
    texts.append("<thinking><feedback></feedback> 0123456789</thinking> The final answer is \\boxed{0123456789}")
    tokenizer = train_tokenizer(texts * 10, vocab_size=512)
    model_dir, data_dir = directory / "model", directory / "data"
    build_qwen2(tokenizer, hidden_size=64, num_layers=2, seed=seed).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    for split, pairs in splits.items():
        rows = [{"problem": sum_question(a, b), "answer": str(a + b)} for a, b in pairs]
        (data_dir / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(model_dir), str(data_dir)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="trl-mulferl make-tiny",
        description="Write a tiny Qwen2 (DIR/model) and one-digit sums (DIR/data: train.jsonl, test.jsonl), offline.",
    )
    parser.add_argument("directory", nargs="?", default="tiny-mulferl", metavar="DIR", help="default: tiny-mulferl")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model_dir, data_dir = write_tiny(args.directory, args.seed)
    print(f"Wrote a tiny Qwen2 to {model_dir} and one-digit sums to {data_dir}.")
    if args.directory == "tiny-mulferl":
        print("Train on them: trl-mulferl train --config recipes/tiny_cpu.yaml")
