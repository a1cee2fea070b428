"""Regular-expression building blocks shared by the analyses."""

from __future__ import annotations

import re
from collections.abc import Iterator


class Cue:
    """A lowercase pattern run on lowercased text, several times faster than IGNORECASE (which it falls
    back to where lowercasing changes a text's length). ``hints``: substrings one of which every match
    contains; a text holding none of them is skipped without running the pattern at all."""

    def __init__(self, pattern: str, hints: tuple[str, ...] = ()) -> None:
        self.pattern = pattern
        self.hints = hints
        self.fast = re.compile(pattern)
        self.slow = re.compile(pattern, re.IGNORECASE)

    def finditer(self, text: str, low: str | None = None) -> Iterator[re.Match[str]]:
        low = text.lower() if low is None else low
        if self.hints:
            for h in self.hints:
                if h in low:
                    break
            else:
                return iter(())
        return self.fast.finditer(low) if len(low) == len(text) else self.slow.finditer(text)
