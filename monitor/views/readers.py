"""Readers the CLI prints from: the open store, or the running ``sumwatch up`` that holds it.

    reader = StoreReader(store)                      # the database is open in this process
    reader = RemoteReader("http://127.0.0.1:4318")   # another process holds it and serves the read API
    reader.list_traces(limit=20), reader.get_trace(trace_id), reader.issues(), reader.issue("SW-3")

Both answer the same calls with equal records, so a command prints the same either way.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Protocol

from ..issues.reads import IssueDetail, IssueList, get_issue, issue_list, parse_issue_id
from ..store.connection import Store
from ..store.traces import SpanDetail, TraceRow, get_trace, list_traces, normalize_trace_id


class Reader(Protocol):
    """What the CLI reads: the same calls and records whether the store is open here or behind a server."""

    def list_traces(self, limit: int = 20, service: str | None = None) -> list[TraceRow]: ...

    def get_trace(self, trace_id: str) -> list[SpanDetail]: ...

    def issues(self, include_resolved: bool = True) -> IssueList: ...

    def issue(self, issue_id: str) -> IssueDetail | None: ...


class StoreReader:
    """Trace and issue reads on an open store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def list_traces(self, limit: int = 20, service: str | None = None) -> list[TraceRow]:
        return list_traces(self._store, limit=limit, service=service)

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        return get_trace(self._store, trace_id)

    def issues(self, include_resolved: bool = True) -> IssueList:
        return issue_list(self._store, include_resolved=include_resolved)

    def issue(self, issue_id: str) -> IssueDetail | None:
        return get_issue(self._store, issue_id)


class RemoteError(RuntimeError):
    """The running server answered with an error."""


class RemoteReader:
    """Reads traces and issues from a running ``sumwatch up`` instead of opening the database."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30.0) -> None:
        import httpx

        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.base_url = base_url

    def close(self) -> None:
        self._client.close()

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        import httpx

        try:
            response = self._client.get(path, params=params)
        except httpx.TransportError as exc:
            raise RemoteError(f"cannot reach the sumwatch server at {self.base_url}: {exc}") from None
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise RemoteError(f"{self.base_url}{path}: {response.status_code} {response.text[:200]}")
        return response.json()

    def list_traces(self, limit: int = 20, service: str | None = None) -> list[TraceRow]:
        data = self._get("/api/traces", {"limit": limit, **({"service": service} if service else {})})
        return [_record(TraceRow, d) for d in data]

    def get_trace(self, trace_id: str) -> list[SpanDetail]:
        data = self._get(f"/api/traces/{normalize_trace_id(trace_id)}")
        return [_record(SpanDetail, d) for d in data or []]

    def issues(self, include_resolved: bool = True) -> IssueList:
        return IssueList.from_json(self._get("/api/issues", {"resolved": "1" if include_resolved else "0"}))

    def issue(self, issue_id: str) -> IssueDetail | None:
        data = self._get(f"/api/issues/{parse_issue_id(issue_id)}")
        return IssueDetail.from_json(data) if data is not None else None


def _record(cls: type, data: dict[str, Any]) -> Any:
    return cls(**{f.name: data[f.name] for f in fields(cls)})
