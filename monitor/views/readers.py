"""Readers the CLI prints from: the open store, or the running ``sumwatch up`` that holds it.

    reader = StoreReader(store)                      # the database is open in this process
    reader = RemoteReader("http://127.0.0.1:4318")   # another process holds it and serves the read API
    reader.list_traces(limit=20), reader.get_trace(trace_id), reader.issues(), reader.issue("SW-3")
    reader.scores(rubric="factuality"), reader.corpus(status="needs_label"), reader.label(item_id, "correct")

Both answer the same calls with equal records, so a command prints the same either way.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from ..calibration.corpus import label_item, seed_starter_corpora
from ..issues.reads import IssueDetail, IssueList, get_issue, issue_list, parse_issue_id
from ..settings import MAX_LIST_LIMIT
from ..store.connection import Store
from ..store.corpus import CorpusItem, load_items
from ..store.scores import Agreement, ScoreRecord, judge_agreement, list_scores
from ..store.traces import SpanDetail, TraceRow, count_spans, get_trace, list_traces, normalize_trace_id

if TYPE_CHECKING:
    from ..calibration.gate import CalibrationReport
    from ..issues.job import ClusterRunReport


class Reader(Protocol):
    """What the CLI reads: the same calls and records whether the store is open here or behind a server."""

    def list_traces(self, limit: int = 20, service: str | None = None, *, domain: str | None = None,
                    band: str | None = None, since: datetime | None = None) -> list[TraceRow]: ...

    def get_trace(self, trace_id: str) -> list[SpanDetail]: ...

    def issues(self, include_resolved: bool = True) -> IssueList: ...

    def issue(self, issue_id: str) -> IssueDetail | None: ...

    def scores(self, *, trace_id: str | None = None, rubric: str | None = None, failing: bool = False,
               limit: int = 50) -> list[ScoreRecord]: ...

    def corpus(self, *, rubric: str | None = None, status: str | None = None,
               limit: int | None = None) -> tuple[int, list[CorpusItem]]:
        """(how many items match, the first ``limit`` of them; the API gives at most MAX_LIST_LIMIT)."""

    def label(self, item_id: str, verdict: str, *, bucket: str | None = None, note: str | None = None
              ) -> CorpusItem: ...

    def judge_agreement(self, judge_version: str | None = None) -> list[Agreement]: ...

    def status(self) -> StoreStatus: ...


@dataclass(frozen=True)
class StoreStatus:
    """What ``doctor`` reports about the database: the schema version and the spans stored."""

    schema_version: int
    spans: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class StoreReader:
    """Reads (and a label) on an open store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    @property
    def store(self) -> Store:
        return self._store

    def list_traces(self, limit: int = 20, service: str | None = None, *, domain: str | None = None,
                    band: str | None = None, since: datetime | None = None) -> list[TraceRow]:
        return list_traces(self._store, limit=limit, service=service, domain=domain, band=band, since=since)

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        return get_trace(self._store, trace_id)

    def issues(self, include_resolved: bool = True) -> IssueList:
        return issue_list(self._store, include_resolved=include_resolved)

    def issue(self, issue_id: str) -> IssueDetail | None:
        return get_issue(self._store, issue_id)

    def scores(self, *, trace_id: str | None = None, rubric: str | None = None, failing: bool = False,
               limit: int = 50) -> list[ScoreRecord]:
        return list_scores(self._store, trace_id=trace_id, rubric=rubric, failing_only=failing, limit=limit)

    def corpus(self, *, rubric: str | None = None, status: str | None = None,
               limit: int | None = None) -> tuple[int, list[CorpusItem]]:
        seed_starter_corpora(self._store)
        items = load_items(self._store, rubric=rubric, status=status)
        return len(items), items[:limit]

    def label(self, item_id: str, verdict: str, *, bucket: str | None = None, note: str | None = None
              ) -> CorpusItem:
        return label_item(self._store, item_id, verdict, bucket=bucket, note=note)

    def judge_agreement(self, judge_version: str | None = None) -> list[Agreement]:
        return judge_agreement(self._store, judge_version=judge_version)

    def status(self) -> StoreStatus:
        return store_status(self._store)


def store_status(store: Store) -> StoreStatus:
    from ..store.migrations import MIGRATIONS

    return StoreStatus(max(m.version for m in MIGRATIONS), count_spans(store))


class RemoteError(RuntimeError):
    """The running server answered with an error (``status``, and its ``error`` text as ``reason``); ``what``
    names the request it refused or failed, as people say it (the read, the export, the label, ...)."""

    def __init__(self, message: str, status: int | None = None, reason: str = "", what: str = "the read") -> None:
        super().__init__(message)
        self.status, self.reason, self.what = status, reason, what


# what a POST asks of the server, by the end of its path (anything else is "the request")
_POSTS = (("/api/actions/score", "the scoring"), ("/api/actions/cluster", "the clustering run"),
          ("/api/actions/calibrate", "the calibration"), ("/api/ingest", "the ingest"),
          ("/api/corpus/import", "the corpus import"), ("/label", "the label"), ("/export", "the export"),
          ("/api/exports", "the export"))


def request_name(method: str, path: str) -> str:
    """How a refusal names the request: ``the read`` for GET and HEAD, else what the POST does."""
    if method in ("GET", "HEAD"):
        return "the read"
    path = path.split("?", 1)[0]
    return next((name for end, name in _POSTS if path.endswith(end)), "the request")


class RemoteReader:
    """Reads from a running ``sumwatch up`` (and asks it to act) instead of opening the database."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30.0) -> None:
        import httpx

        # always a Bearer header: a server without a token takes any, and it marks the request as not a browser's
        # (state-changing requests from a browser need the CSRF token instead)
        headers = {"authorization": f"Bearer {token or 'none'}"}
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.base_url = base_url

    def close(self) -> None:
        self._client.close()

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """The JSON answer, or None for a 404."""
        return self._call("GET", path, params=params, missing_ok=True)

    def post(self, path: str, body: dict[str, Any], *, wait: bool = False) -> Any:
        """POST a JSON body; ``wait`` for actions that answer when their work is done (no read timeout)."""
        return self._call("POST", path, json={k: v for k, v in body.items() if v is not None}, wait=wait)

    def upload(self, path: str, body: bytes) -> Any:
        """POST JSON Lines (a backfill, a corpus) and wait for the server's report."""
        return self._call("POST", path, content=body, headers={"content-type": "application/x-ndjson"}, wait=True)

    def _call(self, method: str, path: str, *, missing_ok: bool = False, wait: bool = False, **kw: Any) -> Any:
        import httpx

        timeout = httpx.Timeout(self._client.timeout.connect, read=None) if wait else self._client.timeout
        try:
            response = self._client.request(method, path, timeout=timeout, **kw)
        except httpx.TransportError as exc:
            raise RemoteError(f"cannot reach the sumwatch server at {self.base_url}: {exc}",
                              what=request_name(method, path)) from None
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code != 200:
            reason = ""
            with suppress(ValueError, KeyError, TypeError):
                reason = str(response.json()["error"])
            raise RemoteError(f"{self.base_url}{path}: {response.status_code} {response.text[:200]}",
                              response.status_code, reason, request_name(method, path))
        return response.json()

    def list_traces(self, limit: int = 20, service: str | None = None, *, domain: str | None = None,
                    band: str | None = None, since: datetime | None = None) -> list[TraceRow]:
        params = {"limit": limit, "service": service, "domain": domain, "band": band,
                  "since": since.isoformat() if since else None}
        data = self._get("/api/traces", {k: v for k, v in params.items() if v})
        return [_record(TraceRow, d) for d in data]

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        data = self._get(f"/api/traces/{normalize_trace_id(trace_id)}")
        return [_record(SpanDetail, d) for d in data or []]

    def issues(self, include_resolved: bool = True) -> IssueList:
        return IssueList.from_json(self._get("/api/issues", {"resolved": "1" if include_resolved else "0"}))

    def issue(self, issue_id: str) -> IssueDetail | None:
        data = self._get(f"/api/issues/{parse_issue_id(issue_id)}")
        return IssueDetail.from_json(data) if data is not None else None

    def scores(self, *, trace_id: str | None = None, rubric: str | None = None, failing: bool = False,
               limit: int = 50) -> list[ScoreRecord]:
        params = {"trace": trace_id, "rubric": rubric, "failing": "1" if failing else None, "limit": limit}
        data = self._get("/api/scores", {k: v for k, v in params.items() if v is not None})
        return [_record(ScoreRecord, d) for d in data]

    def corpus(self, *, rubric: str | None = None, status: str | None = None,
               limit: int | None = None) -> tuple[int, list[CorpusItem]]:
        params = {"rubric": rubric, "status": status, "limit": min(limit or MAX_LIST_LIMIT, MAX_LIST_LIMIT)}
        data = self._get("/api/corpus", {k: v for k, v in params.items() if v is not None})
        return int(data["total"]), [CorpusItem.from_json(d) for d in data["items"]]

    def label(self, item_id: str, verdict: str, *, bucket: str | None = None, note: str | None = None
              ) -> CorpusItem:
        """As the store's ``label_item``: KeyError for an unknown item, ValueError for a bad verdict."""
        try:
            data = self.post(f"/api/corpus/{quote(item_id, safe='')}/label",
                             {"verdict": verdict, "bucket": bucket, "note": note})
        except RemoteError as exc:
            if exc.status == 404:
                raise KeyError(exc.reason) from None
            if exc.status == 400:
                raise ValueError(exc.reason) from None
            raise
        return CorpusItem.from_json(data)

    def judge_agreement(self, judge_version: str | None = None) -> list[Agreement]:
        data = self._get("/api/judges", {"judge_version": judge_version} if judge_version else None)
        return [Agreement(**{k: d[k] for k in Agreement.__dataclass_fields__}) for d in data]

    def status(self) -> StoreStatus:
        return _record(StoreStatus, self._get("/api/status"))


def _record(cls: type, data: dict[str, Any]) -> Any:
    return cls(**{f.name: data[f.name] for f in fields(cls)})


def cluster_report_from_json(data: dict[str, Any]) -> ClusterRunReport:
    """A clustering run's report as the API serves it; its issues are views (no centroid)."""
    from ..issues.job import ClusterRunReport
    from ..issues.reads import IssueView

    values = {k: data[k] for k in ClusterRunReport.__dataclass_fields__}
    values["window_start"] = datetime.fromisoformat(data["window_start"])
    values["window_end"] = datetime.fromisoformat(data["window_end"])
    values["issues"] = [IssueView.from_json(i) for i in data["issues"]]
    return ClusterRunReport(**values)


def calibration_report_from_json(data: dict[str, Any]) -> CalibrationReport:
    from ..calibration.gate import BucketAgreement, CalibrationReport, GateResult

    values = {k: data[k] for k in CalibrationReport.__dataclass_fields__}
    values["buckets"] = [BucketAgreement(**b) for b in data["buckets"]]
    values["gate"] = GateResult(**data["gate"]) if data["gate"] is not None else None
    return CalibrationReport(**values)
