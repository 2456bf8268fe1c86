"""OpenAIFeedbackProvider against a real HTTP server on 127.0.0.1 that injects faults (tests/helpers/fault_server.py)."""

import asyncio
import email.utils
import logging
import random
import re
import time

import pytest
import torch
from datasets import Dataset

from tests.helpers.fault_server import FaultServer
from tests.helpers.serving import transformers_serve
from tests.helpers.trainer import TINY_TRAINING, K, logged, marker_reward
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation, make_generator
from trl_mulferl.feedback import (
    FeedbackError,
    FeedbackRequest,
    OpenAIFeedbackProvider,
    extract_feedback,
    request_feedback,
    retry_delay,
    split_subgroups,
)


KEY_ENV = "MULFERL_TEST_FEEDBACK_KEY"
SECRET = "sk-test-0123456789abcdefSECRET"
FAST_RETRIES = {"timeout": 0.5, "max_retries": 1, "backoff_base": 0.05}


def provider_for(server, **options):
    return OpenAIFeedbackProvider(model="fault-model", base_url=server.base_url, **options)


def ask(provider, fault, num_rollouts=2):
    completions = [f"attempt {i} FAULT={fault}" for i in range(num_rollouts)]
    return asyncio.run(provider("What is 40 + 2?", completions, [0.0] * num_rollouts))


def test_extract_feedback():
    assert extract_feedback("<feedback>Issue: a. Fix steps: 1. b.</feedback> trailing") == "Issue: a. Fix steps: 1. b."
    assert extract_feedback("<think>x</think>\n<feedback>Issue: a.") == "Issue: a."  # stopped at </feedback>
    assert extract_feedback("Issue: no tags. Fix steps: 1. b.") == "Issue: no tags. Fix steps: 1. b."
    # SmolLM2-135M echoes the request's data markers, complete or cut off, into its reply.
    assert (
        extract_feedback("<<<END ATTEMPT 2 3bc011f6>>>>\n\nThe answer is 57.\n<<<END ATTEMPT 2") == "The answer is 57."
    )
    for empty in ("", None, "<think>only thinking</think>", "<feedback>  </feedback>", "<think>unfinished"):
        with pytest.raises(FeedbackError):
            extract_feedback(empty)


def test_split_subgroups_partitions_at_random():
    splits = {tuple(map(tuple, split_subgroups(8, 2, torch.Generator().manual_seed(s)))) for s in range(20)}
    assert len(splits) > 1
    for split in splits:
        assert sorted(i for subgroup in split for i in subgroup) == list(range(8))
        assert [len(subgroup) for subgroup in split] == [2, 2, 2, 2]
    assert [len(s) for s in split_subgroups(5, 2, torch.Generator())] == [2, 2, 1]  # ceil(5 / 2) subgroups


def test_retry_delay_honours_retry_after_then_backs_off():
    class Response:
        headers = {"retry-after": "3"}

    class Error(Exception):
        response = Response()

    rng = random.Random(0)
    assert retry_delay(0, Error(), base=0.5, cap=30.0, rng=rng) == 3.0
    delays = [retry_delay(attempt, ValueError(), base=0.5, cap=30.0, rng=rng) for attempt in range(4)]
    for attempt, delay in enumerate(delays):
        assert 0.25 * 2**attempt <= delay <= 0.75 * 2**attempt
    assert retry_delay(20, ValueError(), base=0.5, cap=30.0, rng=rng) == 30.0


def test_retry_delay_reads_milliseconds_first_then_seconds_then_a_date():
    def error_with(headers):
        class Response:
            pass

        Response.headers = headers
        return type("Error", (Exception,), {"response": Response()})()

    rng = random.Random(0)
    # Retry-After-ms wins over Retry-After, as in the OpenAI client.
    assert retry_delay(0, error_with({"retry-after-ms": "250", "retry-after": "5"}), 0.5, 30.0, rng) == 0.25
    in_two_seconds = email.utils.formatdate(time.time() + 2.0, usegmt=True)  # whole seconds: 1 to 2 s from now
    assert 0.9 <= retry_delay(0, error_with({"retry-after": in_two_seconds}), 0.5, 30.0, rng) <= 2.0
    assert retry_delay(0, error_with({"retry-after": "120"}), 0.5, 30.0, rng) == 30.0  # capped
    for unusable in ("soon", "-1", "nan"):  # back off instead
        assert 0.25 <= retry_delay(0, error_with({"retry-after": unusable}), 0.5, 30.0, rng) <= 0.75


def test_merge_request_exactly_when_there_are_several_subgroups(server):
    provider = provider_for(server)
    assert ask(provider, "ok", num_rollouts=2) == "Issue: the sum drops a term. Fix steps: 1. Add every term."
    assert [kind for _, _, kind in server.requests] == ["review"]
    server.requests.clear()
    text = ask(provider, "ok", num_rollouts=8)  # 4 subgroups of 2, then one merge
    assert text == "Issue: MERGED reviews. Fix steps: 1. Add every term. 2. Recheck."
    assert sorted(kind for _, _, kind in server.requests) == ["merge"] + ["review"] * 4
    assert server.requests[-1][2] == "merge"
    assert provider.pop_metrics() == {"feedback/prompt_tokens": 66, "feedback/completion_tokens": 42}


def test_one_failed_review_costs_the_merge_only_its_subgroup(server):
    provider = provider_for(server, group_size=1, **FAST_RETRIES)
    completions = ["attempt 0 FAULT=malformed", "attempt 1", "attempt 2"]
    merged = asyncio.run(provider("What is 40 + 2?", completions, [0.0] * 3))
    assert merged == "Issue: MERGED reviews. Fix steps: 1. Add every term. 2. Recheck."
    assert sorted(kind for _, _, kind in server.requests) == ["merge", "review", "review", "review"]
    assert provider.pop_metrics()["feedback/failed_reviews"] == 1
    server.requests.clear()
    single = asyncio.run(provider("What is 40 + 2?", completions[:2], [0.0] * 2))  # one review left: no merge
    assert single == "Issue: the sum drops a term. Fix steps: 1. Add every term."
    assert sorted(kind for _, _, kind in server.requests) == ["review", "review"]
    with pytest.raises(FeedbackError, match="malformed"):
        asyncio.run(provider("What is 40 + 2?", ["a FAULT=malformed", "b FAULT=malformed"], [0.0] * 2))
    assert provider.pop_metrics()["feedback/failed_reviews"] == 3


def test_the_subgroup_split_is_drawn_from_seed_step_and_prompt_index(server):
    provider = provider_for(server)
    completions = [f"attempt {i}" for i in range(8)]
    request = FeedbackRequest("What is 40 + 2?", completions, [0.0] * 8, {}, seed=5, step=3, prompt_index=1)
    assert asyncio.run(request_feedback(provider, [request], max_concurrency=4))[0].text
    reviewed = [message for message in server.attempts if "<<<ATTEMPT 1 " in message]
    split = sorted(sorted(map(int, re.findall(r">>>\nattempt (\d)\n", message))) for message in reviewed)
    assert split == sorted(split_subgroups(8, 2, make_generator(5, 3, 1)))


def test_each_fault_ends_as_expected(server):
    provider = provider_for(server, **FAST_RETRIES)
    assert ask(provider, "500_then_ok").startswith("Issue: the sum drops a term")
    assert provider.pop_metrics()["feedback/retries"] == 1

    assert ask(provider, "429_then_ok").startswith("Issue: the sum drops a term")
    first, second = [t for t, fault, _ in server.requests if fault == "429_then_ok"]
    assert second - first >= 0.95  # Retry-After: 1 honoured, not the 0.05 s backoff
    assert provider.pop_metrics()["feedback/retries"] == 1

    # What the OpenAI client retries (its own retries are off): 408 request timeout, 409 lock timeout.
    for fault in ("408_then_ok", "409_then_ok"):
        assert ask(provider, fault).startswith("Issue: the sum drops a term")
        assert provider.pop_metrics()["feedback/retries"] == 1
    assert ask(provider, "429ms_then_ok").startswith("Issue: the sum drops a term")
    first, second = [t for t, fault, _ in server.requests if fault == "429ms_then_ok"]
    assert 0.55 <= second - first < 3.0  # Retry-After-ms: 600 honoured, before Retry-After: 5
    assert provider.pop_metrics()["feedback/retries"] == 1

    with pytest.raises(FeedbackError, match="APITimeoutError after 2 attempts"):  # 0.5 s attempts, not the 3 s hang
        ask(provider, "hang")
    with pytest.raises(FeedbackError, match="malformed"):
        ask(provider, "malformed")
    with pytest.raises(FeedbackError, match="no feedback"):
        ask(provider, "empty")
    assert ask(provider, "think") == "Issue: a sign flips. Fix steps: 1. Recheck it."


def test_64_groups_are_asked_concurrently(server):
    provider = provider_for(server, max_concurrency=128)
    requests = [
        FeedbackRequest(f"Problem {i}?", [f"a FAULT=slow {i}", f"b FAULT=slow {i}"], [0.0, 0.0], {}) for i in range(64)
    ]
    start = time.perf_counter()
    results = asyncio.run(request_feedback(provider, requests, max_concurrency=64))
    seconds = time.perf_counter() - start
    print(f"64 groups, server latency 0.25 s: {seconds:.2f} s, {server.peak_in_flight} at once at the server")
    assert all(result.text for result in results)
    assert server.peak_in_flight > 1  # sent together, not one after another


def test_turn_deadline_leaves_slow_groups_unresolved():
    async def slow_provider(prompt, completions, rewards, **columns):
        await asyncio.sleep(5.0 if "slow" in prompt else 0.0)
        return "Issue: x. Fix steps: 1. y."

    requests = [FeedbackRequest(p, ["a"], [0.0], {}) for p in ("fast", "slow")]
    results = asyncio.run(request_feedback(slow_provider, requests, max_concurrency=4, deadline=0.3))
    assert results[0].text and results[1].text is None and results[1].error == "deadline"


FAULTS = ["ok", "500_then_ok", "429_then_ok", "hang", "malformed", "empty", "leak"]


def test_training_step_survives_every_fault(server, tmp_path, tiny_tokenizer, tiny_model_dir, caplog, monkeypatch):
    """One FAILED group per fault in one step: the step completes and each outcome is counted."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"Problem FAULT={fault}?"), "solution": "42"} for fault in FAULTS]
    )
    provider = provider_for(server, api_key_env=KEY_ENV, **FAST_RETRIES)
    settings = {**TINY_TRAINING, "per_device_train_batch_size": K * len(FAULTS), "max_steps": 1}
    settings["feedback_base_url"] = f"http://user:{SECRET}@127.0.0.1:9/v1"  # credentials in a URL of the arguments
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(output_dir=str(tmp_path), max_feedback_turns=1, **settings),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=provider,
    )
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [7.0]
    assert logged(trainer, "mulferl/feedback/errors") == [3.0]  # hang, malformed, empty
    assert logged(trainer, "mulferl/feedback/retries") == [3.0]  # 500, 429, and the hang's one retry
    assert logged(trainer, "mulferl/feedback/leaks_redacted") == [1.0]
    assert logged(trainer, "mulferl/feedback/prompt_tokens") == [11.0 * 5]  # the 5 answered requests
    assert logged(trainer, "mulferl/route/unresolved") == [1.0]  # the marker reward: nothing gets solved
    assert logged(trainer, "mulferl/feedback/latency_max_s")[0] >= 0.95
    feedback = set(trainer._logs["extra"]["feedback"])
    assert "Issue: the answer is [redacted]. Fix steps: 1. Recount the terms." in feedback

    # The API key is in no log, metric or saved file (training_args.bin, the model card).
    trainer.save_model(str(tmp_path / "saved"))
    trainer.create_model_card()
    assert (tmp_path / "saved" / "training_args.bin").exists() and (tmp_path / "README.md").exists()
    saved = [path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()]
    assert not any(SECRET.encode() in data for data in saved)
    assert SECRET not in str(trainer.state.log_history) and SECRET not in caplog.text
    assert SECRET not in repr(provider) and SECRET not in repr(trainer.args)


def test_api_key_never_in_errors(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FaultServer(api_key="sk-the-right-one") as server:
        provider = provider_for(server, api_key_env=KEY_ENV, **FAST_RETRIES)
        with pytest.raises(PermissionError) as refused:
            provider.check_connection()
        with pytest.raises(FeedbackError) as failed:
            ask(provider, "ok")
    assert "HTTP 401" in str(refused.value) and "the variable named by api_key_env" in str(refused.value)
    assert KEY_ENV not in str(refused.value)  # a name given there might be a key
    assert SECRET not in str(refused.value) and SECRET not in str(failed.value)
    assert failed.value.__cause__ is None and failed.value.__context__ is not None  # chained only implicitly
    assert SECRET not in repr(failed.value.__context__)


def test_a_key_passed_as_api_key_env_is_refused_without_showing_it(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for wrong in (SECRET, "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"):
        with pytest.raises(ValueError, match="api_key_env .* must be the name") as refused:
            provider_for(server, api_key_env=wrong)
        assert wrong not in str(refused.value)
    assert provider_for(server, api_key_env=KEY_ENV)._api_key == SECRET


def test_credentials_in_base_url_are_masked_in_repr_and_errors():
    provider = OpenAIFeedbackProvider(model="m", base_url=f"http://user:{SECRET}@127.0.0.1:9/v1?key={SECRET}")
    assert repr(provider) == "OpenAIFeedbackProvider(model='m', base_url='http://***@127.0.0.1:9/v1?***')"
    with pytest.raises(ConnectionError, match=r"http://\*\*\*@127.0.0.1:9/v1\?\*\*\* is unreachable") as failed:
        provider.check_connection()
    assert SECRET not in str(failed.value)


def test_httpx_request_logs_carry_no_url_credentials(server, caplog):
    """httpx logs every request's URL at INFO, user info included: the provider masks it."""
    credentialed = server.base_url.replace("http://", f"http://user:{SECRET}@")
    provider = OpenAIFeedbackProvider(model="fault-model", base_url=credentialed)
    with caplog.at_level(logging.INFO):
        provider.check_connection()
        ask(provider, "ok")
    requests = [record.getMessage() for record in caplog.records if record.name.startswith("httpx")]
    assert len(requests) >= 2 and all("http://***@127.0.0.1:" in line for line in requests)
    assert not any(SECRET in line for line in requests)


def test_an_exported_openai_key_is_not_sent_to_another_server(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = provider_for(server)  # a base_url and no api_key_env: no key is sent
    provider.check_connection()
    ask(provider, "ok")
    assert server.authorizations and set(server.authorizations) == {"Bearer EMPTY"}
    with pytest.raises(ValueError, match="The variable named by api_key_env .* is not set") as refused:
        provider_for(server, api_key_env="MULFERL_UNSET_KEY")
    assert "MULFERL_UNSET_KEY" not in str(refused.value)


def test_wrong_endpoint_path_fails_at_start(server):
    provider = OpenAIFeedbackProvider(model="fault-model", base_url=server.base_url.removesuffix("/v1"))
    with pytest.raises(ConnectionError, match="answers 404 .* end in /v1"):
        provider.check_connection()


def test_config_selects_the_provider_and_checks_the_endpoint(server, tmp_path, tiny_tokenizer, tiny_model_dir):
    common = {"model": tiny_model_dir, "reward_funcs": marker_reward, "processing_class": tiny_tokenizer}
    settings = {**TINY_TRAINING, "output_dir": str(tmp_path), "feedback_provider": "openai"}
    rows = [{"prompt": make_conversation("Problem?"), "solution": "1"}] * 4
    trainer = MulFeRLTrainer(
        args=MulFeRLConfig(**settings, feedback_model="fault-model", feedback_base_url=server.base_url),
        train_dataset=Dataset.from_list(rows),
        **common,
    )
    assert isinstance(trainer.feedback_provider, OpenAIFeedbackProvider)
    assert trainer.feedback_provider.group_size == trainer.args.feedback_group_size
    closed = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
    with pytest.raises(ConnectionError, match="127.0.0.1:9/v1 is unreachable"):
        MulFeRLTrainer(args=MulFeRLConfig(**settings, feedback_model="m", feedback_base_url=closed), **common)
    with pytest.raises(ValueError, match="needs feedback_model"):
        MulFeRLConfig(**settings)


@pytest.fixture(scope="module")
def transformers_server(tmp_path_factory):
    """`transformers serve` with the tiny local model on 127.0.0.1: a real OpenAI-compatible HTTP API."""
    from tests.helpers.tiny import build_tiny_model, build_tiny_tokenizer

    model_dir = tmp_path_factory.mktemp("served-model")
    tokenizer = build_tiny_tokenizer()
    build_tiny_model(tokenizer).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    with transformers_serve(model_dir) as base_url:
        yield base_url, str(model_dir)


@pytest.mark.slow
def test_transformers_serve_feedback_and_a_training_step(transformers_server, tmp_path, tiny_tokenizer):
    base_url, model_dir = transformers_server
    provider = OpenAIFeedbackProvider(model=model_dir, base_url=base_url, max_tokens=16)
    provider.check_connection()
    text = asyncio.run(provider("What is 2 + 2?", ["It is 5.", "It is 3.", "7", "1"], [0.0] * 4))
    assert isinstance(text, str) and text.strip()  # a random tiny model: text, but no meaning
    assert provider.pop_metrics()["feedback/completion_tokens"] > 0  # 2 reviews and a merge, usage reported

    # A training step on top, the provider selected by the config as a YAML recipe would.
    trainer = MulFeRLTrainer(
        model=model_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "output_dir": str(tmp_path), "max_steps": 1},
            max_feedback_turns=1,
            max_feedback_length=16,
            feedback_provider="openai",
            feedback_model=model_dir,
            feedback_base_url=base_url,
        ),
        train_dataset=Dataset.from_list([{"prompt": make_conversation(f"What is {i} + 1?")} for i in range(4)]),
        processing_class=tiny_tokenizer,
    )
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [2.0]
    assert logged(trainer, "mulferl/feedback/errors") == [0.0]
    assert logged(trainer, "mulferl/feedback/completion_tokens")[0] > 0
