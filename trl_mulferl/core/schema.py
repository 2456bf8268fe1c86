"""The output schema of MulFeRL, the training system prompt, and feedback injection.

A compliant response reads::

    <thinking><feedback>...</feedback> reasoning ... </thinking> The final answer is \\boxed{...}

The `<feedback>` block opens the thinking block; the policy fills it itself at turn 0 (or leaves it empty) and, from
turn 1 on, the trainer prefills `<thinking><feedback>{feedback}</feedback>` and the policy continues.
"""

import re
import unicodedata
from typing import Any

from trl.data_utils import is_conversational


THINKING_OPEN, THINKING_CLOSE = "<thinking>", "</thinking>"
FEEDBACK_OPEN, FEEDBACK_CLOSE = "<feedback>", "</feedback>"
BOXED = "\\boxed"

SYSTEM_PROMPT = (
    "You are a careful mathematical problem solver. Answer in exactly this format:\n"
    "<thinking><feedback>FEEDBACK</feedback>\n"
    "REASONING\n"
    "</thinking>\n"
    "The final answer is \\boxed{ANSWER}\n\n"
    "Rules:\n"
    "- Start your answer with <thinking><feedback>. FEEDBACK holds notes on how to solve the problem or on mistakes "
    "to avoid; it may be empty, but the <feedback></feedback> tags must be there, once, at the start.\n"
    "- If the feedback block is already filled in, do not write another one: follow its advice and continue with "
    "your reasoning.\n"
    "- REASONING is your step-by-step solution. Close it with </thinking>.\n"
    "- After </thinking>, give only the final answer, once, inside \\boxed{}, and write nothing after it."
)

PLAIN_FEEDBACK_HEADER = "\n\nFeedback on your previous attempts at this problem:\n"

# What may follow the closing brace of the final \boxed{}: whitespace, a period, closing math delimiters.
_ANSWER_TAIL = re.compile(r"(?:\s|\.|\$|\\\]|\\\))*")
_FORBIDDEN_IN_FEEDBACK = re.compile(r"</?thinking>|</?feedback>", re.IGNORECASE)
# What a tokenizer's normaliser may drop from a character: combining marks (BERT's strips accents after NFD), and
# format, control, unassigned and private-use characters (BERT's cleans them out; a soft hyphen is a format one).
_DROPPED_BY_NORMALISERS = frozenset({"Mn", "Cf", "Cc", "Cn", "Co"})


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    """`(start, end, content)` of every `\\boxed{...}` with balanced braces; an unclosed box is not a span."""
    spans = []
    start = text.find(BOXED + "{")
    while start != -1:
        depth = 0
        for position in range(start + len(BOXED), len(text)):
            if text[position] == "{":
                depth += 1
            elif text[position] == "}":
                depth -= 1
                if depth == 0:
                    spans.append((start, position + 1, text[start + len(BOXED) + 1 : position]))
                    break
        else:
            break
        start = text.find(BOXED + "{", position + 1)
    return spans


def schema_compliant(text: str) -> bool:
    """Whether a response follows the schema (decision 7).

    It must start with `<thinking>` (leading whitespace allowed) followed by the one `<feedback>...</feedback>`
    block (possibly empty), then contain exactly one `</thinking>`, and after it exactly one non-empty `\\boxed{...}`
    followed by nothing but whitespace, a period or closing math delimiters.
    """
    text = text.lstrip()
    if not text.startswith(THINKING_OPEN):
        return False
    if text.count(THINKING_OPEN) != 1 or text.count(THINKING_CLOSE) != 1:
        return False
    if text.count(FEEDBACK_OPEN) != 1 or text.count(FEEDBACK_CLOSE) != 1:
        return False
    thinking, _, answer = text[len(THINKING_OPEN) :].partition(THINKING_CLOSE)
    if not thinking.lstrip().startswith(FEEDBACK_OPEN) or FEEDBACK_CLOSE not in thinking:
        return False
    boxes = boxed_spans(answer)
    if len(boxes) != 1 or answer.count(BOXED) != 1:
        return False
    _, end, content = boxes[0]
    return bool(content.strip()) and _ANSWER_TAIL.fullmatch(answer[end:]) is not None


def extract_answer(text: str) -> str | None:
    """The content of the last `\\boxed{...}` after the last `</thinking>`, or None when there is none."""
    head, closed, answer = text.rpartition(THINKING_CLOSE)
    if not closed:
        return None
    boxes = boxed_spans(answer)
    return boxes[-1][2] if boxes else None


def control_tokens(tokenizer) -> tuple[str, ...]:
    """Every added and special token string of `tokenizer`, longest first: what feedback text must not contain.

    `all_special_tokens` alone misses most control tokens: Qwen's `<|im_start|>`, `<tool_call>` and `<think>` are
    added tokens, and would forge a turn, a tool call or a thinking block.
    """
    added = {token.content for token in tokenizer.added_tokens_decoder.values()}
    return tuple(sorted(added | set(tokenizer.all_special_tokens), key=lambda token: (-len(token), token)))


def control_token_ids(tokenizer) -> frozenset[int]:
    """The ids of `tokenizer`'s added and special tokens: no feedback text may become one of them."""
    return frozenset(tokenizer.added_tokens_decoder) | frozenset(tokenizer.all_special_ids)


def sanitize_feedback(text: str, forbidden_strings: tuple[str, ...] = ()) -> str:
    """Make feedback safe to inject into the `<feedback>` slot (decision 6).

    Removes the schema tags (`<thinking>`, `</thinking>`, `<feedback>`, `</feedback>`, any case, and any spelling a
    tokenizer's normaliser reads as one: `without_schema_tags`), unwraps `\\boxed{x}` to `x` and drops any other
    `\\boxed`, and removes every string of `forbidden_strings` (pass `control_tokens(tokenizer)`: a turn header, an
    end of turn or a tool-call tag would otherwise become a control token). Repeats until nothing changes, since a
    removal can join two halves of a tag.
    """
    previous = None
    while text != previous:
        previous = text
        text = without_schema_tags(text)
        for start, end, content in reversed(boxed_spans(text)):
            text = text[:start] + content + text[end:]
        text = text.replace(BOXED, "")
        for forbidden in forbidden_strings:
            if forbidden:
                text = text.replace(forbidden, "")
    return text.strip()


def folded(text: str) -> tuple[str, list[int]]:
    """`text` as a normalising tokenizer may read it, and for each of its characters the index in `text` of the one it
    comes from: each character in NFKC (full-width `＜／＞` as `</>`), decomposed, less what a normaliser drops
    (`_DROPPED_BY_NORMALISERS`); case is left to the matching."""
    characters, origins = [], []
    for index, character in enumerate(text):
        for part in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", character)):
            if part.isspace() or unicodedata.category(part) not in _DROPPED_BY_NORMALISERS:
                characters.append(part)
                origins.append(index)
    return "".join(characters), origins


def without_schema_tags(text: str) -> str:
    """`text` less the schema tags (`<thinking>`, `</thinking>`, `<feedback>`, `</feedback>`) in any case and any
    spelling that NFKC, lowercase or BERT's normaliser reads as one (`＜／feedback＞`, `<feed\u00adback>`): the tags
    are found in the folded text and cut from `text`, whole characters."""
    folded_text, origins = folded(text)
    cut = set()
    for match in _FORBIDDEN_IN_FEEDBACK.finditer(folded_text):
        cut.update(range(origins[match.start()], origins[match.end() - 1] + 1))
    return "".join(character for index, character in enumerate(text) if index not in cut)


def truncate_to_tokens(text: str, tokenizer, max_tokens: int) -> str:
    """The longest prefix of `text` that the policy tokenizer encodes in at most `max_tokens` tokens."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) <= max_tokens:
        return text
    return tokenizer.decode(ids[:max_tokens], skip_special_tokens=True)


def feedback_prefill(feedback: str) -> str:
    """The head of the assistant turn at a regeneration turn: `<thinking><feedback>{feedback}</feedback>`."""
    return f"{THINKING_OPEN}{FEEDBACK_OPEN}{feedback}{FEEDBACK_CLOSE}"


def inject_feedback(prompt: str | list[dict[str, Any]], feedback: str, injection: str) -> tuple[Any, str]:
    """Build the context of a regeneration turn from the original prompt and sanitised feedback.

    Args:
        prompt: The dataset prompt: a list of messages (conversational) or a string.
        feedback: Sanitised, truncated feedback text.
        injection: `"structured"`: the prompt is unchanged and the answer starts with the prefill
            `<thinking><feedback>{feedback}</feedback>`. `"plain"`: the feedback is appended to the last user message
            (or to the string prompt) after `PLAIN_FEEDBACK_HEADER`, and there is no prefill.

    Returns:
        `(prompt, prefill)`. The prefill goes at the head of the completion, masked out of the loss; tokenize it with
        `add_special_tokens=False` and append its ids to the prompt's ids.
    """
    if injection == "structured":
        return prompt, feedback_prefill(feedback)
    if injection != "plain":
        raise ValueError(f"injection must be 'structured' or 'plain', got {injection!r}.")
    return append_to_prompt(prompt, PLAIN_FEEDBACK_HEADER + feedback), ""


def append_to_prompt(prompt: str | list[dict[str, Any]], suffix: str):
    """A copy of `prompt` with `suffix` appended to the string, or to the last user message of a conversation.

    Typed content (a list of blocks, e.g. `[{"type": "text", "text": ...}]`) gets a new text block.
    """
    if not is_conversational({"prompt": prompt}):
        return prompt + suffix
    last_user = max(i for i, message in enumerate(prompt) if message["role"] == "user")
    messages = [dict(message) for message in prompt]
    content = messages[last_user]["content"]
    if isinstance(content, str):
        messages[last_user]["content"] = content + suffix
    else:
        messages[last_user]["content"] = [*content, {"type": "text", "text": suffix}]
    return messages


def prompt_text(prompt: str | list[dict[str, Any]]) -> str:
    """A prompt's text: the string, or a conversation's message contents (typed content's text blocks), one per
    line."""
    if isinstance(prompt, str):
        return prompt
    parts = []
    for message in prompt:
        content = message.get("content") or ""
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(block.get("text", "") for block in content if isinstance(block, dict))
    return "\n".join(parts)


def asks_for_schema(prompt: str | list[dict[str, Any]]) -> bool:
    """Whether a prompt can have asked for the schema: it names both `<thinking>` and `<feedback>`, as
    `SYSTEM_PROMPT` does. A prompt that does not name both cannot have told the policy the format that
    `accuracy_reward` requires and the structured injection prefills."""
    text = prompt_text(prompt)
    return THINKING_OPEN in text and FEEDBACK_OPEN in text


def make_conversation(problem: str, system_prompt: str | None = SYSTEM_PROMPT) -> list[dict[str, str]]:
    """A conversational prompt asking for the schema: the training system prompt, then the problem."""
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return messages + [{"role": "user", "content": problem}]
