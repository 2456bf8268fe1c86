"""A tiny policy that stops at end-of-sequence after a varied number of tokens, for the multi-process tests.

The tests' tiny model writes nearly uniform tokens over a 512-token vocabulary, so it practically never samples EOS
and every completion is `max_completion_length` long: every process then runs as many forwards inside `generate`,
and a process that skips or repeats a collective `generate` goes unnoticed. This one gives EOS a fixed probability
per token, so lengths follow the sampling (TRL seeds each process differently) and differ between rows, prompts and
processes.

How: residual dimension 0 holds the constant 1 on every token and no layer writes to it, so after the final norm it
is a nearly constant feature; only EOS reads it in the output layer, with the weight that gives EOS the wanted
probability against the (nearly uniform) rest of the vocabulary.
"""

import math

import torch

from tests.helpers.tiny import build_tiny_model


def build_stopping_model(tokenizer, stop_probability: float = 0.2, seed: int = 0, build=build_tiny_model):
    """The tiny model (or `build`'s), with EOS sampled with about `stop_probability` at each token (temperature 1, no
    top-k)."""
    model = build(tokenizer, seed=seed)
    hidden_size = model.config.hidden_size
    with torch.no_grad():
        model.model.embed_tokens.weight[:, 0] = 1.0
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0] = 0.0
            layer.mlp.down_proj.weight[0] = 0.0
        # The other dimensions are ~0.02 (the initialisation), so the final norm scales dimension 0 to ~sqrt(hidden).
        feature = math.sqrt(hidden_size)
        eos_logit = math.log(stop_probability * (len(tokenizer) - 1) / (1 - stop_probability))
        model.lm_head.weight[:, 0] = 0.0
        model.lm_head.weight[tokenizer.eos_token_id, 0] = eos_logit / feature
    return model
