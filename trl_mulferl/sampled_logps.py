"""The log-probs of the tokens a transformers `generate` samples, recorded from its own forward passes.

FCO needs every scored sequence's policy log-probs at generation time (spec, decision 2). With transformers
generation the policy computed them while sampling: recording them saves a forward over every positive and every
negative. They equal a forward's log-probs (`GRPOTrainer._get_per_token_logps_and_entropies`: logits divided by the
sampling temperature) up to the rounding of the cached decoding.
"""

import torch


class SampledLogpsRecorder:
    """Records, while attached to `model`, the log-prob at `temperature` of each token `generate` samples.

    `generate` runs one forward per new token: the token sampled from a forward's last position is the input of the
    next forward, and the last one sampled is only in the returned ids. So a hook on the input embeddings reads the
    token sampled one step earlier, and one on the output embeddings keeps the latest log-softmax.

        with SampledLogpsRecorder(model, temperature) as recorder:
            completion_ids = ...  # one `generate` call
        logps = recorder.logps(completion_ids)
    """

    def __init__(self, model, temperature: float):
        self.model, self.temperature = model, temperature
        self.steps: list[torch.Tensor] = []  # per generated token but the last, its log-prob in each row
        self.latest: torch.Tensor | None = None  # the latest forward's log-softmax at its last position

    def __enter__(self):
        self.handles = [
            self.model.get_input_embeddings().register_forward_pre_hook(self._read_sampled_token),
            self.model.get_output_embeddings().register_forward_hook(self._keep_log_softmax),
        ]
        return self

    def __exit__(self, *exc_info):
        for handle in self.handles:
            handle.remove()

    def _read_sampled_token(self, module, args):
        if self.latest is not None:  # the first forward reads the prompt
            self.steps.append(self.latest.gather(-1, args[0][:, -1:].to(self.latest.device)).squeeze(-1))

    def _keep_log_softmax(self, module, args, logits):
        self.latest = torch.log_softmax(logits[:, -1].float() / self.temperature, dim=-1)

    def logps(self, completion_ids: list[list[int]]) -> list[list[float]] | None:
        """Per row (in the order `generate` got them), the log-prob of each of its completion ids; None when the
        forwards seen do not account for every row and token (the caller then forwards the policy itself)."""
        if self.latest is None or self.latest.size(0) != len(completion_ids):
            return None
        steps = torch.stack(self.steps, dim=1).tolist() if self.steps else [[] for _ in completion_ids]
        rows = []
        for row, ids in enumerate(completion_ids):
            logps = steps[row][: len(ids)]
            if len(ids) == len(logps) + 1:  # the row's last token was the last one sampled
                logps.append(self.latest[row, ids[-1]].item())
            if len(logps) != len(ids):
                return None
            rows.append(logps)
        return rows
