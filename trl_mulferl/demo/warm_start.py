"""A policy that can read feedback, made on a CPU in minutes: a tiny Qwen2 fine-tuned on two-digit addition.

No pretrained model can be downloaded offline, and a random model cannot read feedback, so MulFeRL would have nothing
to work with. This module makes one: a tokenizer trained on the task, a small Qwen2, and supervised fine-tuning on
responses in MulFeRL's schema (`trl_mulferl.demo.addition`) that imitate a pupil who makes the task's characteristic
mistakes at a rate that depends on the kind of sum (`NOISE`, `HUNDREDS_HABIT`), and who, given a checker's diagnosis
in the feedback slot, avoids the named mistakes. The examples are of four kinds (`SFT_MIX`):

- turn 0: an empty feedback block, then a noisy working and total;
- structured feedback: the checker's report on failed responses prefilled as `<thinking><feedback>...</feedback>`,
  exactly as MulFeRL injects it, then a working that avoids the named mistakes (other slips at `FEEDBACK_SLIP_RATE`);
- plain feedback: the same report appended to the question (MulFeRL's "plain" injection ablation);
- a draft: the question with a previous attempt appended (iGRPO's Stage 2 prompt); a right draft is confirmed, a
  wrong one gets a fresh noisy attempt, since a draft says nothing about what is wrong with it.

With `WarmStartConfig(own_plan=True)` the pupil fills the feedback slot itself at turn 0, as the authors' released
code asks its policy to ("likely pitfalls", then fix steps): a plan that is mostly generic, sometimes names one of
its usual slips, and only as rarely as the hundreds habit breaks names the missing hundreds digit; its working then
avoids what the plan names. The plan is the checker's own sentence, so what RL teaches the policy to do after the
checker's words applies when it writes them itself, and RL trains the plan's tokens (`OWN_PLAN_SYSTEM_PROMPT` asks
for the plan; every prompt of such a policy carries it).

The loss covers what the policy writes, never the prompt or an injected prefill. `warm_start` caches the result in a
folder and reuses it when the settings match; `evaluate_policy` measures held-out pass@1 without and with test-time
feedback, through the evaluation loop and the same injection the trainer uses.
"""

import hashlib
import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from ..core.schema import PLAIN_FEEDBACK_HEADER, append_to_prompt, feedback_prefill, sanitize_feedback
from ..evaluation.metrics import mean_std
from ..feedback import CheckerFeedbackProvider, aggregate_diagnostics
from ..igrpo.igrpo_config import DEFAULT_DRAFT_TEMPLATE
from ..igrpo.igrpo_trainer import append_draft
from ..tiny import build_qwen2, train_tokenizer
from .addition import (
    DROPPED_CARRY,
    DROPPED_HUNDREDS,
    EXTRA_CARRY,
    KINDS,
    MISTAKE_DIAGNOSES,
    MISTAKES,
    ONES_SLIP,
    TENS_SLIP,
    addition_reward,
    continuation,
    diagnose,
    difficulty,
    make_splits,
    possible_mistakes,
    question,
    response,
    working,
)


# The pupil's slips without feedback, per kind of sum: relative weights of at most one slip in the working (None: no
# slip), over the slips that change the total of the sum at hand. A sum without a carry is mostly right; one with a
# carry mostly loses it. No slip puts digits in the wrong place: the small policy miscopies digits by itself, and a
# taught miscopy would only make its copying worse.
NOISE = {
    "no_carry": {None: 0.80, EXTRA_CARRY: 0.10, ONES_SLIP: 0.05, TENS_SLIP: 0.05},
    "carry": {None: 0.35, DROPPED_CARRY: 0.55, ONES_SLIP: 0.05, TENS_SLIP: 0.05},
    "hundreds": {None: 0.70, DROPPED_CARRY: 0.10, EXTRA_CARRY: 0.10, ONES_SLIP: 0.05, TENS_SLIP: 0.05},
}
# And a habit on top of any slip: a total of 100 or more keeps only its last two digits. Without feedback a sum that
# reaches 100 is then almost never right, so GRPO sees groups in which every rollout fails; a diagnosis that names the
# missing hundreds digit breaks the habit.
HUNDREDS_HABIT = 0.98
# After a diagnosis the named mistakes are avoided; any other slip still comes in at this rate.
FEEDBACK_SLIP_RATE = 0.05
SFT_MIX = {"turn_0": 0.45, "structured": 0.45, "plain": 0.05, "draft": 0.05}
# Distinct diagnoses per feedback: the two most frequent mistakes of a group (shorter feedback, faster fine-tuning).
MAX_REPORTS = 2
# Failed responses a diagnosis is written about: a training group (K = 8, or its subgroups) or a single test-time one.
FEEDBACK_GROUP_SIZES = (1, 1, 2, 4, 8, 8)
TEMPLATE = "qwen3_instruct_2507"  # no default system prompt: the questions stay a dozen tokens long
# The own-plan pupil's system prompt and its plan when it names no mistake.
OWN_PLAN_SYSTEM_PROMPT = "First write the likely pitfalls and how to avoid them in the feedback slot."
GENERIC_PLAN = "Pitfalls: none seen."
# How often the own plan names one of the pupil's usual slips (one of the sum's `NOISE`, uniformly), and how often it
# names the missing hundreds digit: as often as the habit breaks, so that without feedback a group still fails whole.
PLAN_NAMES_A_SLIP = 0.3
PLAN_NAMES_HUNDREDS = 1 - HUNDREDS_HABIT


def sample_mistakes(a: int, b: int, rng: random.Random, avoid=frozenset(), own_plan: bool = False) -> tuple[str, ...]:
    """The pupil's mistakes on a + b (none: the sum is right): a slip drawn from `NOISE` and the hundreds habit.

    After feedback that named the mistakes `avoid`, none of those comes back, another slip comes in at
    `FEEDBACK_SLIP_RATE`, and the hundreds habit stays unless it was named. When the pupil's own plan named them
    (`own_plan`), the other slips keep their `NOISE` weights.
    """
    possible = possible_mistakes(a, b)
    weights = NOISE[difficulty(a, b)]
    slips = [m for m in possible if m in weights and m not in avoid]  # the hundreds habit comes on top
    if avoid and not own_plan:
        slip = rng.choice(slips) if slips and rng.random() < FEEDBACK_SLIP_RATE else None
    else:
        choices = [None, *slips]
        slip = rng.choices(choices, weights=[weights[m] for m in choices])[0]
    mistakes = () if slip is None else (slip,)
    if DROPPED_HUNDREDS in possible and DROPPED_HUNDREDS not in avoid and rng.random() < HUNDREDS_HABIT:
        mistakes += (DROPPED_HUNDREDS,)
    return mistakes


def failed_responses(a: int, b: int, rng: random.Random, count: int) -> list[str]:
    """`count` wrong turn-0 responses to a + b, drawn as the pupil makes them."""
    responses = []
    while len(responses) < count:
        mistakes = sample_mistakes(a, b, rng)
        text, total = working(a, b, mistakes, rng)
        if total != a + b:
            responses.append(f"{feedback_prefill('')} {continuation(text, total)}")
    return responses


def planned_response(a: int, b: int, rng: random.Random) -> str:
    """A turn-0 response of the own-plan pupil: its plan in the feedback slot, then a working that avoids what the
    plan names."""
    possible = possible_mistakes(a, b)
    usual_slips = [m for m in possible if m in NOISE[difficulty(a, b)]]
    named = ()
    if DROPPED_HUNDREDS in possible and rng.random() < PLAN_NAMES_HUNDREDS:
        named = (DROPPED_HUNDREDS,)
    elif usual_slips and rng.random() < PLAN_NAMES_A_SLIP:
        named = (rng.choice(usual_slips),)
    plan = f"Pitfall: {MISTAKE_DIAGNOSES[named[0]]}" if named else GENERIC_PLAN
    mistakes = sample_mistakes(a, b, rng, avoid=frozenset(named), own_plan=True)
    return response(a, b, mistakes, feedback=plan, rng=rng)


def prompt_messages(a: int, b: int, own_plan: bool = False) -> list[dict[str, str]]:
    """The question as a conversation; an own-plan policy's carries `OWN_PLAN_SYSTEM_PROMPT`."""
    system = [{"role": "system", "content": OWN_PLAN_SYSTEM_PROMPT}] if own_plan else []
    return [*system, {"role": "user", "content": question(a, b)}]


def checker_report(a: int, b: int, responses: list[str]) -> tuple[str, frozenset[str]]:
    """What `checker_provider()` answers about these failed responses, cleaned as the trainer cleans feedback
    before injecting it, and the mistakes it names."""
    diagnostics = [diagnose(question(a, b), r) for r in responses]
    provider = checker_provider()
    report = sanitize_feedback(aggregate_diagnostics(diagnostics, provider.max_reports, provider.max_chars))
    return report, frozenset(m for m in MISTAKES if MISTAKE_DIAGNOSES[m] in report)


def checker_provider() -> CheckerFeedbackProvider:
    """The addition task's feedback provider: the checker's diagnoses of a failed group, as the warm start was taught
    them."""
    return ADDITION.checker_provider()


@dataclass
class Example:
    prompt: list[dict[str, str]]
    prefill: str  # given, as MulFeRL's structured injection prefills it: no loss
    target: str  # written by the policy: the loss


def sft_example(a: int, b: int, rng: random.Random, own_plan: bool = False) -> Example:
    """One supervised example for a + b, of a kind drawn from `SFT_MIX`; at turn 0 the own-plan pupil writes its
    plan (`planned_response`)."""
    kind = rng.choices(list(SFT_MIX), weights=list(SFT_MIX.values()))[0]
    prompt = prompt_messages(a, b, own_plan)
    if kind == "turn_0" and own_plan:
        return Example(prompt, "", planned_response(a, b, rng))
    if kind == "turn_0":
        return Example(prompt, "", response(a, b, sample_mistakes(a, b, rng), rng=rng))
    if kind == "draft":
        draft_text, draft_total = working(a, b, sample_mistakes(a, b, rng), rng)
        mistakes = () if draft_total == a + b else sample_mistakes(a, b, rng)
        draft = f"{feedback_prefill('')} {continuation(draft_text, draft_total)}"
        return Example(append_draft(prompt, draft, DEFAULT_DRAFT_TEMPLATE), "", response(a, b, mistakes, rng=rng))
    report, named = checker_report(a, b, failed_responses(a, b, rng, rng.choice(FEEDBACK_GROUP_SIZES)))
    mistakes = sample_mistakes(a, b, rng, avoid=named)
    if kind == "plain":
        return Example(append_to_prompt(prompt, PLAIN_FEEDBACK_HEADER + report), "", response(a, b, mistakes, rng=rng))
    return Example(prompt, feedback_prefill(report), " " + continuation(*working(a, b, mistakes, rng)))


@dataclass(frozen=True)
class Task:
    """What the warm start, the evaluation and the learning benchmark need of a task: its problems, the pupil's
    examples, the feedback provider's checker and the reward. A problem is any hashable value of the task's own.

    Args:
        name: The task's name (the evaluation rows' benchmark, the warm start's fingerprint).
        kinds: The kinds of problems, as `kind` names them (the splits hold as many of each).
        make_splits: `seed -> splits` with `train`, `validation` and `test` lists of problems.
        kind: `problem -> kind`.
        prompt_messages: `(problem, own_plan) -> conversation`.
        solution: `problem -> reference answer` (the `solution` column, which the answer-leak guard reads).
        problem_id: `problem -> a unique id` (the evaluation's `problem_id`).
        sft_example: `(problem, rng, own_plan) -> Example`, drawn as the task's pupil answers.
        check: The checker of the task's `CheckerFeedbackProvider`, `(problem, completion, columns) -> str | None`.
        reward: The TRL reward function.
        verify: `(answer, evaluation row) -> bool`, the evaluation's verdict; None scores the rows' `answer_type`.
        data: What the pupil's examples depend on besides the problems (noise, mix): part of the warm start's
            fingerprint, so that a change to it makes a new policy.
        max_reports: The provider's distinct reports per feedback.
    """

    name: str
    kinds: tuple[str, ...]
    make_splits: Callable[[int], Any]
    kind: Callable[[Any], str]
    prompt_messages: Callable[[Any, bool], list[dict[str, str]]]
    solution: Callable[[Any], str]
    problem_id: Callable[[Any], str]
    sft_example: Callable[[Any, random.Random, bool], "Example"]
    check: Callable
    reward: Callable
    verify: Callable[[str | None, dict], bool] | None = None
    data: dict = field(default_factory=dict)
    max_reports: int = MAX_REPORTS

    def checker_provider(self) -> CheckerFeedbackProvider:
        """The task's feedback provider, as the warm start was taught to read it."""
        return CheckerFeedbackProvider(self.check, max_reports=self.max_reports)

    def evaluation_rows(self, problems: list, own_plan: bool = False) -> list[dict]:
        """Rows for `trl_mulferl.evaluation.runner.evaluate`."""
        return [
            {
                "benchmark": self.name,
                "problem_id": self.problem_id(problem),
                "prompt": self.prompt_messages(problem, own_plan),
                "solution": self.solution(problem),
                "answer_type": "math",
            }
            for problem in problems
        ]


def tokenizer_corpus(task: Task, problems: list, seed: int, own_plan: bool = False) -> list[str]:
    """Text to train the tokenizer on: every kind of example, the chat template's markers and every diagnosis."""
    rng = random.Random(seed)
    texts = []
    for problem in problems:
        example = task.sft_example(problem, rng, own_plan)
        texts += [message["content"] for message in example.prompt] + [example.prefill, example.target]
    markers = ["<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"]
    return texts + markers + (["<|im_start|>system\n"] if own_plan else [])


@dataclass
class WarmStartConfig:
    """The warm start's model and fine-tuning settings; a cached checkpoint is reused only when all of them match."""

    seed: int = 0
    hidden_size: int = 128
    num_layers: int = 2
    vocab_size: int = 500
    steps: int = 1000
    batch_size: int = 32
    learning_rate: float = 4e-3
    warmup_steps: int = 30
    # Turn 0 writes the pupil's own plan in the feedback slot instead of leaving it empty (`planned_response`).
    own_plan: bool = False


def tokenize_example(tokenizer, example: Example) -> tuple[list[int], list[int]]:
    """Input ids and labels (-100 on the prompt and prefill), tokenized as the trainer builds a regeneration: the
    chat-templated prompt, then the prefill's own tokens, then the policy's, then the end of the turn."""
    prompt = tokenizer.apply_chat_template(example.prompt, add_generation_prompt=True, tokenize=False)
    context = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    if example.prefill:
        context += tokenizer(example.prefill, add_special_tokens=False)["input_ids"]
    target = tokenizer(example.target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    return context + target, [-100] * len(context) + target


def fine_tune(model, tokenizer, task: Task, problems: list, config: WarmStartConfig, log=print) -> list[float]:
    """Supervised fine-tuning on `config.steps` batches of fresh examples of `problems`; returns the loss per step."""
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, betas=(0.9, 0.98), weight_decay=0.01)

    def learning_rate_factor(step: int) -> float:  # linear warm-up, then cosine decay to a tenth
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
        return 0.1 + 0.45 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, learning_rate_factor)
    model.train()
    losses = []
    batches = []
    for step in range(config.steps):
        if not batches:
            count = min(8, config.steps - step)
            batches = length_buckets(tokenizer, task, problems, rng, config.batch_size, count, config.own_plan)
        loss = completion_loss(model, batches.pop(), tokenizer.pad_token_id)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if log is not None and (step + 1) % 100 == 0:
            log(f"warm start: step {step + 1}/{config.steps}, loss {sum(losses[-100:]) / 100:.3f}")
    model.eval()
    return losses


def length_buckets(
    tokenizer, task: Task, problems: list, rng: random.Random, batch_size: int, count: int, own_plan: bool
) -> list[list]:
    """`count` batches of fresh tokenized examples, made of examples of similar length (less padding), shuffled."""
    examples = [
        tokenize_example(tokenizer, task.sft_example(rng.choice(problems), rng, own_plan))
        for _ in range(batch_size * count)
    ]
    examples.sort(key=lambda example: len(example[0]))
    batches = [examples[i : i + batch_size] for i in range(0, len(examples), batch_size)]
    rng.shuffle(batches)
    return batches


def completion_loss(model, batch: list[tuple[list[int], list[int]]], pad_token_id: int) -> torch.Tensor:
    """Mean cross-entropy of the labelled tokens; the output layer runs on those positions only."""
    width = max(len(ids) for ids, _ in batch)
    input_ids = torch.tensor([ids + [pad_token_id] * (width - len(ids)) for ids, _ in batch])
    labels = torch.tensor([labels + [-100] * (width - len(labels)) for _, labels in batch])
    attention_mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch])
    hidden = model.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    targets = labels[:, 1:]
    scored = targets != -100
    logits = model.lm_head(hidden[:, :-1][scored])
    return torch.nn.functional.cross_entropy(logits.float(), targets[scored])


def addition_id(pair: tuple[int, int]) -> str:
    return f"{pair[0]}+{pair[1]}"


# Two-digit addition with the checker's diagnoses (`trl_mulferl.demo.addition`): the learning benchmark's first task.
ADDITION = Task(
    name="addition",
    kinds=KINDS,
    make_splits=make_splits,
    kind=lambda pair: difficulty(*pair),
    prompt_messages=lambda pair, own_plan: prompt_messages(*pair, own_plan),
    solution=lambda pair: str(sum(pair)),
    problem_id=addition_id,
    sft_example=lambda pair, rng, own_plan: sft_example(*pair, rng, own_plan),
    check=diagnose,
    reward=addition_reward,
    data={"noise": NOISE, "habit": HUNDREDS_HABIT, "feedback_slip_rate": FEEDBACK_SLIP_RATE, "mix": SFT_MIX},
)


def warm_start(
    directory: str | Path, problems: list, config: WarmStartConfig, log=print, task: Task = ADDITION
) -> str:
    """The fine-tuned policy and its tokenizer in `directory` (returned, as a path): made there, or reused when a
    previous call with the same settings and training problems left it."""
    directory = Path(directory)
    # The pupil's noise and the example mix make the data as much as the settings do: a change to them is a new policy.
    data = dict(task.data)
    if config.own_plan:
        if task is not ADDITION:
            raise ValueError(f"own_plan is a pupil of the addition task only, not of {task.name!r}.")
        data["own_plan"] = [OWN_PLAN_SYSTEM_PROMPT, GENERIC_PLAN, PLAN_NAMES_A_SLIP, PLAN_NAMES_HUNDREDS]
    # addition's identity predates tasks: kept as it was, so that its cached warm starts are reused
    identity = [problems, data, TEMPLATE] if task is ADDITION else [task.name, problems, data, TEMPLATE]
    settings = {**asdict(config), "pairs": len(problems), "data_hash": fingerprint(identity)}
    record = directory / "warm_start.json"
    if record.is_file() and json.loads(record.read_text())["settings"] == settings:
        if log is not None:
            log(f"warm start: reusing {directory}")
        return str(directory)
    start, cpu_start = time.perf_counter(), time.process_time()
    corpus = tokenizer_corpus(task, problems, config.seed, config.own_plan)
    tokenizer = train_tokenizer(corpus, config.vocab_size, template=TEMPLATE)
    model = build_qwen2(tokenizer, hidden_size=config.hidden_size, num_layers=config.num_layers, seed=config.seed)
    losses = fine_tune(model, tokenizer, task, problems, config, log)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    seconds = {"wall_time_s": time.perf_counter() - start, "cpu_time_s": time.process_time() - cpu_start}
    record.write_text(json.dumps({"settings": settings, **seconds, "final_loss": losses[-1]}, indent=2) + "\n")
    return str(directory)


def fingerprint(value) -> str:
    return hashlib.sha256(json.dumps(value, default=asdict).encode()).hexdigest()[:16]


def addition_problems(pairs: list[tuple[int, int]], own_plan: bool = False) -> list[dict]:
    """Rows for `trl_mulferl.evaluation.runner.evaluate`."""
    return ADDITION.evaluation_rows(pairs, own_plan)


def evaluate_policy(
    model,
    tokenizer,
    problems: list,
    samples: int,
    max_new_tokens: int,
    seed: int = 0,
    own_plan: bool = False,
    task: Task = ADDITION,
) -> dict:
    """Held-out pass@1 without feedback and after one turn of test-time checker feedback, with 95% intervals.

    `samples` answers per problem at temperature 1 (as in training); every wrong one gets the task's feedback
    injected as the trainer injects it (`<thinking><feedback>...</feedback>` prefilled) and is answered again.
    The interval is mean +- 1.96 standard errors over problems (each problem's mean over its samples).
    """
    from ..evaluation.backends import TransformersBackend
    from ..evaluation.metrics import standing
    from ..evaluation.runner import FeedbackSettings, evaluate

    backend = TransformersBackend(model, tokenizer, max_tokens=max_new_tokens, temperature=1.0, batch_size=256)
    with torch.random.fork_rng(devices=[]):  # a run evaluated halfway trains on as if it had not been
        torch.manual_seed(seed)
        records = evaluate(
            task.evaluation_rows(problems, own_plan),
            backend,
            num_samples=samples,
            feedback_turns=1,
            feedback=FeedbackSettings(task.checker_provider()),
            seed=seed,
            show_progress=False,
            verify=task.verify,
        )
    kind_of = {task.problem_id(problem): task.kind(problem) for problem in problems}
    result = {}
    for turn, name in enumerate(("no_feedback", "feedback")):
        correct = standing(records, turn)
        per_problem = {}
        for (_, problem_id, _), right in correct.items():
            per_problem.setdefault(problem_id, []).append(right)
        result[name] = mean_interval([sum(v) / len(v) for v in per_problem.values()])
        by_kind = {}
        for problem_id, values in per_problem.items():
            by_kind.setdefault(kind_of[problem_id], []).extend(values)
        result[f"{name}_by_difficulty"] = {kind: sum(v) / len(v) for kind, v in sorted(by_kind.items())}
    return result


def mean_interval(values: list[float], quantile: float = 1.96) -> dict[str, float]:
    """The mean and its 95% interval, mean +- `quantile` standard errors (normal by default)."""
    mean, std = mean_std(values)
    error = quantile * std / math.sqrt(len(values))
    return {"mean": mean, "low": mean - error, "high": mean + error}
