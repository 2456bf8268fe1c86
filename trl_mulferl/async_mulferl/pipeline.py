"""The budget of `AsyncMulFeRLTrainer`'s rollout pipeline: the places of the prompts' trajectories, the feedback slots,
when the rollout process may open another trajectory, and the counts of the trainer's progress it reads to decide.

A prompt's trajectory (turn 0, its feedback turns, its regenerations) holds a generation place while it is generated,
scored, and while its rows wait for the trainer to take them off the rollout queue; while it waits for feedback it
holds a feedback slot instead. The rollout process opens a new trajectory only while fewer than the budget's
generation places are held and the rows the open trajectories will hand over fall short of the rows the run still
takes, so that turn-0 generation and the age of the rows in the queue stay bounded whatever the feedback latency, and
the run opens no prompt it does not train (beyond a part of one step's, under a token budget).

The end of a run depends on no arithmetic of the user's: the trainer publishes the rows it still takes, counting every
row TRL drops as stale as one to replace, and the micro-batch accelerate fetches ahead of the last step is served
from the rows already trained (`planned_run`), never generated.
"""

import asyncio
import math
import os
import tempfile
import weakref
from collections import deque
from collections.abc import Callable, Iterator

import numpy as np
from transformers import TrainerCallback


# Feedback requests in flight to the provider that the default feedback slots keep within: 256 requests of about 30 s
# are about 500 a minute, the first tier of the common API plans.
DEFAULT_FEEDBACK_REQUESTS = 256
UNBOUNDED = 2**62


def default_trajectory_budget(max_staleness: int, samples_per_step: int, num_generations: int) -> int:
    """The prompts of `max(max_staleness - 1, 1)` steps. The generation places hold a trajectory from its
    (re)generation until the trainer takes its rows; a full pipeline keeps it there `budget / prompts per step` steps
    (Little's law), the policy versions its rows are old when they are trained: one step under `max_staleness` leaves
    room for the phase of a step."""
    return max(max_staleness - 1, 1) * math.ceil(samples_per_step / num_generations)


def feedback_requests_per_group(num_generations: int, feedback_group_size: int) -> int:
    """The OpenAI provider's requests for one failed group: a review per subgroup of `feedback_group_size` rollouts,
    and the merge of the reviews when there is more than one."""
    reviews = math.ceil(num_generations / feedback_group_size)
    return reviews + (reviews > 1)


def default_feedback_slots(
    max_feedback_age: int, max_staleness: int, prompts_per_step: int, requests_per_group: int
) -> int:
    """The failed groups that may wait for feedback at once: the prompts of the steps `max_feedback_age` leaves beyond
    the generation places' `max(max_staleness - 1, 1)`, one step under it (a full pipeline holds places and slots,
    and by Little's law keeps a trajectory `(places + slots) / prompts per step` steps from its turn 0, which its
    feedback must not outlive), within `DEFAULT_FEEDBACK_REQUESTS` requests in flight to the provider."""
    steps = max(max_feedback_age - max(max_staleness - 1, 1) - 1, 1)
    return max(1, min(steps * prompts_per_step, DEFAULT_FEEDBACK_REQUESTS // requests_per_group))


def may_open_trajectory(generation_places: int, budget: int, promised_rows: int, wanted_rows: int) -> bool:
    """Whether the rollout process may open one more trajectory: fewer than `budget` generation places are held, and
    the rows the open trajectories will hand over and those handed over already (`promised_rows`) fall short of
    `wanted_rows`, the rows the run takes off the queue in all (so a run opens at most one prompt's rows more than it
    takes, whatever K and the rows of a step)."""
    return generation_places < budget and promised_rows < wanted_rows


def micro_batches_to_plan(
    micro_batches_left: int,
    gradient_accumulation_steps: int,
    micro_batches_done: int,
    groups_left: int | None,
    rows_in_current: int,
    rows_per_micro_batch: float,
    k: int,
) -> int:
    """The micro-batches the run still plans, the one being filled included: those of its steps left, or under an
    epoch stop (`groups_left` prompts not yet planned) those that take the prompts left, to the end of their step
    (TRL's epoch stop is checked as a step ends)."""
    if groups_left is None or rows_per_micro_batch <= 0:
        return micro_batches_left
    needed = micro_batches_done
    if groups_left > 0:
        needed += math.ceil((rows_in_current + groups_left * k) / rows_per_micro_batch)
    to_step_end = math.ceil(needed / gradient_accumulation_steps) * gradient_accumulation_steps
    return min(micro_batches_left, to_step_end - micro_batches_done)


def rows_to_plan(
    micro_batches: int, rows_in_current: int, rows_per_micro_batch: float | None, fixed_count: bool, k: int
) -> int:
    """The rows the run's planner still takes off the queue (after TRL drops the stale ones) for `micro_batches` more
    micro-batches, `rows_in_current` of the first already taken.

    With a fixed count of rows a micro-batch it is exact. Under a token budget a micro-batch closes on the first row
    that does not fit (one row more), and its rows are estimated from the last step's (`rows_per_micro_batch`; None
    before the first micro-batch is planned: what the first holds and one more prompt's); once the estimate is spent
    while micro-batches remain, half a micro-batch more at a time, so that the end of a run goes in few round trips
    and opens at most half a micro-batch's rows it does not train."""
    if micro_batches <= 0:
        return 0
    if fixed_count:
        return max(round(micro_batches * rows_per_micro_batch) - rows_in_current, 0)
    if rows_per_micro_batch is None:
        rows_per_micro_batch = rows_in_current + k
    estimate = math.ceil(micro_batches * rows_per_micro_batch) - rows_in_current + 1
    return max(estimate, math.ceil(rows_per_micro_batch / 2), 1)


class TrainerProgress(TrainerCallback):
    """What the rollout process reads of the trainer's progress, in a file both processes map (TRL spawns its rollout
    process with a fixed set of shared objects, and its arguments must pickle):

    - the rows taken off the rollout queue (a trajectory's generation place is free once its rows are taken);
    - the rows the run wants in all: those planned, those TRL dropped as stale, and `rows_to_plan`. One count, written
      in one store, so that the rollout process never reads one half of an update; 0 until training begins.

    A row taken off the queue is settled (planned, or dropped as stale) before the next is taken: TRL's queue dataset
    drops or yields a row before it reads the next.

    Args:
        gradient_accumulation_steps, num_generations: The run's.
        rows_per_micro_batch: The planner's rows (all ranks') of a micro-batch with a fixed count; None under a token
            budget.
        groups_to_train: On the trainer's side, called as training begins: the prompts an epoch stop still trains
            (None: the run ends at `max_steps`).
    """

    TAKEN, WANTED = 0, 1

    def __init__(
        self,
        gradient_accumulation_steps: int = 1,
        rows_per_micro_batch: int | None = None,
        num_generations: int = 0,
        groups_to_train: Callable[[], int | None] | None = None,
        path: str | None = None,
    ):
        self.gradient_accumulation_steps, self.rows_per_micro_batch = gradient_accumulation_steps, rows_per_micro_batch
        self.k, self.groups_to_train = num_generations, groups_to_train
        self.micro_batches_left, self.groups_left = 0, None
        self.rows_planned, self.rows_dropped = 0, 0
        self.micro_batch_rows: list[int] = []  # of each micro-batch planned
        self.planned_groups: set[int] = set()
        if path is None:
            handle, path = tempfile.mkstemp(prefix="mulferl-progress-")
            os.close(handle)
            np.zeros(2, dtype=np.int64).tofile(path)
            weakref.finalize(self, os.remove, path)
        self.path = path
        self._counts = np.memmap(path, dtype=np.int64, mode="r+", shape=(2,))

    def __reduce__(self):
        return (TrainerProgress, (1, None, 0, None, self.path))

    @property
    def rows_taken(self) -> int:
        return int(self._counts[self.TAKEN])

    @property
    def rows_wanted(self) -> int:
        return int(self._counts[self.WANTED])

    def on_train_begin(self, args, state, control, **kwargs):
        self.start(args.max_steps - state.global_step, self.groups_to_train() if self.groups_to_train else None)

    def start(self, steps: int, groups: int | None = None):
        """Training begins with `steps` optimizer steps to take (and, under an epoch stop, `groups` prompts)."""
        self.micro_batches_left = steps * self.gradient_accumulation_steps
        self.groups_left = groups
        self._publish()

    def settle(self):
        """Before a row is taken off the queue: the one taken before it was planned or dropped by now."""
        if self.rows_taken - self.rows_planned != self.rows_dropped:
            self.rows_dropped = self.rows_taken - self.rows_planned
            self._publish()

    def taken(self):
        """A row was taken off the rollout queue."""
        self._counts[self.TAKEN] += 1

    def planned(self, group_id: int):
        """A row taken off the queue goes to the planner (TRL did not drop it as stale)."""
        self.rows_planned += 1
        if self.groups_left is not None and group_id not in self.planned_groups:
            self.planned_groups.add(group_id)
            self.groups_left -= 1
        self._publish()

    def micro_batch_planned(self, rows: int):
        """The planner put out a micro-batch of `rows` rows."""
        self.micro_batch_rows.append(rows)
        self.micro_batches_left -= 1
        self._publish()

    @property
    def run_is_planned(self) -> bool:
        """Whether the planner has put out every micro-batch the run trains."""
        return self._micro_batches_to_plan() <= 0

    def _rows_per_micro_batch(self) -> float | None:
        if self.rows_per_micro_batch is not None:
            return self.rows_per_micro_batch
        recent = self.micro_batch_rows[-self.gradient_accumulation_steps :]
        return sum(recent) / len(recent) if recent else None

    def _rows_in_current(self) -> int:
        return self.rows_planned - sum(self.micro_batch_rows)

    def _micro_batches_to_plan(self) -> int:
        return micro_batches_to_plan(
            self.micro_batches_left,
            self.gradient_accumulation_steps,
            len(self.micro_batch_rows),
            self.groups_left,
            self._rows_in_current(),
            self._rows_per_micro_batch() or 0,
            self.k,
        )

    def _publish(self):
        to_plan = rows_to_plan(
            self._micro_batches_to_plan(),
            self._rows_in_current(),
            self._rows_per_micro_batch(),
            self.rows_per_micro_batch is not None,
            self.k,
        )
        self._counts[self.WANTED] = min(self.rows_planned + self.rows_dropped + to_plan, UNBOUNDED)


class CountingQueue:
    """The rollout queue as TRL's queue dataset reads it, counting in `progress` the rows it takes off."""

    def __init__(self, rollout_queue, progress: TrainerProgress):
        self.rollout_queue = rollout_queue
        self.progress = progress

    def get(self, *args, **kwargs):
        self.progress.settle()
        sample = self.rollout_queue.get(*args, **kwargs)
        self.progress.taken()
        return sample

    def __getattr__(self, name):
        return getattr(self.rollout_queue, name)


class LookaheadMicroBatch(list):
    """A micro-batch accelerate fetches ahead of the run's last step, which is never trained: the rows of the last
    micro-batch again, which the collator packs without counting them anywhere."""


def planned_run(micro_batches: Iterator, progress: TrainerProgress) -> Iterator:
    """A planner's `micro_batches`, counted in `progress`; once those of the run are out, the micro-batches fetched
    ahead are `LookaheadMicroBatch`es, taken from no queue: the run neither waits for rows it does not train nor pays
    for them."""
    last = None
    while True:
        if last is not None and progress.run_is_planned:
            yield LookaheadMicroBatch(last)
            continue
        last = next(micro_batches)
        progress.micro_batch_planned(sum(len(row.samples) for row in last))
        yield last


class Trajectories:
    """The rollout process's ledger of open trajectories: those holding a generation place (in generation, in
    scoring, or handed over with rows the trainer has not all taken), those holding a feedback slot, those whose
    feedback came and that wait for a generation place back, and the rows promised to the trainer."""

    def __init__(self, num_generations: int):
        self.k = num_generations
        self.generating: set[int] = set()  # group ids
        self.waiting_for_feedback: set[int] = set()
        self.waiting_for_place: set[int] = set()
        self.rows_handed = 0
        self._handed_row_ends: deque[int] = deque()  # per trajectory handed over, `rows_handed` after its rows

    def __contains__(self, group_id: int) -> bool:
        return any(group_id in held for held in (self.generating, self.waiting_for_feedback, self.waiting_for_place))

    def open(self, group_id: int):
        self.generating.add(group_id)

    def to_feedback(self, group_id: int):
        """The trajectory's failed group has a feedback slot: its generation place is free."""
        self.generating.discard(group_id)
        self.waiting_for_feedback.add(group_id)

    def feedback_done(self, group_id: int):
        """Its feedback came (or the request ended): the slot is free, and it waits for a generation place, before any
        new prompt (`may_open_trajectory` counts it as held)."""
        self.waiting_for_feedback.discard(group_id)
        self.waiting_for_place.add(group_id)

    def take_place(self, group_id: int):
        self.waiting_for_place.discard(group_id)
        self.generating.add(group_id)

    def close(self, group_id: int, rows: int):
        """The trajectory leaves the rollout process with `rows` rows; its place is free once the trainer has taken
        them (the rollout queue is first in, first out)."""
        for held in (self.generating, self.waiting_for_feedback, self.waiting_for_place):
            held.discard(group_id)
        self.rows_handed += rows
        self._handed_row_ends.append(self.rows_handed)

    def generation_places(self, rows_taken: int) -> int:
        """The generation places held, the trainer having taken `rows_taken` rows."""
        while self._handed_row_ends and self._handed_row_ends[0] <= rows_taken:
            self._handed_row_ends.popleft()
        return len(self.generating) + len(self._handed_row_ends)

    @property
    def promised_rows(self) -> int:
        """The rows the open trajectories will hand over, and those handed over already."""
        held = len(self.generating) + len(self.waiting_for_feedback) + len(self.waiting_for_place)
        return held * self.k + self.rows_handed


class PipelineClosed(Exception):
    """Training ended while a rollout waited for its prompt's place."""


class RolloutBudget:
    """The rollout process's hold on the budget: its ledger of trajectories (`Trajectories`), the policy version each
    trajectory's turn 0 started from, and the waits for a generation place.

    Args:
        num_generations: K, the rows of a trajectory.
        max_open_trajectories: The generation places.
        max_feedback_age: The policy versions a failed attempt may be old when its feedback turn runs.
        trainer_progress: The trainer's progress, which frees the places of the rows it takes.
    """

    def __init__(
        self,
        num_generations: int,
        max_open_trajectories: int,
        max_feedback_age: int,
        trainer_progress: TrainerProgress,
    ):
        self.trajectories = Trajectories(num_generations)
        self.max_open_trajectories = max_open_trajectories
        self.max_feedback_age = max_feedback_age
        self.trainer_progress = trainer_progress
        self.turn0_versions: dict[int, int] = {}  # of the trajectories opened and not yet scored, by group id
        self._opening: asyncio.Lock | None = None  # made on the rollout process's event loop

    async def open(self, group_id: int, stopping: asyncio.Event, model_version: int) -> int | None:
        """Wait until prompt `group_id`'s trajectory is open; open it when a place is free (`may_open_trajectory`),
        prompts in order (the lock serves its waiters first come, first served), its turn 0 from `model_version`.

        Returns:
            The generation places held with it where this call opened it, else None (another rollout of the prompt
            did). Raises `PipelineClosed` once `stopping` is set.
        """
        self._opening = self._opening or asyncio.Lock()
        trajectories = self.trajectories
        async with self._opening:
            while group_id not in trajectories:
                if stopping.is_set():
                    raise PipelineClosed
                # The trajectories whose feedback came take a place before any new prompt.
                places = trajectories.generation_places(self.trainer_progress.rows_taken)
                places += len(trajectories.waiting_for_place)
                if may_open_trajectory(
                    places, self.max_open_trajectories, trajectories.promised_rows, self.trainer_progress.rows_wanted
                ):
                    trajectories.open(group_id)
                    self.turn0_versions[group_id] = model_version
                    return places + 1
                await asyncio.sleep(0.02)
        return None

    async def take_place(self, group_id: int):
        """Wait until a generation place is free, and take it (before any new prompt: they wait for these)."""
        while self.trajectories.generation_places(self.trainer_progress.rows_taken) >= self.max_open_trajectories:
            await asyncio.sleep(0.02)
        self.trajectories.take_place(group_id)

    def expired(self, attempt_version: int, model_version: int) -> bool:
        """Whether a failed attempt of policy version `attempt_version` (which the feedback critiques) is more than
        `max_feedback_age` versions old: then its trajectory ends, without a paid feedback request or a
        regeneration."""
        return model_version - attempt_version > self.max_feedback_age
