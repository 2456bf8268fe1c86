"""Generate, score and revise: the evaluation loop shared by `trl-mulferl eval` and `EvaluationCallback`.

Turn 0 answers every problem `num_samples` times. Each revision turn t (test-time feedback, paper §5.2 and
appendix D.2.5) takes every sample still wrong after turn t-1, asks the feedback provider about that one response
(a single rollout, so no merge), cleans the feedback exactly as training does (answer leaks redacted, schema tags and
special tokens removed, truncated to `max_length` policy tokens), and regenerates from the original prompt with the
feedback prefilled at the head of the answer (`inject_feedback(..., "structured")`). A sample whose provider gave
nothing keeps its standing and is asked again by a resumed run.
"""

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .backends import GenerationRequest


logger = logging.getLogger(__name__)


@dataclass
class FeedbackSettings:
    """How revision turns ask for feedback.

    Args:
        provider: Any feedback provider, sync or async: `(prompt, completions, rewards, **columns) -> str`.
        max_concurrency: Provider calls in flight at once.
        deadline: Seconds a batch of provider calls may take; unanswered samples are not revised this time.
        max_length: Policy tokens of injected feedback (needs the backend's tokenizer; an endpoint has none).
    """

    provider: Callable
    max_concurrency: int = 16
    deadline: float | None = 600.0
    max_length: int = 1024


def record_key(record: dict) -> tuple[str, str, int, int]:
    return record["benchmark"], record["problem_id"], record["sample"], record["turn"]


def sample_seed(seed: int, sample: int, turn: int) -> int:
    """The per-request seed of sample `sample` at `turn` (vLLM and OpenAI-compatible servers sample with it)."""
    return seed + 1000 * turn + sample


def score(
    problem: dict, sample: int, turn: int, response: str, require_schema: bool, feedback=None, verify=None
) -> dict:
    """One record: the sample, its extracted answer and its verdict (`verify(answer, problem)`'s, when given)."""
    from ..core.schema import schema_compliant
    from .verifiers import response_answer, verify_answer

    answer = response_answer(response, require_schema)
    return {
        "benchmark": problem["benchmark"],
        "problem_id": problem["problem_id"],
        "sample": sample,
        "turn": turn,
        "prompt": problem["prompt"],
        "feedback": feedback,
        "response": response,
        "answer": answer,
        "schema_compliant": schema_compliant(response),
        "verdict": (
            verify(answer, problem)
            if verify is not None
            else verify_answer(answer, problem["solution"], problem["answer_type"])
        ),
        "solution": problem["solution"],
        "answer_type": problem["answer_type"],
    }


def _turn(record: dict) -> int:
    return record["turn"]


def _chunks(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _progress_bar(total: int, description: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="sample", disable=not enabled or total == 0)


def _feedback_texts(work: list[tuple[dict, int, dict]], settings: FeedbackSettings, tokenizer) -> list[str | None]:
    """The cleaned feedback for each `(problem, sample, latest record)`, None where the provider gave none."""
    from ..core.schema import control_tokens
    from ..feedback import FeedbackRequest, prepare_feedback, problem_text, request_feedback

    requests = [
        FeedbackRequest(
            prompt=problem_text(problem["prompt"]),
            completions=[latest["response"]],
            rewards=[0.0],
            columns={key: problem[key] for key in ("solution", "answer_type", "benchmark", "problem_id")},
        )
        for problem, _, latest in work
    ]
    results = asyncio.run(request_feedback(settings.provider, requests, settings.max_concurrency, settings.deadline))
    tokens = control_tokens(tokenizer) if tokenizer is not None else ()
    return [
        None
        if result.text is None
        else prepare_feedback(
            result.text, problem["solution"], tokenizer, settings.max_length, tokens, problem=request.prompt
        ).text
        for (problem, _, _), request, result in zip(work, requests, results, strict=True)
    ]


def evaluate(
    problems: list[dict],
    backend,
    num_samples: int,
    require_schema: bool = True,
    feedback_turns: int = 0,
    feedback: FeedbackSettings | None = None,
    seed: int = 0,
    finished: dict[tuple, dict] | None = None,
    save: Callable[[list[dict]], Any] | None = None,
    chunk_size: int = 512,
    show_progress: bool = True,
    verify: Callable[[str | None, dict], bool] | None = None,
) -> list[dict]:
    """Answer, score and (with `feedback_turns`) revise every problem; returns the records of these problems, their
    `num_samples` samples and turns up to `feedback_turns`, earlier runs' included.

    Args:
        problems: Rows of `benchmark`, `problem_id`, `prompt`, `solution` and `answer_type`
            (`trl_mulferl.evaluation.benchmarks.load_benchmark` plus the benchmark's name).
        backend: A generation backend of `trl_mulferl.evaluation.backends`.
        num_samples: Samples per problem at turn 0.
        require_schema: Score only schema-compliant responses (MulFeRL's format check), as training does.
        feedback_turns: Revision turns with feedback after turn 0.
        feedback: The provider and its settings; needed when `feedback_turns > 0`.
        seed: Base of the per-request seeds.
        finished: Records of an earlier run by `record_key`; their samples are not generated again.
        save: Called with each chunk of new records as soon as it is scored (to append them to a file).
        chunk_size: Samples generated between two saves.
        show_progress: Show a progress bar per turn.
        verify: `(answer, problem) -> bool`, a task's own verdict on an extracted answer (None for none), e.g. a
            program run on hidden tests; by default the problem's `solution` is read as its `answer_type`.
    """
    from ..core.schema import inject_feedback

    if feedback_turns > 0 and feedback is None:
        raise ValueError("feedback_turns > 0 needs feedback settings with a provider (--feedback_provider).")
    records = dict(finished or {})

    def run(work, make_request, turn, feedback_of=None):
        bar = _progress_bar(len(work), f"turn {turn}", show_progress)
        with bar:
            for chunk in _chunks(work, chunk_size):
                texts = feedback_of(chunk) if feedback_of is not None else [None] * len(chunk)
                todo = [(item, text) for item, text in zip(chunk, texts, strict=True) if feedback_of is None or text]
                bar.update(len(chunk) - len(todo))  # samples whose provider gave nothing: not revised this time
                if not todo:
                    continue
                responses = backend.generate([make_request(item, text) for item, text in todo], bar.update)
                new = [
                    score(item[0], item[1], turn, response, require_schema, text, verify)
                    for (item, text), response in zip(todo, responses, strict=True)
                ]
                records.update((record_key(record), record) for record in new)
                if save is not None:
                    save(new)

    keys = {(p["benchmark"], p["problem_id"]) for p in problems}
    if len(keys) != len(problems):
        raise ValueError("Two problems share a (benchmark, problem_id).")
    work = [
        (problem, sample)
        for problem in problems
        for sample in range(num_samples)
        if (problem["benchmark"], problem["problem_id"], sample, 0) not in records
    ]
    run(work, lambda item, _: GenerationRequest(item[0]["prompt"], "", sample_seed(seed, item[1], 0)), 0)

    for turn in range(1, feedback_turns + 1):
        work = []
        for problem in problems:
            for sample in range(num_samples):
                key = (problem["benchmark"], problem["problem_id"], sample)
                if key + (turn,) in records:
                    continue
                latest = max((records[key + (t,)] for t in range(turn) if key + (t,) in records), key=_turn)
                if latest["verdict"] is False:
                    work.append((problem, sample, latest))

        def revision_request(item, text, turn=turn):
            prompt, prefill = inject_feedback(item[0]["prompt"], text, "structured")
            return GenerationRequest(prompt, prefill, sample_seed(seed, item[1], turn))

        run(work, revision_request, turn, lambda chunk: _feedback_texts(chunk, feedback, backend.tokenizer))
    return [
        record
        for key, record in records.items()
        if key[:2] in keys and key[2] < num_samples and key[3] <= feedback_turns
    ]
