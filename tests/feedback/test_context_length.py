"""`check_fits_context`: a feedback turn's prompt and prefill plus `max_completion_length` against vLLM's context."""

import pytest

from trl_mulferl.feedback.step import check_fits_context


def test_fits_up_to_the_context_length_exactly():
    check_fits_context([[1] * 10, [1] * 12], max_completion_length=8, max_model_len=20)  # 12 + 8 = 20 fits
    check_fits_context([[1] * 500], max_completion_length=8, max_model_len=None)  # no vLLM engine: no limit here
    check_fits_context([], max_completion_length=8, max_model_len=4)


def test_one_token_over_names_the_setting_and_the_length_needed():
    with pytest.raises(
        ValueError, match=r"13 tokens, plus max_completion_length=8 makes 21, over vLLM's max_model_len"
    ):
        check_fits_context([[1] * 10, [1] * 13], max_completion_length=8, max_model_len=20)
    with pytest.raises(ValueError, match="Set vllm_max_model_length to at least 21"):
        check_fits_context([[1] * 13], max_completion_length=8, max_model_len=20)
