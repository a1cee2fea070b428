"""Manage calibration corpora: import and export JSONL, seed the shipped starter corpora, label items.

    import_jsonl(store, Path("factuality.jsonl"))             # items with human verdicts
    seed_starter_corpora(store)                               # idempotent
    label_item(store, "3f2a...", "entity_wrong")               # a promoted item becomes labelled
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..contract.calibration import CorpusItem
from ..rubrics.verdicts import RUBRICS
from ..store.connection import Store
from ..store.corpus import check_item, existing_ids, save_items
from ..store.judges import known_rubrics
from .labels import record_label

STARTER_DIR = Path(__file__).parent / "corpora"


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)


def import_jsonl(store: Store, path: Path, *, origin: str | None = None,
                 new_rubrics: Sequence[str] = ()) -> ImportReport:
    """Add or update items from JSONL; a bad line is reported with its number and skipped. An item's rubric is
    one the database knows (built in or promoted) or one of ``new_rubrics``, whose definition the importer has
    (a new rubric's corpus comes before its promotion, as with ``corpus add --definition``)."""
    report = ImportReport()
    items: list[CorpusItem] = []
    known = (*known_rubrics(store), *new_rubrics)
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw.decode("utf-8"))
                if origin and isinstance(data, dict) and not data.get("origin"):
                    data["origin"] = origin
                item = check_item(CorpusItem.from_json(data))
                if item.rubric not in known:
                    raise ValueError(unknown_rubric(item.rubric, known))
                items.append(item)
            except (ValueError, TypeError, UnicodeDecodeError) as exc:
                report.bad.append((line_no, str(exc)))
            except RecursionError:
                report.bad.append((line_no, "JSON nested too deeply to read"))
    stored = existing_ids(store, (i.item_id for i in items))
    save_items(store, items)
    report.updated = sum(1 for i in items if i.item_id in stored)
    report.added = len(items) - report.updated
    return report


def unknown_rubric(rubric: str, known: Sequence[str]) -> str:
    """The one line refusing a corpus item of a rubric nobody defined."""
    return (f"rubric {rubric[:40]!r} is neither built in nor promoted (rubrics: {', '.join(known)}); a new "
            f"rubric's corpus needs its definition file (--definition FILE)")


def export_jsonl(items: Sequence[CorpusItem]) -> str:
    return "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in items)


def seed_starter_corpora(store: Store, rubrics: Sequence[str] = RUBRICS) -> dict[str, int]:
    """Load the corpora shipped with sumwatch (idempotent: items already present are left as they are)."""
    added = {}
    for rubric in rubrics:
        path = STARTER_DIR / f"{rubric}.jsonl"
        if not path.is_file():
            added[rubric] = 0
            continue
        items = [CorpusItem.from_json(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
        known = existing_ids(store, (i.item_id for i in items))
        fresh = [i for i in items if i.item_id not in known]
        save_items(store, fresh)
        added[rubric] = len(fresh)
    return added


def label_item(store: Store, item_id: str, verdict: str, *, bucket: str | None = None,
               note: str | None = None, example: bool | None = None, by: str = "") -> CorpusItem:
    """``by``'s verdict on an item: once its labellers agree it is ``labelled`` and counts in calibration
    (see :func:`.labels.record_label`). ``example`` marks it (or, False, unmarks it) as a hard case to offer a
    judge definition as a few-shot example. KeyError: no such item; ValueError: a verdict it cannot have."""
    return record_label(store, item_id, verdict, by=by, bucket=bucket, note=note, example=example)
