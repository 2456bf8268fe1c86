import pytest
import torch
from transformers import AutoModelForCausalLM, GenerationConfig

from trl_mulferl.sampled_logps import SampledLogpsRecorder


def forward_logps(model, prompt_ids, completion_ids, temperature):
    """log pi(y_t | x, y_<t) of each completion token from one forward over the whole sequence."""
    input_ids = torch.tensor([prompt_ids + completion_ids])
    logits = model(input_ids=input_ids).logits[0, len(prompt_ids) - 1 : -1] / temperature
    return logits.log_softmax(-1).gather(-1, torch.tensor(completion_ids).unsqueeze(-1)).squeeze(-1)


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_recorded_logps_equal_a_forward(tiny_tokenizer, tiny_model_dir, temperature):
    """Rows of a left-padded batch that stop early (EOS) and rows cut at max_new_tokens: each token's log-prob as
    sampled equals a fresh forward's."""
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    prompts = [tiny_tokenizer("What is 3 + 4?")["input_ids"], tiny_tokenizer("Hello")["input_ids"]] * 4
    width = max(map(len, prompts))
    pad_id = tiny_tokenizer.pad_token_id
    input_ids = torch.tensor([[pad_id] * (width - len(p)) + p for p in prompts])
    attention_mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    config = GenerationConfig(do_sample=True, temperature=temperature, max_new_tokens=10, pad_token_id=pad_id)
    torch.manual_seed(0)
    with torch.no_grad():
        first = model.generate(input_ids=input_ids, attention_mask=attention_mask, generation_config=config)
    eos = first[0, width + 2].item()
    config.eos_token_id = eos  # a token the first row samples third: with the same seed, it stops there
    torch.manual_seed(0)
    with torch.no_grad(), SampledLogpsRecorder(model, temperature) as recorder:
        sequences = model.generate(input_ids=input_ids, attention_mask=attention_mask, generation_config=config)
    completions = []
    for row in sequences[:, width:].tolist():
        completions.append(row[: row.index(eos) + 1] if eos in row else row)
    assert {len(c) for c in completions} != {10} and 10 in {len(c) for c in completions}
    recorded = recorder.logps(completions)
    with torch.no_grad():
        for prompt, completion, logps in zip(prompts, completions, recorded, strict=True):
            expected = forward_logps(model, prompt, completion, temperature)
            torch.testing.assert_close(torch.tensor(logps), expected, rtol=1e-5, atol=1e-5)
    # Detached: the hooks are gone once the block ends.
    model(input_ids=input_ids[:1])
    assert len(recorder.steps) == 9


def test_no_logps_unless_the_forwards_account_for_every_token(tiny_model_dir):
    """None (the caller then forwards the policy itself) when the recorder saw no generation, or fewer sampled tokens
    or other rows than the completions have."""
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    with SampledLogpsRecorder(model, 1.0) as recorder:
        pass
    assert recorder.logps([[5, 6]]) is None
    config = GenerationConfig(do_sample=False, max_new_tokens=3, eos_token_id=None, pad_token_id=0)
    with torch.no_grad(), SampledLogpsRecorder(model, 1.0) as recorder:
        sequences = model.generate(input_ids=torch.tensor([[5, 6], [7, 8]]), generation_config=config)
    completions = sequences[:, 2:].tolist()
    assert [len(logps) for logps in recorder.logps(completions)] == [3, 3]
    assert recorder.logps([ids + [9] for ids in completions]) is None
    assert recorder.logps(completions + completions) is None
