"""The asynchronous trainer's `mulferl/*` metrics on their way from the rollout process to the trainer: a window of
them, sent as one entry of TRL's metrics queue."""

import queue


def is_maximum(key: str) -> bool:
    """Whether a metric is a maximum, by TRL's rule (a `max` word in its last part)."""
    return "max" in key.split("/")[-1].split("_")


class MetricWindow:
    """MulFeRL's metrics of the rollout process since it last sent them: counts summed, rates `(numerator,
    denominator)` summed, maxima kept. TRL's metrics queue holds 4,096 entries and drops what does not fit, so the
    window goes as one entry, and stays, still growing, until one fits."""

    def __init__(self):
        self.values: dict[str, float | tuple[float, float]] = {}

    def add(self, metrics: dict[str, float | tuple[float, float]]):
        for key, value in metrics.items():
            if isinstance(value, tuple):
                numerator, denominator = self.values.get(key, (0.0, 0.0))
                self.values[key] = (numerator + value[0], denominator + value[1])
            elif is_maximum(key):
                if value == value:  # a maximum over nothing is NaN
                    self.values[key] = max(self.values.get(key, value), value)
            else:
                self.values[key] = self.values.get(key, 0.0) + value

    def send(self, metrics_queue) -> bool:
        """Put the window in `metrics_queue` and start a new one; False (the window kept) where the queue is full."""
        if not self.values:
            return True
        try:
            metrics_queue.put_nowait(self.values)
        except queue.Full:
            return False
        self.values = {}
        return True
