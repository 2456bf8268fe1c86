"""A built-in feedback provider is one module and one entry of `FEEDBACK_PROVIDERS`: registered here (the provider
below stands for its module), it is selected by name on the command line, checked by both configs and built by the
trainer, as the providers that ship are."""

import pytest
from datasets import Dataset

from trl_mulferl import AsyncMulFeRLConfig, MulFeRLConfig, MulFeRLTrainer, make_conversation
from trl_mulferl.feedback.build import FEEDBACK_PROVIDERS, BuiltinProvider, build_feedback_provider
from trl_mulferl.train import make_parser


CPU = {"use_cpu": True, "bf16": False, "report_to": "none"}


class HintFeedbackProvider:
    """A provider built from the feedback arguments: a fixed hint, as long as `max_feedback_length` allows."""

    def __init__(self, hint: str, max_chars: int):
        self.hint, self.max_chars = hint, max_chars

    @classmethod
    def from_arguments(cls, args) -> "HintFeedbackProvider":
        return cls(f"Check the last step (seed {args.seed}).", args.max_feedback_length)

    @staticmethod
    def check_arguments(args):
        if args.feedback_group_size != 2:
            raise ValueError(
                f"feedback_provider='hint' reviews pairs: set feedback_group_size=2, got {args.feedback_group_size}."
            )

    def __call__(self, prompt, completions, rewards, **columns):
        return self.hint[: self.max_chars]


@pytest.fixture
def hint_provider(monkeypatch):
    """The registry line a built-in provider adds (undone after the test)."""
    monkeypatch.setitem(
        FEEDBACK_PROVIDERS,
        "hint",
        BuiltinProvider(HintFeedbackProvider.from_arguments, HintFeedbackProvider.check_arguments),
    )


def test_a_registered_provider_is_selected_on_the_command_line_and_built(
    hint_provider, tmp_path, tiny_tokenizer, tiny_model
):
    argv = ["--output_dir", str(tmp_path), "--feedback_provider", "hint", "--max_feedback_length", "9", "--seed", "7"]
    argv += ["--num_generations", "2", "--per_device_train_batch_size", "2", "--use_cpu", "true", "--bf16", "false"]
    _, config, _, _ = make_parser().parse_args_and_config(argv + ["--report_to", "none", "--fco_weight", "0"])
    assert isinstance(config, MulFeRLConfig) and config.feedback_provider == "hint"
    provider = build_feedback_provider(config)
    assert isinstance(provider, HintFeedbackProvider)
    assert provider("1 + 1?", ["3", "4"], [0.0, 0.0]) == "Check the"  # seed 7's hint, cut at 9 characters
    assert provider.hint == "Check the last step (seed 7)."
    dataset = Dataset.from_list([{"prompt": make_conversation("1 + 1?"), "solution": "2"}] * 2)
    trainer = MulFeRLTrainer(
        model=tiny_model,
        reward_funcs=lambda completions, **kwargs: [0.0] * len(completions),
        args=config,
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
    )
    assert isinstance(trainer.feedback_provider, HintFeedbackProvider)


def test_both_configs_run_a_registered_providers_check(hint_provider, tmp_path):
    for config_class in (MulFeRLConfig, AsyncMulFeRLConfig):
        with pytest.raises(
            ValueError, match="feedback_provider='hint' reviews pairs: set feedback_group_size=2, got 3"
        ):
            config_class(str(tmp_path), **CPU, num_generations=2, feedback_provider="hint", feedback_group_size=3)
        assert (
            config_class(str(tmp_path), **CPU, num_generations=2, feedback_provider="hint").feedback_provider == "hint"
        )


def test_an_unknown_provider_is_refused_naming_the_registered_ones(hint_provider, tmp_path):
    with pytest.raises(
        ValueError,
        match=r"Unknown feedback_provider 'hinted': use one of \('openai', 'self', 'column', 'checker', 'none', 'hint'\)",
    ):
        MulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="hinted")


def test_the_asynchronous_config_refuses_a_provider_its_rollout_process_cannot_run(monkeypatch, tmp_path):
    monkeypatch.setitem(
        FEEDBACK_PROVIDERS,
        "hint",
        BuiltinProvider(HintFeedbackProvider.from_arguments, unavailable_async="it needs the trainer's weights."),
    )
    assert MulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="hint").feedback_provider == "hint"
    with pytest.raises(
        ValueError,
        match="feedback_provider='hint' is not available in AsyncMulFeRLConfig: it needs the trainer's weights.",
    ):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="hint")
    with pytest.raises(
        ValueError,
        match="feedback_provider='self' is not available in AsyncMulFeRLConfig: the rollout process holds no copy",
    ):
        AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_provider="self")


def test_the_rollout_process_builds_a_built_in_provider_from_the_feedback_arguments(tmp_path):
    """`AsyncMulFeRLTrainer` sends the rollout process the fields of `FeedbackArguments` and `seed`
    (`PROVIDER_FIELDS`), from which it builds the provider again: the same provider as from the config."""
    from types import SimpleNamespace

    from trl_mulferl.async_mulferl.async_mulferl_trainer import PROVIDER_FIELDS

    config = AsyncMulFeRLConfig(
        str(tmp_path),
        **CPU,
        num_generations=2,
        seed=3,
        feedback_provider="openai",
        feedback_model="m",
        feedback_base_url="http://127.0.0.1:9/v1",
        feedback_timeout=7.0,
        feedback_requests_per_minute=30.0,
    )
    copy = SimpleNamespace(**{name: getattr(config, name) for name in PROVIDER_FIELDS})
    built, rebuilt = build_feedback_provider(config), build_feedback_provider(copy)
    settings = ("model", "base_url", "timeout", "max_tokens", "max_concurrency", "group_size", "seed")
    assert [getattr(rebuilt, name) for name in settings] == [getattr(built, name) for name in settings]
    assert [getattr(rebuilt, name) for name in settings] == [
        "m",
        "http://127.0.0.1:9/v1",
        7.0,
        1024,
        config.feedback_max_concurrency,
        2,
        3,
    ]
    assert {"feedback_provider", "feedback_checker", "max_feedback_length", "seed"} <= set(PROVIDER_FIELDS)
