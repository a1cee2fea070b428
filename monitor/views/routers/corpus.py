"""Calibration corpora: items per rubric and status (``status=needs_label`` is the labelling queue), a
person's label, a trace labelled into a corpus, agreement between labellers and resolving their
disagreements, and imports of JSON Lines.

    GET  /api/corpus?rubric=factuality&status=needs_label&limit=50  -> a page; its next_cursor gives the next one
    POST /api/corpus/from-trace {"trace_id": "5b8e...", "rubric": "factuality", "verdict": "fail", "by": "ana"}
    GET  /api/corpus/agreement?rubric=factuality                 -> kappa per pair of labellers, disagreements
    POST /api/corpus/3f2a.../resolve {"verdict": "correct", "by": "lead"}

``by`` names the labeller; without it the label is the API token's (``api``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...calibration.corpus import import_jsonl, label_item, seed_starter_corpora, unknown_rubric
from ...calibration.labels import MAX_LABELLER, LabelError, UnknownItem, label_trace, labeller_agreement, resolve_item
from ...contract.actions import SkippedLine
from ...contract.calibration import REJECTED, STATUSES, CorpusItem, CorpusPage, ImportAnswer, LabellerAgreement
from ...contract.values import PATTERN_MEANS
from ...rubrics.definition import DefinitionError, parse_definition
from ...store.corpus import count_items, load_items, next_corpus_cursor
from ...store.judges import known_rubrics
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import PAGED, TRACE_ID_PATTERN, CursorQuery, Rubric, RubricQuery, limit_query, page
from .uploads import NDJSON_BODY, as_file, read_upload

router = APIRouter(prefix="/api/corpus", tags=["corpus"], responses=error_responses(400, 401, 404))

if TYPE_CHECKING:
    ItemStatus: TypeAlias = str
else:
    ItemStatus = Literal[STATUSES]
API_LABELLER = "api"  # who a label is by when a request names nobody: the holder of the API token
ItemIdPath = Annotated[str, Path(max_length=200, description="Item id (from the listing)")]
SPAN_ID_PATTERN = "^[0-9a-fA-F]{16}$"
PATTERN_MEANS[SPAN_ID_PATTERN] = "span id must be 16 hex characters"
# A label the item cannot take (a verdict of another rubric, a rejected item as an example, a trace with several
# summarization spans and none named) is well formed but unusable: 422.
_UNUSABLE = 422


class LabelBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    verdict: str = Field(min_length=1, max_length=100,
                         description=f"a verdict of the item's rubric, or '{REJECTED}' to drop it")
    bucket: str | None = Field(None, max_length=200, description="failure-mode bucket")
    note: str | None = Field(None, max_length=10_000, description="kept with the label")
    example: bool | None = Field(None, description="offer this hard case to judge definitions as a few-shot "
                                                   "example (false: stop offering it)")
    by: str | None = Field(None, max_length=MAX_LABELLER, description="who labels (default: the API token, 'api')")


class TraceLabelBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    trace_id: str = Field(pattern=TRACE_ID_PATTERN, description="the trace (32 hex characters)")
    span_id: str | None = Field(None, pattern=SPAN_ID_PATTERN, description="its summarization span (needed when "
                                                                           "it has several)")
    rubric: Rubric = Field(description="the corpus the span goes into (404 for a rubric the database does not "
                                       "know, unless `definition` gives it)")
    verdict: str = Field(min_length=1, max_length=100,
                         description="pass, fail (with failure_mode when the rubric has several failing verdicts) "
                                     "or one of the rubric's verdicts")
    failure_mode: str | None = Field(None, max_length=100,
                                     description="what failed: one of the rubric's failure modes or failing verdicts "
                                                 "(stored as the item's bucket); never guessed")
    note: str | None = Field(None, max_length=10_000, description="kept with the label")
    by: str | None = Field(None, max_length=MAX_LABELLER, description="who labels (default: the API token, 'api')")
    definition: str | None = Field(None, max_length=200_000,
                                   description="a new rubric's definition (TOML text), for a rubric not promoted yet")


class ResolveBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    verdict: str = Field(min_length=1, max_length=100, description="the item's final verdict (or 'rejected')")
    by: str | None = Field(None, max_length=MAX_LABELLER, description="who resolves (default: the API token, 'api')")


@router.get("", summary="Calibration corpus items (status=needs_label is the labelling queue), a page at a time",
            responses=PAGED)
def items(s: ServicesDep, request: Request, response: Response, rubric: RubricQuery = None,
          status: Annotated[ItemStatus | None, Query(description="Only items with this status")] = None,
          limit: int = limit_query(50, "items"), cursor: CursorQuery = None) -> CorpusPage:
    seed_starter_corpora(s.store)  # the packaged starters are always there
    found = page(request, response, lambda: load_items(s.store, rubric=rubric, status=status, limit=limit,
                                                       cursor=cursor), next_corpus_cursor, limit)
    return CorpusPage(total=count_items(s.store, rubric=rubric, status=status), items=found,
                      next_cursor=response.headers.get("X-Next-Cursor"))


@router.post("/import", summary="Add or update items from JSON Lines (bad lines are skipped and reported)",
             openapi_extra=NDJSON_BODY, responses=error_responses(413))
async def import_items(s: ServicesDep, request: Request, new_rubric: Annotated[list[str] | None, Query(
        description="A new rubric (not promoted yet) whose items the file may hold: its definition is the "
                    "importer's")] = None) -> ImportAnswer:
    body = await read_upload(request, s.settings.receiver.max_body_bytes)

    def run() -> ImportAnswer:
        with as_file(body) as path:
            try:
                report = import_jsonl(s.store, path, new_rubrics=tuple(new_rubric or ()))
            except RecursionError:
                raise ApiError(400, "a line is JSON nested too deeply to parse; nothing was imported") from None
        return ImportAnswer(added=report.added, updated=report.updated,
                            skipped=[SkippedLine(line=n, reason=r) for n, r in report.bad])

    return await run_in_threadpool(run)


@router.post("/from-trace", summary="Label a trace's summarization span into a rubric's corpus",
             responses=error_responses(404, 422))
def from_trace(s: ServicesDep, body: TraceLabelBody) -> CorpusItem:
    draft = None
    if body.definition is None:
        if body.rubric not in (known := known_rubrics(s.store)):
            raise ApiError(404, unknown_rubric(body.rubric, known))
    else:
        try:
            draft = parse_definition(body.definition, origin=f"the {body.rubric} definition")
        except DefinitionError as exc:
            raise ApiError(_UNUSABLE, str(exc)) from None
    try:
        return label_trace(s.store, body.trace_id, body.rubric, body.verdict, by=body.by or API_LABELLER,
                           span_id=body.span_id, note=body.note, failure_mode=body.failure_mode, definition=draft)
    except UnknownItem as exc:
        raise ApiError(404, str(exc.args[0])) from None
    except LabelError as exc:
        raise ApiError(_UNUSABLE, str(exc)) from None


@router.get("/agreement", summary="Cohen's kappa between each pair of labellers, and the items they disagree on")
def agreement(s: ServicesDep, rubric: RubricQuery = None) -> LabellerAgreement:
    try:
        return labeller_agreement(s.store, rubric)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None


@router.get("/{item_id}", summary="One corpus item", responses=error_responses(404))
def item(s: ServicesDep, item_id: ItemIdPath) -> CorpusItem:
    found = load_items(s.store, item_id=item_id)
    if not found:
        raise ApiError(404, f"no corpus item {item_id[:80]!r}")
    return found[0]


@router.post("/{item_id}/label", summary="Label an item (it counts in calibration from now on)",
             responses=error_responses(403, 404, 422))
def label(s: ServicesDep, item_id: ItemIdPath, body: LabelBody) -> CorpusItem:
    try:
        return label_item(s.store, item_id, body.verdict, bucket=body.bucket, note=body.note,
                          example=body.example, by=body.by or API_LABELLER)
    except KeyError as exc:
        raise ApiError(404, str(exc.args[0] if exc.args else exc)) from None
    except ValueError as exc:
        raise ApiError(_UNUSABLE, str(exc)) from None


@router.post("/{item_id}/resolve", summary="Settle a disagreement between labellers: the item's final verdict",
             responses=error_responses(404, 422))
def resolve(s: ServicesDep, item_id: ItemIdPath, body: ResolveBody) -> CorpusItem:
    try:
        return resolve_item(s.store, item_id, body.verdict, by=body.by or API_LABELLER)
    except UnknownItem as exc:
        raise ApiError(404, str(exc.args[0])) from None
    except LabelError as exc:
        raise ApiError(_UNUSABLE, str(exc)) from None
