"""The one client every command uses: HTTP to the ``sumwatch up`` that holds the database, or the same app
mounted in this process when the command could open the store itself. Answers come back as the records the
server serves (the same classes), so a command prints the same either way.

    client = ApiClient.remote("http://127.0.0.1:4318", token)    # another process holds the database
    client = ApiClient.in_process(create_app(runtime))            # this one does
    client.traces(limit=20), client.issue("SW-3"), client.score(ScoreRequest(mode="off"), on_progress=print)

Every request has a bounded timeout. Long actions (score, cluster, calibrate, ingest) start with ``wait=false``
and are polled for their progress, so a server that stops answering ends the command with one line, not a hang.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import anyio
import anyio.from_thread
import anyio.to_thread
import httpx
from pydantic import TypeAdapter

from ..contract.actions import ActionProgress, ActionState, IngestAnswer
from ..contract.calibration import (
    CalibrationReport,
    CandidateReport,
    CorpusItem,
    CorpusPage,
    ImportAnswer,
    JudgeDefinitionView,
    JudgeDiff,
    JudgeHistory,
    JudgeSummary,
    LabellerAgreement,
    PromotionReport,
)
from ..contract.exports import (
    AlertAnswer,
    ExportAnswer,
    ExportResult,
    RuleStatus,
    ScoreSendAnswer,
    ScoreSendResult,
    TicketList,
)
from ..contract.issues import ClusterRunReport, IssueDetail, IssueList, IssueTicket, TriageAnswer, parse_issue_id
from ..contract.limits import MAX_LIST_LIMIT
from ..contract.listing import TraceFilters
from ..contract.scores import Agreement, PassEstimate, PassReport, RecognitionReport, ScoreRecord
from ..contract.status import StoreStatus
from ..contract.traces import SpanDetail, TraceRow, UnsureKind, normalize_trace_id
from .experiment_calls import ExperimentCalls

if TYPE_CHECKING:  # the dataset and experiment records load with the first request that needs them
    from ..contract.datasets import DatasetAnswer, DatasetItemsPage, DatasetVersion

T = TypeVar("T")
OnProgress = Callable[[ActionProgress], None]
IN_PROCESS = "this process"


class ClientError(RuntimeError):
    """The server refused or failed a request (``status`` with its ``error`` text as ``reason``), or did not
    answer (``status`` None); ``what`` names the request as people say it (the read, the export, ...)."""

    def __init__(self, message: str, status: int | None = None, reason: str = "", what: str = "the read") -> None:
        super().__init__(message)
        self.status, self.reason, self.what = status, reason, what

    @property
    def refused(self) -> bool:
        """Whether the server refused what the request holds: a value that breaks the API's document (400), a body
        too big (413), content it cannot use (422), or a rubric its database does not know (404)."""
        return self.status in (400, 413, 422) or (self.status == 404 and self.reason.startswith(UNKNOWN_RUBRIC))


# how the API's 404 for a rubric the database does not know begins (store.judges.check_rubric's line)
UNKNOWN_RUBRIC = "rubric must be one of "

# what a POST asks of the server, by the end of its path (anything else is "the request")
_POSTS = (("/api/actions/score", "the scoring"), ("/api/actions/rescore", "the rescore"),
          ("/estimate", "the estimate"), ("/api/actions/cluster", "the clustering run"),
          ("/api/actions/calibrate", "the calibration"), ("/api/ingest", "the ingest"),
          ("/api/corpus/import", "the corpus import"), ("/label", "the label"), ("/resolve", "the resolution"),
          ("/api/corpus/from-trace", "the label"), ("/export", "the export"),
          ("/api/exports", "the export"), ("/api/actions/judge_test", "the judge test"),
          ("/api/actions/judge_promote", "the promotion"), ("/api/alerts/check", "the alert check"))


def request_name(method: str, path: str) -> str:
    """How a refusal names the request: ``the read`` for GET and HEAD, else what the POST does."""
    if method in ("GET", "HEAD"):
        return "the read"
    path = path.split("?", 1)[0]
    return next((name for end, name in _POSTS if path.endswith(end)), "the request")


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def parse(kind: type[T], data: Any) -> T:
    """The record of type ``kind`` (a record class, or ``list[Record]``) from the JSON the API answered."""
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    found: T = adapter.validate_python(data)
    return found


@dataclass(frozen=True)
class ScoreRequest:
    all: bool | None = None
    rate: float | None = None
    shard: str | None = None
    limit: int | None = None
    mode: str | None = None
    events: bool | None = None
    workers: int | None = None  # 0: one per usable CPU


@dataclass(frozen=True)
class RescoreRequest:
    rubrics: list[str] | None = None
    since: str | None = None  # a duration, like 7d
    service: str | None = None
    mode: str | None = None


class _InProcess(httpx.BaseTransport):
    """httpx over an ASGI app in this process: the app runs on an event loop in a thread of its own (a
    blocking portal), so a command calls it the way it calls a server. The answer's body streams through a
    bounded queue, so a download holds a few chunks, never the whole file."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._portal_cm: AbstractContextManager[Any] = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        chunks: queue.Queue[Any] = queue.Queue(maxsize=8)
        head: dict[str, Any] = {}
        started = threading.Event()
        url = request.url
        headers = [(name.lower(), value) for name, value in request.headers.raw]  # ASGI: lower-case names
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
                 "scheme": url.scheme, "path": url.path, "raw_path": url.raw_path.split(b"?")[0],
                 "query_string": url.query, "root_path": "", "headers": headers,
                 "client": ("127.0.0.1", 0), "server": (url.host, url.port or 80)}

        async def call() -> None:
            finished = anyio.Event()
            sent_body = False

            async def receive() -> dict[str, Any]:
                nonlocal sent_body
                if not sent_body:
                    sent_body = True
                    return {"type": "http.request", "body": body, "more_body": False}
                await finished.wait()  # the client hangs up only once the answer is read
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    head["status"], head["headers"] = message["status"], message.get("headers", [])
                    started.set()
                elif message["type"] == "http.response.body":
                    if message.get("body"):
                        await anyio.to_thread.run_sync(chunks.put, message["body"])
                    if not message.get("more_body", False):
                        finished.set()

            end: Any = _END
            try:
                await self._app(scope, receive, send)
            except Exception as exc:  # the app failed: a cut answer, as on the wire, unless it was already whole
                head.setdefault("error", exc)
                if not finished.is_set():
                    end = httpx.ReadError(f"the answer broke off: {exc}", request=request)
            finally:
                finished.set()
                started.set()
                await anyio.to_thread.run_sync(chunks.put, end)

        self._portal.start_task_soon(call)
        started.wait()
        if "status" not in head:
            raise httpx.RemoteProtocolError(f"the app answered nothing: {head.get('error')!r}", request=request)
        return httpx.Response(head["status"], headers=head["headers"], stream=_QueueStream(chunks), request=request)

    def close(self) -> None:
        self._portal_cm.__exit__(None, None, None)


_END = object()


class _QueueStream(httpx.SyncByteStream):
    def __init__(self, chunks: queue.Queue[Any]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        while (chunk := self._chunks.get()) is not _END:
            if isinstance(chunk, Exception):
                raise chunk
            yield chunk


class ApiClient(ExperimentCalls):
    def __init__(self, http: httpx.Client, where: str, *, poll_s: float = 0.5, stall_s: float = 60.0) -> None:
        self._http, self.where = http, where
        self._poll_s, self._stall_s = poll_s, stall_s

    @classmethod
    def remote(cls, base_url: str, token: str | None = None, timeout: float = 30.0, *, stall_s: float = 60.0
               ) -> ApiClient:
        # always a Bearer header: a server without a token takes any, and it marks the request as not a
        # browser's (state-changing requests from a browser need the CSRF token instead)
        http = httpx.Client(base_url=base_url, headers={"authorization": f"Bearer {token or 'none'}"},
                            timeout=timeout)
        return cls(http, base_url, stall_s=stall_s)

    @classmethod
    def in_process(cls, app: Any, token: str | None = None) -> ApiClient:
        # localhost: a Host name the app answers to (views.auth.HostPolicy), and true of an app in this process
        http = httpx.Client(transport=_InProcess(app), base_url="http://localhost",
                            headers={"authorization": f"Bearer {token or 'none'}"}, timeout=None)
        return cls(http, IN_PROCESS, poll_s=0.1)

    @property
    def is_remote(self) -> bool:
        return self.where != IN_PROCESS

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the calls

    def _call(self, method: str, path: str, *, missing_ok: bool = False, **kw: Any) -> Any:
        what = request_name(method, path)
        try:
            response = self._http.request(method, path, **kw)
        except httpx.TransportError as exc:
            raise ClientError(f"cannot reach the sumwatch server at {self.where}: {_transport_problem(exc)}",
                              what=what) from None
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code not in (200, 202):
            reason = ""
            with suppress(ValueError, KeyError, TypeError):
                reason = str(response.json()["error"])
            raise ClientError(f"{self.where}{path}: {response.status_code} {reason or response.text[:200]}",
                              response.status_code, reason, what)
        try:
            return response.json()
        except ValueError:
            raise ClientError(f"the server at {self.where} did not answer as a sumwatch server (not JSON); is "
                              f"another program on that port?", response.status_code, what=what) from None

    def _get_or_none(self, kind: type[T], path: str, params: dict[str, Any] | None = None) -> T | None:
        """The answer, or None for a 404."""
        params = {k: v for k, v in (params or {}).items() if v is not None}
        data = self._call("GET", path, params=params, missing_ok=True)
        return None if data is None else parse(kind, data)

    def _get(self, kind: type[T], path: str, params: dict[str, Any] | None = None) -> T:
        params = {k: v for k, v in (params or {}).items() if v is not None}
        return parse(kind, self._call("GET", path, params=params))

    def _post(self, kind: type[T], path: str, body: dict[str, Any]) -> T:
        return parse(kind, self._call("POST", path, json={k: v for k, v in body.items() if v is not None}))

    def _action(self, kind: type[T], path: str, action: str, on_progress: OnProgress | None, **kw: Any) -> T:
        """Start an action without waiting, then poll its state until it is done; its result as ``kind``."""
        state: ActionState = parse(ActionState, self._call("POST", path, params={"wait": "false"}, **kw))
        what = request_name("POST", path)
        last_answer = time.monotonic()
        while state.running:
            time.sleep(self._poll_s)
            try:
                state = parse(ActionState, self._call("GET", f"/api/actions/{action}"))
                last_answer = time.monotonic()
            except ClientError as exc:
                if exc.status is not None or time.monotonic() - last_answer > self._stall_s:
                    raise ClientError(f"the sumwatch server at {self.where} stopped answering while {what} ran "
                                      f"({exc}); see its log", exc.status, exc.reason, what) from None
                continue
            if on_progress is not None and state.progress is not None:
                on_progress(state.progress)
        if state.error is not None:
            status = state.status or 500
            raise ClientError(f"{self.where}{path}: {status} {state.error}", status, state.error, what)
        return parse(kind, state.result)

    def traces(self, filters: TraceFilters | None = None, limit: int = 20) -> list[TraceRow]:
        """Summarization spans, newest first, as ``GET /api/traces`` lists them for ``filters``."""
        return self._get(list[TraceRow], "/api/traces", {"limit": limit, **(filters or TraceFilters()).query()})

    def unsure(self, *, since: datetime | None = None, rubric: str | None = None, service: str | None = None,
               per_kind: int = 20) -> list[UnsureKind]:
        return self._get(list[UnsureKind], "/api/unsure", {"since": since.isoformat() if since else None,
                                                           "rubric": rubric, "service": service, "per_kind": per_kind})

    def trace(self, trace_id: str) -> list[SpanDetail]:
        found = self._get_or_none(list[SpanDetail], f"/api/traces/{normalize_trace_id(trace_id)}")
        return found or []

    def scores(self, *, trace_id: str | None = None, rubric: str | None = None, failing: bool = False,
               limit: int = 50) -> list[ScoreRecord]:
        return self._get(list[ScoreRecord], "/api/scores", {"trace": trace_id, "rubric": rubric,
                                                            "failing": "true" if failing else None, "limit": limit})

    def issues(self, include_resolved: bool = True, include_hidden: bool = False) -> IssueList:
        return self._get(IssueList, "/api/issues", {"resolved": "true" if include_resolved else "false",
                                                    "hidden": "true" if include_hidden else None})

    def triage(self, issue_id: str, action: str, *, by: str, value: str | None = None) -> TriageAnswer:
        """One triage event (``action`` as :class:`~sumwatch.monitor.issues.triage.TriageAction`); a refusal is a
        ClientError whose ``reason`` is the server's one line."""
        return self._post(TriageAnswer, f"/api/issues/{parse_issue_id(issue_id)}/triage",
                          {"action": action, "by": by, "value": value})

    def issue(self, issue_id: str) -> IssueDetail | None:
        return self._get_or_none(IssueDetail, f"/api/issues/{parse_issue_id(issue_id)}")

    def issue_tickets(self, issue_id: str) -> list[IssueTicket]:
        return self._get(TicketList, f"/api/issues/{parse_issue_id(issue_id)}/exports").exports

    def corpus(self, *, rubric: str | None = None, status: str | None = None, limit: int = 50,
               cursor: str | None = None) -> CorpusPage:
        """One page of items; its ``next_cursor`` asks for the next (None: the last page)."""
        return self._get(CorpusPage, "/api/corpus", {"rubric": rubric, "status": status, "limit": limit,
                                                     "cursor": cursor})

    def corpus_items(self, *, rubric: str | None = None, status: str | None = None) -> list[CorpusItem]:
        """Every matching item, read a page at a time."""
        out: list[CorpusItem] = []
        cursor: str | None = None
        while True:
            got = self.corpus(rubric=rubric, status=status, limit=MAX_LIST_LIMIT, cursor=cursor)
            out += got.items
            if got.next_cursor is None:
                return out
            cursor = got.next_cursor

    def label(self, item_id: str, verdict: str, *, bucket: str | None = None, note: str | None = None,
              example: bool | None = None, by: str | None = None) -> CorpusItem:
        """As the store's ``label_item``: KeyError for an unknown item, ValueError for a bad verdict."""
        return self._corpus_post(f"/api/corpus/{quote(item_id, safe='')}/label",
                                 {"verdict": verdict, "bucket": bucket, "note": note, "example": example, "by": by})

    def label_trace(self, trace_id: str, rubric: str, verdict: str, *, span_id: str | None = None,
                    note: str | None = None, by: str | None = None, failure_mode: str | None = None,
                    definition: str | None = None) -> CorpusItem:
        """A trace's summarization span labelled into ``rubric``'s corpus: KeyError for an unknown trace or span,
        ValueError for a bad rubric, verdict or failure mode."""
        return self._corpus_post("/api/corpus/from-trace", {"trace_id": trace_id, "span_id": span_id,
                                                            "rubric": rubric, "verdict": verdict, "note": note,
                                                            "by": by, "failure_mode": failure_mode,
                                                            "definition": definition})

    def resolve_label(self, item_id: str, verdict: str, *, by: str | None = None) -> CorpusItem:
        """The final verdict of an item its labellers disagree on: KeyError, ValueError as :meth:`label`."""
        return self._corpus_post(f"/api/corpus/{quote(item_id, safe='')}/resolve", {"verdict": verdict, "by": by})

    def labeller_agreement(self, rubric: str | None = None) -> LabellerAgreement:
        return self._get(LabellerAgreement, "/api/corpus/agreement", {"rubric": rubric})

    def _corpus_post(self, path: str, body: dict[str, Any]) -> CorpusItem:
        try:
            return self._post(CorpusItem, path, body)
        except ClientError as exc:
            if exc.refused:
                raise ValueError(exc.reason) from None
            if exc.status == 404:
                raise KeyError(exc.reason) from None
            raise

    def judge_agreement(self, judge_version: str | None = None) -> list[Agreement]:
        return self._get(list[Agreement], "/api/judges", {"judge_version": judge_version})

    def judge_definitions(self) -> list[JudgeSummary]:
        return self._get(list[JudgeSummary], "/api/judges/definitions")

    def judge_definition(self, rubric: str, version: str | None = None) -> JudgeDefinitionView:
        return self._get(JudgeDefinitionView, f"/api/judges/definitions/{quote(rubric, safe='')}",
                         {"version": version})

    def judge_history(self, rubric: str) -> JudgeHistory:
        return self._get(JudgeHistory, f"/api/judges/definitions/{quote(rubric, safe='')}/history")

    def judge_diff(self, rubric: str, a: str, b: str) -> JudgeDiff:
        return self._get(JudgeDiff, f"/api/judges/definitions/{quote(rubric, safe='')}/diff", {"a": a, "b": b})

    def judge_test(self, rubric: str, definition: str, *, origin: str | None = None, mode: str | None = None,
                   on_progress: OnProgress | None = None) -> CandidateReport:
        """Test a candidate definition (TOML text) beside the rubric's active one."""
        body = {"rubric": rubric, "definition": definition, "origin": origin, "mode": mode}
        return self._action(CandidateReport, "/api/actions/judge_test", "judge_test", on_progress,
                            json={k: v for k, v in body.items() if v is not None})

    def judge_promote(self, rubric: str, definition: str, *, origin: str | None = None, mode: str | None = None,
                      force: str | None = None, promoted_by: str | None = None,
                      on_progress: OnProgress | None = None) -> PromotionReport:
        """Test a candidate and make it active when the gate passes (or ``force`` gives a reason)."""
        body = {"rubric": rubric, "definition": definition, "origin": origin, "mode": mode, "force": force,
                "promoted_by": promoted_by}
        return self._action(PromotionReport, "/api/actions/judge_promote", "judge_promote", on_progress,
                            json={k: v for k, v in body.items() if v is not None})

    def status(self) -> StoreStatus:
        return self._get(StoreStatus, "/api/status")

    def recognition(self, window_s: int = 3600, sample: int | None = None) -> RecognitionReport:
        """The recent spans per instrumentation, recognised or not, with the reasons (``sumwatch doctor``)."""
        return self._get(RecognitionReport, "/api/status/recognition", {"window_s": window_s, "sample": sample})

    def score(self, request: ScoreRequest, on_progress: OnProgress | None = None) -> PassReport:
        body = {k: v for k, v in request.__dict__.items() if v is not None}
        return self._action(PassReport, "/api/actions/score", "score", on_progress, json=body)

    def score_estimate(self, request: ScoreRequest) -> PassEstimate:
        """What :meth:`score` would judge and spend now; nothing runs."""
        return self._post(PassEstimate, "/api/actions/score/estimate", request.__dict__)

    def rescore_estimate(self, request: RescoreRequest) -> PassEstimate:
        """What :meth:`rescore` would judge and spend now; nothing runs."""
        return self._post(PassEstimate, "/api/actions/rescore/estimate", request.__dict__)

    def rescore(self, request: RescoreRequest, on_progress: OnProgress | None = None) -> PassReport:
        """Judge stored spans again with the active judges (``sumwatch rescore``)."""
        body = {k: v for k, v in request.__dict__.items() if v is not None}
        return self._action(PassReport, "/api/actions/rescore", "rescore", on_progress, json=body)

    def cluster(self, window: str | None = None, on_progress: OnProgress | None = None) -> ClusterRunReport:
        return self._action(ClusterRunReport, "/api/actions/cluster", "cluster", on_progress,
                            json={"window": window} if window else {})

    def calibrate(self, rubric: str, *, mode: str | None = None, judge_version: str | None = None,
                  record: bool = True, on_progress: OnProgress | None = None) -> CalibrationReport:
        body = {"rubric": rubric, "mode": mode, "judge_version": judge_version, "record": record}
        return self._action(CalibrationReport, "/api/actions/calibrate", "calibrate", on_progress,
                            json={k: v for k, v in body.items() if v is not None})

    def ingest(self, lines: bytes, on_progress: OnProgress | None = None) -> IngestAnswer:
        return self._action(IngestAnswer, "/api/ingest", "ingest", on_progress, content=lines,
                            headers={"content-type": "application/x-ndjson"})

    def import_corpus(self, lines: bytes, new_rubrics: tuple[str, ...] = ()) -> ImportAnswer:
        """Corpus items from JSON Lines; ``new_rubrics``: rubrics not promoted yet whose items it may hold."""
        return parse(ImportAnswer, self._call("POST", "/api/corpus/import", content=lines,
                                              params={"new_rubric": list(new_rubrics)},
                                              headers={"content-type": "application/x-ndjson"}))

    def datasets(self) -> list[DatasetVersion]:
        """Every dataset at its latest version."""
        from ..contract.datasets import DatasetVersion  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(list[DatasetVersion], "/api/datasets")

    def dataset_versions(self, name: str) -> list[DatasetVersion]:
        """A dataset's versions, newest first (a 404 ClientError for no such dataset)."""
        from ..contract.datasets import DatasetVersion  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(list[DatasetVersion], f"/api/datasets/{quote(name, safe='')}")

    def dataset_items(self, name: str, version: int | None = None, *, limit: int = 100,
                      cursor: str | None = None) -> DatasetItemsPage:
        """One page of a version's items (the latest version without ``version``)."""
        from ..contract.datasets import DatasetItemsPage  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(DatasetItemsPage, f"/api/datasets/{quote(name, safe='')}/items",
                         {"version": version, "limit": limit, "cursor": cursor})

    def import_dataset(self, name: str, content: bytes, fmt: str, *, description: str | None = None,
                       filename: str | None = None) -> DatasetAnswer:
        """A version made from a file's bytes (the server reads them as ``fmt``: jsonl, csv or parquet)."""
        from ..contract.datasets import CONTENT_TYPES, DatasetAnswer  # noqa: PLC0415 - start-up: as above

        params = {k: v for k, v in {"format": fmt, "description": description, "filename": filename}.items() if v}
        kind = next((k for k, v in CONTENT_TYPES.items() if v == fmt), "application/octet-stream")
        return parse(DatasetAnswer, self._call("POST", f"/api/datasets/{quote(name, safe='')}/import", params=params,
                                               content=content, headers={"content-type": kind}))

    def dataset_from(self, name: str, what: str, body: dict[str, Any]) -> DatasetAnswer:
        """A version made from ``what`` (issue, traces or corpus) with its request ``body``, as
        ``POST /api/datasets/{name}/from-{what}`` takes it."""
        from ..contract.datasets import DatasetAnswer  # noqa: PLC0415 - start-up: see the import at the top

        return self._post(DatasetAnswer, f"/api/datasets/{quote(name, safe='')}/from-{what}", body)

    def download(self, what: str, fmt: str, out: IO[bytes], on_progress: Callable[[int], None] | None = None,
                 **filters: Any) -> int:
        """Every matching row of ``what`` (traces or scores) as ``fmt`` (jsonl or parquet) into ``out``, as the
        server streams it; the bytes written."""
        path = f"/api/{what}/export"
        params = {"format": fmt, **{k: v for k, v in filters.items() if v is not None}}
        written = 0
        try:
            with self._http.stream("GET", path, params=params) as response:
                if response.status_code != 200:
                    response.read()
                    reason = ""
                    with suppress(ValueError, KeyError, TypeError):
                        reason = str(response.json()["error"])
                    raise ClientError(f"{self.where}{path}: {response.status_code} {reason}", response.status_code,
                                      reason, "the export")
                for chunk in response.iter_bytes():
                    out.write(chunk)
                    written += len(chunk)
                    if on_progress is not None:
                        on_progress(written)
        except httpx.TransportError as exc:
            raise ClientError(f"the download from the sumwatch server at {self.where} broke off: "
                              f"{_transport_problem(exc)}", what="the export") from None
        return written

    def export(self, to: str, issue_ids: list[str] | None = None, *, statuses: list[str] | None = None,
               min_severity: str | None = None, min_traces: int = 0, dry_run: bool = False) -> list[ExportResult]:
        answer = self._post(ExportAnswer, "/api/exports", {
            "to": to, "issue_ids": issue_ids, "statuses": statuses, "min_severity": min_severity,
            "min_traces": min_traces, "dry_run": dry_run})
        return answer.results

    def send_scores(self, to: list[str] | None = None, *, since: str | None = None, failing_only: bool | None = None,
                    dry_run: bool = False, retry_given_up: bool = False) -> list[ScoreSendResult]:
        answer = self._post(ScoreSendAnswer, "/api/scores/send", {
            "to": to, "since": since, "failing_only": failing_only, "dry_run": dry_run,
            "retry_given_up": retry_given_up})
        return answer.results

    def alerts(self) -> list[RuleStatus]:
        return self._get(AlertAnswer, "/api/alerts").results

    def check_alerts(self, *, dry_run: bool = False) -> list[RuleStatus]:
        return self._post(AlertAnswer, "/api/alerts/check", {"dry_run": dry_run}).results


def _transport_problem(exc: httpx.TransportError) -> str:
    """What went wrong on the wire, in words: refused, timed out, reset."""
    if isinstance(exc, httpx.ConnectError) and "refused" in str(exc).lower():
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer in time ({type(exc).__name__})"
    return str(exc) or type(exc).__name__
