"""The tiny-model training settings, scripted rewards and feedback providers, and the trainer probes the tests share."""

from datasets import Dataset

from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation


MARKER = "MARKERWORD"
K = 2
CPU = {"use_cpu": True, "bf16": False}
# 2 steps of 2 prompts x K rows on the tiny model; a large learning rate so one step visibly moves the weights.
TINY_TRAINING = {
    "per_device_train_batch_size": 4,
    "num_generations": K,
    "max_completion_length": 8,
    "max_steps": 2,
    "learning_rate": 1e-2,
    "logging_steps": 1,
    "save_strategy": "no",
    "report_to": "none",
    "use_cpu": True,
    "bf16": False,
    "seed": 0,
}


def completion_texts(completions):
    return [c if isinstance(c, str) else c[0]["content"] for c in completions]


def marker_reward(completions, **kwargs):
    return [float(MARKER in text) for text in completion_texts(completions)]


def marker_provider(prompt, completions, rewards, **columns):
    return f"Issue: the answer misses {MARKER}. Fix steps: 1. write it."


def make_dataset(num_prompts=4):
    rows = [{"prompt": make_conversation(f"What is {i} + {i}?"), "solution": str(2 * i)} for i in range(num_prompts)]
    return Dataset.from_list(rows)


def make_trainer(
    tmp_path,
    tiny_tokenizer,
    reward,
    provider=marker_provider,
    model=None,
    eval_dataset=None,
    peft_config=None,
    train_dataset=None,
    **overrides,
):
    from tests.helpers.tiny import build_tiny_model

    settings = {**TINY_TRAINING, "output_dir": str(tmp_path), **overrides}
    return MulFeRLTrainer(
        model=model or build_tiny_model(tiny_tokenizer),
        reward_funcs=reward,
        args=MulFeRLConfig(**settings),
        train_dataset=make_dataset() if train_dataset is None else train_dataset,
        eval_dataset=eval_dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=provider,
        peft_config=peft_config,
    )


def count_generation_calls(trainer):
    calls = []
    original = trainer._generate_single_turn

    def counted(prompt_ids, *args, **kwargs):
        calls.append((trainer.state.global_step, len(prompt_ids)))
        return original(prompt_ids, *args, **kwargs)

    trainer._generate_single_turn = counted
    return calls


def logged(trainer, key):
    return [entry[key] for entry in trainer.state.log_history if key in entry]


def capture_generation_outputs(trainer):
    outputs = []
    original = trainer._generate_and_score_completions

    def captured(inputs):
        outputs.append(original(inputs))
        return outputs[-1]

    trainer._generate_and_score_completions = captured
    return outputs


# Rewards per turn for the two rollouts of each kind of prompt; the feedback of turn t carries "ROUND{t}".
SCRIPTED_REWARDS = {
    "solved_skip": [[1.0, 1.0]],
    "grpo_turn0": [[1.0, 0.0]],
    "grpo_turn1": [[0.0, 0.0], [1.0, 0.0]],
    "fco_turn1": [[0.0, 0.0], [1.0, 1.0]],
    "fco_turn2": [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]],
    "unresolved": [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
    "unscorable": [[None, None]],  # no scorable rollout (a group with one is routed on the others, decision 5)
}


def turn_of(text):
    return 2 if "ROUND2" in text else 1 if "ROUND1" in text else 0


def scripted_reward(completions, kind, **kwargs):
    texts = completion_texts(completions)
    return [SCRIPTED_REWARDS[kind[i]][turn_of(text)][i % K] for i, text in enumerate(texts)]


def round_provider(prompt, completions, rewards, **columns):
    return f"Issue: ROUND{turn_of(completions[0]) + 1}. Fix steps: 1. retry."


def loss_and_gradients(model, compute_loss):
    model.zero_grad()
    loss = compute_loss()
    loss.backward()
    gradients = [p.grad.clone() for p in model.parameters() if p.grad is not None]
    model.zero_grad()
    return loss.detach(), gradients
