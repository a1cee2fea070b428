"""Whether a span said to lack its content really does: a refusal that blames content capture, checked against
the text the span carries under keys the readers did not look at.

    content_elsewhere("no user message text (content capture off, or not yet joined)",
                      {"ai.prompt.messages": '[{"role": "user", "content": "Summarize: ..."}]'})
    # 'no user message text where this instrumentation keeps it, but the span carries text under
    #  ai.prompt.messages: capture is on; a selector (SUMWATCH_SELECTOR_<NAME>) can read those keys'

The Vercel AI SDK keeps a call's content under ``ai.prompt.messages`` and ``ai.response.text``, other
libraries under keys of their own; no fixed list keeps up with them. So the text is looked for the way the
recogniser reads a value (:func:`.recognise.request_text` and :func:`.recognise.response_text`, which take a
message list, a request or response object, or plain text): a value that reads as several words of text.
When the recogniser learns a key, its spans are recognised and no refusal is left to check. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from .recognise import request_text, response_text

CAPTURE_BLAME = "capture off"  # what the refusals that blame content capture say
_MIN_WORDS = 4  # fewer words is a name, an id or a setting, not a message
_SHOWN_KEYS = 3
# the general conventions' namespaces, whose values are never a call's messages (a user agent has words too)
NOT_CONTENT = ("http.", "url.", "user_agent.", "db.", "net.", "network.", "server.", "client.", "exception.",
               "code.", "process.", "telemetry.", "service.", "host.", "os.", "rpc.", "messaging.", "error.")


def carries_text(value: object) -> bool:
    """Whether an attribute value holds message text as the recogniser reads values."""
    if not isinstance(value, str) or len(value) < 20:
        return False
    read = request_text(value)
    if read == value:  # not a message list or request: perhaps a response, else plain text
        read = response_text(value)
    return len(read.split()) >= _MIN_WORDS and not read.lstrip().startswith(("{", "http://", "https://"))


def text_keys(attributes: Mapping[str, object]) -> list[str]:
    """The keys whose values hold message text, in key order."""
    return sorted(k for k, v in attributes.items() if not k.startswith(NOT_CONTENT) and carries_text(v))


def content_elsewhere(reason: str, attributes: Mapping[str, object]) -> str:
    """``reason`` as it stands, unless it blames content capture while the span carries text: then what the
    span carries and how to read it."""
    if CAPTURE_BLAME not in reason:
        return reason
    keys = text_keys(attributes)
    if not keys:
        return reason
    head = reason.split(" (", 1)[0]
    shown = ", ".join(keys[:_SHOWN_KEYS]) + (f" and {len(keys) - _SHOWN_KEYS} more" if len(keys) > _SHOWN_KEYS else "")
    return (f"{head} where this instrumentation keeps it, but the span carries text under {shown}: capture is "
            f"on; a selector (SUMWATCH_SELECTOR_<NAME>) can read those keys")
