"""What the LLM namer needs from a model: one JSON object, checked by the caller, with one repair turn.

    answer = await model.ask_json(messages, read=parse_name, correction="Your reply ... {problems} ...")
    answer.value            # what ``read`` made of the reply, or None
    answer.error            # why not, one line with no secret in it

``clustering`` declares this and never imports ``monitor``; ``sumwatch.monitor.remote.llm.LitellmModel``
is the implementation the judge, the namer and ``sumwatch doctor`` share (retries, concurrency, spend cap).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")
Message = dict[str, str]


@dataclass(frozen=True)
class JsonAnswer(Generic[T]):
    """One question's outcome: the value read from the reply, or why there is none; what it used."""

    value: T | None
    content: str = ""  # the reply the value was read from
    error: str = ""
    calls: int = 0  # requests sent: retries and the repair turn included
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@runtime_checkable
class JsonModel(Protocol):
    """A chat model that answers with a JSON object. ``read`` turns the reply's object into a value, or into
    the problems that make it unusable; then ``correction`` goes back once as the user's next message, with
    ``{problems}`` in it filled in."""

    @property
    def model(self) -> str: ...

    async def ask_json(self, messages: list[Message], read: Callable[[dict[str, Any]], tuple[T | None, list[str]]],
                       correction: str) -> JsonAnswer[T]: ...
