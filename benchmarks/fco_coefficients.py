"""How strongly FCO pushes at the recipe values, with scores summed (released code) or averaged (eq. 13).

On two real-length rollouts (a solved one and a failed one, 2,000 generated tokens each, sampled from a small random
Qwen2) and a policy that has drifted from the reference (the reference's weights plus Gaussian noise of a few sizes),
it computes with the package's own functions the score gap s+ - s-, the pair loss, the coefficient dL/ds of a
sequence in the batch loss, and the weight each generated token's log-probability gets, next to GRPO's for a rollout of
the same length with |advantage| = 1 (loss_type "grpo", the recipes' 16 prompts x 8 rollouts). Prints a table and
writes JSON.

    python benchmarks/fco_coefficients.py --output benchmarks/fco_coefficients.json
"""

import argparse
import copy
import json
from pathlib import Path

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from trl_mulferl.core.losses import fco_loss, fco_score, fco_surrogate_coefficients


ROOT = Path(__file__).resolve().parents[1]
# The paper recipes (Table 4): fco_weight 0.01, tau 0.005, K = 8 pairs per FCO prompt, 16 prompts per step.
FCO_WEIGHT, TAU, K, PROMPTS = 0.01, 0.005, 8, 16


def token_logps(model, sequence, prompt_length):
    with torch.no_grad():
        logits = model(sequence.unsqueeze(0)).logits[0, prompt_length - 1 : -1].float()
    return logits.log_softmax(-1).gather(-1, sequence[prompt_length:].unsqueeze(-1)).squeeze(-1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=2000, help="generated tokens per rollout")
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.002, 0.005, 0.01], help="policy drift")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "fco_coefficients.json")
    args = parser.parse_args()

    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=512,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=args.length + 64,
    )
    reference = Qwen2ForCausalLM(config).eval()
    prompt = torch.randint(0, config.vocab_size, (1, 32))
    rollouts = reference.generate(
        prompt.repeat(2, 1), do_sample=True, max_new_tokens=args.length, min_new_tokens=args.length, pad_token_id=0
    )
    mask = torch.ones(1, args.length)
    grpo_token_weight = 1.0 / (args.length * PROMPTS * K)  # d(loss)/d(log pi(token)) for |A| = 1, loss_type grpo

    rows = []
    for noise in args.noise:
        policy = copy.deepcopy(reference)
        with torch.no_grad():
            for parameter in policy.parameters():
                parameter.add_(noise * torch.randn_like(parameter))
        log_ratios = [token_logps(policy, r, 32) - token_logps(reference, r, 32) for r in rollouts]
        for normalization in ("sum", "mean"):
            positive, negative = (
                fco_score(lr[None], torch.zeros_like(lr[None]), mask, normalization) for lr in log_ratios
            )
            pairs = torch.tensor([[0, 0]])
            pos_coefficient, _ = fco_surrogate_coefficients(positive, negative, pairs, TAU, 0.0)
            # In the batch loss each FCO prompt's pair mean is weighted fco_weight / prompts, and has K pairs.
            coefficient = FCO_WEIGHT / PROMPTS * pos_coefficient.abs().item() / K
            token_weight = coefficient if normalization == "sum" else coefficient / args.length
            rows.append(
                {
                    "noise": noise,
                    "normalization": normalization,
                    "mean_abs_token_log_ratio": torch.cat(log_ratios).abs().mean().item(),
                    "score_gap": (positive - negative).item(),
                    "pair_loss": fco_loss(positive, negative, TAU, 0.0).item(),
                    "sequence_coefficient": coefficient,
                    "token_weight": token_weight,
                    "token_weight_vs_grpo": token_weight / grpo_token_weight,
                }
            )

    header = f"{'drift':>6} {'score':>5} {'|log ratio|':>11} {'s+ - s-':>9} {'pair loss':>9} {'token weight':>12} {'x GRPO':>8}"
    print(header)
    for row in rows:
        print(
            f"{row['noise']:>6} {row['normalization']:>5} {row['mean_abs_token_log_ratio']:>11.4f} "
            f"{row['score_gap']:>9.4f} {row['pair_loss']:>9.5f} {row['token_weight']:>12.2e} "
            f"{row['token_weight_vs_grpo']:>8.1e}"
        )
    settings = {"length": args.length, "fco_weight": FCO_WEIGHT, "tau": TAU, "k": K, "prompts": PROMPTS}
    args.output.write_text(
        json.dumps({"settings": settings, "grpo_token_weight": grpo_token_weight, "rows": rows}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
