"""What a TRL reward function is handed, read as scorebridge reads it: completions, prompts and labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorebridge.kit import item_text

__all__ = ["completion_text", "content_text", "prompt_text"]


def content_text(content: Any) -> Any:
    """A message's content as text: a string as it is; a list of parts (`{"type": "text", "text": ...}`)
    their text joined; anything else (None, a tool call's missing content) as it is, for the scorer to
    sort out (no text is a parse failure)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, Mapping) and part.get("type") == "text"]
        if texts and all(isinstance(t, str) for t in texts):
            return "".join(map(str, texts))
    return content


def _message_content(message: Any) -> Any:
    if isinstance(message, Mapping) and "content" in message:
        return content_text(message["content"])
    return message  # not a message: the scorer reads it (an output with a failure_kind element, say)


def completion_text(completion: Any) -> Any:
    """The text of one TRL completion, in either of its shapes.

    Standard format: the completion is the string itself. Conversational
    format: a list of messages (one assistant message, or the turns of a tool
    loop): the content of its last assistant message (of its last message
    when none says its role). One message given as a mapping is read the
    same way. Anything else (a mapping with no "content") is handed to the
    scorer as it is, to read as every scorer reads an output.
    """
    if type(completion) is str:
        return completion
    if isinstance(completion, list) and completion:
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return _message_content(message)
        return _message_content(completion[-1])
    if isinstance(completion, Mapping):
        return _message_content(completion)
    return completion


def prompt_text(prompt: Any) -> str | None:
    """The default item of `to_trl`: the prompt's text.

    A string prompt (standard format) is itself. A conversational prompt, a
    list of messages, gives the content of its last user message (of its last
    message when none is a user's), so a model-graded scorer is shown the
    question, not the system prompt. Anything else is read as every adapter
    reads an item (`scorebridge.kit.item_text`).
    """
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence) and prompt and all(isinstance(m, Mapping) for m in prompt):
        users = [m for m in prompt if m.get("role") == "user"]
        text = content_text((users or list(prompt))[-1].get("content"))
        return text if isinstance(text, str) else None
    return item_text(prompt)
