"""What text a summarization span records: on or off, truncated, redacted.

    from sumwatch.tracer import CapturePolicy
    policy = CapturePolicy(max_chars=4000, redact=lambda t: EMAIL.sub("<email>", t))
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import filterfalse

Redactor = Callable[[str], str]


@dataclass(frozen=True)
class CapturePolicy:
    """How source and summary text are recorded on spans.

    ``enabled=False`` keeps only the source hash and word counts. ``max_chars`` truncates each text
    (the span is marked truncated). ``redact`` runs on every text before it is recorded.
    """

    enabled: bool = True
    max_chars: int | None = None
    redact: Redactor | None = None

    def __post_init__(self) -> None:
        if self.max_chars is not None and self.max_chars < 0:
            raise ValueError(f"max_chars must be >= 0 or None, got {self.max_chars}")

    def render(self, text: str) -> tuple[str | None, bool]:
        """The text to record (None when capture is off) and whether it was truncated."""
        if not self.enabled:
            return None, False
        if self.redact is not None:
            text = self.redact(text)
        if self.max_chars is not None and len(text) > self.max_chars:
            return text[: self.max_chars], True
        return text, False


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_WORD_CHAR = re.compile(r"[^\W_]")  # a letter or digit
# ASCII text takes a C-speed path: every ASCII byte that is neither a letter, a digit nor whitespace is
# deleted, so a token made only of punctuation disappears; str.split's extra separators become spaces
_ASCII_NON_WORD = bytes(c for c in range(128) if not (chr(c).isalnum() or chr(c).isspace()))
_ASCII_SPACES = bytes.maketrans(b"\x1c\x1d\x1e\x1f", b"    ")


def word_count(text: str) -> int:
    """Words as sumwatch counts them everywhere (span attributes and length bands): whitespace-separated
    tokens holding a letter or digit, so a lone "-" or "," of tokenized text is not a word.

        word_count("Sales rose 4 % , to $ 36 m .")   # 6
    """
    if text.isascii():
        return len(text.encode().translate(_ASCII_SPACES, _ASCII_NON_WORD).split())
    tokens = text.split()
    odd = list(filterfalse(str.isalnum, tokens))  # tokens with punctuation: most still hold a letter
    return len(tokens) - list(map(_WORD_CHAR.search, odd)).count(None)


_policy = CapturePolicy()


def current_policy() -> CapturePolicy:
    return _policy


def set_policy(policy: CapturePolicy) -> None:
    global _policy
    _policy = policy
