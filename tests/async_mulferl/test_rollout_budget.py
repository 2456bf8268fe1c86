"""The rollout process's hold on the pipeline's budget (`trl_mulferl.async_mulferl.pipeline.RolloutBudget`)."""

import asyncio

import pytest

from trl_mulferl.async_mulferl.pipeline import PipelineClosed, RolloutBudget, TrainerProgress


def test_prompts_open_within_the_places_and_a_regeneration_takes_one_back():
    progress = TrainerProgress(gradient_accumulation_steps=1, rows_per_micro_batch=4, num_generations=2)
    progress.start(steps=3)  # 12 rows wanted: more than two open prompts promise
    budget = RolloutBudget(2, max_open_trajectories=2, max_feedback_age=3, trainer_progress=progress)

    async def run():
        stopping = asyncio.Event()
        assert await budget.open(0, stopping, model_version=5) == 1  # the places held with it
        assert await budget.open(0, stopping, model_version=6) is None  # a second rollout of the same prompt
        assert await budget.open(1, stopping, model_version=6) == 2
        third = asyncio.ensure_future(budget.open(2, stopping, model_version=7))
        await asyncio.sleep(0.1)
        assert not third.done()  # both places are held
        budget.trajectories.to_feedback(1)  # prompt 1 waits for feedback: its place is free ...
        budget.trajectories.feedback_done(1)  # ... until its feedback comes, when it waits for one ahead of prompt 2
        await asyncio.sleep(0.1)
        assert not third.done()
        await asyncio.wait_for(budget.take_place(1), timeout=1.0)
        assert budget.trajectories.generating == {0, 1}
        stopping.set()
        with pytest.raises(PipelineClosed):
            await third

    asyncio.run(run())
    assert budget.turn0_versions == {0: 5, 1: 6}


def test_a_feedback_turn_expires_past_max_feedback_age():
    budget = RolloutBudget(2, max_open_trajectories=2, max_feedback_age=3, trainer_progress=TrainerProgress())
    assert not budget.expired(attempt_version=2, model_version=5)  # 3 versions old: still within
    assert budget.expired(attempt_version=1, model_version=5)
