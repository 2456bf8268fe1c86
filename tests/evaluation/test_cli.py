"""`trl-mulferl eval` with the tiny local model on the shared benchmark files: summary, resume, feedback turns."""

import json
import math
import statistics
import subprocess
import sys
import types
from pathlib import Path

import pytest

from trl_mulferl.core.schema import feedback_prefill, schema_compliant
from trl_mulferl.evaluation import backends
from trl_mulferl.evaluation.cli import check_resumable, folder_config, main, make_parser, read_records, run_config
from trl_mulferl.evaluation.verifiers import response_answer, verify_answer


SHARED_FILES = ["math500", "aime24", "amc23", "minerva_math", "gsm8k"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def count_generated(monkeypatch):
    """The number of samples each `TransformersBackend.generate` call was asked for."""
    calls = []
    original = backends.TransformersBackend.generate

    def counted(self, requests, progress=None):
        calls.append(len(requests))
        return original(self, requests, progress)

    monkeypatch.setattr(backends.TransformersBackend, "generate", counted)
    return calls


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def recompute(records, num_samples):
    """pass@1, pass@k, the per-run accuracies, their std and schema compliance, from the JSONL alone."""
    problems = {}
    for record in records:
        problems.setdefault(record["problem_id"], {})[record["sample"]] = record
    counts = [sum(s[j]["verdict"] is True for j in range(num_samples)) for s in problems.values()]
    runs = [sum(s[j]["verdict"] is True for s in problems.values()) / len(problems) for j in range(num_samples)]
    metrics = {
        f"pass@{k}": sum(1 - math.comb(num_samples - c, k) / math.comb(num_samples, k) for c in counts) / len(counts)
        for k in range(1, num_samples + 1)
    }
    metrics["runs"] = runs
    metrics["pass@1_std"] = statistics.stdev(runs) if num_samples > 1 else 0.0
    metrics["schema_compliance"] = sum(r["schema_compliant"] for r in records) / len(records)
    return metrics


def test_tiny_model_on_each_shared_benchmark_summarises_and_resumes(
    shared_data, tiny_model_dir, tmp_path, count_generated
):
    spec = ",".join(f"{name}={shared_data / name / 'test.jsonl'}" for name in SHARED_FILES)
    argv = ["--model", tiny_model_dir, "--benchmarks", spec, "--limit", "10", "--max_tokens", "8"]
    argv += ["--output_dir", str(tmp_path), "--backend", "transformers", "--batch_size", "25"]
    main([*argv, "--num_samples", "2"])
    assert sum(count_generated) == len(SHARED_FILES) * 10 * 2

    summary = json.loads((tmp_path / "summary.json").read_text())
    records = read_jsonl(tmp_path / "samples.jsonl")
    assert set(summary["benchmarks"]) == set(SHARED_FILES)
    for name in SHARED_FILES:
        metrics = summary["benchmarks"][name]
        own = [r for r in records if r["benchmark"] == name]
        assert metrics["problems"] == 10 and metrics["num_samples"] == 2 and len(own) == 20
        assert 0.0 <= metrics["pass@1"] <= 1.0
        expected = recompute(own, 2)
        for key, value in expected.items():
            assert metrics[key] == pytest.approx(value), (name, key)
        for record in own:  # each verdict recomputes from the response
            assert record["turn"] == 0 and record["prompt"][-1]["role"] == "user"
            assert record["schema_compliant"] == schema_compliant(record["response"])
            assert record["answer"] == response_answer(record["response"])
            assert record["verdict"] == verify_answer(record["answer"], record["solution"], record["answer_type"])
    assert summary["average"]["pass@1"] == pytest.approx(
        sum(m["pass@1"] for m in summary["benchmarks"].values()) / len(SHARED_FILES)
    )

    count_generated.clear()
    again = main([*argv, "--num_samples", "2"])  # finished: nothing is generated
    assert count_generated == []
    assert again["benchmarks"] == summary["benchmarks"]

    more = main([*argv, "--num_samples", "3"])  # one more sample per problem: only those are generated
    assert sum(count_generated) == len(SHARED_FILES) * 10
    assert all(m["num_samples"] == 3 and m["problems"] == 10 for m in more["benchmarks"].values())
    assert len(read_jsonl(tmp_path / "samples.jsonl")) == len(SHARED_FILES) * 10 * 3


FEEDBACK = "Issue: the sum drops a term. Fix steps: 1. Add every term once. 2. Check the total again."


def long_feedback(prompt, completions, rewards, **columns):
    return FEEDBACK


def test_tiny_model_feedback_turn_prefills_truncated_feedback(shared_data, tiny_model_dir, tiny_tokenizer, tmp_path):
    summary = main(
        ["--model", tiny_model_dir, "--benchmarks", f"gsm8k={shared_data / 'gsm8k' / 'test.jsonl'}", "--limit", "2"]
        + ["--num_samples", "2", "--max_tokens", "6", "--output_dir", str(tmp_path), "--backend", "transformers"]
        + ["--feedback_turns", "1", "--feedback_provider", f"{__name__}:long_feedback", "--max_feedback_length", "5"]
    )
    records = read_jsonl(tmp_path / "samples.jsonl")
    wrong = {(r["problem_id"], r["sample"]) for r in records if r["turn"] == 0 and r["verdict"] is False}
    revised = [r for r in records if r["turn"] == 1]
    assert {(r["problem_id"], r["sample"]) for r in revised} == wrong
    truncated = tiny_tokenizer.decode(tiny_tokenizer(FEEDBACK)["input_ids"][:5]).strip()
    for record in revised:
        assert record["feedback"] == truncated
        assert record["response"].startswith(feedback_prefill(truncated))
    assert len(summary["benchmarks"]["gsm8k"]["pass@1_by_turn"]) == 2


def test_resume_refuses_a_folder_of_other_settings(tmp_path):
    earlier = make_parser().parse_args(["--model", "m", "--temperature", "0.6"])
    (tmp_path / "config.json").write_text(json.dumps({**run_config(earlier), "sources": {"math500": "a.jsonl"}}))
    with pytest.raises(SystemExit, match="other settings \\(temperature, source of math500\\)"):
        main(["--model", "m", "--benchmarks", "math500=b.jsonl", "--output_dir", str(tmp_path)])


def test_folder_remembers_feedback_settings_and_files_across_runs():
    def config(*argv):
        return {**run_config(make_parser().parse_args(["--model", "m", *argv])), "sources": {"gsm8k": "g.jsonl"}}

    with_feedback = config("--feedback_turns", "1", "--feedback_provider", "a:f")
    check_resumable({}, with_feedback)
    folder = folder_config({}, with_feedback)
    plain = {**config(), "sources": {"math500": None}}
    check_resumable(folder, plain)  # fewer turns and another benchmark: allowed
    folder = folder_config(folder, plain)
    assert folder["sources"] == {"gsm8k": "g.jsonl", "math500": None}
    assert (folder["feedback_turns"], folder["feedback_provider"]) == (1, "a:f")
    with pytest.raises(SystemExit, match="other settings \\(feedback_provider\\)"):
        check_resumable(folder, config("--feedback_turns", "2", "--feedback_provider", "b:g"))
    with pytest.raises(SystemExit, match="other settings \\(source of gsm8k\\)"):
        check_resumable(folder, {**with_feedback, "sources": {"gsm8k": "other.jsonl"}})


def test_interrupted_last_line_is_dropped(tmp_path):
    path = tmp_path / "samples.jsonl"
    record = {"benchmark": "math500", "problem_id": "0", "sample": 0, "turn": 0, "verdict": True}
    path.write_text(json.dumps(record) + "\n" + '{"benchmark": "math5')
    assert list(read_records(path).values()) == [record]
    assert path.read_text() == json.dumps(record) + "\n"


def test_help_does_not_import_torch():
    """The evaluation package keeps torch, transformers and TRL out of `--help` (the package root imports the
    trainers, so it is bypassed here)."""
    code = f"""
import sys, types
package = types.ModuleType("trl_mulferl")
package.__path__ = [{str(ROOT / "trl_mulferl")!r}]
sys.modules["trl_mulferl"] = package
from trl_mulferl.evaluation.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
heavy = [name for name in ("torch", "transformers", "trl", "datasets") if name in sys.modules]
assert not heavy, heavy
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--feedback_turns" in result.stdout


def test_vllm_backend_sends_the_training_token_ids(monkeypatch, tiny_tokenizer):
    """The vLLM backend's plumbing, against a stand-in `vllm` module (vLLM is not installed here)."""
    seen = {}

    class LLM:
        def __init__(self, **kwargs):
            seen["init"] = kwargs

        def get_tokenizer(self):
            return tiny_tokenizer

        def generate(self, prompts, sampling_params, use_tqdm):
            seen["prompts"], seen["params"] = prompts, sampling_params
            return [
                types.SimpleNamespace(outputs=[types.SimpleNamespace(text=f" out{i}")]) for i in range(len(prompts))
            ]

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=LLM, SamplingParams=lambda **kw: kw))
    backend = backends.VLLMBackend("some/model", max_tokens=7, temperature=1.0, top_p=0.9)
    prompt = [{"role": "user", "content": "What is 12 + 30?"}]
    requests = [backends.GenerationRequest(prompt, "", 3), backends.GenerationRequest(prompt, "<thinking>", 1004)]
    assert backend.generate(requests) == [" out0", "<thinking> out1"]
    chat = tiny_tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
    chat_ids = tiny_tokenizer(chat, add_special_tokens=False)["input_ids"]
    prefill_ids = tiny_tokenizer("<thinking>", add_special_tokens=False)["input_ids"]
    assert seen["prompts"] == [{"prompt_token_ids": chat_ids}, {"prompt_token_ids": chat_ids + prefill_ids}]
    assert [p["seed"] for p in seen["params"]] == [3, 1004]
    assert seen["params"][0] == {"temperature": 1.0, "top_p": 0.9, "max_tokens": 7, "seed": 3}
    assert seen["init"]["model"] == "some/model"


def test_package_exports_load_on_first_use():
    import trl_mulferl.evaluation as evaluation

    assert all(getattr(evaluation, name) is not None for name in evaluation.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        evaluation.nothing


def test_openai_feedback_replies_are_capped_like_training():
    """The reviewer's reply budget is `--max_feedback_length`, as `max_feedback_length` is in training (the default
    1024 let a small served model ramble for minutes per request); `--feedback_timeout` is each attempt's limit."""
    from tests.helpers.fault_server import FaultServer
    from trl_mulferl.evaluation.cli import load_provider

    with FaultServer() as server:
        feedback = ["--feedback_provider", "openai", "--feedback_model", "m", "--feedback_base_url", server.base_url]
        limits = ["--max_feedback_length", "32", "--feedback_timeout", "5"]
        provider = load_provider(
            make_parser().parse_args(["--model", "m", "--feedback_turns", "1", *limits, *feedback])
        )
    assert (provider.max_tokens, provider.timeout) == (32, 5.0)


def test_eval_reads_a_yaml_config_and_flags_in_either_spelling(tiny_model_dir, tmp_path):
    """As `trl-mulferl train`: `--config` sets the options (keys with underscores or dashes), the command line wins,
    and `--max-tokens` is `--max_tokens`."""
    sums = tmp_path / "sums.jsonl"
    sums.write_text("".join(json.dumps({"question": f"{a} + 1?", "answer": f"#### {a + 1}"}) + "\n" for a in range(3)))
    (tmp_path / "eval.yaml").write_text(
        f"model: {tiny_model_dir}\nbenchmarks: gsm8k={sums}\nbackend: transformers\nnum-samples: 2\n"
        f"max_tokens: 50\nno_schema: true\noutput_dir: {tmp_path / 'results'}\n"
    )
    summary = main(["--config", str(tmp_path / "eval.yaml"), "--max-tokens", "3", "--limit", "2"])
    config = summary["config"]
    assert (config["model"], config["num_samples"], config["max_tokens"], config["limit"]) == (tiny_model_dir, 2, 3, 2)
    assert config["schema"] is False and config["sources"] == {"gsm8k": str(sums)}
    assert len(read_jsonl(tmp_path / "results" / "samples.jsonl")) == 2 * 2


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "num_samples: [1, 2]",
            "num_samples in {path}: [1, 2] is not a single value; give one, as after --num_samples on the command line",
        ),
        ("num_samples: 2.5", "num_samples in {path}: 2.5 is not an integer"),
        ("no_schema: maybe", "no_schema in {path}: 'maybe' is not true or false"),
        ("backend: tpu", "backend in {path}: 'tpu' is not one of auto, vllm, transformers, openai"),
        ("num_smaples: 2", "unknown field 'num_smaples' in {path} (did you mean num_samples?)"),
    ],
)
def test_eval_names_a_bad_config_value_in_one_line(tmp_path, capsys, line, expected):
    path = tmp_path / "eval.yaml"
    path.write_text(f"model: m\n{line}\n")
    with pytest.raises(SystemExit) as exit:
        main(["--config", str(path)])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"trl-mulferl eval: error: {expected.format(path=path)}\n"


def test_eval_reports_a_missing_api_key_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sums = tmp_path / "sums.jsonl"
    sums.write_text(json.dumps({"question": "1 + 1?", "answer": "#### 2"}) + "\n")
    with pytest.raises(SystemExit) as exit:
        main(
            [
                "--model",
                "gpt-4o",
                "--backend",
                "openai",
                "--benchmarks",
                f"gsm8k={sums}",
                "--output_dir",
                str(tmp_path),
            ]
        )
    assert exit.value.code == 2
    err = capsys.readouterr().err  # after the progress bars of loading the benchmark file
    assert "Traceback" not in err and err.endswith(
        "\ntrl-mulferl eval: error: OPENAI_API_KEY is not set: export your OpenAI API key there, or set --api_key_env "
        "to the name of the variable that holds it.\n"
    )


def test_endpoint_credentials_stay_out_of_the_saved_settings_and_the_errors():
    secret = "sk-proj-Abc123Def456Ghi789Jkl0"
    args = make_parser().parse_args(
        ["--model", "m", "--base_url", f"http://user:{secret}@127.0.0.1:8000/v1?key={secret}"]
        + ["--feedback_base_url", f"https://{secret}@example.com/v1"]
    )
    assert secret not in json.dumps(run_config(args))
    assert run_config(args)["base_url"] == "http://***@127.0.0.1:8000/v1?***"
    with pytest.raises(ValueError, match="--api_key_env must be the name") as error:
        backends.OpenAIBackend(model="m", max_tokens=8, base_url="http://127.0.0.1:8000/v1", api_key_env=secret)
    assert secret not in str(error.value)
    name_shaped = "f3a9c1d2e4b5a6978812c3d4e5f60718"  # a key no test of its shape tells from a variable's name
    with pytest.raises(ValueError, match="The variable named by --api_key_env is not set") as error:
        backends.OpenAIBackend(model="m", max_tokens=8, api_key_env=name_shaped)
    assert name_shaped not in str(error.value)
