"""Generation backends for evaluation: vLLM, batched transformers generation, and OpenAI-compatible endpoints.

Each backend answers a list of `GenerationRequest`s, one sample each, with the full response text: the prefill
(the feedback block of a revision turn, empty at turn 0) followed by the model's continuation, as the training
rewards see it. The local backends build the model input as MulFeRL's trainer does: the chat-templated prompt with
the generation prompt, then the prefill's own tokens (`add_special_tokens=False`).
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.credentials import mask_urls_in_http_logs, read_api_key


@dataclass
class GenerationRequest:
    prompt: list[dict[str, Any]]
    prefill: str
    seed: int


def prompt_ids(tokenizer, prompt: list[dict[str, Any]], prefill: str) -> list[int]:
    """The token ids a local backend generates from: the chat-templated prompt, then the prefill's tokens."""
    if not isinstance(prompt, list):
        raise ValueError("Evaluation prompts must be conversations (lists of messages); got a plain string.")
    if getattr(tokenizer, "chat_template", None) is None:
        raise ValueError(
            "The tokenizer has no chat template: evaluation sends conversational prompts. Use a tokenizer (or model "
            "folder) that ships one."
        )
    text = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if not prefill:
        return ids
    from ..core.schema import control_token_ids
    from ..feedback.step import prefills_without_injected_control_ids  # imports torch and TRL: not at `--help`

    # The prefill holds feedback text: none of it becomes a control token's id, as in training.
    ((prefill_ids, _),) = prefills_without_injected_control_ids(tokenizer, [prefill], control_token_ids(tokenizer))
    return ids + prefill_ids


class TransformersBackend:
    """Batched `model.generate` with left padding; the batches hold prompts of similar length.

    Args:
        model: A causal LM (already on its device).
        tokenizer: Its tokenizer, with a chat template.
        max_tokens: New tokens per sample.
        temperature: Sampling temperature; 0 decodes greedily.
        top_p: Nucleus sampling; top-k is off, as in TRL's GRPO generation defaults.
        batch_size: Samples per `generate` call.
    """

    name = "transformers"

    def __init__(self, model, tokenizer, max_tokens: int, temperature: float = 1.0, top_p: float = 1.0, batch_size=8):
        from transformers import GenerationConfig

        self.model, self.tokenizer, self.batch_size = model, tokenizer, batch_size
        eos = model.generation_config.eos_token_id
        eos = eos if eos is not None else tokenizer.eos_token_id
        self.pad_token_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p, "top_k": 0}
        self.generation_config = GenerationConfig(
            max_new_tokens=max_tokens,
            pad_token_id=self.pad_token_id,
            eos_token_id=eos,
            **(sampling if temperature > 0 else {"do_sample": False}),
        )

    @classmethod
    def from_pretrained(cls, path: str, dtype: str = "auto", **kwargs) -> "TransformersBackend":
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
        return cls(model, AutoTokenizer.from_pretrained(path), **kwargs)

    def generate(self, requests: list[GenerationRequest], progress: Callable[[int], Any] | None = None) -> list[str]:
        import torch

        ids = [prompt_ids(self.tokenizer, r.prompt, r.prefill) for r in requests]
        order = sorted(range(len(requests)), key=lambda i: len(ids[i]), reverse=True)
        texts = [None] * len(requests)
        was_training = self.model.training
        self.model.eval()
        try:
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                width = max(len(ids[i]) for i in batch)
                padding = [width - len(ids[i]) for i in batch]
                input_ids = [[self.pad_token_id] * pad + ids[i] for pad, i in zip(padding, batch, strict=True)]
                mask = [[0] * pad + [1] * len(ids[i]) for pad, i in zip(padding, batch, strict=True)]
                device = self.model.device
                with torch.no_grad():
                    output = self.model.generate(
                        input_ids=torch.tensor(input_ids, device=device),
                        attention_mask=torch.tensor(mask, device=device),
                        generation_config=self.generation_config,
                    )
                for row, i in enumerate(batch):
                    continuation = self.tokenizer.decode(output[row, width:], skip_special_tokens=True)
                    texts[i] = requests[i].prefill + continuation
                if progress is not None:
                    progress(len(batch))
        finally:
            self.model.train(was_training)
        return texts


class VLLMBackend:
    """Offline vLLM generation (`vllm.LLM`), one seeded `SamplingParams` per sample."""

    name = "vllm"

    def __init__(
        self,
        model: str,
        max_tokens: int,
        temperature: float = 1.0,
        top_p: float = 1.0,
        dtype: str = "auto",
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
    ):
        from vllm import LLM

        self.max_tokens, self.temperature, self.top_p = max_tokens, temperature, top_p
        self.llm = LLM(
            model=model,
            dtype=dtype,
            tensor_parallel_size=tensor_parallel_size,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
        )
        self.tokenizer = self.llm.get_tokenizer()

    def generate(self, requests: list[GenerationRequest], progress: Callable[[int], Any] | None = None) -> list[str]:
        from vllm import SamplingParams

        prompts = [{"prompt_token_ids": prompt_ids(self.tokenizer, r.prompt, r.prefill)} for r in requests]
        params = [
            SamplingParams(temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens, seed=r.seed)
            for r in requests
        ]
        outputs = self.llm.generate(prompts, sampling_params=params, use_tqdm=False)
        if progress is not None:
            progress(len(requests))
        return [r.prefill + output.outputs[0].text for r, output in zip(requests, outputs, strict=True)]


class OpenAIBackend:
    """An OpenAI-compatible chat endpoint (e.g. `vllm serve CHECKPOINT`), with `max_concurrency` requests in flight.

    A revision turn sends the prefill as a final assistant message with `continue_final_message=True` and
    `add_generation_prompt=False` (vLLM's chat API), so the model continues the feedback block as in training.
    With a `base_url`, no API key is sent unless `api_key_env` names the variable that holds one.
    """

    name = "openai"
    tokenizer = None

    def __init__(
        self,
        model: str,
        max_tokens: int,
        temperature: float = 1.0,
        top_p: float = 1.0,
        base_url: str | None = None,
        api_key_env: str | None = None,
        max_concurrency: int = 64,
        timeout: float = 600.0,
        max_retries: int = 3,
    ):
        self.api_key, _ = read_api_key(api_key_env, base_url, "--api_key_env")
        mask_urls_in_http_logs()
        self.model, self.base_url, self.max_tokens = model, base_url, max_tokens
        self.temperature, self.top_p = temperature, top_p
        self.max_concurrency, self.timeout, self.max_retries = max_concurrency, timeout, max_retries

    def generate(self, requests: list[GenerationRequest], progress: Callable[[int], Any] | None = None) -> list[str]:
        return asyncio.run(self._generate(requests, progress))

    async def _generate(self, requests, progress) -> list[str]:
        import openai

        client = openai.AsyncOpenAI(
            api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries
        )
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def complete(request: GenerationRequest) -> str:
            messages, extra_body = list(request.prompt), None
            if request.prefill:
                messages.append({"role": "assistant", "content": request.prefill})
                extra_body = {"continue_final_message": True, "add_generation_prompt": False}
            async with semaphore:
                response = await client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    max_tokens=self.max_tokens,
                    temperature=self.temperature,
                    top_p=self.top_p,
                    seed=request.seed,
                    extra_body=extra_body,
                )
            if progress is not None:
                progress(1)
            content = response.choices[0].message.content if response.choices else None
            return request.prefill + (content or "")

        try:
            return list(await asyncio.gather(*(complete(request) for request in requests)))
        finally:
            await client.close()
