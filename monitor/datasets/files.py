"""Dataset files: JSON lines, CSV or Parquet, read into items; a bad line (or row) is reported with its number and
why, and the good ones kept.

    parsed = read_file(body, "csv")       # ParsedFile(items=[DatasetItem(...)], skipped=[(4, "source is required")])

Every format holds the fields of :class:`~sumwatch.monitor.contract.datasets.ItemLine`: ``source`` (required), ``id``,
``reference``, ``expected_facts``, ``questions``, ``band`` and ``metadata``. In CSV and Parquet a list field is a
list column, a JSON array, or text with one entry per line; ``metadata`` is a map column or a JSON object, and a
column ``metadata.KEY`` fills one key. A line number is the file's line (for CSV, the line its row starts on); a
Parquet row is numbered from 1. Two lines of the same item id keep the first. A problem of the whole file (not
UTF-8 CSV, not Parquet, an unknown column) is a :class:`FileError`, and nothing of it is read.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..contract.datasets import CSV, FILE_FORMATS, ITEM_FIELDS, JSONL, DatasetItem, ItemLine
from ..contract.values import choice_error, validation_message

METADATA_PREFIX = "metadata."
_LISTS = ("expected_facts", "questions")
_KNOWN = ", ".join(ITEM_FIELDS) + f", and {METADATA_PREFIX}KEY for one metadata key"


class FileError(ValueError):
    """The file cannot be read at all: one line saying why."""


@dataclass
class ParsedFile:
    items: list[DatasetItem] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line or row, why)

    @property
    def lines(self) -> int:
        """The lines (rows) that held an item or a problem: blank lines are not counted."""
        return len(self.items) + len(self.skipped)


class _Refused(ValueError):
    """One line or row cannot be read."""


def read_file(body: bytes, fmt: str) -> ParsedFile:
    """The items of a dataset file in ``fmt`` (jsonl, csv or parquet), and its bad lines."""
    if fmt not in FILE_FORMATS:
        raise FileError(choice_error("format", fmt, FILE_FORMATS))
    rows = _jsonl(body) if fmt == JSONL else _csv(body) if fmt == CSV else _parquet(body)
    return _checked(rows)


def _checked(rows: Iterable[tuple[int, dict[str, Any] | str]]) -> ParsedFile:
    """Each row as an item (a row that is a string is the reason it was refused), ids kept unique."""
    parsed = ParsedFile()
    first: dict[str, int] = {}
    for number, row in rows:
        if isinstance(row, str):
            parsed.skipped.append((number, row))
            continue
        try:
            item = ItemLine.model_validate(row).item()
        except ValidationError as exc:
            parsed.skipped.append((number, validation_message(list(exc.errors()))))
            continue
        if item.item_id in first:
            said = "id" if row.get("id") is not None else "source (an item without an id is known by its source)"
            parsed.skipped.append((number, f"the same {said} as line {first[item.item_id]}"))
            continue
        first[item.item_id] = number
        parsed.items.append(item)
    return parsed


def _jsonl(body: bytes) -> Iterator[tuple[int, dict[str, Any] | str]]:
    for number, raw in enumerate(body.removeprefix(b"\xef\xbb\xbf").split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            yield number, "not UTF-8 text"
            continue
        except RecursionError:
            yield number, "JSON nested too deeply to read"
            continue
        except ValueError as exc:
            yield number, f"not JSON ({str(exc).split(':')[0]})"
            continue
        yield number, data if isinstance(data, dict) else f"expected a JSON object, got {_kind(data)}"


def _kind(value: Any) -> str:
    return {list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(type(value), "a number")


def _columns(names: list[str], what: str) -> None:
    """Refuse a header with a column no item field has, the same column twice, or no source."""
    unknown = [n for n in names if n not in ITEM_FIELDS and not (n.startswith(METADATA_PREFIX) and
                                                                 len(n) > len(METADATA_PREFIX))]
    if unknown:
        shown = ", ".join(repr(n[:40]) for n in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise FileError(f"the {what} has unknown column(s) {shown}; the columns are {_KNOWN}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise FileError(f"the {what} names column(s) {', '.join(repr(n[:40]) for n in twice)} more than once")
    if "source" not in names:
        raise FileError(f"the {what} has no source column (the text to summarize)")


def _tabular(values: dict[str, Any]) -> dict[str, Any]:
    """A CSV or Parquet row as the fields of a JSON line: empty cells left out, lists and metadata from text."""
    out: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for name, value in values.items():
        if value is None or (isinstance(value, str) and not value.strip() and name != "source"):
            continue
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError:
                raise _Refused(f"{name} is not UTF-8 text") from None
        if name.startswith(METADATA_PREFIX):
            metadata[name[len(METADATA_PREFIX):]] = value
        elif name in _LISTS and isinstance(value, str):
            out[name] = _text_list(name, value)
        elif name == "metadata":
            metadata = {**_mapping(value), **metadata}
        else:
            out[name] = value
    if metadata:
        out["metadata"] = metadata
    return out


def _text_list(name: str, text: str) -> list[Any]:
    """A JSON array, or one entry per line."""
    if text.lstrip().startswith("["):
        try:
            found = json.loads(text)
        except (ValueError, RecursionError):
            found = None
        if isinstance(found, list):
            return found
    return [line for line in text.splitlines() if line.strip()]


def _mapping(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise _Refused("metadata must be a JSON object (like {\"topic\": \"markets\"})") from None
    if isinstance(value, list) and all(isinstance(p, tuple) and len(p) == 2 for p in value):  # a Parquet map
        value = dict(value)
    if not isinstance(value, dict):
        raise _Refused(f"metadata must be a JSON object, got {_kind(value)}")
    return value


def _rows(numbered: Iterable[tuple[int, dict[str, Any] | str]]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Tabular rows as JSON lines' fields (a row that is a string is already the reason it was refused)."""
    for number, values in numbered:
        if isinstance(values, str):
            yield number, values
            continue
        try:
            yield number, _tabular(values)
        except _Refused as exc:
            yield number, str(exc)


def _csv(body: bytes) -> Iterator[tuple[int, dict[str, Any] | str]]:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileError(f"a CSV file must be UTF-8 text: byte {exc.start + 1} is not") from None
    if len(text) >= csv.field_size_limit():  # a source may be long: no cell of this file is cut off
        csv.field_size_limit(len(text) + 1)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)  # a quote never closed is an error, not EOF
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise FileError(f"the CSV header cannot be read: {exc}") from None
    if header is None:
        return
    names = [n.strip() for n in header]
    _columns(names, "CSV header")
    yield from _rows(_csv_rows(reader, names))


def _csv_rows(reader: Any, names: list[str]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    end = reader.line_num
    while True:
        start = end + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield start, f"the CSV breaks here ({exc}); the rest of the file was not read"
            return
        end = reader.line_num
        if not row or (len(row) == 1 and not row[0].strip() and len(names) > 1):
            continue  # a blank line
        if len(row) != len(names):
            yield start, f"{len(row)} fields where the header has {len(names)}"
            continue
        yield start, dict(zip(names, row))


def _parquet(body: bytes) -> Iterator[tuple[int, dict[str, Any] | str]]:
    # pyarrow only here: importing it costs about half a second, which no other request should pay
    import pyarrow as pa  # noqa: PLC0415 - heavy: loaded on first use
    import pyarrow.parquet as pq  # noqa: PLC0415 - heavy: loaded on first use

    try:
        table = pq.read_table(pa.BufferReader(body))
        names = [str(n) for n in table.column_names]
        _columns(names, "Parquet file")
        rows = table.to_pylist()
    except FileError:
        raise
    except Exception as exc:  # pyarrow says no in several exception types, each a file it cannot read
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise FileError(f"not a Parquet file this server can read: {reason}") from None
    yield from _rows((number, row) for number, row in enumerate(rows, start=1))
