"""What a user meets first: GRPOTrainer's signature, and errors or warnings that name the problem and the fix."""

import inspect
import logging
import threading

import pytest
import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from tests.test_trainer import TINY_TRAINING, K, logged, make_dataset, make_trainer, marker_provider, marker_reward
from trl_mulferl import IGRPOConfig, IGRPOTrainer, MulFeRLConfig, MulFeRLTrainer, inject_feedback


@pytest.mark.parametrize("trainer_class", [MulFeRLTrainer, IGRPOTrainer])
def test_grpo_trainers_parameters_come_first_in_the_same_order(trainer_class):
    """A GRPO script passing arguments by position works unchanged; a TRL upgrade that changes them fails here."""
    ours = list(inspect.signature(trainer_class.__init__).parameters.values())
    theirs = list(inspect.signature(GRPOTrainer.__init__).parameters.values())
    assert [(p.name, p.kind, p.default) for p in ours[: len(theirs)]] == [(p.name, p.kind, p.default) for p in theirs]
    assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in ours[len(theirs) :])


def test_positional_arguments_as_in_a_grpo_script(tmp_path, tiny_tokenizer, tiny_model_dir):
    args = MulFeRLConfig(**{**TINY_TRAINING, "max_steps": 1}, output_dir=str(tmp_path))
    trainer = MulFeRLTrainer(
        tiny_model_dir, marker_reward, args, make_dataset(), None, tiny_tokenizer, feedback_provider=marker_provider
    )
    assert trainer.train_dataset.num_rows == 4 and trainer.processing_class is tiny_tokenizer


def test_reward_funcs_are_optional_as_in_grpo_trainer(tmp_path, tiny_tokenizer, tiny_model_dir):
    args = MulFeRLConfig(**TINY_TRAINING, output_dir=str(tmp_path), max_feedback_turns=0)
    with pytest.raises(ValueError, match="No reward source provided"):  # TRL's own check, not a missing argument
        MulFeRLTrainer(tiny_model_dir, args=args, train_dataset=make_dataset(), processing_class=tiny_tokenizer)


def test_dataset_without_prompt_column_fails_at_construction(tmp_path, tiny_tokenizer, tiny_model_dir):
    dataset = Dataset.from_list([{"problem": "What is 1 + 1?", "solution": "2"}])
    with pytest.raises(ValueError, match="needs a 'prompt' column.*'problem'"):
        make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, train_dataset=dataset)


def test_reward_returning_none_names_the_function(tmp_path, tiny_tokenizer, tiny_model_dir):
    def forgot_return(completions, **kwargs):
        [0.0 for _ in completions]

    trainer = make_trainer(tmp_path, tiny_tokenizer, forgot_return, model=tiny_model_dir)
    with pytest.raises(TypeError, match="The reward function 'forgot_return' returned NoneType"):
        trainer.train()


def test_async_reward_functions_stay_async(tmp_path, tiny_tokenizer, tiny_model_dir):
    async def async_marker(completions, **kwargs):
        return marker_reward(completions)

    trainer = make_trainer(tmp_path, tiny_tokenizer, async_marker, model=tiny_model_dir, max_steps=1)
    assert inspect.iscoroutinefunction(trainer.reward_funcs[0]) and trainer.reward_func_names == ["async_marker"]
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0]


@pytest.mark.parametrize(
    "provider",
    [lambda prompt: "feedback", lambda prompt, completions, rewards: "no room for the columns"],
)
def test_provider_with_a_wrong_signature_fails_at_construction(tmp_path, tiny_tokenizer, tiny_model_dir, provider):
    with pytest.raises(
        TypeError, match="cannot be called as provider\\(prompt, completions, rewards, \\*\\*columns\\)"
    ):
        make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, provider=provider)


def test_provider_returning_a_non_string_warns_once(tmp_path, tiny_tokenizer, tiny_model_dir, caplog):
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, provider=lambda *a, **k: 42)
    with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        trainer.train()
    warnings = [r.message for r in caplog.records if "<lambda> returned a text of type int" in r.message]
    assert len(warnings) == 1
    assert logged(trainer, "mulferl/feedback/errors") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/malformed_results") == [2.0, 2.0]
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]


def test_a_step_with_no_reward_at_all_warns_once_naming_the_functions(
    tmp_path, tiny_tokenizer, tiny_model_dir, caplog
):
    def covers_nothing(completions, **kwargs):
        return [None] * len(completions)

    trainer = make_trainer(tmp_path, tiny_tokenizer, covers_nothing, model=tiny_model_dir)
    with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        trainer.train()
    warnings = [r.message for r in caplog.records if "returned None for every completion" in r.message]
    assert len(warnings) == 1 and "covers_nothing" in warnings[0]
    assert logged(trainer, "mulferl/route/unscorable") == [1.0, 1.0]


def test_turn_0_success_rate_shows_a_wrong_threshold(tmp_path, tiny_tokenizer, tiny_model_dir):
    def half_credit(completions, **kwargs):
        return [0.5 * (i % 2) for i in range(len(completions))]

    trainer = make_trainer(tmp_path, tiny_tokenizer, half_credit, model=tiny_model_dir, success_threshold=1.0)
    trainer.train()
    assert logged(trainer, "mulferl/turn_0/success_rate") == [0.0, 0.0]  # 1.0 is out of reach of this reward
    # Every turn fails; the rewards vary, so decision 12 trains the last turn's group with GRPO.
    assert logged(trainer, "mulferl/feedback/requests") == [4.0, 4.0]
    assert logged(trainer, "mulferl/route/grpo") == [1.0, 1.0]


def test_sync_ref_model_is_refused_with_fco(tmp_path):
    with pytest.raises(ValueError, match="sync_ref_model=True moves the reference.*fco_weight=0"):
        MulFeRLConfig(output_dir=str(tmp_path), use_cpu=True, beta=0.04, sync_ref_model=True)
    MulFeRLConfig(output_dir=str(tmp_path), use_cpu=True, beta=0.04, sync_ref_model=True, fco_weight=0.0)


def test_a_failing_leak_guard_leaves_the_group_unresolved(tmp_path, tiny_tokenizer, tiny_model_dir, monkeypatch):
    def broken_guard(text, reference, problem=None):
        raise ValueError("signal only works in main thread of the main interpreter")

    monkeypatch.setattr("trl_mulferl.feedback.guard.redact_answer_leak", broken_guard)
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir)
    trainer.train()  # training goes on
    assert logged(trainer, "mulferl/feedback/errors") == [2.0, 2.0]
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]


def test_training_off_the_main_thread(tmp_path, tiny_tokenizer, tiny_model_dir):
    """The leak guard and the reward run math-verify; off the main thread its signal timeouts must not crash."""
    from trl_mulferl import accuracy_reward

    trainer = make_trainer(tmp_path, tiny_tokenizer, accuracy_reward, model=tiny_model_dir, max_steps=1)
    errors = []
    worker = threading.Thread(target=lambda: _train_capturing(trainer, errors))
    worker.start()
    worker.join()
    assert errors == []
    assert logged(trainer, "mulferl/feedback/requests")[0] > 0


def _train_capturing(trainer, errors):
    try:
        trainer.train()
    except Exception as error:  # re-raised in the main thread's assertion
        errors.append(error)


def test_leak_guard_reads_the_configured_reference_column(tmp_path, tiny_tokenizer, tiny_model_dir):
    seen = []
    dataset = Dataset.from_list(
        [{"prompt": trainer_prompt(i), "answer": 4242 + i} for i in range(4)]  # an int column, compared as text
    )

    def leaky_provider(prompt, completions, rewards, answer, **columns):
        seen.append(answer)
        return f"Issue: the sum is wrong. Fix steps: 1. The answer is {answer}."

    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        marker_reward,
        model=tiny_model_dir,
        provider=leaky_provider,
        train_dataset=dataset,
        feedback_reference_column="answer",
        max_steps=1,
    )
    trainer.train()
    assert seen and logged(trainer, "mulferl/feedback/leaks_redacted") == logged(trainer, "mulferl/feedback/requests")
    injected = set(trainer._logs["extra"]["feedback"])
    assert all("[redacted]" in text and "424" not in text for text in injected)


def trainer_prompt(i):
    from trl_mulferl import make_conversation

    return make_conversation(f"What is {i} + {i}?")


def test_plain_injection_into_typed_content():
    prompt = [{"role": "user", "content": [{"type": "text", "text": "What is 2 + 2?"}]}]
    injected, prefill = inject_feedback(prompt, "Count again.", "plain")
    assert prefill == "" and prompt[0]["content"] == [{"type": "text", "text": "What is 2 + 2?"}]
    assert injected[0]["content"][0] == prompt[0]["content"][0]
    assert injected[0]["content"][-1]["type"] == "text" and injected[0]["content"][-1]["text"].endswith("Count again.")


def test_igrpo_defaults_match_grpo_budget_and_the_paper(tmp_path, caplog):
    config = IGRPOConfig(output_dir=str(tmp_path), use_cpu=True)
    assert (
        config.num_drafts + config.num_generations
        == GRPOConfig(output_dir=str(tmp_path), use_cpu=True).num_generations
    )
    assert config.loss_type == "grpo"  # eq. 5, the per-sequence mean
    assert config.max_draft_length is None  # Concat(q, d) with the whole draft
    with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        IGRPOConfig(output_dir=str(tmp_path), use_cpu=True, num_drafts=8, num_generations=8, sampling_budget=8)
    assert any("exceed sampling_budget = 8" in r.message for r in caplog.records)


def test_igrpo_keeps_the_whole_draft(tmp_path, tiny_tokenizer):
    from tests.test_igrpo import hashed_reward
    from tests.tiny import build_tiny_model
    from trl_mulferl import make_conversation

    dataset = Dataset.from_list([{"prompt": make_conversation(f"What is {i} + 1?")} for i in range(4)])
    settings = {**TINY_TRAINING, "num_generations": K, "max_steps": 1, "max_completion_length": 12}
    trainer = IGRPOTrainer(
        model=build_tiny_model(tiny_tokenizer),
        reward_funcs=hashed_reward,
        args=IGRPOConfig(output_dir=str(tmp_path), num_drafts=2, **settings),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
    )
    stage2_prompts = []
    original = trainer._tokenize_prompts

    def recording(prompts):
        stage2_prompts.extend(prompts)
        return original(prompts)

    trainer._tokenize_prompts = recording
    drafts = []
    generate = trainer._generate_single_turn

    def recording_generate(prompt_ids, *args):
        result = generate(prompt_ids, *args)
        drafts.extend(tiny_tokenizer.batch_decode(result[0], skip_special_tokens=True))
        return result

    trainer._generate_single_turn = recording_generate
    trainer.train()
    stage2 = [p[-1]["content"] for p in stage2_prompts if "previous attempt" in p[-1]["content"]]
    assert stage2 and all(any(d in text for d in drafts[:4]) for text in stage2)
    assert torch.tensor([len(d) for d in drafts[:4]]).max() > 0
