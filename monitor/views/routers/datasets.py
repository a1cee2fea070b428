"""Datasets: their versions, a version's items a page at a time, and the edits that make a version (a file's upload,
an issue's members, the spans a listing's filters select, a calibration corpus).

    GET  /api/datasets                                  -> [DatasetVersion]: every dataset's latest version
    GET  /api/datasets/news                             -> [DatasetVersion]: its versions, newest first
    GET  /api/datasets/news/items?version=2&limit=100   -> a page; its next_cursor gives the next one
    POST /api/datasets/news/import?format=csv           (the file as the body) -> DatasetAnswer
    POST /api/datasets/news/from-issue {"issue": "SW-3"}
    POST /api/datasets/news/from-traces {"filters": {"service": "digest", "verdict": "fail"}, "limit": 200}
    POST /api/datasets/news/from-corpus {"rubric": "factuality"}

An edit whose items equal the latest version's makes no version and says so (``created`` false). A dataset or
version the database does not have is a 404; content that holds no item (an empty file, an issue without
recorded text) is a 422.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...contract.calibration import STATUSES
from ...contract.datasets import (
    CONTENT_TYPES,
    DATASET_NAME_PATTERN,
    FILE_FORMATS,
    MAX_DESCRIPTION,
    DatasetAnswer,
    DatasetItemsPage,
    DatasetVersion,
)
from ...contract.issues import issue_label, parse_issue_id
from ...contract.limits import MAX_LIST_LIMIT
from ...contract.listing import TraceFilters
from ...contract.values import ISSUE_ID_PATTERN
from ...datasets.builds import Built, UnknownIssue, from_corpus, from_issue, from_traces
from ...datasets.files import FileError, read_file
from ...datasets.versions import EmptyDataset, save_dataset
from ...store.connection import Store
from ...store.datasets import dataset_versions, find_version, latest_versions, next_items_cursor, version_items
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import PAGED, WHOLE, CursorQuery, Rubric, known_rubric, limit_query, page
from .uploads import read_upload

router = APIRouter(prefix="/api/datasets", tags=["datasets"], responses=error_responses(400, 401))

if TYPE_CHECKING:
    FileFormat: TypeAlias = str
    CorpusStatus: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place each is defined
    FileFormat, CorpusStatus = Literal[FILE_FORMATS], Literal[STATUSES]
NamePath = Annotated[str, Path(pattern=DATASET_NAME_PATTERN, max_length=64, description="The dataset's name")]
Description = Annotated[str | None, Field(max_length=MAX_DESCRIPTION, description="What this version is for")]
_UNUSABLE = 422  # well formed, but nothing can be stored of it
_BINARY = {"schema": {"type": "string", "format": "binary"}}
FILE_BODY = {"requestBody": {"required": True, "description": "The file: JSON lines, CSV or Parquet",
                             "content": {kind: _BINARY for kind in CONTENT_TYPES}}}


class FromIssueBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says
    issue: str = Field(pattern=ISSUE_ID_PATTERN, max_length=40, description="The issue, like SW-3")
    description: Description = None


class FromTracesBody(BaseModel):
    model_config = ConfigDict(extra="forbid")  # not strict: the filters' times are ISO 8601 text
    filters: TraceFilters = Field(default_factory=TraceFilters, description="As GET /api/traces takes them")
    limit: Annotated[int, Field(ge=1, le=MAX_LIST_LIMIT, strict=True), WHOLE] = Field(
        100, description="The newest this many matching spans")
    description: Description = None


class FromCorpusBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    rubric: Rubric
    status: CorpusStatus | None = Field(None, description="Only items of this status (default: all but rejected)")
    description: Description = None


def _versions_of(store: Store, name: str) -> list[DatasetVersion]:
    found = dataset_versions(store, name)
    if not found:
        raise ApiError(404, f"no dataset {name!r}")
    return found


@router.get("", summary="Every dataset, at its latest version")
def datasets(s: ServicesDep) -> list[DatasetVersion]:
    return latest_versions(s.store)


@router.get("/{name}", summary="A dataset's versions, newest first", responses=error_responses(404))
def versions(s: ServicesDep, name: NamePath) -> list[DatasetVersion]:
    return _versions_of(s.store, name)


@router.get("/{name}/items", summary="A version's items in their order, a page at a time",
            responses={**PAGED, **error_responses(404)})
def items(s: ServicesDep, request: Request, response: Response, name: NamePath,
          version: Annotated[int | None, Query(ge=1, le=2**32 - 1, description="The version (default: the latest)")]
          = None, limit: int = limit_query(100, "items"), cursor: CursorQuery = None) -> DatasetItemsPage:
    found = find_version(s.store, name, version)
    if found is None:
        known = _versions_of(s.store, name)
        raise ApiError(404, f"dataset {name!r} has no version {version} (it has 1 to {known[0].version})")
    number = found.version
    rows = page(request, response, lambda: version_items(s.store, name, number, limit=limit, cursor=cursor),
                lambda got, n: next_items_cursor(name, number, cursor, got, n), limit)
    return DatasetItemsPage(dataset=found, items=rows, next_cursor=response.headers.get("X-Next-Cursor"))


def _file_format(request: Request, format: str | None) -> str:
    if format is not None:
        return format
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind in CONTENT_TYPES:
        return CONTENT_TYPES[kind]
    raise ApiError(400, f"say the file's format: ?format= {', '.join(FILE_FORMATS)}, or a Content-Type of "
                        f"{', '.join(CONTENT_TYPES)}" + (f" (not {kind[:60]})" if kind else ""))


@router.post("/{name}/import", summary="Make a version from a file (bad lines are skipped and reported)",
             openapi_extra=FILE_BODY, responses=error_responses(413, 422))
async def import_file(s: ServicesDep, request: Request, name: NamePath,
                      format: Annotated[FileFormat | None, Query(description="jsonl, csv or parquet (default: from "
                                                                             "the Content-Type)")] = None,
                      description: Annotated[str | None, Query(max_length=MAX_DESCRIPTION,
                                                               description="What this version is for")] = None,
                      filename: Annotated[str | None, Query(max_length=200, description="The file's name, kept as "
                                                                                        "the version's origin")]
                      = None) -> DatasetAnswer:
    fmt = _file_format(request, format)
    body = await read_upload(request, s.settings.receiver.max_body_bytes)

    def run() -> DatasetAnswer:
        try:
            parsed = read_file(body, fmt)
        except FileError as exc:
            raise ApiError(_UNUSABLE, str(exc)) from None
        if not parsed.items:
            if not parsed.skipped:
                raise ApiError(_UNUSABLE, "the file holds no items")
            (line, reason), more = parsed.skipped[0], len(parsed.skipped) - 1
            raise ApiError(_UNUSABLE, f"no line of the file holds a usable item; line {line}: {reason}"
                                      + (f" (and {more} more bad lines)" if more else ""))
        origin = f"file:{' '.join((filename or '').split())[:200] or fmt}"
        return _save(s.store, name, Built(parsed.items), origin, description, parsed.skipped)

    return await run_in_threadpool(run)


def _save(store: Store, name: str, built: Built, origin: str, description: str | None,
          skipped: list[tuple[int, str]] | None = None) -> DatasetAnswer:
    try:
        return save_dataset(store, name, built.items, origin=origin, description=description or "",
                            skipped=skipped or (), notes=built.notes)
    except EmptyDataset as exc:
        raise ApiError(_UNUSABLE, "; ".join([str(exc), *built.notes])) from None


@router.post("/{name}/from-issue", summary="Make a version from an issue's members (their sources, and the "
                                          "failing summaries as metadata)", responses=error_responses(404, 422))
def issue_dataset(s: ServicesDep, name: NamePath, body: FromIssueBody) -> DatasetAnswer:
    label = issue_label(parse_issue_id(body.issue))
    try:
        built = from_issue(s.store, body.issue)
    except UnknownIssue as exc:
        raise ApiError(404, str(exc)) from None
    return _save(s.store, name, built, f"issue:{label}", body.description)


@router.post("/{name}/from-traces", summary="Make a version from the newest spans the Traces filters select",
             responses=error_responses(404, 422))
def traces_dataset(s: ServicesDep, name: NamePath, body: FromTracesBody) -> DatasetAnswer:
    if body.filters.rubric is not None:
        known_rubric(s.store, body.filters.rubric)
    built = from_traces(s.store, body.filters, body.limit)
    if not built.items and not built.notes:
        built.notes.append("no summarization span matches the filters")
    return _save(s.store, name, built, "traces", body.description)


@router.post("/{name}/from-corpus", summary="Make a version from a calibration corpus (one item per source)",
             responses=error_responses(404, 422))
def corpus_dataset(s: ServicesDep, name: NamePath, body: FromCorpusBody) -> DatasetAnswer:
    known_rubric(s.store, body.rubric)
    built = from_corpus(s.store, body.rubric, body.status)
    if not built.items and not built.notes:
        built.notes.append(f"the {body.rubric} corpus has no items" + (f" of status {body.status}"
                                                                        if body.status else ""))
    return _save(s.store, name, built, f"corpus:{body.rubric}", body.description)
