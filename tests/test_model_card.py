"""The model card's parts: what is linked (only Hub ids), the model's name, and the feedback statistics read from
`state.log_history`. `tests/test_cli.py` reads the card a `trl-mulferl train` run writes."""

import math
from pathlib import Path

import pytest

from trl_mulferl.core.model_card import (
    card_model_name,
    feedback_statistics,
    is_hub_id,
    mulferl_model_card,
    statistics_lines,
)
from trl_mulferl.mulferl.mulferl_trainer import MulFeRLTrainer


def step_log(grpo, fco, success, reached, failed):
    """A training log of one feedback turn, as `log_rollout` and TRL's `log` write it."""
    return {
        "loss": 0.1,
        "mulferl/route/grpo": grpo,
        "mulferl/route/fco": fco,
        "mulferl/route/unresolved": 1 - grpo - fco,
        "mulferl/turn_0/success_rate": success,
        "mulferl/turn_0/failed_groups": reached,
        "mulferl/turn_1/reached_groups": reached,
        "mulferl/turn_1/failed_groups": failed,
        "mulferl/turn_1/escape_rate": (reached - failed) / reached if reached else math.nan,
        "step": 1,
    }


def test_feedback_statistics_average_the_logged_steps_and_take_the_end_of_training_totals():
    history = [
        step_log(grpo=0.25, fco=0.25, success=0.5, reached=2.0, failed=1.0),
        {"eval_loss": 0.3, "step": 1},  # an evaluation log holds no route
        step_log(grpo=0.5, fco=0.0, success=0.25, reached=3.0, failed=3.0),
        step_log(grpo=0.0, fco=0.0, success=0.0, reached=0.0, failed=0.0),
        {
            "train_runtime": 10.0,
            "mulferl/feedback/total_requests": 12.0,
            "mulferl/feedback/total_prompt_tokens": 1200.0,
            "mulferl/feedback/total_completion_tokens": 300.0,
            "mulferl/feedback/total_cost": 0.0,
            "step": 3,
        },
    ]
    statistics = feedback_statistics(history)
    assert statistics["logged_steps"] == 3
    assert statistics["trained_share"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert statistics["turn_0_success"] == pytest.approx(0.75 / 3)
    assert statistics["turns"] == {1: {"reached": pytest.approx(5 / 3), "rescued": pytest.approx(1 / 3)}}
    assert statistics["totals"] == {"requests": 12.0, "prompt_tokens": 1200.0, "completion_tokens": 300.0, "cost": 0.0}
    lines = statistics_lines(statistics, feedback=True)
    assert "feedback turn 1: 1.67 failed groups regenerated with feedback, 0.333 of them rescued" in lines[3]
    assert (
        lines[-1]
        == "feedback requests over the run: 12 (1200 prompt and 300 completion tokens reported by the provider)"
    )


def test_feedback_statistics_say_what_is_not_logged_yet():
    # Mid-run (a checkpoint's card): no end-of-training totals yet.
    lines = statistics_lines(feedback_statistics([step_log(0.5, 0.0, 0.5, 1.0, 1.0)]), feedback=True)
    assert lines[-1] == "feedback requests: not logged yet (the total is logged when training ends)"
    assert statistics_lines(feedback_statistics([]), feedback=True) == [
        "No training step was logged (yet): the statistics come from the logged metrics (`logging_steps`)."
    ]


def test_only_hub_ids_are_hub_ids(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    assert is_hub_id("Qwen/Qwen2.5-7B") and is_hub_id("gpt2")
    assert not is_hub_id("./data") and not is_hub_id("data") and not is_hub_id(str(tmp_path / "data"))
    assert not is_hub_id("/no/such/folder") and not is_hub_id("a/b/c") and not is_hub_id(None)


def test_model_name_is_the_hub_repository_or_the_output_folder(tmp_path):
    assert card_model_name(str(tmp_path / "run-1"), None) == "run-1"
    assert card_model_name(str(tmp_path / "run-1") + "/", "me/my-model") == "my-model"
    assert card_model_name(".", None) == Path.cwd().name


def render(base_model, dataset_name, model_id):
    return mulferl_model_card(
        model_name="my-model",
        base_model=base_model,
        dataset_name=dataset_name,
        model_id=model_id,
        tags=["trl", "mulferl"],
        trainer_name=MulFeRLTrainer._name,
        paper=MulFeRLTrainer._paper,
        settings=[("max_feedback_turns", "2")],
        statistics=["Statistics:", "a statistic"],
        tracker_urls={"wandb_url": None, "trackio_url": None, "comet_url": None},
        versions={f"{name}_version": "1.0" for name in ("trl", "transformers", "pytorch", "datasets", "tokenizers")},
    )


def test_card_links_hub_ids_and_names_local_paths():
    card = render("Qwen/Qwen2.5-0.5B", "trl-lib/DeepMath-103K", "me/my-model")
    assert card.data.base_model == "Qwen/Qwen2.5-0.5B" and card.data.datasets == "trl-lib/DeepMath-103K"
    assert "fine-tuned version of [Qwen/Qwen2.5-0.5B](https://huggingface.co/Qwen/Qwen2.5-0.5B) on the " in card.text
    assert "[trl-lib/DeepMath-103K](https://huggingface.co/datasets/trl-lib/DeepMath-103K) dataset" in card.text
    assert 'pipeline("text-generation", model="me/my-model"' in card.text
    assert "| `max_feedback_turns` | 2 |" in card.text and "Statistics:\n\n- a statistic\n" in card.text
    assert "@misc{li2026mulferl," in card.text and "@software{vonwerra2020trl," in card.text

    card = render("/models/base", "./data/sums", "/runs/my-model")
    assert card.data.base_model is None and card.data.datasets is None
    assert "fine-tuned version of the local model `/models/base` on the local dataset `./data/sums`." in card.text
    assert "huggingface.co/datasets" not in card.text and "huggingface.co/." not in card.text
    assert "huggingface.co//" not in card.text and 'model="/runs/my-model"' in card.text
    assert "None" not in str(card)
