"""Checked by mypy from test_surface.py, never run: a decorated function keeps its type.

The check runs with ``warn_unused_ignores``, so each ``type: ignore`` below must be needed: a decorator
that typed its result as ``Any`` fails the check as surely as one that changed the signature.
"""

from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import (
    Any,
    assert_type,  # typing.assert_type is 3.11+
)

from sumwatch.tracer import from_arg, summarization


@summarization(band="tldr", document_id=from_arg("doc_id"))
def summarize(text: str, doc_id: str) -> str:
    return text


@summarization
async def summarize_async(text: str, *, words: int = 30) -> str:
    return text


@summarization(band="tldr")
def stream(text: str) -> Iterator[str]:
    yield text


@summarization(band="tldr")
async def stream_async(text: str) -> AsyncIterator[str]:
    yield text


class Digest:
    @summarization(source="body")
    def summarize(self, body: str) -> str:
        return body


assert_type(summarize("text", "doc-1"), str)
assert_type(summarize(text="text", doc_id="doc-1"), str)
assert_type(summarize_async("text", words=10), Coroutine[Any, Any, str]).close()  # closed: never awaited
assert_type(stream("text"), Iterator[str])
assert_type(stream_async("text"), AsyncIterator[str])
assert_type(Digest().summarize("text"), str)


async def consume() -> None:
    assert_type(await summarize_async("text"), str)
    async for piece in stream_async("text"):
        assert_type(piece, str)

summarize("text", 3)  # type: ignore[arg-type]
summarize("text")  # type: ignore[call-arg]
summarize(txt="text", doc_id="doc-1")  # type: ignore[call-arg]
summarize_async("text", 10).close()  # type: ignore[call-arg]
Digest().summarize(3)  # type: ignore[arg-type]
