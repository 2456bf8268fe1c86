"""The feedback bill of a run (requests, tokens, cost), kept in checkpoints so that it does not restart on resume."""

from collections.abc import Mapping

from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from .protocol import feedback_cost


TOTAL_COUNTS = ("requests", "prompt_tokens", "completion_tokens")


class FeedbackTotals(TrainerCallback, ExportableState):
    """
    Feedback requests, tokens and cost over the run and all processes.

    A stateful callback: `Trainer` saves its `state()` in each checkpoint's `trainer_state.json`, and `on_train_begin`
    reads it back from a resumed `TrainerState`, also when `restore_callback_states_from_checkpoint` is off (with it
    on, `Trainer` replaces this callback by a restored copy: find the live one with `feedback_totals(trainer)`).

    Args:
        input_price (`float`, defaults to `0.0`): Price per 1M prompt tokens of the feedback model.
        output_price (`float`, defaults to `0.0`): Price per 1M completion tokens.
    """

    def __init__(self, input_price: float = 0.0, output_price: float = 0.0):
        self.input_price, self.output_price = input_price, output_price
        self.totals = dict.fromkeys(TOTAL_COUNTS, 0)

    @property
    def cost(self) -> float:
        return feedback_cost(
            self.totals["prompt_tokens"], self.totals["completion_tokens"], self.input_price, self.output_price
        )

    def add(self, counts: Mapping[str, float]):
        """Add one step's `feedback/<name>` counts (over all processes)."""
        for name in TOTAL_COUNTS:
            self.totals[name] += counts.get(f"feedback/{name}", 0)

    def summary(self) -> dict[str, float]:
        """`total_<name>` for each count and the cost, as the trainer logs them at the end of training."""
        return {f"total_{name}": value for name, value in {**self.totals, "cost": self.cost}.items()}

    def state(self) -> dict:
        return {
            "args": {"input_price": self.input_price, "output_price": self.output_price},
            "attributes": {"totals": dict(self.totals)},
        }

    def on_train_begin(self, args, state, control, **kwargs):
        saved = (state.stateful_callbacks or {}).get(type(self).__name__)
        if isinstance(saved, Mapping):  # resumed from a checkpoint that holds a bill
            self.totals = {name: saved["attributes"]["totals"].get(name, 0) for name in TOTAL_COUNTS}


def feedback_totals(trainer) -> FeedbackTotals:
    """The trainer's `FeedbackTotals` callback."""
    return next(c for c in trainer.callback_handler.callbacks if isinstance(c, FeedbackTotals))
