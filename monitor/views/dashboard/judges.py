"""The Judges pages: each rubric's active definition, its promotions with what their tests measured, the diff
between two versions, the cheap tiers' agreement with the LLM, the few-shot examples, and the pass rate of
each version's verdicts (so a promotion's effect on production shows as the rate before and after it).

    context = judges_index(store)                       # one row per rubric, built-in and custom
    context = judge_page(store, "groundedness")         # None: no such rubric
    context = judge_diff(store, "tone", "1", "2")       # "shipped" names a built-in's shipped file

A definition is text a person wrote and may hold anything; the templates escape every value of it.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...contract.calibration import CorpusItem
from ...contract.values import RUBRIC_NAME
from ...rubrics.definition import BUILTIN, DefinitionError, Example, JudgeDefinition
from ...store.connection import Store
from ...store.corpus import example_items, load_items
from ...store.judges import JudgeRecord, active_definitions, judge_history, known_rubrics, stored_version
from ...store.scores import VersionPassRate, judge_agreement, pass_rates_by_judge_version
from .query import BadRequest

SHIPPED = "shipped"  # the diff's name for a built-in rubric's shipped file
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
_DIFF_CONTEXT = 3


# -- what a promotion recorded ---------------------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _kappas(value: Any) -> dict[str, float | None]:
    if not isinstance(value, Mapping):
        return {}
    return {str(bucket): _number(kappa) for bucket, kappa in value.items()}


@dataclass(frozen=True)
class Measured:
    """What ``sumwatch judge promote`` stored of a version's test, read defensively: a value missing or of
    another type is None (an older or hand-made row still renders)."""

    kappa: float | None = None
    buckets: dict[str, float | None] = field(default_factory=dict)
    active_kappa: float | None = None  # the version it replaced, on the same corpus
    active_buckets: dict[str, float | None] = field(default_factory=dict)
    items: int | None = None
    changed: int | None = None
    calls: int | None = None
    cost_usd: float | None = None

    @classmethod
    def of(cls, results: Mapping[str, Any]) -> Measured:
        """``Measured.of({"kappa": 0.71, "buckets": {"pass": 0.8}})``"""
        return cls(_number(results.get("kappa")), _kappas(results.get("buckets")),
                   _number(results.get("active_kappa")), _kappas(results.get("active_buckets")),
                   _count(results.get("items")), _count(results.get("changed")), _count(results.get("calls")),
                   _number(results.get("cost_usd")))


# -- rows -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VersionRow:
    """One version of a rubric: a promotion, or a built-in's shipped file."""

    version: str
    judge_version: str
    promoted_at: datetime | None  # None: the shipped file
    promoted_by: str
    forced: str  # the reason given when the gate was overridden
    model: str
    measured: Measured
    active: bool
    broken: str = ""  # why a stored definition no longer parses (it never becomes active)

    @property
    def shipped(self) -> bool:
        return self.promoted_at is None

    @property
    def diff_name(self) -> str:
        return SHIPPED if self.shipped else self.version


@dataclass(frozen=True)
class RateRow:
    """The pass rate of one version's verdicts, and its change from the version before it."""

    version: VersionRow
    passed: int
    total: int
    change: float | None  # against the previous version that has verdicts; None for the first

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class ExampleView:
    """A few-shot example of the active definition, its texts resolved from the corpus where it names an item."""

    example: Example
    source: str
    summary: str
    verdict: str
    missing: bool  # names a corpus item that is not there


@dataclass(frozen=True)
class IndexRow:
    definition: JudgeDefinition
    active: VersionRow
    versions: int
    rate: RateRow | None


def _parsed(record: JudgeRecord) -> tuple[JudgeDefinition | None, str]:
    try:
        return record.parsed(), ""
    except DefinitionError as exc:
        return None, str(exc)


def _rows(rubric: str, history: Sequence[JudgeRecord], active: JudgeDefinition) -> list[VersionRow]:
    """The versions newest first; a built-in's shipped file last unless a promotion carries the same content."""
    rows = []
    for record in history:
        parsed, broken = _parsed(record)
        rows.append(VersionRow(record.version, record.judge_version, record.promoted_at, record.promoted_by,
                               record.forced, parsed.model if parsed else "", Measured.of(record.results),
                               record.judge_version == active.judge_version, broken))
    shipped = BUILTIN.get(rubric)
    if shipped is not None and all(r.judge_version != shipped.judge_version for r in rows):
        rows.append(VersionRow(shipped.version, shipped.judge_version, None, "", "", shipped.model, Measured(),
                               shipped.judge_version == active.judge_version))
    return rows


def rate_rows(versions: Sequence[VersionRow], rates: Sequence[VersionPassRate]) -> list[RateRow]:
    """Each version's pass rate, oldest first: the scores whose judge version has that definition's version
    among its parts (``cascade-3/.../tone@2~3f2a9c01/llm-...``), summed over every cascade that used it."""
    tally: dict[str, tuple[int, int]] = {}
    for rate in rates:
        parts = set(rate.judge_version.split("/"))
        for row in versions:
            if row.judge_version in parts:
                passed, total = tally.get(row.judge_version, (0, 0))
                tally[row.judge_version] = (passed + rate.passed, total + rate.total)
    out: list[RateRow] = []
    previous: float | None = None
    for row in reversed(versions):  # oldest first: the shipped file, then promotions in order
        passed, total = tally.get(row.judge_version, (0, 0))
        current = RateRow(row, passed, total, None)
        if current.rate is not None:
            current = RateRow(row, passed, total, None if previous is None else current.rate - previous)
            previous = current.rate
        out.append(current)
    return out


def bucket_columns(definition: JudgeDefinition, versions: Sequence[VersionRow]) -> list[str]:
    """The buckets any version measured, in the active definition's order, then any others by name."""
    seen = {b for row in versions for b in (*row.measured.buckets, *row.measured.active_buckets)}
    order = ["pass", *definition.mode_names]
    return [b for b in order if b in seen] + sorted(seen - set(order))


# -- pages ------------------------------------------------------------------------------------------------

def _rubric(store: Store, rubric: str) -> str | None:
    if not RUBRIC_NAME.fullmatch(rubric):
        raise BadRequest(f"a rubric name is lower-case letters, digits and _ (as `sumwatch judge list` shows it), "
                         f"got {rubric[:40]!r}")
    return rubric if rubric in known_rubrics(store) else None


def judges_index(store: Store) -> dict[str, Any]:
    """Every rubric with its active version, how many versions it has had, and its active pass rate."""
    definitions = active_definitions(store)
    rates = pass_rates_by_judge_version(store)
    out = []
    for rubric in known_rubrics(store):
        definition = definitions.get(rubric)
        if definition is None:  # only broken versions stored: nothing is active for it
            continue
        versions = _rows(rubric, judge_history(store, rubric), definition)
        active = next(r for r in versions if r.active) if any(r.active for r in versions) else versions[0]
        by_version = rate_rows(versions, [r for r in rates if r.rubric == rubric])
        out.append(IndexRow(definition, active, len(versions),
                            next((r for r in by_version if r.version is active), None)))
    return {"rows": out}


def _examples(definition: JudgeDefinition) -> list[ExampleView]:
    return [ExampleView(e, e.source, e.summary, e.verdict, False) for e in definition.examples]


def _resolve(store: Store, examples: Sequence[ExampleView]) -> list[ExampleView]:
    out = []
    for view in examples:
        ref = view.example.corpus_item
        if not ref:
            out.append(view)
            continue
        found = load_items(store, item_id=ref) if ref.isalnum() and len(ref) <= 64 else []
        item: CorpusItem | None = found[0] if found else None
        out.append(ExampleView(view.example, item.source if item else "", item.text if item else "",
                               view.example.verdict or (item.human_verdict if item else ""), item is None))
    return out


def judge_page(store: Store, rubric: str) -> dict[str, Any] | None:
    """One rubric: its active definition, history, pass rate per version, agreement and examples."""
    if _rubric(store, rubric) is None:
        return None
    definition = active_definitions(store).get(rubric)
    if definition is None:
        return None
    versions = _rows(rubric, judge_history(store, rubric), definition)
    active = next((r for r in versions if r.active), versions[0])
    in_use = _resolve(store, _examples(definition))
    used = {v.example.corpus_item for v in in_use if v.example.corpus_item}
    candidates = [i for i in example_items(store, rubric) if i.item_id not in used]
    names = [r.diff_name for r in versions]
    return {"rubric": rubric, "definition": definition, "active": active, "versions": versions,
            "buckets": bucket_columns(definition, versions),
            "rates": list(reversed(rate_rows(versions, pass_rates_by_judge_version(store, rubric)))),
            "agreement": [a for a in judge_agreement(store) if a.rubric == rubric],
            "examples": in_use, "candidates": candidates, "diff_names": names,
            "diff_from": names[1] if len(names) > 1 else names[0], "diff_to": names[0]}


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "file", "hunk", "add", "del" or "same"
    text: str


def diff_lines(old: str, new: str, old_name: str, new_name: str) -> list[DiffLine]:
    """``old`` against ``new`` as a unified diff, each line with its kind for colouring."""
    out = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), old_name, new_name, lineterm="",
                                     n=_DIFF_CONTEXT):
        if line.startswith(("---", "+++")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        else:
            kind = {"+": "add", "-": "del"}.get(line[:1], "same")
        out.append(DiffLine(kind, line))
    return out


def _text(store: Store, rubric: str, version: str) -> str | None:
    if version == SHIPPED:
        if rubric not in BUILTIN:
            raise BadRequest(f"{rubric} is a custom rubric: it has no shipped file, only promoted versions")
        return BUILTIN[rubric].text
    record = stored_version(store, rubric, version)
    return record.definition if record else None


def judge_diff(store: Store, rubric: str, old: str, new: str) -> dict[str, Any] | None:
    """The definition text of version ``old`` against ``new`` (None: no such rubric or version)."""
    for key, value in (("from", old), ("to", new)):
        if not value:
            raise BadRequest(f"{key} is missing: give two versions, e.g. ?from=1&to=2 ({SHIPPED} names the shipped "
                             f"file of a built-in rubric)")
        if value != SHIPPED and not _VERSION.fullmatch(value):
            raise BadRequest(f"{key} must be a version tag (letters, digits, '.', '_' or '-', at most 40) or "
                             f"{SHIPPED}, got {value[:40]!r}")
    if _rubric(store, rubric) is None:
        return None
    old_text, new_text = _text(store, rubric, old), _text(store, rubric, new)
    if old_text is None or new_text is None:
        return None
    lines = diff_lines(old_text, new_text, f"{rubric}@{old}", f"{rubric}@{new}")
    history = judge_history(store, rubric)
    names = [r.version for r in history] + ([SHIPPED] if rubric in BUILTIN else [])
    return {"rubric": rubric, "old": old, "new": new, "lines": lines, "diff_names": names,
            "added": sum(line.kind == "add" for line in lines), "removed": sum(line.kind == "del" for line in lines)}

