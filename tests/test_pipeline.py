"""The budget of the asynchronous trainer's rollout pipeline (trl_mulferl/async_mulferl/pipeline.py): its defaults,
when a trajectory may open, the rows a run still trains, and the counts the trainer shares with the rollout process.
The budget itself against a real server is in tests/test_async_mulferl.py."""

import gc
import multiprocessing
import os
import pickle
import queue

import pytest

from trl_mulferl import AsyncMulFeRLConfig
from trl_mulferl.async_mulferl.pipeline import (
    UNBOUNDED,
    CountingQueue,
    TrainerProgress,
    default_trajectory_budget,
    feedback_requests_per_group,
    may_open_trajectory,
    rows_to_plan,
)


CPU = {"use_cpu": True, "bf16": False}


def test_the_default_budget_keeps_a_full_pipeline_within_max_staleness():
    # A full pipeline keeps a trajectory open budget / prompts-per-step steps: max_staleness - 1 of them.
    assert default_trajectory_budget(4, 32, 2) == 3 * 16
    assert default_trajectory_budget(1, 16, 8) == 1 * 2
    assert default_trajectory_budget(0, 16, 8) == 1 * 2  # max_staleness 0 still opens a step's prompts
    assert default_trajectory_budget(3, 12, 8) == 2 * 2  # a step's 12 samples start 2 prompts


def test_the_openai_providers_requests_per_group_are_its_reviews_and_merge():
    assert feedback_requests_per_group(8, 2) == 4 + 1  # the paper's K = 8 and subgroups of 2
    assert feedback_requests_per_group(3, 2) == 2 + 1
    assert feedback_requests_per_group(2, 2) == 1  # one review: no merge
    assert feedback_requests_per_group(8, 8) == 1


def test_a_trajectory_opens_only_within_the_budget_and_the_runs_need():
    k = 4
    assert may_open_trajectory(open_trajectories=2, budget=3, pipeline_rows=8, rows_to_plan=12, k=k)
    assert not may_open_trajectory(open_trajectories=3, budget=3, pipeline_rows=0, rows_to_plan=UNBOUNDED, k=k)
    assert not may_open_trajectory(open_trajectories=2, budget=3, pipeline_rows=9, rows_to_plan=12, k=k)
    assert not may_open_trajectory(open_trajectories=0, budget=3, pipeline_rows=0, rows_to_plan=0, k=k)


def test_rows_to_plan_with_a_fixed_count_is_exact():
    # 10 steps of 2 micro-batches of 4 rows; accelerate fetches a micro-batch ahead: 10 x 8 + 4 rows in all.
    def to_plan(steps, planned):
        return rows_to_plan(10, steps, planned, 0, rows_per_step=8, rows_per_micro_batch=4, k=2)

    assert to_plan(steps=0, planned=0) == 84
    assert to_plan(steps=3, planned=30) == 84 - 30
    assert to_plan(steps=9, planned=84) == 0  # the last step and the micro-batch after it are taken
    assert to_plan(steps=10, planned=84) == 0


def test_rows_to_plan_under_a_token_budget_takes_the_mean_step():
    def to_plan(steps, planned, by_steps):
        return rows_to_plan(10, steps, planned, by_steps, rows_per_step=None, rows_per_micro_batch=0, k=4)

    assert to_plan(steps=0, planned=5, by_steps=0) == UNBOUNDED
    # 4 steps took 30 rows: 7.5 a step; 6 steps left, 3 rows of the fifth taken.
    assert to_plan(steps=4, planned=33, by_steps=30) == 45 - 3
    # A step that packs more rows than the mean is not left waiting: K more.
    assert to_plan(steps=9, planned=50, by_steps=36) == 4
    assert to_plan(steps=10, planned=50, by_steps=50) == 0


def read_counts(progress: TrainerProgress, results):
    results.put((progress.rows_dequeued, progress.rows_to_plan))


def test_the_rollout_process_reads_the_trainers_progress(tmp_path):
    """A spawned process (as TRL spawns its rollout process) gets the trainer's progress through pickling (TRL's
    check pickles its arguments first) and reads what the trainer wrote; the file goes with the trainer's copy."""
    progress = TrainerProgress(max_steps=3, rows_per_step=4, rows_per_micro_batch=4, num_generations=2)
    assert (progress.rows_dequeued, progress.rows_to_plan) == (0, 16)
    rollout_queue = queue.Queue()
    for row in range(5):
        rollout_queue.put(row)
    counting = CountingQueue(rollout_queue, progress)
    assert [counting.get(timeout=1) for _ in range(5)] == list(range(5))
    assert counting.qsize() == 0  # the rest of the queue's interface is the queue's
    for _ in range(4):
        progress.planned()
    progress.on_step_end(None, None, None)
    progress.planned()  # one row of the second step; the fifth row taken was dropped as stale
    pickle.dumps(progress)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    reader = context.Process(target=read_counts, args=(progress, results))
    reader.start()
    assert results.get(timeout=120) == (5, 16 - 5)
    reader.join()
    path = progress.path
    del progress, counting
    gc.collect()
    assert not os.path.exists(path)


def test_the_config_sizes_the_budget_and_the_feedback_concurrency(tmp_path):
    # 2 x 4 samples a step over K = 2: 4 prompts a step; TRL's max_staleness = 4.
    config = AsyncMulFeRLConfig(
        str(tmp_path), **CPU, num_generations=2, per_device_train_batch_size=4, gradient_accumulation_steps=2
    )
    assert config.max_staleness == 4
    assert config.max_open_trajectories == 3 * 4
    assert config.feedback_max_concurrency == config.max_open_trajectories  # every open trajectory may wait at once
    config = AsyncMulFeRLConfig(
        str(tmp_path), **CPU, num_generations=2, max_open_trajectories=5, feedback_max_concurrency=3
    )
    assert (config.max_open_trajectories, config.feedback_max_concurrency) == (5, 3)
    with pytest.raises(ValueError, match="max_open_trajectories must be >= 1"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, max_open_trajectories=0)
    with pytest.raises(ValueError, match="feedback_max_concurrency must be >= 1"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_max_concurrency=0)
