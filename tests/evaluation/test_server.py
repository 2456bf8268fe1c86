"""`trl-mulferl eval` against a scripted OpenAI-compatible server: exact pass@k, and test-time feedback turns."""

import json
import math
import statistics
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from trl_mulferl.core.schema import feedback_prefill
from trl_mulferl.evaluation.cli import main


# Each problem's text carries a tag that tells the server how to answer it; the reference answer is `ANSWERS[tag]`.
ANSWERS = {"always": "7", "never": "12", "even": "\\frac{1}{3}", "noschema": "4"}
NUM_SAMPLES = 4


def compliant(answer: str, reasoning: str = "Work it out.") -> str:
    return f"<thinking><feedback></feedback>{reasoning}</thinking> The final answer is \\boxed{{{answer}}}"


class ScriptedModel:
    """Answers chat requests by tag: `always` right, `never` wrong unless the prefilled feedback says HINT, `even`
    right on even samples at turn 0 (the sample is in the request's seed) and after a HINT, `noschema` with the right
    number but outside the schema. Logs every request as (tag, sample, turn, prefill or None)."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                content = model.answer(body)
                payload = json.dumps(
                    {
                        "id": "chatcmpl-eval",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: dict) -> str:
        messages = body["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        tag = next(tag for tag in ANSWERS if f"[{tag}]" in user)
        sample, turn = body["seed"] % 1000, body["seed"] // 1000
        prefill = messages[-1]["content"] if messages[-1]["role"] == "assistant" else None
        if prefill is not None:
            assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
        with self.lock:
            self.requests.append((tag, sample, turn, prefill))
        right, wrong = ANSWERS[tag], "999"
        if prefill is None:
            if tag == "noschema":
                return f"The final answer is \\boxed{{{right}}}"
            correct = tag == "always" or (tag == "even" and sample % 2 == 0)
            return compliant(right if correct else wrong)
        # A revision continues the prefilled `<thinking><feedback>...</feedback>`.
        if tag == "noschema":
            return f" The final answer is \\boxed{{{right}}}"
        return f" Following the feedback.</thinking> The final answer is \\boxed{{{right if 'HINT' in prefill else wrong}}}"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


PROVIDER_CALLS = []


def scripted_provider(prompt, completions, rewards, **columns):
    """Feedback with HINT for `never` (stating its answer, which must be redacted) and, at the second revision,
    for `even`; feedback without HINT for `even` at the first revision; nothing for `noschema` at the second."""
    PROVIDER_CALLS.append((prompt, completions, rewards, columns))
    tag = next(tag for tag in ANSWERS if f"[{tag}]" in prompt)
    revised_before = "<feedback>Issue" in completions[0]
    if tag == "never":
        return "Issue: HINT, you wrote 999 but the answer is \\boxed{12}. Fix steps: 1. Recount."
    if tag == "even":
        return "Issue: HINT, the fraction. Fix steps: 1. Simplify." if revised_before else "Issue: check the sum."
    return None if revised_before else "Issue: the format. Fix steps: 1. Close the thinking block."


@pytest.fixture
def problems_file(tmp_path):
    path = tmp_path / "problems.jsonl"
    rows = [{"problem": f"[{tag}] Solve problem {tag}.", "answer": answer} for tag, answer in ANSWERS.items()]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def pass_at_k(n, c, k):
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_pass_at_k_and_feedback_turns_against_a_scripted_server(tmp_path, problems_file):
    out = tmp_path / "out"
    common = ["--model", "scripted", "--benchmarks", f"math500={problems_file}", "--output_dir", str(out)]
    with ScriptedModel() as server:
        summary = main([*common, "--base_url", server.base_url, "--num_samples", str(NUM_SAMPLES)])

        # Correct samples per problem: always 4, never 0, even 2 (samples 0 and 2), noschema 0 (schema check).
        metrics = summary["benchmarks"]["math500"]
        assert metrics["pass@1"] == pytest.approx((4 + 0 + 2 + 0) / 16)
        assert metrics["pass@2"] == pytest.approx((1 + 0 + pass_at_k(4, 2, 2) + 0) / 4)
        assert metrics["pass@4"] == pytest.approx(0.5)
        assert metrics["runs"] == pytest.approx([0.5, 0.25, 0.5, 0.25])
        assert metrics["pass@1_std"] == pytest.approx(statistics.stdev([0.5, 0.25, 0.5, 0.25]))
        assert metrics["schema_compliance"] == pytest.approx(0.75)
        assert summary["average"]["pass@1"] == pytest.approx(0.375)
        assert sorted((tag, sample) for tag, sample, _, _ in server.requests) == sorted(
            (tag, sample) for tag in ANSWERS for sample in range(NUM_SAMPLES)
        )

        # The same folder with two feedback turns: turn 0 is resumed, only wrong samples are revised.
        server.requests.clear()
        PROVIDER_CALLS.clear()
        provider = f"{__name__}:scripted_provider"
        summary = main(
            [*common, "--base_url", server.base_url, "--num_samples", str(NUM_SAMPLES), "--feedback_turns", "2"]
            + ["--feedback_provider", provider]
        )

    expected_revisions = {
        1: {("never", s) for s in range(4)} | {("even", 1), ("even", 3)} | {("noschema", s) for s in range(4)},
        2: {("even", 1), ("even", 3)},  # noschema got no feedback at the second revision: not regenerated
    }
    assert all(prefill is not None for _, _, _, prefill in server.requests)  # no turn-0 request again
    for turn, expected in expected_revisions.items():
        requested = [(tag, sample) for tag, sample, t, _ in server.requests if t == turn]
        assert sorted(requested) == sorted(expected)
    assert len(PROVIDER_CALLS) == 10 + 6
    for prompt, completions, rewards, columns in PROVIDER_CALLS:
        assert len(completions) == 1 and rewards == [0.0]  # a single rollout, no merge
        assert columns["solution"] == ANSWERS[next(tag for tag in ANSWERS if f"[{tag}]" in prompt)]

    records = read_jsonl(out / "samples.jsonl")
    assert len(records) == 16 + 10 + 2
    for tag, sample, turn, prefill in server.requests:
        (record,) = [
            r
            for r in records
            if f"[{tag}]" in r["prompt"][-1]["content"] and (r["sample"], r["turn"]) == (sample, turn)
        ]
        # The feedback the policy saw is exactly the recorded one, prefilled as in training, with the leak redacted.
        assert prefill == feedback_prefill(record["feedback"]) and record["response"].startswith(prefill)
        assert "HINT" in record["feedback"] or tag != "never"
        assert "12" not in record["feedback"] and ("[redacted]" in record["feedback"]) == (tag == "never")

    # pass@1 after each turn: turn 0 as before; never fixed at turn 1; even's odd samples at turn 2.
    metrics = summary["benchmarks"]["math500"]
    assert metrics["pass@1_by_turn"] == pytest.approx([0.375, (4 + 4 + 2 + 0) / 16, (4 + 4 + 4 + 0) / 16])
    assert metrics["pass@1_by_turn"] == pytest.approx(per_turn_pass_at_1(records, turns=2))
    assert (out / "pass_at_1_by_turn.png").stat().st_size > 0


def per_turn_pass_at_1(records, turns):
    """pass@1 after each turn, from the JSONL alone: each sample counts its latest verdict."""
    values = []
    for turn in range(turns + 1):
        latest = {}
        for r in sorted(records, key=lambda r: r["turn"]):
            if r["turn"] <= turn:
                latest[(r["problem_id"], r["sample"])] = r["verdict"] is True
        values.append(sum(latest.values()) / len(latest))
    return values


def test_no_schema_scores_the_last_box_of_any_response(tmp_path, problems_file):
    with ScriptedModel() as server:
        summary = main(
            ["--model", "scripted", "--benchmarks", f"math500={problems_file}", "--output_dir", str(tmp_path)]
            + ["--base_url", server.base_url, "--num_samples", "2", "--no_schema", "--no_system_prompt"]
        )
    assert summary["benchmarks"]["math500"]["pass@1"] == pytest.approx((2 + 0 + 1 + 2) / 8)
    record = read_jsonl(tmp_path / "samples.jsonl")[0]
    assert [m["role"] for m in record["prompt"]] == ["user"]
