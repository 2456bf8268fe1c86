"""The hashed reward and the tiny iGRPO trainer the iGRPO, start-up and model-card tests share."""

import zlib

from datasets import Dataset

from tests.helpers.trainer import TINY_TRAINING, completion_texts
from trl_mulferl import IGRPOConfig, IGRPOTrainer, make_conversation


N, G = 3, 2


def hashed_reward(completions, **kwargs):
    """A deterministic reward in {0, 0.5, 1} that varies from text to text."""
    return [(zlib.crc32(text.encode()) % 3) / 2 for text in completion_texts(completions)]


def make_igrpo_trainer(tmp_path, tiny_tokenizer, model, peft_config=None, **overrides):
    dataset = Dataset.from_list([{"prompt": make_conversation(f"What is {i} + 1?")} for i in range(4)])
    settings = {**TINY_TRAINING, "num_generations": G, "output_dir": str(tmp_path), **overrides}
    return IGRPOTrainer(
        model=model,
        reward_funcs=hashed_reward,
        args=IGRPOConfig(num_drafts=N, max_draft_length=6, **settings),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        peft_config=peft_config,
    )
