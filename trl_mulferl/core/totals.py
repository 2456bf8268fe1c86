"""The counts of a run that its end-of-training summary reads (feedback requests, tokens and cost, the groups of each
turn and route, FCO pairs), kept in checkpoints so that they do not restart on resume."""

from collections import Counter
from collections.abc import Mapping

from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from .summary import is_run_count


class FeedbackTotals(TrainerCallback, ExportableState):
    """
    The run's counts (`trl_mulferl.core.summary.RUN_COUNTS` and each turn's `turn_<t>/{reached,failed}`), over all
    processes, and the feedback model's cost at the configured prices.

    A stateful callback: `Trainer` saves its `state()` in each checkpoint's `trainer_state.json`, and `on_train_begin`
    reads it back from a resumed `TrainerState`, also when `restore_callback_states_from_checkpoint` is off (with it
    on, `Trainer` replaces this callback by a restored copy: find the live one with `feedback_totals(trainer)`).

    Args:
        input_price (`float`, defaults to `0.0`): Price per 1M prompt tokens of the feedback model.
        output_price (`float`, defaults to `0.0`): Price per 1M completion tokens.
    """

    def __init__(self, input_price: float = 0.0, output_price: float = 0.0):
        self.input_price, self.output_price = input_price, output_price
        self.totals = Counter()

    @property
    def cost(self) -> float | None:
        """The feedback model's cost so far; None when no price is set (a cost of 0 would claim it was free)."""
        if not (self.input_price or self.output_price):
            return None
        return feedback_cost(
            self.totals["feedback/prompt_tokens"],
            self.totals["feedback/completion_tokens"],
            self.input_price,
            self.output_price,
        )

    def add(self, counts: Mapping[str, float]):
        """Add one step's counts (over all processes); those the summary does not read are left out."""
        for name, value in counts.items():
            if is_run_count(name):
                self.totals[name] += value

    def state(self) -> dict:
        return {
            "args": {"input_price": self.input_price, "output_price": self.output_price},
            "attributes": {"totals": dict(self.totals)},
        }

    def on_train_begin(self, args, state, control, **kwargs):
        saved = (state.stateful_callbacks or {}).get(type(self).__name__)
        if isinstance(saved, Mapping):  # resumed from a checkpoint that holds the run's counts
            self.totals = Counter(saved["attributes"]["totals"])


def feedback_totals(trainer) -> FeedbackTotals:
    """The trainer's `FeedbackTotals` callback."""
    return next(c for c in trainer.callback_handler.callbacks if isinstance(c, FeedbackTotals))


def feedback_cost(prompt_tokens: int, completion_tokens: int, input_price: float, output_price: float) -> float:
    """The cost of the feedback model's token usage, at `input_price` / `output_price` per 1M tokens."""
    return (prompt_tokens * input_price + completion_tokens * output_price) / 1_000_000
