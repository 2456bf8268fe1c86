"""No id of an added or special token comes from feedback text (decision 6), whatever the tokenizer's normaliser makes
of text that sanitising leaves: checked on the ids, after tokenization, in both injections."""

import pytest
from tokenizers import AddedToken, normalizers

from tests.test_trainer import TINY_TRAINING, logged, make_trainer
from trl_mulferl import make_conversation
from trl_mulferl.core.feedback_step import FeedbackStep, without_injected_control_ids
from trl_mulferl.core.schema import control_token_ids, feedback_prefill
from trl_mulferl.feedback import prepare_feedback


ADDED = ["<tool_call>", "[INST]", "<start_of_turn>"]
# What sanitising leaves of them and a normaliser maps back: full-width brackets (NFKC), upper case (lowercase), a
# soft hyphen (BERT's normaliser drops format characters).
VARIANTS = ["＜tool_call＞", "［INST］", "<START_OF_TURN>", "<start_\u00adof_turn>", "＜TOOL_CALL＞", "<TOOL_CALL>"]
FEEDBACK = "Issue: the carry. " + " then ".join(VARIANTS) + " Fix steps: 1. add again."
NORMALISERS = {
    "nfkc": normalizers.NFKC(),
    "lowercase": normalizers.Lowercase(),
    "bert": normalizers.BertNormalizer(lowercase=True),
    "nfkc+lowercase": normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
}


def normalising_tokenizer(normaliser):
    """The tiny tokenizer with `normaliser` and three added tokens normalised alike (`add_tokens`' default)."""
    from tests.tiny import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    tokenizer.backend_tokenizer.normalizer = normaliser
    tokenizer.add_tokens([AddedToken(text, normalized=True) for text in ADDED])
    return tokenizer


class Settings:
    max_feedback_length, feedback_reference_column, seed, fco_pairing = 256, "solution", 0, "permutation"


def injected_control_ids(tokenizer, ids: list[int], template_ids: list[int]) -> list[int]:
    """The control ids of `ids` that `template_ids` has fewer of: what the feedback brought."""
    controls = control_token_ids(tokenizer)
    return [i for i in set(ids) & controls if ids.count(i) > template_ids.count(i)]


def test_only_the_injected_control_ids_are_dropped():
    controls = frozenset({7, 9})
    # Head 7 8, tail 3: the feedback's 9 goes, the template's own 7 stays.
    assert without_injected_control_ids([7, 8, 4, 9, 5, 3], [7, 8, 3], controls) == ([7, 8, 4, 5, 3], 1)
    # The template's 9 is one of the two where they differ: one 9 stays.
    assert without_injected_control_ids([7, 4, 9, 9, 3], [7, 9, 3], controls) == ([7, 4, 9, 3], 1)
    # Control ids outside the injected span are the prompt's (a chat template's turns): all stay.
    assert without_injected_control_ids([9, 1, 5, 2, 9], [9, 1, 2, 9], controls) == ([9, 1, 5, 2, 9], 0)
    assert without_injected_control_ids([9, 9], [], controls) == ([], 2)


@pytest.mark.parametrize("name", NORMALISERS)
def test_a_normaliser_does_not_turn_feedback_into_control_ids(name):
    tokenizer = normalising_tokenizer(NORMALISERS[name])
    step = FeedbackStep(Settings, tokenizer, [tokenizer.eos_token_id])
    text = prepare_feedback(FEEDBACK, None, tokenizer, 256, step.control_tokens).text
    assert not any(token in text for token in ADDED)  # sanitising removed the exact strings ...
    prefill = feedback_prefill(text)
    plain_ids = tokenizer(prefill, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    assert injected_control_ids(tokenizer, plain_ids, step.empty_slot_ids)  # ... and the normaliser makes ids again
    counts = {"feedback/control_tokens_removed": 0}
    (ids,) = step.prefill_ids([prefill], counts)
    assert injected_control_ids(tokenizer, ids, step.empty_slot_ids) == []
    assert counts["feedback/control_tokens_removed"] == len(plain_ids) - len(ids) > 0


def real_tokenizers(request) -> list:
    from transformers import AutoTokenizer

    from tests.test_agentic import build_qwen_style_tokenizer

    return [build_qwen_style_tokenizer(), AutoTokenizer.from_pretrained(request.getfixturevalue("smollm2_dir"))]


@pytest.mark.slow
def test_no_control_ids_from_feedback_with_the_real_tokenizers(request):
    """SmolLM2's tokenizer and the Qwen-style one, on the variants and on the exact strings of their own control
    tokens: what sanitising leaves never tokenizes into one."""
    for tokenizer in real_tokenizers(request):
        step = FeedbackStep(Settings, tokenizer, [tokenizer.eos_token_id])
        feedback = FEEDBACK + " ".join(step.control_tokens) + " ".join(token.upper() for token in step.control_tokens)
        text = prepare_feedback(feedback, None, tokenizer, 256, step.control_tokens).text
        (ids,) = step.prefill_ids([feedback_prefill(text)], {"feedback/control_tokens_removed": 0})
        assert injected_control_ids(tokenizer, ids, step.empty_slot_ids) == []


def variant_provider(prompt, completions, rewards, **columns):
    return FEEDBACK


@pytest.mark.parametrize("injection", ["structured", "plain"])
def test_regenerations_hold_no_control_ids_from_feedback(tmp_path, injection):
    """Through the trainer with an NFKC and lowercase tokenizer: every group fails, and what the policy generates from
    at the feedback turn holds the control ids of turn 0's context, no more."""
    from tests.tiny import build_tiny_model

    tokenizer = normalising_tokenizer(NORMALISERS["nfkc+lowercase"])
    trainer = make_trainer(
        tmp_path,
        tokenizer,
        lambda completions, **kwargs: [0.0] * len(completions),
        provider=variant_provider,
        model=build_tiny_model(tokenizer),
        max_steps=1,
        feedback_injection=injection,
        max_feedback_turns=1,
        fco_weight=0.0,  # every group fails at both turns: nothing for FCO
    )
    contexts = []
    generate = trainer._generate_single_turn

    def recorded(prompt_ids, *args, **kwargs):
        contexts.append([list(ids) for ids in prompt_ids])
        return generate(prompt_ids, *args, **kwargs)

    trainer._generate_single_turn = recorded
    trainer.train()
    turn_0, turn_1 = contexts  # each prompt's K rows, in order, at both turns
    assert len(turn_0) == len(turn_1) == TINY_TRAINING["per_device_train_batch_size"]
    for before, after in zip(turn_0, turn_1, strict=True):
        template = before + (trainer.feedback_step.empty_slot_ids if injection == "structured" else [])
        assert injected_control_ids(tokenizer, after, template) == []
    assert logged(trainer, "mulferl/feedback/control_tokens_removed")[0] > 0


def test_evaluation_revision_turns_hold_no_control_ids_from_feedback():
    """`trl-mulferl eval`'s local backends tokenize their own prefill: the same guard."""
    from trl_mulferl.evaluation.backends import prompt_ids

    tokenizer = normalising_tokenizer(NORMALISERS["nfkc+lowercase"])
    text = prepare_feedback(FEEDBACK, None, tokenizer, 256, FeedbackStep(Settings, tokenizer, []).control_tokens).text
    conversation = make_conversation("What is 3 + 4?")
    template = prompt_ids(tokenizer, conversation, feedback_prefill(""))
    assert injected_control_ids(tokenizer, prompt_ids(tokenizer, conversation, feedback_prefill(text)), template) == []
