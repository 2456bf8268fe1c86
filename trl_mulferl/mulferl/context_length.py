"""A feedback turn generates from the prompt and the injected feedback: check that it fits vLLM's context first.

Without the check, vLLM stops the run mid-step with a traceback of its own (a prompt longer than its context), or
cuts the turn's completions short without a word (a prompt that leaves fewer than `max_completion_length` tokens).
"""


def vllm_context_length(trainer) -> int | None:
    """The context length of the trainer's colocated vLLM engine; None without one (a server keeps its own)."""
    if not (trainer.use_vllm and trainer.vllm_mode == "colocate"):
        return None
    return trainer.vllm_generation.llm.llm_engine.model_config.max_model_len


def check_fits_context(generation_ids: list[list[int]], max_completion_length: int, max_model_len: int | None):
    """Raise if the longest generation input (prompt and prefilled feedback) plus `max_completion_length` new tokens
    exceeds `max_model_len`, naming the setting to raise and by how much."""
    if max_model_len is None or not generation_ids:
        return
    longest = max(len(ids) for ids in generation_ids)
    needed = longest + max_completion_length
    if needed > max_model_len:
        raise ValueError(
            f"A feedback turn's prompt does not fit vLLM's context: its longest prompt with the injected feedback is "
            f"{longest} tokens, plus max_completion_length={max_completion_length} makes {needed}, over vLLM's "
            f"max_model_len of {max_model_len}. Set vllm_max_model_length to at least {needed} (the longest prompt "
            "+ max_feedback_length + the prefill's tags + max_completion_length), or lower max_feedback_length."
        )


def check_feedback_turn_fits(trainer, generation_ids: list[list[int]]):
    check_fits_context(generation_ids, trainer.max_completion_length, vllm_context_length(trainer))
