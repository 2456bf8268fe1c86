"""A feedback turn generates from the prompt and the injected feedback: the colocated vLLM engine's context, which it must
fit (`feedback.step.check_fits_context`)."""


def vllm_context_length(trainer) -> int | None:
    """The context length of the trainer's colocated vLLM engine; None without one (a server keeps its own)."""
    if not (trainer.use_vllm and trainer.vllm_mode == "colocate"):
        return None
    return trainer.vllm_generation.llm.llm_engine.model_config.max_model_len
