"""Calibration corpus and reports in the HTTP API: items per rubric and status (the labelling queue is
``status=needs_label``), a person's label, the kappa report and the stored baseline.

    GET  /api/corpus?rubric=factuality&status=needs_label   -> {"total": 12, "items": [CorpusItem, ...]}
    POST /api/corpus/{item_id}/label {"verdict": "correct"}  -> CorpusItem (now labelled)
    GET  /api/calibration/factuality                         -> CalibrationReport (nothing recorded)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from ..calibration.corpus import import_jsonl, label_item, seed_starter_corpora
from ..calibration.gate import CalibrationReport, calibrate
from ..store.baselines import latest_baseline
from ..store.connection import Store
from ..store.corpus import REJECTED as REJECTED_STATUS
from ..store.corpus import STATUSES, CorpusItem, load_items
from ..store.job_locks import CALIBRATION, JobBusy, job_locks
from .openapi import ApiError, Endpoint, Param, Schemas, string

if TYPE_CHECKING:
    from .api import Judges

_MODES = ("off", "ambiguous", "always")


def corpus_endpoints(store: Store, schemas: Schemas, judges: Judges) -> list[Endpoint]:
    from .api import RUBRIC, limit_param

    def items(request: Request, args: dict[str, Any]) -> Any:
        seed_starter_corpora(store)  # as `sumwatch corpus list` does: the packaged starters are always there
        found = load_items(store, rubric=args["rubric"], status=args["status"])
        return {"total": len(found), "items": [i.to_json() for i in found[:args["limit"]]]}

    def item(request: Request, args: dict[str, Any]) -> Any:
        found = load_items(store, item_id=args["item_id"])
        if not found:
            raise ApiError(404, f"no corpus item {args['item_id'][:80]!r}")
        return found[0]

    def label(request: Request, args: dict[str, Any]) -> Any:
        try:
            return label_item(store, args["item_id"], args["verdict"], bucket=args["bucket"], note=args["note"])
        except KeyError as exc:
            raise ApiError(404, str(exc.args[0] if exc.args else exc)) from None

    def report(request: Request, args: dict[str, Any]) -> Any:
        return _calibrate(store, judges, args, record=False)

    def run_calibration(request: Request, args: dict[str, Any]) -> Any:
        with job_lock_or_409(store, CALIBRATION, "calibrate"):
            return _calibrate(store, judges, args,
                              record=bool(args["record"] if args["record"] is not None else True))

    def import_items(request: Request, args: dict[str, Any]) -> Any:
        with _as_file(args["body"]) as path:
            try:
                report = import_jsonl(store, path)
            except RecursionError:
                raise ApiError(400, "a line is JSON nested too deeply to parse; nothing was imported") from None
        return {"added": report.added, "updated": report.updated,
                "skipped": [{"line": n, "reason": r} for n, r in report.bad]}

    def baseline(request: Request, args: dict[str, Any]) -> Any:
        found = latest_baseline(store, args["rubric"])
        if found is None:
            raise ApiError(404, f"no {args['rubric']} baseline yet: run `sumwatch calibrate --rubric "
                                f"{args['rubric']}`")
        version, kappa, buckets = found
        return {"rubric": args["rubric"], "judge_version": version, "kappa": kappa, "bucket_kappas": buckets}

    item_id = Param("item_id", string(), "Item id (from the listing)")
    rubric_path = Param("rubric", RUBRIC, "Rubric")
    mode = Param("mode", string(*_MODES), "Judge mode (default: the server's)")
    judge_version = Param("judge_version", string(), "Label for this judge (default: the cascade's version)")
    listing = {"type": "object", "additionalProperties": False, "required": ["total", "items"],
               "properties": {"total": {"type": "integer", "description": "items that match, before the limit"},
                              "items": schemas.array(CorpusItem)}}
    baseline_schema = schemas.define("CalibrationBaseline", {
        "type": "object", "additionalProperties": False,
        "required": ["rubric", "judge_version", "kappa", "bucket_kappas"],
        "properties": {"rubric": RUBRIC, "judge_version": {"type": "string"}, "kappa": {"type": "number"},
                       "bucket_kappas": {"type": "object", "additionalProperties": {"type": "number"}}}})
    label_body = {"type": "object", "additionalProperties": False, "required": ["verdict"],
                  "properties": {"verdict": {"type": "string", "description": f"a verdict of the item's rubric, "
                                                                             f"or '{REJECTED_STATUS}' to drop it"},
                                 "bucket": {"type": ["string", "null"], "description": "failure-mode bucket"},
                                 "note": {"type": ["string", "null"], "description": "kept with the label"}}}
    calibrate_body = {"type": "object", "additionalProperties": False, "required": ["rubric"],
                      "properties": {"rubric": RUBRIC, "mode": {"type": ["string", "null"], "enum": [*_MODES, None]},
                                     "judge_version": {"type": ["string", "null"]},
                                     "record": {"type": ["boolean", "null"],
                                                "description": "store a passing run as the baseline (default true)"}}}
    return [
        Endpoint("GET", "/api/corpus", "Calibration corpus items (status=needs_label is the labelling queue)",
                 items, listing, (Param("rubric", RUBRIC, "Only this rubric"),
                                  Param("status", string(*STATUSES), "Only items with this status"),
                                  limit_param(50, "items")), tag="corpus"),
        Endpoint("POST", "/api/corpus/import", "Add or update items from JSON Lines (bad lines are skipped and "
                                                "reported by number)", import_items, skipped_schema(
                                                    added={"type": "integer"}, updated={"type": "integer"}),
                 raw_body="application/x-ndjson", tag="corpus"),
        Endpoint("GET", "/api/corpus/{item_id}", "One corpus item", item, schemas.ref(CorpusItem), (item_id,),
                 errors=(404,), tag="corpus"),
        Endpoint("POST", "/api/corpus/{item_id}/label", "Label an item (it counts in calibration from now on)",
                 label, schemas.ref(CorpusItem), (item_id,), body=label_body, errors=(400, 404), tag="corpus"),
        Endpoint("GET", "/api/calibration/{rubric}", "Kappa of the judge against the human labels (not recorded)",
                 report, schemas.ref(CalibrationReport), (rubric_path, mode, judge_version), tag="calibration",
                 description="Runs the judge over the rubric's labelled items; slow with an LLM judge."),
        Endpoint("GET", "/api/calibration/{rubric}/baseline", "The stored baseline the gate compares with",
                 baseline, baseline_schema, (rubric_path,), errors=(404,), tag="calibration"),
        Endpoint("POST", "/api/actions/calibrate", "Calibrate now and record a passing run as the baseline",
                 run_calibration, schemas.ref(CalibrationReport), body=calibrate_body, errors=(400, 409),
                 tag="actions"),
    ]


def _calibrate(store: Store, judges: Judges, args: dict[str, Any], *, record: bool) -> CalibrationReport:
    rubric = args["rubric"]
    seed_starter_corpora(store, [rubric])
    return calibrate(store, judges(args["mode"]), rubric, judge_version=args["judge_version"], record=record)


@contextmanager
def job_lock_or_409(store: Store, job: str, holder: str) -> Iterator[None]:
    """Hold the store-wide lock of ``job`` (store/job_locks.py) for the block, else ApiError(409) naming
    what holds it."""
    try:
        with job_locks(store).hold(job, holder):
            yield
    except JobBusy as exc:
        raise ApiError(409, f"{exc.holder} is already running; try again when it has finished") from None


@contextmanager
def _as_file(body: bytes) -> Iterator[Path]:
    """The uploaded lines as a file, for the readers that take a path (removed afterwards)."""
    fd, name = tempfile.mkstemp(prefix="sumwatch-upload-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        yield Path(name)
    finally:
        os.unlink(name)


def skipped_schema(**counts: Any) -> dict[str, Any]:
    """The answer of an upload: its counts and the lines it skipped, with the reason."""
    skipped = {"type": "array", "items": {"type": "object", "additionalProperties": False,
                                          "required": ["line", "reason"],
                                          "properties": {"line": {"type": "integer"}, "reason": {"type": "string"}}}}
    props = {**counts, "skipped": skipped}
    return {"type": "object", "additionalProperties": False, "required": list(props), "properties": props}
