"""Judge definitions in ClickHouse: ``sumwatch_judges``, one row per (rubric, version tag), newest active.

    record_promotion(store, JudgeRecord.of(definition, results={"kappa": 0.71}, forced=""))
    active_definitions(store)          # {"groundedness": <shipped or promoted>, ..., "tone": <promoted>}
    judge_history(store, "tone")       # every promotion, newest first
    known_rubrics(store)               # the built-in four, then the promoted custom rubrics by name

Every sampler, server and worker reading the database reads the same rows, so a promotion made through
one process is what the next scoring pass of every other uses. A built-in rubric never promoted is
judged by its shipped file; promoting an older version again makes it active again (a rollback is a
promotion). The definition is stored as the text the person wrote, and parsed (and so checked) on read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..contract.calibration import LABELLED
from ..contract.values import choice_error
from ..rubrics.definition import BUILTIN, BUILTIN_NAMES, DefinitionError, Example, JudgeDefinition, parse_definition
from .connection import Store
from .corpus import load_items
from .ddl import Table, Target

JUDGES_TABLE = "sumwatch_judges"
JUDGE_COLUMNS = ("Rubric", "Version", "JudgeVersion", "ContentHash", "Definition", "PromotedAt", "PromotedBy",
                 "Forced", "Results")


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(JUDGES_TABLE)}{t.on_cluster} (
    Rubric LowCardinality(String),
    Version String,
    JudgeVersion String,
    ContentHash String,
    Definition String CODEC(ZSTD(3)),
    PromotedAt DateTime64(6),
    PromotedBy String,
    Forced String,
    Results String CODEC(ZSTD(3))
) ENGINE = {t.engine("ReplacingMergeTree", "PromotedAt")}
ORDER BY (Rubric, Version)"""


JUDGES = Table(JUDGES_TABLE, "cityHash64(Rubric)", _create)


@dataclass(frozen=True)
class JudgeRecord:
    """One promotion: the definition as written, when and by whom, the reason when the gate was overridden,
    and what its test measured (kappa overall and per bucket, items changed, LLM calls and cost)."""

    rubric: str
    version: str
    judge_version: str
    content_hash: str
    definition: str
    promoted_at: datetime
    promoted_by: str = ""
    forced: str = ""  # the reason given with --force; empty when the gate passed
    results: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, definition: JudgeDefinition, *, promoted_by: str = "", forced: str = "",
           results: dict[str, Any] | None = None, at: datetime | None = None) -> JudgeRecord:
        return cls(definition.name, definition.version, definition.judge_version, definition.content_hash,
                   definition.text, at or datetime.now(timezone.utc), promoted_by, forced, results or {})

    def parsed(self) -> JudgeDefinition:
        return parse_definition(self.definition, origin=f"{self.rubric} version {self.version} (stored)")


def resolve_examples(store: Store, definition: JudgeDefinition, *, strict: bool = True) -> JudgeDefinition:
    """``definition`` with each ``corpus_item`` example replaced by the item's texts and human verdict;
    an id that is not a labelled item of the rubric raises :class:`DefinitionError` naming the key, or, not
    ``strict`` (a judge already promoted, whose item was relabelled since), stays unresolved and is not shown."""
    if all(e.resolved or not e.corpus_item for e in definition.examples):
        return definition
    origin = definition.origin or f"{definition.name} version {definition.version}"
    resolved = []
    for n, example in enumerate(definition.examples, 1):
        if not example.corpus_item:
            resolved.append(example)
            continue
        key = f"examples[{n}].corpus_item"
        found = load_items(store, item_id=example.corpus_item)
        item = next((i for i in found if i.rubric == definition.name), None)
        usable = item is not None and item.status == LABELLED and item.human_verdict in definition.item_verdicts
        if not usable and not strict:
            resolved.append(example)
            continue
        if item is None:
            elsewhere = f" (it is a {found[0].rubric} item)" if found else ""
            raise DefinitionError(origin, key, f"{example.corpus_item!r} is not an item of the {definition.name} "
                                               f"corpus{elsewhere}")
        if item.status != LABELLED:
            raise DefinitionError(origin, key, f"{item.item_id!r} is {item.status}, not labelled: label it first "
                                               f"(`sumwatch corpus label {item.item_id} VERDICT --example`)")
        if item.human_verdict not in definition.item_verdicts:
            raise DefinitionError(origin, key, f"{item.item_id!r} is labelled {item.human_verdict!r}, which is not "
                                               f"one of the verdicts ({', '.join(definition.overall)})")
        mode = example.failure_mode or (item.bucket if item.bucket in definition.mode_names else "")
        resolved.append(Example(item.human_verdict, item.source, item.text, mode, example.why or item.note,
                                item.item_id))
    return definition.with_examples(tuple(resolved))



def record_promotion(store: Store, record: JudgeRecord) -> None:
    """Store ``record``; it becomes its rubric's active definition (the newest promotion wins)."""
    store.insert(JUDGES_TABLE, [(record.rubric, record.version, record.judge_version, record.content_hash,
                                 record.definition, record.promoted_at, record.promoted_by, record.forced,
                                 json.dumps(record.results, sort_keys=True))], JUDGE_COLUMNS)


def _records(store: Store, where: str, params: dict[str, Any]) -> list[JudgeRecord]:
    rows = store.query_rows(
        f"SELECT {', '.join(JUDGE_COLUMNS)} FROM {JUDGES_TABLE} FINAL WHERE {where} "
        f"ORDER BY Rubric, PromotedAt DESC", params)
    return [JudgeRecord(r, v, jv, h, text, at if at.tzinfo else at.replace(tzinfo=timezone.utc), by, forced,
                        json.loads(results) if results else {})
            for r, v, jv, h, text, at, by, forced, results in rows]


def judge_history(store: Store, rubric: str) -> list[JudgeRecord]:
    """Every stored version of ``rubric``, newest promotion first."""
    return _records(store, "Rubric = {r:String}", {"r": rubric})


def stored_version(store: Store, rubric: str, version: str) -> JudgeRecord | None:
    found = _records(store, "Rubric = {r:String} AND Version = {v:String}", {"r": rubric, "v": version})
    return found[0] if found else None


def active_records(store: Store) -> dict[str, JudgeRecord]:
    """The newest promotion of each rubric that has one."""
    out: dict[str, JudgeRecord] = {}
    for record in _records(store, "1", {}):
        out.setdefault(record.rubric, record)
    return out


def active_definitions(store: Store) -> dict[str, JudgeDefinition]:
    """What every sampler on this database judges with: each built-in rubric by its newest promotion or
    else its shipped file, then each custom rubric by its newest promotion. A stored row that no longer
    parses (a definition key this version of sumwatch does not know) is skipped for the rubric's previous
    good version, or the shipped file: a broken definition never becomes active. Examples given by corpus
    item carry that item's texts (one no longer labelled is left out)."""
    out: dict[str, JudgeDefinition] = {name: resolve_examples(store, d, strict=False) for name, d in BUILTIN.items()}
    seen: set[str] = set()
    for record in _records(store, "1", {}):
        if record.rubric in seen:
            continue
        try:
            out[record.rubric] = resolve_examples(store, record.parsed(), strict=False)
        except DefinitionError:
            continue
        seen.add(record.rubric)
    return out


def known_rubrics(store: Store) -> tuple[str, ...]:
    """The built-in rubrics, then the custom ones that have been promoted, by name."""
    rows = store.query_rows(f"SELECT DISTINCT Rubric FROM {JUDGES_TABLE} ORDER BY Rubric")
    return BUILTIN_NAMES + tuple(r for (r,) in rows if r not in BUILTIN_NAMES)


def check_rubric(store: Store, rubric: str) -> str:
    """``rubric`` when this database knows it (built in, or promoted); else ValueError naming the ones it knows.

        check_rubric(store, "tone")   # "tone" once a tone definition was promoted
    """
    if rubric in BUILTIN_NAMES:
        return rubric  # the common case needs no read
    known = known_rubrics(store)
    if rubric not in known:
        raise ValueError(choice_error("rubric", rubric, (repr(r) for r in known)))
    return rubric
