"""Datasets as the API serves them: versions, their items, the answer to an import, and the line format of a
dataset file (what `sumwatch dataset export` writes and `dataset import` reads).

    versions = client.dataset_versions("news")       # [DatasetVersion(name="news", version=3, items=120, ...)]
    page = client.dataset_items("news", version=2)   # DatasetItemsPage(dataset=..., items=[DatasetItem(...)], ...)
    ItemLine.model_validate({"source": doc, "questions": ["Does it give the date?"]}).item()

A dataset is named; each edit (an import, a build from an issue, traces or a corpus) makes a new version that
holds every item (the old versions stay readable, so an experiment pins the version it ran). An item's id is the
file's ``id``, or a hash of its source text, so the same item keeps its id across versions. The store
(:mod:`sumwatch.monitor.store.datasets`) and the datasets room (:mod:`sumwatch.monitor.datasets`) make them.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from sumwatch.tracer import semconv

from .actions import SkippedLine
from .values import PATTERN_MEANS

DATASET_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
DATASET_NAME = re.compile(DATASET_NAME_PATTERN)
PATTERN_MEANS[DATASET_NAME_PATTERN] = ("a dataset name is 1 to 64 letters, digits, '_', '-' or '.', starting with a "
                                       "letter or digit")
MAX_ITEM_ID = 200
MAX_DESCRIPTION = 2_000

# the formats of a dataset file, with the content types an upload may name them by
JSONL, CSV, PARQUET = "jsonl", "csv", "parquet"
FILE_FORMATS: tuple[str, ...] = (JSONL, CSV, PARQUET)
CONTENT_TYPES: dict[str, str] = {"application/x-ndjson": JSONL, "application/jsonl": JSONL, "text/csv": CSV,
                                 "application/vnd.apache.parquet": PARQUET}
_SUFFIXES = {".jsonl": JSONL, ".ndjson": JSONL, ".csv": CSV, ".parquet": PARQUET}

if TYPE_CHECKING:
    BandName: TypeAlias = str
else:  # the tracer's length bands
    BandName = Literal[semconv.BANDS]


def format_of(filename: str) -> str | None:
    """The file format a name says (``news.csv`` -> ``csv``), or None."""
    dot = filename.rfind(".")
    return _SUFFIXES.get(filename[dot:].lower()) if dot >= 0 else None


def check_dataset_name(name: str) -> str:
    """``name`` when it can name a dataset, else ValueError with the one line the API answers."""
    if not DATASET_NAME.fullmatch(name):
        shown = name[:40] + ("…" if len(name) > 40 else "")
        raise ValueError(f"{PATTERN_MEANS[DATASET_NAME_PATTERN]}, got {shown!r}")
    return name


def item_id_for(source: str) -> str:
    """The id of an item whose file gave none: a hash of its source text, the same in every version."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:20]


class DatasetItem(BaseModel):
    """One item of a dataset version: the source to summarize, and what a good summary of it is measured against
    (each optional: a reference summary, facts it must state, yes/no questions it must answer "yes")."""

    model_config = ConfigDict(frozen=True)

    item_id: str = Field(description="the file's id, or a hash of the source text: the same across versions")
    source: str = Field(description="the text to summarize")
    reference: str = Field("", description="a reference summary ('' for none)")
    expected_facts: tuple[str, ...] = Field((), description="facts a good summary states")
    questions: tuple[str, ...] = Field((), description="yes/no questions a good summary answers 'yes'")
    band: str = Field("", description="the length band a summary should keep ('' for none)")
    metadata: dict[str, str] = Field(default_factory=dict, description="free text by key (where the item came "
                                                                       "from, the summary it had, ...)")

    def line(self) -> dict[str, Any]:
        """The item as a line of a dataset file (empty fields left out): what :class:`ItemLine` reads back as
        this same item."""
        data: dict[str, Any] = {"id": self.item_id, "source": self.source, "reference": self.reference,
                                "expected_facts": list(self.expected_facts), "questions": list(self.questions),
                                "band": self.band, "metadata": dict(self.metadata)}
        return {key: value for key, value in data.items() if value or key in ("id", "source")}

    def json_line(self) -> str:
        return json.dumps(self.line(), ensure_ascii=False) + "\n"


def _id_text(value: Any) -> Any:
    # a number is taken as its digits (a spreadsheet's id column); anything else is the type check's to refuse
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _scalar_text(value: Any) -> Any:
    # metadata is text by key; a number or a truth value in a JSON line is kept as its JSON text
    return json.dumps(value) if isinstance(value, int | float | bool) else value


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _texts(values: list[str] | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in values or () if v.strip())


class ItemLine(BaseModel):
    """One line of a dataset file (a JSON line, a CSV row, a Parquet row), checked: ``source`` is required, the
    rest optional. A refusal names the field (``contract.values.validation_message``)."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[str | None, BeforeValidator(_id_text)] = Field(None, description="the item's id (default: a hash "
                                                                                   "of the source)")
    source: str
    reference: str | None = None
    expected_facts: list[str] | None = None
    questions: list[str] | None = None
    band: Annotated[BandName | None, BeforeValidator(_blank_is_none)] = None
    metadata: dict[str, Annotated[str, BeforeValidator(_scalar_text)]] | None = None

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not 1 <= len(value) <= MAX_ITEM_ID or any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise ValueError(f"an id is 1 to {MAX_ITEM_ID} characters, none of them control characters")
        return value

    @field_validator("source")
    @classmethod
    def _check_source(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("blank (an item needs text to summarize)")
        return value

    def item(self) -> DatasetItem:
        reference = self.reference if self.reference and self.reference.strip() else ""
        return DatasetItem(item_id=self.id or item_id_for(self.source), source=self.source, reference=reference,
                           expected_facts=_texts(self.expected_facts), questions=_texts(self.questions),
                           band=self.band or "", metadata=dict(self.metadata or {}))


ITEM_FIELDS: tuple[str, ...] = tuple(ItemLine.model_fields)


class DatasetVersion(BaseModel):
    """One version of a dataset: what made it and how many items it holds."""

    name: str
    version: int = Field(description="1 for the first; each edit adds one")
    created_at: datetime
    origin: str = Field(description="what made it: file:NAME, issue:SW-3, traces, corpus:RUBRIC")
    description: str = ""
    items: int
    digest: str = Field(description="a hash of the items in order: equal digests, equal contents")


class DatasetItemsPage(BaseModel):
    dataset: DatasetVersion
    items: list[DatasetItem]
    next_cursor: str | None = Field(None, description="pass as `cursor` for the next page; null on the last page")


class DatasetAnswer(BaseModel):
    """What an import or a build answers: the version made, or the latest one kept when the items were the same."""

    dataset: DatasetVersion
    created: bool = Field(description="false: the items equal the latest version's, so no version was made")
    previous: int | None = Field(None, description="the version before this edit (null: a new dataset)")
    items: int
    added: int = Field(default=0, description="items whose id the previous version did not have")
    removed: int = Field(default=0, description="items of the previous version left out")
    changed: int = Field(default=0, description="items of the same id with other contents")
    skipped: list[SkippedLine] = Field(default_factory=list, description="lines (Parquet: rows) left out, and why")
    notes: list[str] = Field(default_factory=list, description="what else was left out or assumed")

