"""Summary length bands: how long a summary of each kind should be, in words and against its source.

    band = BANDS["tldr"]
    band.words_ok(28), band.ratio_ok(28 / 410)

``summarization.band`` on a span names one of these; ``custom`` (or none) sets no length expectation.
The band names are the tracer's (``semconv.BANDS``); this module only adds each one's limits.
"""

from __future__ import annotations

from dataclasses import dataclass

from sumwatch.tracer import semconv

CUSTOM = "custom"  # the band that sets no length expectation


@dataclass(frozen=True)
class Band:
    name: str
    min_words: int
    max_words: int
    min_ratio: float  # summary words / source words
    max_ratio: float

    def words_ok(self, words: int) -> bool:
        return self.min_words <= words <= self.max_words

    def ratio_ok(self, ratio: float) -> bool:
        return self.min_ratio <= ratio <= self.max_ratio


# band -> (min words, max words, min ratio, max ratio); every band the tracer names but custom has limits
_LIMITS: dict[str, tuple[int, int, float, float]] = {
    "tldr": (12, 40, 0.02, 0.20),
    "exec_summary": (40, 110, 0.08, 0.45),
    "abstract": (60, 150, 0.10, 0.55),
    "action_recap": (25, 120, 0.05, 0.50),
}
BANDS: dict[str, Band] = {name: Band(name, *_LIMITS[name]) for name in semconv.BANDS if name != CUSTOM}


def band_for(name: str | None) -> Band | None:
    """The band named on a span, or None for custom, missing or unknown names."""
    return BANDS.get(name or "")
