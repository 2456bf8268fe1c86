"""FCO training (paper eqs. 13-17, spec decision 2): gradient, end to end, PEFT, and the ablation switches."""

import math
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM
from trl import GRPOTrainer

from tests.helpers.trainer import (
    MARKER,
    K,
    capture_generation_outputs,
    count_generation_calls,
    logged,
    make_trainer,
    marker_provider,
    marker_reward,
)
from trl_mulferl import MulFeRLTrainer, make_generator, sample_fco_pairs
from trl_mulferl.mulferl import fco_rows, mulferl_trainer
from trl_mulferl.mulferl.fco_rows import fco_term, forward_rows, partner_term


def direct_logps(model, prompt_ids, prompt_mask, completion_ids, completion_mask, temperature):
    """log pi(y_t | c, y_<t) of every completion token, from the logits scaled by the sampling temperature."""
    input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
    attention_mask = torch.cat([prompt_mask, completion_mask], dim=1)
    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
    logits = logits[:, prompt_ids.size(1) - 1 : -1] / temperature
    return logits.log_softmax(-1).gather(-1, completion_ids.unsqueeze(-1)).squeeze(-1)


def eq15_loss(model, reference, batch, args, pairs_per_group):
    """fco_weight * sum over FCO prompts of the mean pair loss (eqs. 13-15), / prompts in the generation batch."""
    positive = [batch[key] for key in ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask")]
    negative = [batch[f"mulferl_partner_{key}"] for key in ("prompt_ids", "prompt_mask", "completion_ids")]
    negative.append(batch["mulferl_partner_completion_mask"])
    pos_mask = (batch["completion_mask"] * batch["tool_mask"]).float()
    neg_mask = batch["mulferl_partner_score_mask"].float()

    def scores(sequences, mask):
        logps = direct_logps(model, *sequences, args.temperature)
        with torch.no_grad():
            ref_logps = direct_logps(reference, *sequences, args.temperature)
        log_ratio = ((logps - ref_logps) * mask).sum(-1)
        return log_ratio / mask.sum(-1) if args.fco_score_normalization == "mean" else log_ratio

    pos_scores, partner_scores = scores(positive, pos_mask), scores(negative, neg_mask)
    k, total = args.num_generations, 0.0
    for group, pairs in enumerate(pairs_per_group):
        pos, partners = pos_scores[group * k : (group + 1) * k], partner_scores[group * k : (group + 1) * k]
        # Row j carries negative pi(j) under the permutation (its pair whole), negative j under all pairs.
        neg = torch.empty_like(partners)
        neg[pairs[:k, 1] if args.fco_pairing == "permutation" else torch.arange(k)] = partners
        gaps = pos[pairs[:, 0]] - neg[pairs[:, 1]] - args.fco_margin
        total = total + (-F.logsigmoid(args.fco_tau * gaps)).mean()
    return args.fco_weight * total / len(pairs_per_group)


def train_one_fco_step(tmp_path, tiny_tokenizer, tiny_model_dir, **overrides):
    """One all-FCO step with the learning rate at 0 (the parameters stay those of generation time), against a
    reference perturbed away from the policy so that scores and sigmoid weights are not trivial."""
    settings = {"fco_weight": 1.0, "fco_tau": 2.0, "loss_type": "grpo", **overrides}
    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1, learning_rate=0.0, **settings
    )
    with torch.no_grad():
        for parameter in trainer.ref_model.parameters():
            parameter.add_(0.05 * torch.randn_like(parameter))
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    return trainer, outputs[0]


NORMALIZATIONS = ["sum", "mean"]


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_fco_gradient_is_the_gradient_of_eq15(tmp_path, tiny_tokenizer, tiny_model_dir, pairing, normalization):
    """Every prompt goes FAILED -> SOLVED; the GRPO term is then 0, so the step's gradient must be eq. 15's, with
    scores that sum (released code) or average (eq. 13) the token log-ratios."""
    trainer, batch = train_one_fco_step(
        tmp_path,
        tiny_tokenizer,
        tiny_model_dir,
        fco_pairing=pairing,
        fco_margin=0.1,
        temperature=0.7,
        fco_score_normalization=normalization,
    )
    args = trainer.args
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    assert logged(trainer, "mulferl/fco/pairs") == [2.0 * (2 if pairing == "permutation" else 4)]

    num_groups = batch["prompt_ids"].size(0) // args.num_generations
    pairs_per_group = [
        sample_fco_pairs(args.num_generations, pairing, make_generator(args.seed, 0, group))
        for group in range(num_groups)
    ]
    model = trainer.model
    model.train()
    model.zero_grad()
    loss = trainer._compute_loss(model, batch)  # back-propagates the negatives itself
    loss.backward()
    fco_gradients = [p.grad.clone() for p in model.parameters()]

    model.zero_grad()
    expected_loss = eq15_loss(model, trainer.ref_model, batch, args, pairs_per_group)
    expected_loss.backward()
    expected_gradients = [p.grad.clone() for p in model.parameters()]

    torch.testing.assert_close(loss, expected_loss.detach(), rtol=1e-5, atol=1e-7)  # GRPO term 0 + the true loss
    assert logged(trainer, "mulferl/fco/loss") == [pytest.approx(expected_loss.item(), rel=1e-5)]
    assert sum(g.abs().sum() for g in expected_gradients) > 1e-3
    # Summed scores: gradients up to |y| = 8 times larger; the partners share the loss's forward batch, whose float32
    # kernels round differently from the oracle's separate forwards (about 3e-6 here).
    atol = 1e-7 if normalization == "mean" else 5e-6
    for got, expected in zip(fco_gradients, expected_gradients, strict=True):
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=atol)


@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_partner_term_and_the_detached_fco_term_split_the_fco_gradient(pairing):
    """The partners' own backward (`partner_term`) and `fco_term` with the partners' scores detached: together the
    gradient of `fco_term` on both sides, and the value of the pair losses once."""
    args = SimpleNamespace(fco_pairing=pairing, fco_tau=2.0, fco_margin=0.1)
    torch.manual_seed(0)
    inputs = {
        "mulferl_partner_forwarded": torch.tensor([1.0, 0.0, 1.0, 1.0]),
        "mulferl_fco_weight": torch.tensor([0.1, 0.0, 0.2, 0.3]),
        "mulferl_fco_coefficient": torch.randn(4),
        "mulferl_partner_coefficient": torch.randn(4) * torch.tensor([1.0, 0.0, 1.0, 1.0]),
        **{f"mulferl_fco_{key}": torch.rand(4) for key in ("loss_sum", "gap_sum", "pairs")},
    }
    rows = torch.tensor([0, 2, 3])
    scores, partner = torch.randn(4, requires_grad=True), torch.randn(3, requires_grad=True)
    joined, joined_logged = fco_term(args, inputs, scores, partner)
    expected_scores, expected_partner = torch.autograd.grad(joined, [scores, partner])

    own = partner_term(args, inputs, partner, scores[rows] if pairing == "permutation" else None)
    got_partner, got_positive = torch.autograd.grad(own, [partner, scores], allow_unused=True)
    assert got_positive is None
    main, main_logged = fco_term(args, inputs, scores, partner.detach())
    (got_scores,) = torch.autograd.grad(main, [scores])
    torch.testing.assert_close(got_partner, expected_partner)
    torch.testing.assert_close(got_scores, expected_scores)
    assert main_logged == joined_logged
    torch.testing.assert_close(main, joined)
    if pairing == "permutation":  # sum of w * -log sigmoid(tau * (s+ - s- - margin)), by hand
        gaps = scores.detach()[rows] - partner.detach() - args.fco_margin
        by_hand = sum(
            w * -math.log(1 / (1 + math.exp(-args.fco_tau * gap)))
            for w, gap in zip(inputs["mulferl_fco_weight"][rows].tolist(), gaps.tolist(), strict=True)
        )
        assert main.item() == pytest.approx(by_hand, rel=1e-6)


@pytest.mark.parametrize("reference", ["generation", "loss"])
@pytest.mark.parametrize(
    ("pairing", "partner_pass", "gradient_checkpointing"),
    [
        ("permutation", "after", False),
        ("permutation", "after", True),
        ("permutation", "first", False),
        ("permutation", "first", True),
        ("all", "first", False),
    ],
    ids=[
        "permutation_after",
        "permutation_after_checkpointing",
        "permutation_first",
        "permutation_first_checkpointing",
        "all_first",
    ],
)
def test_partner_pass_of_its_own_equals_the_joined_forward(
    tmp_path, tiny_tokenizer, tiny_model_dir, monkeypatch, pairing, partner_pass, gradient_checkpointing, reference
):
    """One process and DDP back-propagate the partners in a pass of their own, so that no graph holds both sequences
    of every pair: right after TRL's loss forward, a chunk at a time, with the positives' scores from that forward
    (one process), or before it, with the positives' scores from a no-grad forward (DDP). Either way the gradient,
    the returned loss and the logged FCO metrics equal those of the joined forward DeepSpeed and FSDP run. The
    reference's side of the scores comes from generation (float32), or, as in reduced precision under the
    permutation, from a no-grad forward of each policy forward's tensors (the joined forward takes it from generation,
    where this batch is made)."""
    monkeypatch.setattr(MulFeRLTrainer, "_fco_partner_pass", "joined")
    if reference == "loss":
        in_loss = fco_rows.fco_reference_in_loss  # its precision condition, forced on

        def reference_in_loss(trainer):
            with pytest.MonkeyPatch.context() as precision:
                precision.setattr(trainer.args, "bf16", True)
                return in_loss(trainer)

        monkeypatch.setattr(fco_rows, "fco_reference_in_loss", reference_in_loss)
        monkeypatch.setattr(mulferl_trainer, "fco_reference_in_loss", reference_in_loss)
    trainer, batch = train_one_fco_step(
        tmp_path,
        tiny_tokenizer,
        tiny_model_dir,
        fco_pairing=pairing,
        fco_margin=0.1,
        temperature=0.7,
        fco_score_normalization="sum",
        gradient_checkpointing=gradient_checkpointing,
    )
    model, original = trainer.model, GRPOTrainer._get_per_token_logps_and_entropies
    model.train()

    def run(partner_pass: str):
        monkeypatch.setattr(MulFeRLTrainer, "_fco_partner_pass", partner_pass)
        forwards = []  # (with grad, input shape) of every forward of the model

        def counted(self, model, input_ids, *args, **kwargs):
            forwards.append((torch.is_grad_enabled(), tuple(input_ids.shape)))
            return original(self, model, input_ids, *args, **kwargs)

        monkeypatch.setattr(GRPOTrainer, "_get_per_token_logps_and_entropies", counted)
        metrics = trainer._metrics["train"] = defaultdict(list)
        model.zero_grad()
        loss = trainer._compute_loss(model, batch)
        loss.backward()
        return loss.detach(), [p.grad.clone() for p in model.parameters()], dict(metrics), forwards

    own_loss, own_gradients, own_metrics, own_forwards = run(partner_pass)
    joined_loss, joined_gradients, joined_metrics, joined_forwards = run("joined")

    rows, partners = batch["prompt_ids"].size(0), int(batch["mulferl_partner_forwarded"].sum())
    assert partners == rows == 4  # every row is an FCO positive with a partner
    assert [(grad, shape[0]) for grad, shape in joined_forwards] == [(True, rows + partners)]
    with_grad = sorted(shape for grad, shape in own_forwards if grad)
    no_grad = sorted(shape for grad, shape in own_forwards if not grad)
    assert sum(shape[0] for shape in with_grad) == rows + partners  # each row and each partner forwarded once
    if partner_pass == "after":  # the partners a quarter of the micro-batch's rows at a time
        assert sorted(shape[0] for shape in with_grad)[:partners] == [1] * partners
    # DDP's pass: a no-grad forward of the positives (and of their reference, in the loss)
    positives = [shape for grad, shape in own_forwards[:2] if not grad] if partner_pass == "first" else []
    if pairing == "permutation" and reference == "loss":  # a reference forward of every policy forward's shape
        assert len(positives) == (2 if partner_pass == "first" else 0)
        assert no_grad == sorted(with_grad + positives)
    else:
        assert no_grad == positives[:1] * (pairing == "permutation")
    torch.testing.assert_close(own_loss, joined_loss, rtol=1e-6, atol=1e-7)  # the pair loss counted once
    assert own_metrics.keys() == joined_metrics.keys() >= {"mulferl/fco/loss", "mulferl/fco/score_gap"}
    for key, values in joined_metrics.items():
        assert own_metrics[key] == pytest.approx(values, rel=1e-6, abs=1e-7), key
    assert sum(g.abs().sum() for g in joined_gradients) > 1e-3
    for got, expected in zip(own_gradients, joined_gradients, strict=True):
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


def test_one_process_chooses_the_partner_pass_after_the_loss_forward(tmp_path, tiny_tokenizer, tiny_model_dir):
    for pairing, expected in (("permutation", "after"), ("all", "first")):
        trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, fco_pairing=pairing)
        assert trainer._fco_partner_pass == expected


def test_permutation_fco_needs_no_policy_forward_at_generation(tmp_path, tiny_tokenizer, tiny_model_dir):
    """With the permutation pairing the policy's side of every score comes from the loss's own forward: generation
    forwards only the reference (negatives and, with beta = 0, positives), and under bf16 not even that (both sides
    come from the loss's forwards); the all-pairs surrogate also the policy, for its coefficients."""
    cases = (("permutation", False, 0, 2), ("permutation", True, 0, 0), ("all", False, 2, 2), ("all", True, 2, 2))
    for pairing, bf16, expected_policy_forwards, expected_reference_forwards in cases:
        trainer = make_trainer(
            tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1, fco_pairing=pairing, bf16=bf16
        )
        forwards, generating = [], []  # whether each generation-time forward was the policy's
        original_forward, original_generate = (
            trainer._get_per_token_logps_and_entropies,
            trainer._generate_and_score_completions,
        )

        def counted(model, *args, **kwargs):
            if generating:
                forwards.append(model is trainer.model)
            return original_forward(model, *args, **kwargs)

        def generate(inputs):
            generating.append(True)
            try:
                return original_generate(inputs)
            finally:
                generating.clear()

        trainer._get_per_token_logps_and_entropies = counted
        trainer._generate_and_score_completions = generate
        trainer.train()
        assert logged(trainer, "mulferl/route/fco") == [1.0]
        assert (sum(forwards), len(forwards) - sum(forwards)) == (
            expected_policy_forwards,
            expected_reference_forwards,
        )


def test_fco_trains_and_widens_the_score_gap(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=4)
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0] * 4
    assert logged(trainer, "mulferl/fco/loss")[0] == pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-6)
    assert logged(trainer, "mulferl/fco/score_gap")[0] == pytest.approx(0.0, abs=1e-6)  # policy == reference
    assert logged(trainer, "mulferl/fco/score_gap")[-1] > 0
    assert logged(trainer, "mulferl/fco/dropped_pairs") == [0.0] * 4
    assert all(not torch.equal(p, before[name]) for name, p in trainer.model.named_parameters())


LORA = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}


def test_fco_with_a_new_lora_adapter(tmp_path, tiny_tokenizer, tiny_model_dir):
    """Only the adapter trains, and the reference is the base model (the adapter disabled)."""
    from peft import LoraConfig

    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=3, peft_config=LoraConfig(**LORA)
    )
    assert trainer.ref_model is None
    outputs = capture_generation_outputs(trainer)
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0] * 3
    assert logged(trainer, "mulferl/fco/loss")[0] == pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-6)
    changed = {name for name, p in trainer.model.named_parameters() if not torch.equal(p, before[name])}
    assert changed and all("lora_" in name for name in changed)

    # The reference side of the score is the base model's forward, now that the trained adapter differs from it.
    batch = outputs[-1]
    sequences = {key: batch[key] for key in ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask")}
    mask = (batch["completion_mask"] * batch["tool_mask"]).float()
    reference = forward_rows(trainer, sequences, list(range(len(mask))), policy=False)
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    with torch.no_grad():
        logps = direct_logps(trainer.model, *sequences.values(), trainer.args.temperature)
        base_logps = direct_logps(base, *sequences.values(), trainer.args.temperature)
    assert (logps - base_logps).abs().max() > 1e-4
    torch.testing.assert_close(reference * mask, base_logps * mask, rtol=1e-4, atol=1e-6)


def test_fco_reference_of_a_trained_adapter_is_the_starting_policy(tmp_path, tiny_tokenizer, tiny_model_dir):
    """A PeftModel passed in with non-zero adapter weights: the reference is that starting policy, not the base."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    model = get_peft_model(
        AutoModelForCausalLM.from_pretrained(tiny_model_dir), LoraConfig(**LORA, init_lora_weights=False)
    )
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=model, max_steps=1, learning_rate=0.0)
    assert "ref" in trainer.model.peft_config
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    # Policy == reference at the first step: every score is 0, so the gap is 0 and each pair loss is log 2.
    assert logged(trainer, "mulferl/fco/score_gap") == [pytest.approx(0.0, abs=1e-6)]
    assert logged(trainer, "mulferl/fco/loss") == [pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-6)]
    # With the adapter disabled (the base model) the scores would not be 0.
    batch = outputs[0]
    sequences = [batch[key] for key in ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask")]
    with torch.no_grad():
        policy = direct_logps(trainer.model, *sequences, 1.0)
        with trainer.model.disable_adapter():
            base = direct_logps(trainer.model, *sequences, 1.0)
    assert (policy - base).abs().max() > 1e-3


def test_ablation_no_regeneration(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, provider=None, model=tiny_model_dir, max_feedback_turns=0
    )
    calls = count_generation_calls(trainer)
    trainer.train()
    assert trainer.ref_model is None  # no FCO without regeneration, and beta = 0
    assert len(calls) == 2  # one generation per step
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]
    assert logged(trainer, "mulferl/fco/loss") == []


def test_ablation_no_fco(tmp_path, tiny_tokenizer, tiny_model_dir):
    """FAILED -> SOLVED prompts are still routed to FCO, but nothing trains them."""
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, fco_weight=0.0)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    assert trainer.ref_model is None
    assert logged(trainer, "mulferl/route/fco") == [1.0, 1.0]
    assert logged(trainer, "mulferl/fco/loss") == []
    assert logged(trainer, "loss") == [0.0, 0.0]
    assert all(torch.equal(p, q) for p, q in zip(trainer.model.parameters(), before, strict=True))


def test_ablation_plain_injection(tmp_path, tiny_tokenizer, tiny_model_dir):
    """Plain injection puts the feedback in the user prompt: no prefill, every completion token is the model's."""
    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1, feedback_injection="plain"
    )
    calls = count_generation_calls(trainer)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    assert len(calls) == 3  # the reward sees only the completion, which never has the marker: 2 feedback turns
    assert logged(trainer, "mulferl/route/unresolved") == [1.0]
    assert batch["tool_mask"].eq(1).all()
    for prompt in tiny_tokenizer.batch_decode(batch["prompt_ids"], skip_special_tokens=True):
        assert marker_provider("", [], []) in prompt
    for completion in tiny_tokenizer.batch_decode(batch["completion_ids"], skip_special_tokens=True):
        assert MARKER not in completion


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
def test_fco_gradient_with_gradient_accumulation(tmp_path, tiny_tokenizer, tiny_model_dir, normalization):
    """GA = 2: the two micro-batches' gradients add up to eq. 15's over the whole generation batch."""
    from trl.trainer.utils import shuffle_sequence_dict, split_tensor_dict

    trainer, batch = train_one_fco_step(
        tmp_path, tiny_tokenizer, tiny_model_dir, gradient_accumulation_steps=2, fco_score_normalization=normalization
    )
    args = trainer.args
    num_groups = batch["prompt_ids"].size(0) // args.num_generations
    assert num_groups == 4  # 2 micro-batches x 4 rows / K

    model = trainer.model
    model.train()
    model.zero_grad()
    for micro_batch in split_tensor_dict(shuffle_sequence_dict(batch), 2):  # as TRL's _prepare_inputs does
        trainer._compute_loss(model, micro_batch).backward()
    gradients = [p.grad.clone() for p in model.parameters()]

    model.zero_grad()
    pairs = [sample_fco_pairs(K, "permutation", make_generator(args.seed, 0, g)) for g in range(num_groups)]
    eq15_loss(model, trainer.ref_model, batch, args, pairs).backward()
    # Summed scores: gradients up to |y| = 8 times larger, and float32 sums in another order (4 partner chunks):
    # 1.3e-6 on one of 13,632 elements on an Intel Xeon.
    atol = 1e-7 if normalization == "mean" else 2e-6
    for got, expected in zip(gradients, [p.grad for p in model.parameters()], strict=True):
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=atol)


def test_truncated_rows_are_masked_on_both_sides(tmp_path, tiny_tokenizer, tiny_model_dir):
    """With mask_truncated_completions, a truncated negative is not scored either (TRL masks truncated positives)."""
    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1, mask_truncated_completions=True
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    eos_and_pad = [*trainer.eos_token_ids, tiny_tokenizer.pad_token_id]
    partners = zip(
        batch["mulferl_partner_completion_ids"],
        batch["mulferl_partner_completion_mask"],
        batch["mulferl_partner_score_mask"],
        strict=True,
    )
    truncated = []
    for ids, attention, scored in partners:
        truncated.append(ids[attention.bool()][-1].item() not in eos_and_pad)
        assert (scored.sum() == 0) == truncated[-1]
    assert any(truncated)  # 8 new tokens: the tiny model rarely stops before
    # Every pair has a truncated (masked) side here, so all 2 prompts x K pairs are dropped.
    assert logged(trainer, "mulferl/fco/pairs") == [0.0]
    assert logged(trainer, "mulferl/fco/dropped_pairs") == [4.0]


def logit_transform_model(family: str, tokenizer):
    """A tiny random model of a family whose LM head output is transformed before the softmax (or not: Qwen2)."""
    from transformers import (
        CohereConfig,
        CohereForCausalLM,
        Gemma2Config,
        Gemma2ForCausalLM,
        GraniteConfig,
        GraniteForCausalLM,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    shape = {"vocab_size": len(tokenizer), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2}
    shape |= {"num_attention_heads": 2, "num_key_value_heads": 1, "pad_token_id": tokenizer.pad_token_id}
    shape |= {"eos_token_id": tokenizer.eos_token_id, "bos_token_id": tokenizer.eos_token_id}
    config_class, model_class, transform = {
        "qwen2": (Qwen2Config, Qwen2ForCausalLM, {}),
        "gemma2": (Gemma2Config, Gemma2ForCausalLM, {"final_logit_softcapping": 2.0, "head_dim": 16}),
        "granite": (GraniteConfig, GraniteForCausalLM, {"logits_scaling": 0.25}),
        "cohere": (CohereConfig, CohereForCausalLM, {"logit_scale": 4.0}),
    }[family]
    torch.manual_seed(0)
    return model_class(config_class(**shape, **transform))


@pytest.mark.parametrize("family", ["qwen2", "gemma2", "granite", "cohere"])
def test_fco_scores_apply_the_models_logit_transform(tmp_path, tiny_tokenizer, family):
    """Softcapping (Gemma-2) and logit scales (Granite, Cohere) are part of the policy: FCO's scores come from TRL's
    training forward, so at the first step (policy == reference) every score is 0, each pair loss log 2; and against
    a perturbed reference the logged loss is eq. 15 from the models' own logits, at temperature 0.7."""
    model_dir = tmp_path / family
    logit_transform_model(family, tiny_tokenizer).save_pretrained(model_dir)
    tiny_tokenizer.save_pretrained(model_dir)
    first = make_trainer(
        tmp_path / "first", tiny_tokenizer, marker_reward, model=str(model_dir), max_steps=1, temperature=0.7
    )
    first.train()
    assert logged(first, "mulferl/route/fco") == [1.0]
    assert logged(first, "mulferl/fco/score_gap") == [pytest.approx(0.0, abs=1e-6)]
    assert logged(first, "mulferl/fco/loss") == [pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-6)]

    trainer, batch = train_one_fco_step(tmp_path / "perturbed", tiny_tokenizer, str(model_dir), temperature=0.7)
    pairs = [
        sample_fco_pairs(K, "permutation", make_generator(trainer.args.seed, 0, group))
        for group in range(batch["prompt_ids"].size(0) // K)
    ]
    with torch.no_grad():
        expected = eq15_loss(trainer.model, trainer.ref_model, batch, trainer.args, pairs)
    assert logged(trainer, "mulferl/fco/loss") == [pytest.approx(expected.item() / trainer.args.fco_weight, rel=1e-5)]


def test_permutation_fco_with_two_iterations(tmp_path, tiny_tokenizer, tiny_model_dir):
    """num_iterations = 2: one generation batch, two optimizer steps; the pair losses of the second come from the
    policy the first updated (computed in the loss), not from generation time."""
    trainer = make_trainer(
        tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, num_iterations=2, fco_weight=1.0, fco_tau=2.0
    )
    calls = count_generation_calls(trainer)
    trainer.train()
    assert len(calls) == 2  # turns 0 and 1 of the one generation batch
    first, second = logged(trainer, "mulferl/fco/loss")
    assert first == pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-6)  # policy == reference
    assert second < first - 1e-4
    assert logged(trainer, "mulferl/fco/pairs") == [4.0, 4.0]


def test_num_tokens_counts_the_feedback_turns(tmp_path, tiny_tokenizer, tiny_model_dir):
    """TRL's `num_input_tokens_seen` (logged as `num_tokens`) counts turn 0's prompt and completion tokens; the
    regenerated rows' prompt, prefill and continuation count too."""
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]  # every row regenerated once: its partner is a turn-0 row (the negatives, permuted)
    regenerated = batch["prompt_mask"].sum() + batch["completion_mask"].sum()
    turn_0 = batch["mulferl_partner_prompt_mask"].sum() + batch["mulferl_partner_completion_mask"].sum()
    assert trainer.state.num_input_tokens_seen == (regenerated + turn_0).item()
    assert logged(trainer, "num_tokens") == [(regenerated + turn_0).item()]
