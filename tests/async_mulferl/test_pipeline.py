"""The budget of the asynchronous trainer's rollout pipeline (trl_mulferl/async_mulferl/pipeline.py): its defaults,
when a trajectory may open, the rows a run still trains, and the counts the trainer shares with the rollout process.
The budget itself against a real server is in tests/async_mulferl/test_async_mulferl_trainer.py."""

import gc
import math
import multiprocessing
import os
import pickle
import queue

import pytest

from tests.helpers.pipeline_simulation import Layout, simulate
from tests.helpers.trainer import CPU
from trl_mulferl import AsyncMulFeRLConfig
from trl_mulferl.async_mulferl.pipeline import (
    DEFAULT_FEEDBACK_REQUESTS,
    UNBOUNDED,
    CountingQueue,
    TrainerProgress,
    default_feedback_slots,
    default_trajectory_budget,
    feedback_requests_per_group,
    may_open_trajectory,
    micro_batches_to_plan,
    rows_to_plan,
)


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


def test_the_default_feedback_slots_fill_max_feedback_age_beyond_the_places_within_the_request_bound():
    # max_feedback_age 12, max_staleness 4: places hold 3 steps of prompts, slots 12 - 3 - 1 = 8.
    assert default_feedback_slots(12, 4, 16, 1) == 8 * 16  # the latency sweep's layout: 128 slots
    assert default_feedback_slots(10, 4, 16, 1) == 6 * 16
    assert default_feedback_slots(12, 4, 512, 5) == DEFAULT_FEEDBACK_REQUESTS // 5  # the paper's scale: 51 groups
    assert default_feedback_slots(0, 4, 4, 1) == 4  # max_feedback_age 0 still asks for a step's prompts
    assert default_feedback_slots(12, 4, 1, 1000) == 1


def test_a_trajectory_opens_only_within_the_budget_and_the_runs_need():
    assert may_open_trajectory(generation_places=2, budget=3, promised_rows=8, wanted_rows=12)
    assert may_open_trajectory(generation_places=2, budget=3, promised_rows=11, wanted_rows=12)  # 1 row short: open
    assert not may_open_trajectory(generation_places=3, budget=3, promised_rows=0, wanted_rows=UNBOUNDED)
    assert not may_open_trajectory(generation_places=2, budget=3, promised_rows=12, wanted_rows=12)
    assert not may_open_trajectory(generation_places=0, budget=3, promised_rows=0, wanted_rows=0)  # not begun


def test_rows_to_plan_with_a_fixed_count_is_exact():
    # 2 micro-batches of 4 rows a step, 10 steps: 80 rows, none for the micro-batch fetched ahead of the last step.
    assert rows_to_plan(20, 0, 4, fixed_count=True, k=2) == 80
    assert rows_to_plan(13, 2, 4, fixed_count=True, k=2) == 13 * 4 - 2
    assert rows_to_plan(0, 0, 4, fixed_count=True, k=2) == 0


def test_rows_to_plan_under_a_token_budget_estimates_from_the_last_step():
    # 5 micro-batches left of about 7.5 rows, 3 rows of the current one taken; one row more closes the last one.
    assert rows_to_plan(5, 3, 7.5, fixed_count=False, k=4) == 38 - 3 + 1
    # Before the first micro-batch: what it holds and a prompt's rows more, for each micro-batch.
    assert rows_to_plan(3, 5, None, fixed_count=False, k=4) == 3 * 9 - 5 + 1
    # The estimate spent while a micro-batch remains: half a micro-batch more, not one trajectory at a time.
    assert rows_to_plan(1, 12, 8.0, fixed_count=False, k=4) == 4
    assert rows_to_plan(0, 12, 8.0, fixed_count=False, k=4) == 0


def test_an_epoch_stop_plans_the_micro_batches_of_the_prompts_left_to_the_end_of_their_step():
    # 10 prompts of K=4 left, 8 rows a micro-batch, 2 a step: 5 micro-batches, to the end of the third step.
    assert micro_batches_to_plan(100, 2, 0, 10, 0, 8, 4) == 6
    assert micro_batches_to_plan(4, 2, 0, 10, 0, 8, 4) == 4  # the steps left bound it
    assert micro_batches_to_plan(100, 2, 3, 0, 4, 8, 4) == 1  # every prompt planned: the step ends
    assert micro_batches_to_plan(100, 2, 4, 0, 0, 8, 4) == 0  # at a step's end: the run is planned
    assert micro_batches_to_plan(100, 2, 4, None, 0, 8, 4) == 100  # no epoch stop


# ---------------------------------------------------------------------------------------------------------------------
# The whole pipeline in simulated time (tests/helpers/pipeline_simulation.py): TRL's queue dataset and planners, MulFeRL's
# queue, the trainer's progress and the rollout side's ledger.

LAYOUTS = [
    Layout(k, rows, accumulation, processes, steps=8, drops=drops, token_budget=budget and 24 * rows + 8, drift=drift)
    for k in (2, 6, 8)
    for rows in (3, 4)
    for accumulation in (1, 3)
    for processes in (1, 8)
    for drops in ("none", "tail", "every_7th")
    for budget, drift in ((False, 0.0), (True, 0.0), (True, 0.01))
]


def layout_id(layout: Layout) -> str:
    batching = f"budget{layout.drift:+.0%}" if layout.token_budget else "fixed"
    return (
        f"K{layout.k}-rows{layout.rows_per_device}-ga{layout.gradient_accumulation_steps}-"
        f"procs{layout.processes}-{layout.drops}-{batching}"
    )


def check_run_ends_having_paid_for_little_it_does_not_train(layout: Layout):
    result = simulate(layout)
    assert result.finished, f"the run hangs after {len(result.micro_batch_rows)} micro-batches"
    micro_batches = (layout.steps - layout.start_step) * layout.gradient_accumulation_steps
    if layout.epochs_of is None:
        assert len(result.micro_batch_rows) == micro_batches
    # The end goes in a few round trips of the rollout side (a turn 0, a feedback, a regeneration), not one
    # trajectory at a time.
    assert result.ticks <= len(result.micro_batch_rows) + 3 * (2 * layout.generation_ticks + layout.feedback_ticks)
    rows_per_step = sum(result.micro_batch_rows) / len(result.micro_batch_rows) * layout.gradient_accumulation_steps
    untrained = result.opened - len(result.trained_groups)
    # Within one step's prompts; under a token budget, one prompt more for the row that closes the last micro-batch.
    assert untrained <= math.ceil(rows_per_step / layout.k) + bool(layout.token_budget), untrained


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_every_run_ends_whatever_its_layout_drops_and_budget(layout):
    check_run_ends_having_paid_for_little_it_does_not_train(layout)


@pytest.mark.parametrize(
    "layout",
    [
        Layout(4, 4, steps=20, epochs_of=10),
        Layout(6, 4, 3, 8, steps=50, epochs_of=45, drops="every_7th"),
        Layout(8, 4, 2, 1, steps=50, epochs_of=9, token_budget=104),
        Layout(8, 4, 1, 8, steps=12, start_step=7),
        Layout(6, 3, 3, 1, steps=12, start_step=5, token_budget=80, drift=0.01),
    ],
    ids=["epoch", "epoch-drops-ga3-procs8", "epoch-budget", "resumed", "resumed-budget"],
)
def test_an_epoch_stop_and_a_resumed_run_end_having_paid_for_little_they_do_not_train(layout):
    check_run_ends_having_paid_for_little_it_does_not_train(layout)


def test_the_simulation_catches_a_hang(monkeypatch):
    """The rule K1 shipped (open only while a whole trajectory's K rows fit in what the run still takes) hangs a run
    whose rows a step are not a multiple of K: the simulation must say so."""
    from tests.helpers import pipeline_simulation

    monkeypatch.setattr(
        pipeline_simulation,
        "may_open_trajectory",
        lambda places, budget, promised, wanted: places < budget and promised + 2 <= wanted,
    )
    assert not simulate(Layout(2, rows_per_device=3, steps=3), max_ticks=200).finished  # 9 rows: 4 prompts open


def read_counts(progress: TrainerProgress, results):
    results.put((progress.rows_taken, progress.rows_wanted))


def test_the_rollout_process_reads_the_trainers_progress(tmp_path):
    """A spawned process (as TRL spawns its rollout process) gets the trainer's progress through pickling (TRL's
    check pickles its arguments first) and reads what the trainer wrote: the rows taken, and the rows wanted in all,
    which count a row dropped as stale as one more to hand over. The file goes with the trainer's copy."""
    progress = TrainerProgress(gradient_accumulation_steps=1, rows_per_micro_batch=4, num_generations=2)
    assert (progress.rows_taken, progress.rows_wanted) == (0, 0)  # nothing opens before training begins
    progress.start(steps=3)
    assert progress.rows_wanted == 12
    rollout_queue = queue.Queue()
    for row in range(5):
        rollout_queue.put(row)
    counting = CountingQueue(rollout_queue, progress)
    for group_id in (0, 0, 1):  # three rows planned
        counting.get(timeout=1)
        progress.planned(group_id)
    counting.get(timeout=1)  # dropped as stale: TRL's queue dataset takes the next at once
    counting.get(timeout=1)
    progress.planned(1)
    assert counting.qsize() == 0  # the rest of the queue's interface is the queue's
    assert (progress.rows_taken, progress.rows_wanted) == (5, 13)
    progress.micro_batch_planned(4)
    assert progress.rows_wanted == 13
    pickle.dumps(progress)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    reader = context.Process(target=read_counts, args=(progress, results))
    reader.start()
    assert results.get(timeout=120) == (5, 13)
    reader.join()
    path = progress.path
    del progress, counting
    gc.collect()
    assert not os.path.exists(path)


def test_the_config_sizes_the_budget_the_feedback_slots_and_the_queue(tmp_path):
    # 2 x 4 samples a step over K = 2: 4 prompts a step; TRL's max_staleness = 4.
    config = AsyncMulFeRLConfig(
        str(tmp_path), **CPU, num_generations=2, per_device_train_batch_size=4, gradient_accumulation_steps=2
    )
    assert config.max_staleness == 4
    assert config.max_open_trajectories == 3 * 4
    assert config.max_feedback_age == 12
    assert config.feedback_max_concurrency == 8 * 4  # the prompts of 12 - 3 - 1 steps
    assert config.queue_maxsize == 1024  # TRL's, above what the places and slots hand over, (12 + 32) x 2
    config = AsyncMulFeRLConfig(
        str(tmp_path), **CPU, num_generations=2, max_open_trajectories=5, feedback_max_concurrency=3
    )
    assert (config.max_open_trajectories, config.feedback_max_concurrency) == (5, 3)
    with pytest.raises(ValueError, match="max_open_trajectories must be >= 1"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, max_open_trajectories=0)
    with pytest.raises(ValueError, match="feedback_max_concurrency must be >= 1"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_max_concurrency=0)
    with pytest.raises(ValueError, match="max_feedback_age must be >= 0"):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, max_feedback_age=-1)


def paper_scale_config(tmp_path) -> AsyncMulFeRLConfig:
    """The paper's scale: 512 prompts a step of K = 8 (8 processes x 64 rows x 8 accumulation steps), TRL's
    max_staleness (3 steps of generation places), the OpenAI provider reviewing subgroups of 2."""
    return AsyncMulFeRLConfig(
        str(tmp_path),
        **CPU,
        num_generations=8,
        per_device_train_batch_size=64,
        gradient_accumulation_steps=8,
        feedback_provider="openai",
        feedback_model="gpt-4o",
    )


def test_the_defaults_at_the_papers_scale_keep_the_provider_and_the_queue_within_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(AsyncMulFeRLConfig, "world_size", property(lambda self: 8))
    config = paper_scale_config(tmp_path)
    prompts_per_step = 8 * 64 * 8 // 8
    assert prompts_per_step == 512
    assert config.max_open_trajectories == 3 * 512
    # The provider: feedback slots x 5 requests a group (4 reviews and the merge) stay within 256 in flight, which at
    # 30 s a request is about 500 a minute; the first window's failures wait for slots, holding their places.
    requests_in_flight = config.feedback_max_concurrency * feedback_requests_per_group(8, config.feedback_group_size)
    assert requests_in_flight <= DEFAULT_FEEDBACK_REQUESTS == 256
    # By Little's law 51 slots of 30 s serve 1.7 failed groups a second: half of 512 prompts failing, a step of
    # 150 s or more hides the feedback entirely.
    assert config.feedback_max_concurrency == 51
    # The queue holds every row the places may hand over, so no score loop waits on it while the trainer takes rows.
    assert config.queue_maxsize >= (config.max_open_trajectories + config.feedback_max_concurrency) * 8


def test_regenerations_never_wait_for_a_connection(tmp_path, monkeypatch):
    """Regenerations go on a session of their own, without a connection limit: at the paper's scale every place and
    slot may regenerate at once (1,587 requests), and a server on 127.0.0.1 that holds each request until all of
    them have arrived sees them all at once (TRL's session holds max_inflight_tasks connections, which turn-0
    rollouts may take)."""
    import asyncio

    from aiohttp import web

    from trl_mulferl.async_mulferl.async_rollout_worker import regeneration_session

    monkeypatch.setattr(AsyncMulFeRLConfig, "world_size", property(lambda self: 8))
    config = paper_scale_config(tmp_path)
    requests = config.max_open_trajectories + config.feedback_max_concurrency

    async def run() -> int:
        arrived, everyone = 0, asyncio.Event()

        async def hold(request):
            nonlocal arrived
            arrived += 1
            if arrived == requests:
                everyone.set()
            await asyncio.wait_for(everyone.wait(), timeout=60)
            return web.json_response({})

        app = web.Application()
        app.router.add_post("/v1/completions", hold)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        try:
            async with regeneration_session() as session:

                async def post():
                    async with session.post(f"http://127.0.0.1:{port}/v1/completions", json={}) as response:
                        response.raise_for_status()

                await asyncio.gather(*(post() for _ in range(requests)))
        finally:
            await runner.cleanup()
        return arrived

    assert asyncio.run(run()) == requests == 1587
