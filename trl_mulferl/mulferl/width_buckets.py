"""Width classes of the loss forward (decision 14): a row that carries a feedback prefill is forwarded beside rows of
its own width, not padded into every row of its micro-batch, and a row without a loss is not forwarded.

A regenerated row holds its prefill inside its completion (masked out of the loss), so one feedback turn would widen
the whole micro-batch to the prefill's width. The rows are sorted by completion length and cut into contiguous
buckets, each forwarded trimmed to its own widest prompt (left-padded) and completion (right-padded): the fewest
buckets whose padding is at most `PADDING_SHARE` of the real tokens, at most `MAX_BUCKETS` forwards.
"""

import torch


# A bucket costs one forward (kernel launches, a pass over the weights), so a few percent of padding is cheaper.
PADDING_SHARE = 0.1
MAX_BUCKETS = 4


def rows_with_a_loss(inputs: dict) -> list[int]:
    """The rows of a micro-batch that the loss trains: GRPO rows (replayed ones included) and FCO rows, positives or
    carriers of a partner."""
    trained = inputs["mulferl_grpo_rows"] != 0
    for key in ("mulferl_fco_weight", "mulferl_fco_coefficient", "mulferl_partner_forwarded"):
        if key in inputs:
            trained = trained | (inputs[key] != 0)
    return trained.nonzero().squeeze(1).tolist()


def row_lengths(attention_mask: torch.Tensor, completion_width: int) -> tuple[list[int], list[int]]:
    """The prompt and completion length of each row of `cat(prompt_mask, completion_mask)` (prompts left-padded,
    completions right-padded, as TRL builds them)."""
    prompt_mask = attention_mask[:, : attention_mask.size(1) - completion_width]
    completion_mask = attention_mask[:, attention_mask.size(1) - completion_width :]
    positions = torch.arange(1, completion_width + 1, device=attention_mask.device)
    completion_lengths = (completion_mask * positions).amax(dim=1)  # the last attended position
    return prompt_mask.sum(dim=1).tolist(), completion_lengths.tolist()


def width_buckets(
    prompt_lengths: list[int],
    completion_lengths: list[int],
    padding_share: float = PADDING_SHARE,
    max_buckets: int = MAX_BUCKETS,
) -> list[list[int]]:
    """The rows cut into buckets by completion length: the fewest contiguous cuts of the sorted rows whose forwarded
    positions exceed the real tokens by at most `padding_share`, or the fewest positions over `max_buckets` cuts.

    Returns:
        Lists of row indices, each sorted, the buckets ordered by width.
    """
    order = sorted(range(len(completion_lengths)), key=lambda row: (completion_lengths[row], prompt_lengths[row]))
    tokens = sum(prompt_lengths) + sum(completion_lengths)
    num_rows, infinity = len(order), float("inf")
    # cost[b][end]: the fewest positions covering the first `end` sorted rows with b buckets; cut[b][end]: where
    # its last bucket starts.
    cost, cut = [[0.0] + [infinity] * num_rows], [[0] * (num_rows + 1)]
    for num_buckets in range(1, max_buckets + 1):
        cost.append([infinity] * (num_rows + 1))
        cut.append([0] * (num_rows + 1))
        for end in range(1, num_rows + 1):
            widest_prompt = widest_completion = 0
            for start in range(end - 1, -1, -1):  # the last bucket is order[start:end]
                widest_prompt = max(widest_prompt, prompt_lengths[order[start]])
                widest_completion = max(widest_completion, completion_lengths[order[start]])
                total = cost[num_buckets - 1][start] + (end - start) * (widest_prompt + widest_completion)
                if total < cost[num_buckets][end]:
                    cost[num_buckets][end], cut[num_buckets][end] = total, start
        if cost[num_buckets][num_rows] <= (1 + padding_share) * tokens:
            break
    best = min(range(1, num_buckets + 1), key=lambda count: (cost[count][num_rows], count))
    buckets, end = [], num_rows
    for count in range(best, 0, -1):
        start = cut[count][end]
        buckets.append(sorted(order[start:end]))
        end = start
    return buckets[::-1]
