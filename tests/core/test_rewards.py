import json

import pytest

from trl_mulferl import accuracy_reward


def compliant(answer: str) -> str:
    return f"<thinking><feedback></feedback>Reasoning.</thinking> The final answer is \\boxed{{{answer}}}"


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_correctness_and_compliance_are_both_required():
    completions = [
        compliant("\\frac{1}{3}"),  # correct, compliant
        compliant("0.5"),  # wrong, compliant
        "The final answer is \\boxed{\\frac{1}{3}}",  # correct, not compliant
        compliant("\\frac{2}{6}"),  # equivalent form
        "<thinking><feedback></feedback>\\boxed{\\frac{1}{3}}</thinking> no box",  # box only inside reasoning
    ]
    assert accuracy_reward(completions, ["\\frac{1}{3}"] * 5) == [1.0, 0.0, 0.0, 1.0, 0.0]


def test_conversational_completions_and_plain_solutions():
    completions = [
        [{"role": "assistant", "content": compliant("27")}],
        [{"role": "assistant", "content": compliant("28")}],
    ]
    assert accuracy_reward(completions, ["27.0", "$27$"]) == [1.0, 0.0]


def test_unparseable_solution_is_none():
    assert accuracy_reward([compliant("4"), "not compliant"], ["", ""]) == [None, None]


def test_logs_extra_columns():
    logged = {}
    accuracy_reward(
        [compliant("4"), "\\boxed{4}"], ["4", "4"], log_extra=lambda column, values: logged.update({column: values})
    )
    assert logged == {"schema_compliant": [True, False], "answer": ["4", None]}


@pytest.mark.parametrize(
    ("folder", "answer_of"),
    [
        ("math500", lambda row: row["answer"]),
        ("aime24", lambda row: str(row["answer"])),
        ("amc23", lambda row: str(row["answer"])),
        ("gsm8k", lambda row: row["answer"].split("####")[-1].strip()),
    ],
)
def test_reference_answers_of_benchmarks_verify(shared_data, folder, answer_of):
    """A compliant response boxing each reference answer earns 1; the same response without </thinking> earns 0."""
    answers = [answer_of(row) for row in read_jsonl(shared_data / folder / "test.jsonl")]
    accepted = accuracy_reward([compliant(answer) for answer in answers], answers)
    rejected = accuracy_reward([compliant(answer).replace("</thinking>", "") for answer in answers], answers)
    agreement = sum(reward == 1.0 for reward in accepted) / len(answers)
    print(f"{folder}: {len(answers)} problems, agreement {agreement:.3f}")
    assert agreement == 1.0
    assert all(reward == 0.0 for reward in rejected)


def test_math500_rejects_other_problems_answers(shared_data):
    answers = [row["answer"] for row in read_jsonl(shared_data / "math500" / "test.jsonl")]
    shifted = answers[1:] + answers[:1]
    rewards = accuracy_reward([compliant(answer) for answer in shifted], answers)
    false_accepts = [(a, b) for a, b, r in zip(shifted, answers, rewards) if r == 1.0 and a.strip() != b.strip()]
    # Different problems rarely share an answer; the few hits must be genuinely equivalent values.
    assert len(false_accepts) <= 5, false_accepts


def test_the_schema_trap_is_marked_and_counted():
    """The issue's trap: a correct answer without the schema scores 0 with ours and 1 with TRL's reward; ours says it
    requires the schema, which the start-up check and the run-time count read."""
    from trl.rewards import accuracy_reward as trl_accuracy_reward

    from trl_mulferl.core.rewards import requires_schema, schema_noncompliant_rows

    bare = "So the sum is \\boxed{7}."
    assert accuracy_reward([bare], ["7"]) == [0.0] and trl_accuracy_reward(
        [[{"role": "assistant", "content": bare}]], ["7"]
    ) == [1.0]
    assert requires_schema(accuracy_reward) and not requires_schema(trl_accuracy_reward)
    completions = [
        compliant("7"),
        bare,
        [{"role": "assistant", "content": compliant("7")}],
        [{"role": "assistant", "content": bare}],
    ]
    assert schema_noncompliant_rows(completions) == 2
