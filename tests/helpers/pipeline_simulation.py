"""The asynchronous trainer's pipeline in simulated time, at the level of counts, for tests/async_mulferl/test_pipeline.py.

The trainer's side is the real chain: TRL's `RolloutQueueDataset` (which drops stale rows) over `CountingQueue`,
`MulFeRLQueue`, TRL's planner made `planning_the_run`'s, and `TrainerProgress`; it runs in a thread that takes one
micro-batch a tick and fetches one ahead, as accelerate does. The rollout side drives `Trajectories` and
`may_open_trajectory` as the rollout process does: a trajectory generates for `generation_ticks`, a failed one waits
`feedback_ticks` in a feedback slot, then regenerates. Only one of the two threads runs at a time, so a run is
deterministic.
"""

import math
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field

import numpy as np
from accelerate import PartialState
from trl.experimental.async_grpo.async_grpo_trainer import (
    FixedCountBatcher,
    RolloutQueueDataset,
    TokenBudgetBatcher,
)
from trl.experimental.async_grpo.async_rollout_worker import RolloutSample

from trl_mulferl.async_mulferl.async_samples import MulFeRLQueue, planning_the_run
from trl_mulferl.async_mulferl.pipeline import (
    CountingQueue,
    LookaheadMicroBatch,
    TrainerProgress,
    Trajectories,
    may_open_trajectory,
)
from trl_mulferl.core.metrics import ROUTE
from trl_mulferl.core.routing import Route


STALE = -(10**6)  # a row's policy version that TRL drops as stale
PartialState()  # TRL's queue dataset logs through accelerate's logger


@dataclass
class Layout:
    k: int
    rows_per_device: int = 4
    gradient_accumulation_steps: int = 1
    processes: int = 1
    steps: int = 6
    token_budget: int = 0  # 0: a fixed count of rows a micro-batch
    drift: float = 0.0  # under a token budget, completions grow by this fraction a step
    drops: str = "none"  # "none", "tail" (half a group's rows near the end), "every_7th"
    epochs_of: int | None = None  # an epoch stop after this many prompts
    start_step: int = 0  # resumed at this step
    budget: int | None = None  # generation places; None: the default's 3 steps of prompts
    feedback_slots: int = 64
    failed_every: int = 2  # every n-th prompt fails at turn 0
    generation_ticks: int = 2
    feedback_ticks: int = 5


@dataclass
class Result:
    finished: bool
    ticks: int
    opened: int
    trained_groups: set = field(default_factory=set)
    micro_batch_rows: list = field(default_factory=list)


class TickedQueue:
    """The rollout queue in simulated time: `get` takes a row if one is there, else hands the tick back."""

    def __init__(self, clock: "Clock"):
        self.rows, self.clock = deque(), clock

    def get(self, timeout=None):
        while not self.rows:
            self.clock.trainer_waits()
        return self.rows.popleft()

    def qsize(self) -> int:
        return len(self.rows)


class Clock:
    """Hands the turn between the simulation (a tick of the rollout side) and the trainer's thread."""

    def __init__(self):
        self._to_trainer, self._to_simulation = threading.Semaphore(0), threading.Semaphore(0)
        self.done = False

    def trainer_waits(self):
        self._to_simulation.release()
        self._to_trainer.acquire()
        if self.done:
            raise SystemExit  # the simulation gave up on this run

    def run_trainer(self):
        self._to_trainer.release()
        self._to_simulation.acquire()


def completion_length(group_id: int, index: int, version: int, drift: float) -> int:
    return round((4 + (group_id * 7 + index * 3) % 21) * (1 + drift) ** version)


def simulate(layout: Layout, max_ticks: int | None = None) -> Result:
    k = layout.k
    micro_batch = layout.rows_per_device * layout.processes
    steps_left = layout.steps - layout.start_step
    max_ticks = max_ticks or 60 * steps_left * layout.gradient_accumulation_steps + 400
    prompts_per_step = math.ceil(micro_batch * layout.gradient_accumulation_steps / k)
    budget = layout.budget or 3 * prompts_per_step
    clock = Clock()
    rollout_queue = TickedQueue(clock)
    version = [layout.start_step]
    groups_to_train = (lambda: layout.epochs_of) if layout.epochs_of is not None else None
    progress = TrainerProgress(
        layout.gradient_accumulation_steps,
        None if layout.token_budget else micro_batch,
        k,
        groups_to_train,
    )
    metrics = defaultdict(list)
    queue_dataset = RolloutQueueDataset(
        rollout_queue=CountingQueue(rollout_queue, progress),
        model_version_fn=lambda: version[0],
        check_health_fn=lambda stale_after_s: None,
        stale_after_s=1.0,
        metrics=metrics,
        max_staleness=4,
    )
    source = MulFeRLQueue(queue_dataset, metrics, k, progress)
    if layout.token_budget:
        planner = TokenBudgetBatcher(source, layout.processes, layout.token_budget, metrics)
    else:
        planner = FixedCountBatcher(source, layout.processes, micro_batch)
    planner = planning_the_run(planner, progress)
    result = Result(finished=False, ticks=0, opened=0)
    collated_groups: set[int] = set()

    def train():
        clock._to_trainer.acquire()
        try:
            progress.start(steps_left, layout.epochs_of)
            micro_batches = iter(planner)
            current, trained = next(micro_batches), 0
            while True:
                upcoming = next(micro_batches)  # accelerate fetches one ahead
                for fetched in (current, upcoming):
                    if not isinstance(fetched, LookaheadMicroBatch):
                        collated_groups.update(s["group_id"] for row in fetched for s in row.samples)
                assert not isinstance(current, LookaheadMicroBatch), "a lookahead micro-batch was trained"
                result.trained_groups.update(s["group_id"] for row in current for s in row.samples)
                result.micro_batch_rows.append(sum(len(row.samples) for row in current))
                clock.trainer_waits()  # a tick of training
                trained += 1
                if trained % layout.gradient_accumulation_steps == 0:
                    version[0] += 1
                    steps = trained // layout.gradient_accumulation_steps
                    epoch_done = layout.epochs_of is not None and len(collated_groups) >= layout.epochs_of
                    if steps >= steps_left or epoch_done:
                        result.finished = True
                        break
                current = upcoming
        except SystemExit:
            pass
        finally:
            clock._to_simulation.release()

    thread = threading.Thread(target=train, daemon=True)
    thread.start()

    trajectories = Trajectories(k)
    next_group = 0
    generating: list[tuple[int, int, int]] = []  # (ready tick, group id, turn)
    waiting: list[tuple[int, int]] = []  # (ready tick, group id) in a feedback slot
    queued_for_slot: deque[int] = deque()
    returning: deque[int] = deque()  # feedback came, waiting for a generation place
    for tick in range(max_ticks):
        result.ticks = tick
        for ready, group_id, turn in [entry for entry in generating if entry[0] <= tick]:
            generating.remove((ready, group_id, turn))
            if turn == 0 and group_id % layout.failed_every == 0:
                queued_for_slot.append(group_id)
            else:
                trajectories.close(group_id, k)
                rollout_queue.rows.extend(rows_of(layout, group_id, version[0]))
        for ready, group_id in [entry for entry in waiting if entry[0] <= tick]:
            waiting.remove((ready, group_id))
            trajectories.feedback_done(group_id)
            returning.append(group_id)
        while returning and trajectories.generation_places(progress.rows_taken) < budget:
            group_id = returning.popleft()
            trajectories.take_place(group_id)
            generating.append((tick + layout.generation_ticks, group_id, 1))
        while queued_for_slot and len(trajectories.waiting_for_feedback) < layout.feedback_slots:
            group_id = queued_for_slot.popleft()
            trajectories.to_feedback(group_id)
            waiting.append((tick + layout.feedback_ticks, group_id))
        while may_open_trajectory(
            trajectories.generation_places(progress.rows_taken) + len(trajectories.waiting_for_place),
            budget,
            trajectories.promised_rows,
            progress.rows_wanted,
        ):
            trajectories.open(next_group)
            generating.append((tick + layout.generation_ticks, next_group, 0))
            next_group += 1
        clock.run_trainer()
        if result.finished or not thread.is_alive():
            break
    clock.done = True
    if thread.is_alive():  # waiting for rows that never came
        clock.run_trainer()
    thread.join(timeout=5)
    result.opened = next_group
    return result


def rows_of(layout: Layout, group_id: int, version: int) -> list[RolloutSample]:
    """A trajectory's K rows, some of them stale by `layout.drops`."""
    rows = []
    for index in range(layout.k):
        length = completion_length(group_id, index, version, layout.drift)
        ids = np.concatenate([np.full(8, group_id % 1000, dtype=np.int64), 1000 + np.arange(length) + 31 * index])
        stale = (layout.drops == "every_7th" and (group_id * layout.k + index) % 7 == 3) or (
            layout.drops == "tail" and group_id == tail_group(layout) and index < layout.k // 2
        )
        rows.append(
            RolloutSample(
                prompt=[],
                completion=[],
                input_ids=ids,
                completion_mask=np.concatenate([np.zeros(8, dtype=np.int64), np.ones(length, dtype=np.int64)]),
                old_log_probs=np.zeros(len(ids), dtype=np.float32),
                advantage=1.0,
                model_version=STALE if stale else version,
                group_id=group_id,
                metrics={"reward": 1.0, ROUTE: Route.GRPO.value},
            )
        )
    return rows


def tail_group(layout: Layout) -> int:
    """A prompt opened near the end of the run, half of whose rows come back stale."""
    rows = (layout.steps - layout.start_step) * layout.gradient_accumulation_steps * layout.rows_per_device
    return max(math.ceil(rows * layout.processes / layout.k) - 2, 0)
