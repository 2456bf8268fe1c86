"""The end-of-training summary (what feedback bought and cost, from the run's counts) and the model card's parts: what
is linked (only Hub ids), the model's name, the settings and the summary's statistics; a short run's summary, logs
and card against its script. `tests/test_cli.py` reads the card a `trl-mulferl train` run writes."""

import math
import re
from pathlib import Path

import pytest
from datasets import Dataset

from tests.helpers.trainer import MARKER, K, completion_texts, logged, make_trainer
from trl_mulferl import make_conversation
from trl_mulferl.core.metrics import summary_metrics
from trl_mulferl.core.model_card import MULFERL, card_model_name, is_hub_id, mulferl_model_card
from trl_mulferl.core.summary import run_summary, summary_lines
from trl_mulferl.core.totals import FeedbackTotals
from trl_mulferl.mulferl.mulferl_trainer import MulFeRLTrainer


# A run's counts, as `FeedbackTotals` keeps them: 80 prompts, 36 of them failed at turn 0 (4 dropped by a cap before
# turn 1), 12 of the 32 regenerated at turn 1 solved, 4 of the 18 at turn 2 escaped (mixed: GRPO).
RUN_COUNTS = {
    "route/grpo": 30,
    "route/fco": 12,
    "route/solved_skip": 20,
    "route/unresolved": 14,
    "route/unscorable": 4,
    "turn_0/reached": 80,
    "turn_0/failed": 36,
    "turn_1/reached": 32,
    "turn_1/failed": 20,
    "turn_2/reached": 18,
    "turn_2/failed": 14,
    "turn_0/successes": 150,
    "turn_0/scored_rows": 600,
    "turn_0/varied": 24,
    "fco/pairs": 96,
    "feedback/requests": 50,
    "feedback/prompt_tokens": 40_000,
    "feedback/completion_tokens": 6_000,
    "feedback/latency_sum": 75.5,
    "regenerated_tokens": 12_345,
    "feedback/errors": 3,  # not a count the summary reads
}


def test_run_summary_from_the_run_counts():
    totals = FeedbackTotals(input_price=2.5, output_price=10.0)
    totals.add(RUN_COUNTS)
    assert "feedback/errors" not in totals.totals
    assert totals.cost == pytest.approx((40_000 * 2.5 + 6_000 * 10.0) / 1e6)  # 0.16
    summary = run_summary(totals.totals, fco_trains=True, cost=totals.cost)
    assert summary.groups == 30 + 12 + 20 + 14 + 4 == 80
    assert summary.turn_0_success_rate == 150 / 600
    assert summary.turn_0_failed == 36
    assert summary.rescued == {1: (32, 12), 2: (18, 4)}
    assert (summary.gradient_groups, summary.grpo_gradient_groups) == (42, 24)
    assert (summary.gradient_share, summary.grpo_gradient_share) == (42 / 80, 24 / 80)
    assert (summary.fco_groups, summary.fco_pairs, summary.requests) == (12, 96, 50)
    # With fco_weight = 0 and no replay the FCO route trains nothing.
    assert run_summary(totals.totals, fco_trains=False, cost=None).gradient_groups == 30

    assert summary_metrics(summary) == {
        "mulferl/feedback/total_requests": 50,
        "mulferl/feedback/total_prompt_tokens": 40_000,
        "mulferl/feedback/total_completion_tokens": 6_000,
        "mulferl/feedback/total_latency_s": 75.5,
        "mulferl/total_regenerated_tokens": 12_345,
        "mulferl/turn_0/total_failed_groups": 36,
        "mulferl/fco/total_pairs": 96,
        "mulferl/turn_1/total_rescued_groups": 12,
        "mulferl/turn_2/total_rescued_groups": 4,
        "mulferl/total_gradient_share": 42 / 80,
        "mulferl/total_grpo_gradient_share": 24 / 80,
        "mulferl/feedback/total_cost": pytest.approx(0.16),
    }
    assert summary_lines(summary, feedback=True) == [
        "Over the 80 prompts of the run (each a group of K rollouts):",
        "turn-0 success rate: 0.25",
        "groups that failed on the first turn (all K rollouts): 36",
        "feedback turn 1: rescued 12 of the 32 failed groups it regenerated (38%)",
        "feedback turn 2: rescued 4 of the 18 failed groups it regenerated (22%)",
        "prompts with a gradient: 52.5% (42) with MulFeRL, against 30.0% (24) that GRPO alone would have had (turn-0 "
        "rewards that vary)",
        "FCO: 12 prompts turned from all-failed to all-solved, 96 pairs",
        "feedback cost: 50 requests, 40000 prompt and 6000 completion tokens, 75.5 s of request latency (summed), "
        "12345 policy tokens regenerated",
        "cost: 0.16 at the configured prices",
    ]


def test_unpriced_or_empty_run_summary_says_so_and_logs_no_none():
    unpriced = FeedbackTotals()
    unpriced.add(RUN_COUNTS)
    assert unpriced.cost is None
    summary = run_summary(unpriced.totals, fco_trains=True, cost=unpriced.cost)
    assert "mulferl/feedback/total_cost" not in summary_metrics(summary)
    assert summary_lines(summary, feedback=True)[-1] == (
        "cost: not priced (set feedback_input_token_price and feedback_output_token_price, per 1M tokens)"
    )
    empty = run_summary({}, fco_trains=True, cost=None)
    assert summary_lines(empty, feedback=True) == ["No generation batch was trained yet."]
    metrics = summary_metrics(empty)
    assert "mulferl/total_gradient_share" not in metrics
    assert all(value is not None and not math.isnan(value) for value in metrics.values())


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
        method=MULFERL,
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


def scripted_reward(completions, kind, **kwargs):
    """Per prompt kind: `mixed` (one of its K rollouts succeeds: GRPO), `solved` (all do), `rescued` (none does until
    the feedback's marker is in the completion: FCO at turn 1), `never` (none does, through turn 2: unresolved)."""
    rewards = []
    for i, (text, kind_) in enumerate(zip(completion_texts(completions), kind, strict=True)):
        scripted = {"mixed": float(i % K == 0), "solved": 1.0, "rescued": float(MARKER in text), "never": 0.0}
        rewards.append(scripted[kind_])
    return rewards


def test_a_run_prints_logs_and_cards_what_feedback_bought(tmp_path, tiny_tokenizer, tiny_model_dir, capsys):
    kinds = ["mixed", "solved", "rescued", "never"]
    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"What is {i} + {i}?"), "kind": kind} for i, kind in enumerate(kinds)]
    )
    # 2 steps of the 4 prompts x K = 2 rows; max_feedback_turns = 2, fco_weight = 0.01.
    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        scripted_reward,
        model=tiny_model_dir,
        train_dataset=dataset,
        per_device_train_batch_size=8,
    )
    trainer.train()
    history = trainer.state.log_history
    assert [key for entry in history for key, value in entry.items() if value is None] == []
    # Per step: 4 groups; 2 failed at turn 0 (rescued, never), both regenerated at turn 1 where `rescued` is solved,
    # `never` regenerated again at turn 2 and still failing; `mixed` is the one group GRPO alone trains, MulFeRL adds
    # `rescued` (FCO, K = 2 pairs under the permutation); one feedback request per failed group and turn.
    pairs = int(sum(logged(trainer, "mulferl/fco/pairs")))
    assert pairs == 2 * K
    summary = history[-1]
    assert "train_runtime" in summary
    assert {
        key: summary[key]
        for key in summary
        if key.startswith("mulferl/") and key != "mulferl/feedback/total_latency_s"
    } == {
        "mulferl/feedback/total_requests": 2 * 3,
        "mulferl/feedback/total_prompt_tokens": 0,
        "mulferl/feedback/total_completion_tokens": 0,
        "mulferl/total_regenerated_tokens": summary["mulferl/total_regenerated_tokens"],
        "mulferl/turn_0/total_failed_groups": 2 * 2,
        "mulferl/turn_1/total_rescued_groups": 2 * 1,
        "mulferl/turn_2/total_rescued_groups": 0,
        "mulferl/fco/total_pairs": pairs,
        "mulferl/total_gradient_share": 2 / 4,
        "mulferl/total_grpo_gradient_share": 1 / 4,
    }
    assert summary["mulferl/total_regenerated_tokens"] > 0 and "mulferl/feedback/total_cost" not in summary
    lines = [
        "MulFeRL summary. Over the 8 prompts of the run (each a group of K rollouts):",
        "turn-0 success rate: 0.375",  # 1 of 2 rows of `mixed`, 2 of 2 of `solved`, of 8
        "groups that failed on the first turn (all K rollouts): 4",
        "feedback turn 1: rescued 2 of the 4 failed groups it regenerated (50%)",
        "feedback turn 2: rescued 0 of the 2 failed groups it regenerated (0%)",
        "prompts with a gradient: 50.0% (4) with MulFeRL, against 25.0% (2) that GRPO alone would have had",
        f"FCO: 2 prompts turned from all-failed to all-solved, {pairs} pairs",
        "feedback cost: 6 requests, ",  # the provider reports no tokens
        "cost: not priced",
    ]
    printed = capsys.readouterr().out
    for line in lines:
        assert line in printed, (line, printed)

    trainer.create_model_card(dataset_name="./data/sums")
    card = (tmp_path / "README.md").read_text()
    assert "None" not in card
    for line in lines[1:]:
        assert f"- {line}" in card, (line, card)
    assert "\nOver the 8 prompts of the run (each a group of K rollouts):\n" in card
    for row in ("| `max_feedback_turns` | 2 |", "| `fco_weight` | 0.01 |", "| `num_generations` | 2 |"):
        assert row in card
    assert "`tests.helpers.trainer:marker_provider`" in card
    # Links: to the web only (no local path, no Hub page of a local model or dataset); both named as local.
    links = re.findall(r"\]\(([^)]*)\)", card)
    assert links and all(link.startswith("https://") for link in links), links
    assert not [link for link in links if "huggingface.co" in link], links
    assert f"of the local model `{tiny_model_dir}` on the local dataset `./data/sums`." in card


def test_igrpo_card_names_the_local_model_and_gives_the_igrpo_settings(tmp_path, tiny_tokenizer, tiny_model_dir):
    """TRL's card, which IGRPOTrainer wrote before, reads "Model Card for None" and links huggingface.co/None."""
    from tests.helpers.igrpo import make_igrpo_trainer

    trainer = make_igrpo_trainer(tmp_path / "run-7", tiny_tokenizer, tiny_model_dir)
    trainer.create_model_card(dataset_name="./data/sums")
    card = (tmp_path / "run-7" / "README.md").read_text()
    assert "# Model Card for run-7\n" in card
    assert f"fine-tuned version of the local model `{tiny_model_dir}` on the local dataset `./data/sums`." in card
    assert "None" not in card and "huggingface.co/datasets" not in card
    assert "It has been trained with iGRPO using" in card and "the method of *iGRPO: Self-Feedback-Driven LLM" in card
    assert f'pipeline("text-generation", model="{tmp_path / "run-7"}"' in card
    assert 'generator([{"role": "user", "content": "What is 17 + 25?"}], max_new_tokens' in card
    assert "| `num_drafts` | 3 |\n| `num_generations` | 2 |\n| `max_draft_length` | 6 |" in card
    assert "Feedback statistics" not in card and "make_conversation" not in card
    assert "title        = {{iGRPO: Self-Feedback-Driven LLM Reasoning}}" in card and "\n- igrpo\n" in card
