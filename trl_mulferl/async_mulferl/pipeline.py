"""The budget of `AsyncMulFeRLTrainer`'s rollout pipeline: how many prompts' trajectories are open at once, when the
rollout process may open another, and the two counts of the trainer's progress it reads to decide.

A prompt's trajectory (turn 0, its feedback turns, its regenerations) holds one place from its first rollout until
its rows are taken off the rollout queue by the trainer (or it ends without rows). The rollout process opens a new one
only while fewer than the budget are open and the rows already in the pipeline do not cover what the run still
trains, so that feedback tasks, turn-0 generation and rollout age stay bounded whatever the feedback latency.
"""

import math
import os
import tempfile
import weakref

import numpy as np
from transformers import TrainerCallback


def default_trajectory_budget(max_staleness: int, samples_per_step: int, num_generations: int) -> int:
    """The prompts of `max(max_staleness - 1, 1)` steps. A full pipeline (the trainer waiting for rows, or rows
    waiting for the trainer) keeps each trajectory open for `budget / prompts per step` steps (Little's law), the
    policy versions its rows are old when the trainer takes them: one step under `max_staleness` leaves room for
    the phase of a step, where TRL's own bound (`max_inflight_tasks`, `max_staleness` steps of samples) counts only
    generation, not the rows waiting in the queue."""
    return max(max_staleness - 1, 1) * math.ceil(samples_per_step / num_generations)


def feedback_requests_per_group(num_generations: int, feedback_group_size: int) -> int:
    """The OpenAI provider's requests for one failed group: a review per subgroup of `feedback_group_size` rollouts,
    and the merge of the reviews when there is more than one."""
    reviews = math.ceil(num_generations / feedback_group_size)
    return reviews + (reviews > 1)


def may_open_trajectory(open_trajectories: int, budget: int, pipeline_rows: int, rows_to_plan: int, k: int) -> bool:
    """Whether the rollout process may open one more trajectory (of `k` rows): fewer than `budget` are open, and the
    `pipeline_rows` that the open ones will hand over leave at least `k` of the `rows_to_plan` the run still takes (a
    run that knows its last step starts no trajectory it cannot finish)."""
    return open_trajectories < budget and pipeline_rows + k <= rows_to_plan


def rows_to_plan(
    max_steps: int,
    steps: int,
    rows_planned: int,
    rows_planned_by_steps: int,
    rows_per_step: int | None,
    rows_per_micro_batch: int,
    k: int,
) -> int:
    """The rows the run's planner still takes (after TRL drops the stale ones), `steps` of its `max_steps` done,
    `rows_planned` taken, `rows_planned_by_steps` of them by the end of the last step done.

    With a fixed count of `rows_per_step` it is exact: the steps' rows and the micro-batch accelerate fetches ahead of
    the last step (never trained, but without it the last step never starts). Under a token budget (`rows_per_step`
    None) it is the remaining steps at the mean step so far (unbounded before the first), less what the current step
    has taken, and at least `k` while steps remain, so that a step that packs more rows than the mean is never left
    waiting."""
    if steps >= max_steps:
        return 0
    if rows_per_step is not None:
        return max(max_steps * rows_per_step + rows_per_micro_batch - rows_planned, 0)
    if not steps:
        return UNBOUNDED
    in_current_step = rows_planned - rows_planned_by_steps
    return max(round((max_steps - steps) * rows_planned_by_steps / steps) - in_current_step, k)


UNBOUNDED = 2**62


class TrainerProgress(TrainerCallback):
    """What the rollout process reads of the trainer's progress: the rows taken off the rollout queue (planned, or
    dropped as stale) and the rows the run's planner still takes (`rows_to_plan`). The trainer writes them, in a file
    both processes map: TRL spawns its rollout process with a fixed set of shared objects, and its arguments must
    pickle.

    Args:
        max_steps, rows_per_step, rows_per_micro_batch, num_generations: The run's, on the trainer's side
            (`rows_per_step` None under a token budget); a copy unpickled in the rollout process only reads.
    """

    DEQUEUED, TO_PLAN = 0, 1

    def __init__(
        self,
        max_steps: int = 0,
        rows_per_step: int | None = None,
        rows_per_micro_batch: int = 0,
        num_generations: int = 0,
        path: str | None = None,
    ):
        self.max_steps, self.rows_per_step, self.rows_per_micro_batch = max_steps, rows_per_step, rows_per_micro_batch
        self.k = num_generations
        self.steps, self.rows_planned, self.rows_planned_by_steps = 0, 0, 0
        if path is None:
            handle, path = tempfile.mkstemp(prefix="mulferl-progress-")
            os.close(handle)
            np.array([0, UNBOUNDED], dtype=np.int64).tofile(path)
            weakref.finalize(self, os.remove, path)
        self.path = path
        self._counts = np.memmap(path, dtype=np.int64, mode="r+", shape=(2,))
        if self.max_steps > 0:
            self._publish()

    def __reduce__(self):
        return (TrainerProgress, (0, None, 0, 0, self.path))

    @property
    def rows_dequeued(self) -> int:
        return int(self._counts[self.DEQUEUED])

    @property
    def rows_to_plan(self) -> int:
        return int(self._counts[self.TO_PLAN])

    def dequeued(self):
        """A row was taken off the rollout queue."""
        self._counts[self.DEQUEUED] += 1

    def planned(self):
        """A row taken off the queue goes to the planner (TRL did not drop it as stale)."""
        self.rows_planned += 1
        self._publish()

    def on_step_end(self, args, state, control, **kwargs):
        self.steps += 1
        self.rows_planned_by_steps = self.rows_planned
        self._publish()

    def _publish(self):
        self._counts[self.TO_PLAN] = rows_to_plan(
            self.max_steps,
            self.steps,
            self.rows_planned,
            self.rows_planned_by_steps,
            self.rows_per_step,
            self.rows_per_micro_batch,
            self.k,
        )


class CountingQueue:
    """The rollout queue as TRL's queue dataset reads it, counting in `progress` the rows it takes off."""

    def __init__(self, rollout_queue, progress: TrainerProgress):
        self.rollout_queue = rollout_queue
        self.progress = progress

    def get(self, *args, **kwargs):
        sample = self.rollout_queue.get(*args, **kwargs)
        self.progress.dequeued()
        return sample

    def __getattr__(self, name):
        return getattr(self.rollout_queue, name)
