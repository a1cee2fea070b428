"""Regular expressions a user writes (rubric checks, selectors): one linear-time engine, RE2, the dialect
ClickHouse's ``match()`` runs, so a pattern means the same in Python and in the database.

    pattern = user_pattern(r"\\bguarantee[sd]?\\b")    # PatternError: one line, what RE2 refuses
    found = pattern.search("we guarantee it")          # Found("guarantee", {}), or None
    pattern.sub("[redacted]", "we guarantee it")       # "we [redacted] it"
    pattern.names                                      # the named groups: {"document", ...}

RE2 never backtracks: a search costs at most (program size x text length) steps, so ``(a+)+$`` is as quick
as ``a+$``; look-around, back-references, atomic groups and possessive quantifiers are refused when the
pattern is read. It also lets go of the GIL while it matches, so a long search in a worker thread does not
hold up the server's event loop. A search whose worst case is large runs in a thread of its own and is given
up after ``limit_s`` (:class:`PatternTimeout`), so one huge text cannot hold a sampler pass either.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, TypeVar

import re2

SEARCH_LIMIT_S = 2.0  # the most one search of one text may take
# (program size x text bytes) below which a search runs in the caller's thread: RE2's worst case there is
# milliseconds, less than handing it to another thread costs
_INLINE_STEPS = 20_000_000
# a replacement searches again after each hit, and a pattern whose hits each look far ahead (``a(.*z)?``) makes
# that quadratic in the text: only small texts are replaced in the caller's thread
_INLINE_SUB_STEPS = 200_000
_T = TypeVar("_T")
_searches = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sumwatch-pattern")


class PatternError(ValueError):
    """A pattern RE2 refuses; the message is RE2's reason, one line."""


class PatternTimeout(RuntimeError):
    """A search that ran past its time limit."""


@dataclass(frozen=True)
class Found:
    """A hit: its text and its named groups (a group that took no part is "")."""

    text: str
    groups: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class UserPattern:
    """A checked pattern: ``user_pattern("a+").search("baa")`` -> ``Found("aa")``."""

    pattern: str
    _regexp: Any = field(repr=False)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._regexp.groupindex)

    def search(self, text: str, *, limit_s: float = SEARCH_LIMIT_S) -> Found | None:
        """The first hit in ``text``, or None; :class:`PatternTimeout` when it takes longer than ``limit_s``."""
        text = _utf8(text)
        if self._regexp.programsize * len(text) <= _INLINE_STEPS:
            return self._search(text)
        return self._bounded(self._search, text, limit_s)

    def sub(self, replacement: str, text: str, *, limit_s: float = SEARCH_LIMIT_S) -> str:
        """``text`` with every hit replaced by ``replacement``, taken literally (no group references):
        ``user_pattern(r"\\d+").sub("#", "a1b22")`` -> ``"a#b#"``; :class:`PatternTimeout` past ``limit_s``."""
        text = _utf8(text)
        deadline = time.monotonic() + limit_s
        if self._regexp.programsize * len(text) <= _INLINE_SUB_STEPS:
            return self._sub(replacement, text, deadline, limit_s)
        return self._bounded(functools.partial(self._sub, replacement, deadline=deadline, limit_s=limit_s), text,
                             limit_s)

    def _bounded(self, work: Callable[[str], _T], text: str, limit_s: float) -> _T:
        future = _searches.submit(work, text)
        try:
            return future.result(timeout=limit_s)
        except FutureTimeout:
            future.cancel()  # one still queued never starts; one running ends on its own (linear, or at its deadline)
            raise self._too_long(text, limit_s) from None

    def _too_long(self, text: str, limit_s: float) -> PatternTimeout:
        return PatternTimeout(f"the pattern {_short(self.pattern)} took longer than {limit_s:g} s on a text of "
                              f"{len(text):,} characters")

    def _sub(self, replacement: str, text: str, deadline: float, limit_s: float) -> str:
        # one search per hit, each linear; the deadline between them stops a quadratic run in a worker thread too
        pieces: list[str] = []
        end = 0
        for hit in self._regexp.finditer(text):
            if time.monotonic() > deadline:
                raise self._too_long(text, limit_s)
            pieces += (text[end:hit.start()], replacement)
            end = hit.end()
        pieces.append(text[end:])
        return "".join(pieces)

    def _search(self, text: str) -> Found | None:
        hit = self._regexp.search(text)
        if hit is None:
            return None
        return Found(hit.group(0), {name: hit.group(name) or "" for name in self._regexp.groupindex})


@functools.lru_cache(maxsize=256)
def user_pattern(pattern: str) -> UserPattern:
    """``pattern`` compiled by RE2, or :class:`PatternError` with RE2's reason: ``user_pattern("a*+")`` ->
    PatternError("bad repetition operator: *+")."""
    options = re2.Options()
    options.log_errors = False  # RE2 would print each refusal to stderr; the caller reports it once
    try:
        return UserPattern(pattern, re2.compile(pattern, options))
    except re2.error as exc:
        raise PatternError(_reason(exc)) from None
    except (TypeError, ValueError, UnicodeError) as exc:  # a lone surrogate cannot be encoded for RE2
        raise PatternError(f"cannot be read ({exc.__class__.__name__})") from None


def _reason(exc: Exception) -> str:
    raw = exc.args[0] if exc.args else ""
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return " ".join(reason.split()) or "refused by RE2"


def _utf8(text: str) -> str:
    """RE2 reads UTF-8: a lone surrogate (which no UTF-8 text holds) becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def _short(pattern: str) -> str:
    return repr(pattern if len(pattern) <= 60 else pattern[:57] + "...")
