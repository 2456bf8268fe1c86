"""What a user meets first: GRPOTrainer's signature, and errors or warnings that name the problem and the fix."""

import inspect
import logging
import threading
from types import SimpleNamespace

import pytest
import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from tests.helpers.trainer import TINY_TRAINING, K, logged, make_dataset, make_trainer, marker_provider, marker_reward
from trl_mulferl import (
    SYSTEM_PROMPT,
    IGRPOConfig,
    IGRPOTrainer,
    MulFeRLConfig,
    MulFeRLTrainer,
    inject_feedback,
    make_conversation,
)


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
    def broken_guard(text, reference, problem=None, strict=False):
        raise ValueError("signal only works in main thread of the main interpreter")

    monkeypatch.setattr("trl_mulferl.feedback.prepare.redact_answer_leak", broken_guard)
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
    from tests.helpers.igrpo import hashed_reward
    from tests.helpers.tiny import build_tiny_model
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


class RecordedWarnings(logging.Handler):
    """Appends each warning of `trl_mulferl` to `events`, in the order it comes among the other events there."""

    def __init__(self, events: list):
        super().__init__(logging.WARNING)
        self.events = events

    def emit(self, record):
        self.events.append(("warning", record.getMessage()))


def train_recording_events(tmp_path, tiny_tokenizer, model_dir, dataset, **overrides):
    """Build and train a trainer on `accuracy_reward`; return the trainer and its warnings and feedback requests,
    in order."""
    from trl_mulferl import accuracy_reward

    events = []

    def recording_provider(prompt, completions, rewards, **columns):
        events.append(("feedback request", prompt))
        return "Issue: the sum is wrong. Fix steps: 1. Add again."

    handler, package_logger = RecordedWarnings(events), logging.getLogger("trl_mulferl")
    package_logger.addHandler(handler)
    try:
        trainer = make_trainer(
            tmp_path,
            tiny_tokenizer,
            accuracy_reward,
            model=model_dir,
            provider=recording_provider,
            train_dataset=dataset,
            **overrides,
        )
        trainer.train()
    finally:
        package_logger.removeHandler(handler)
    return trainer, events


def schema_warnings(events):
    start_up = [
        i for i, (kind, text) in enumerate(events) if kind == "warning" and "ask for the answer schema" in text
    ]
    run_time = [i for i, (kind, text) in enumerate(events) if kind == "warning" and "break the answer schema" in text]
    return start_up, run_time


def test_prompts_that_never_ask_for_the_schema_are_told_before_any_feedback_request(
    tmp_path, tiny_tokenizer, tiny_model_dir
):
    """Prompts of one's own, with the schema-gated `accuracy_reward`: every turn-0 row breaks the schema (the tiny
    model never writes it), so every group fails and goes to the feedback provider. The start-up line comes before the
    first request, and the run-time warning once, when the first window shows it."""
    dataset = Dataset.from_list(
        [
            {"prompt": make_conversation(f"What is {i} + {i}?", system_prompt=None), "solution": str(2 * i)}
            for i in range(4)
        ]
    )
    trainer, events = train_recording_events(tmp_path, tiny_tokenizer, tiny_model_dir, dataset)
    start_up, run_time = schema_warnings(events)
    requests = [i for i, (kind, _) in enumerate(events) if kind == "feedback request"]
    assert len(start_up) == 1 and len(run_time) == 1 and requests
    assert start_up[0] < requests[0] < run_time[0]
    line = events[start_up[0]][1]
    assert line.startswith("Only 0 of 4 sampled training prompts ask for the answer schema")
    assert "which accuracy_reward requires" in line and "goes to the feedback provider" in line
    assert "make_conversation" in line and "trl.rewards.accuracy_reward" in line
    assert events[run_time[0]][1].startswith("4 of the 4 rows of the groups that failed at turn 0")
    # 2 prompts x K = 2 rows a step, every group failed at turn 0, every row outside the schema.
    assert logged(trainer, "mulferl/turn_0/failed_groups") == [2.0, 2.0]
    assert logged(trainer, "mulferl/schema_noncompliant") == [4.0, 4.0]


COMPLIANT_WRONG = "<thinking><feedback></feedback>2 + 2 = 5.</thinking> The final answer is \\boxed{5}"


def test_schema_prompts_and_compliant_failures_warn_nothing(tmp_path, tiny_tokenizer, tiny_model_dir, monkeypatch):
    """Prompts that ask for the schema, and a policy that writes it with a wrong answer: the groups fail on the
    answer, not the format, so neither warning; the count is 0."""
    answer_ids = tiny_tokenizer(COMPLIANT_WRONG, add_special_tokens=False)["input_ids"] + [tiny_tokenizer.eos_token_id]
    monkeypatch.setattr(
        MulFeRLTrainer, "_generate_single_turn", lambda self, prompt_ids, *args: ([answer_ids] * len(prompt_ids), None)
    )
    trainer, events = train_recording_events(
        tmp_path, tiny_tokenizer, tiny_model_dir, make_dataset(), max_completion_length=len(answer_ids)
    )
    assert schema_warnings(events) == ([], [])
    assert any(kind == "feedback request" for kind, _ in events)
    assert logged(trainer, "mulferl/turn_0/failed_groups") == [2.0, 2.0]
    assert logged(trainer, "mulferl/schema_noncompliant") == [0.0, 0.0]


def schema_check_args(max_feedback_turns=2):
    return SimpleNamespace(max_feedback_turns=max_feedback_turns)


def startup_schema_lines(caplog, reward_funcs, dataset, args):
    from trl_mulferl.core.validation import check_prompts_ask_for_schema

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        names = check_prompts_ask_for_schema(reward_funcs, dataset, args)
    return names, [r.getMessage() for r in caplog.records if "ask for the answer schema" in r.getMessage()]


def prompts_dataset(asks: list[bool]) -> Dataset:
    return Dataset.from_list(
        [
            {"prompt": make_conversation(f"What is {i} + {i}?", None if not ask else SYSTEM_PROMPT), "solution": "0"}
            for i, ask in enumerate(asks)
        ]
    )


def test_the_start_up_check_samples_prompts_spread_over_the_dataset(caplog):
    """40 prompts: every odd one asks for the schema. The sample is every second prompt from the first (16 of
    them), none of which asks, so one line says so; shifted by one, every sampled prompt asks: no line."""
    from trl import rewards as trl_rewards

    from trl_mulferl import accuracy_reward

    odd_ask = prompts_dataset([i % 2 == 1 for i in range(40)])
    names, lines = startup_schema_lines(
        caplog, [trl_rewards.accuracy_reward, accuracy_reward], odd_ask, schema_check_args()
    )
    assert names == ["accuracy_reward"]  # ours, by its `requires_schema`; TRL's has the same name and no attribute
    assert len(lines) == 1 and lines[0].startswith("Only 0 of 16 sampled training prompts ask for the answer schema")
    even_ask = prompts_dataset([i % 2 == 0 for i in range(40)])
    assert startup_schema_lines(caplog, accuracy_reward, even_ask, schema_check_args())[1] == []


def test_the_start_up_line_names_the_reward_and_the_fix(caplog):
    from trl_mulferl import accuracy_reward

    def own_reward(completions, **kwargs):
        return [0.0] * len(completions)

    none_ask = prompts_dataset([False] * 4)
    names, (line,) = startup_schema_lines(caplog, [own_reward, accuracy_reward], none_ask, schema_check_args(0))
    assert names == ["accuracy_reward"]
    assert "which accuracy_reward requires: an answer without it scores 0, so its group fails, unless" in line
    assert line.endswith("or use a reward that does not require it (trl.rewards.accuracy_reward).")
    _, (line,) = startup_schema_lines(caplog, accuracy_reward, none_ask, schema_check_args(2))
    assert "so its group fails and goes to the feedback provider, unless the policy writes the schema unasked" in line
    # No reward requires the schema, or nothing to sample: no line.
    assert startup_schema_lines(caplog, [own_reward], none_ask, schema_check_args()) == ([], [])
    assert startup_schema_lines(caplog, accuracy_reward, none_ask.to_iterable_dataset(), schema_check_args())[1] == []
    no_prompt = none_ask.rename_column("prompt", "question")
    assert startup_schema_lines(caplog, accuracy_reward, no_prompt, schema_check_args())[1] == []


def test_the_run_time_warning_reads_the_windows_failed_rows(caplog):
    """Warned once, when more than half of the rows of the window's failed turn-0 groups break the schema and a
    reward requires it."""
    from trl_mulferl.core.metrics import SCHEMA_NONCOMPLIANT, SchemaFailures

    failed = "mulferl/turn_0/failed_groups"

    def warnings_of(schema_rewards, *windows):
        caplog.clear()
        watch = SchemaFailures(schema_rewards, group_size=4)
        with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
            for window in windows:
                watch.check(window)
        return [r.getMessage() for r in caplog.records]

    half = {SCHEMA_NONCOMPLIANT: [2.0, 2.0], failed: [1.0, 1.0]}  # 4 of the 8 failed rows: not more than half
    most = {SCHEMA_NONCOMPLIANT: [3.0, 2.0], failed: [1.0, 1.0]}  # 5 of 8
    assert warnings_of(["accuracy_reward"], half, {}) == []
    (message,) = warnings_of(["accuracy_reward"], half, most, most)
    assert message.startswith("5 of the 8 rows of the groups that failed at turn 0 in this logging window break")
    assert "which accuracy_reward requires" in message
    assert warnings_of([], most) == []
