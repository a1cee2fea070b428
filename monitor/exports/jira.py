"""Jira Cloud (REST v3): the description in Atlassian Document Format, within Jira's 32,767 characters.

    POST {site}/rest/api/3/issue           {"fields": {"project": {"key"}, "summary", "issuetype": {"name"},
                                                       "description": {"type": "doc", "version": 1, ...}, "labels"}}
    PUT  {site}/rest/api/3/issue/{key}     {"fields": {"summary", "description"}}
    POST {site}/rest/api/3/issue/{key}/comment      {"body": <ADF>}
    POST {site}/rest/api/3/issue/{key}/transitions  {"transition": {"id"}}
    PUT  {site}/rest/api/3/issue/{key}/assignee     {"accountId": "5b10ac8d82e05b22cc7d4ef5"} (null: unassigned)
    GET  {site}/rest/api/3/search/jql?jql=labels = "sumwatch-SW-3"

Basic auth with the account's email and API token. The marker is a label, so a create that timed out is
found by a search before it is sent again.
"""

from __future__ import annotations

import json
from typing import Any

from .config import reveal
from .payload import IssuePayload, clip
from .tracker import CLOSED, OPEN, Ticket, Tracker
from .transport import Http, PermanentError

SUMMARY_LIMIT = 255
DESCRIPTION_LIMIT = 32_767  # characters of the stored field: the ADF document as JSON


def _text(text: str, href: str = "", bold: bool = False) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": text}
    marks = ([{"type": "link", "attrs": {"href": href}}] if href else []) + ([{"type": "strong"}] if bold else [])
    if marks:
        node["marks"] = marks
    return node


def _para(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "content": [n for n in nodes if n.get("text")]}


def _heading(text: str, level: int = 3) -> dict[str, Any]:
    return {"type": "heading", "attrs": {"level": level}, "content": [_text(text)]}


def _quote(text: str) -> dict[str, Any]:
    return {"type": "blockquote", "content": [_para(_text(text or " "))]}


def adf_document(payload: IssuePayload, excerpt: int | None = None) -> dict[str, Any]:
    """The issue as an ADF document; ``excerpt`` shortens every free text to that many characters."""
    def cut(text: str) -> str:
        return (text if excerpt is None else clip(text, excerpt)) or "-"

    content: list[dict[str, Any]] = [
        _para(_text(payload.issue_id, bold=True), _text(" · " + payload.summary_line())),
        _para(_text(cut(payload.description))),
        _para(_text("Probable root cause: ", bold=True), _text(cut(payload.root_cause))),
        _para(_text("Fix: ", bold=True), _text(cut(payload.fix))),
    ]
    if payload.issue_url:
        content.append(_para(_text(f"Open {payload.issue_id} in sumwatch", href=payload.issue_url)))
    if excerpt != 0:
        for i, rep in enumerate(payload.representatives, 1):
            where = f"membership {rep.membership:.2f}" + ("" if rep.core else ", boundary case")
            content.append(_heading(f"Example {i}: {rep.rubric} / {rep.verdict} ({where})"))
            content.append(_para(_text("Trace ", bold=True), _text(rep.trace_id, href=rep.trace_url)))
            content.append(_para(_text("Judge's evidence: ", bold=True), _text(cut(rep.evidence))))
            if rep.summary:
                content += [_para(_text("Summary:", bold=True)), _quote(cut(rep.summary))]
            if rep.source:
                content += [_para(_text("Source (excerpt):", bold=True)), _quote(cut(rep.source))]
    content.append(_para(_text(payload.marker)))
    return {"type": "doc", "version": 1, "content": content}


def fitted_document(payload: IssuePayload, limit: int = DESCRIPTION_LIMIT) -> dict[str, Any]:
    """The longest form of the document whose JSON fits in ``limit`` characters."""
    for excerpt in (None, 400, 150, 60, 0, 20):
        doc = adf_document(payload, excerpt)
        if len(json.dumps(doc, ensure_ascii=False)) <= limit:
            return doc
    return {"type": "doc", "version": 1, "content": [_para(_text(clip(payload.title, 200))),
                                                     _para(_text(payload.marker))]}


def adf_comment(text: str) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": [_para(_text(clip(text, 30_000)))]}


class Jira(Tracker):
    name = "jira"
    required = ("jira_url", "jira_email", "jira_token", "jira_project")
    default_pace = 100.0

    def make_http(self) -> Http:
        return Http(self.name, self.config, default_pace=self.default_pace,
                    auth=(self.config.jira_email, reveal(self.config.jira_token)),
                    headers={"accept": "application/json"})

    def _api(self, path: str) -> str:
        return f"{self.config.jira_url.rstrip('/')}/rest/api/3{path}"

    def _label(self, payload: IssuePayload) -> str:
        return payload.marker.replace(":", "-")

    def _ticket(self, key: str, status: dict[str, Any] | None = None) -> Ticket:
        category = ((status or {}).get("statusCategory") or {}).get("key", "")
        return Ticket(key, f"{self.config.jira_url.rstrip('/')}/browse/{key}", CLOSED if category == "done" else OPEN)

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        fields = {"project": {"key": self.config.jira_project},
                  "summary": clip(f"[{payload.issue_id}] {payload.title}", SUMMARY_LIMIT),
                  "issuetype": {"name": self.config.jira_issue_type},
                  "description": fitted_document(payload),
                  "labels": ["sumwatch", self._label(payload), f"severity-{payload.severity}"]}
        return {"method": "POST", "url": self._api("/issue"), "json": {"fields": fields}}

    def create(self, payload: IssuePayload) -> Ticket:
        answer = self.http.request("POST", self._api("/issue"), creates=True, json=self.preview(payload)["json"])
        return self._ticket(str(answer.json()["key"]))

    def find(self, payload: IssuePayload) -> Ticket | None:
        jql = f'project = "{self.config.jira_project}" AND labels = "{self._label(payload)}"'
        answer = self.http.request("GET", self._api("/search/jql"), params={"jql": jql, "fields": "status"})
        for issue in answer.json().get("issues", []):
            return self._ticket(str(issue["key"]), (issue.get("fields") or {}).get("status"))
        return None

    def update(self, ticket: Ticket, payload: IssuePayload) -> Ticket:
        fields = self.preview(payload)["json"]["fields"]
        self.http.request("PUT", self._api(f"/issue/{ticket.external_id}"),
                          json={"fields": {"summary": fields["summary"], "description": fields["description"]}})
        return ticket

    def comment(self, ticket: Ticket, text: str) -> None:
        self.http.request("POST", self._api(f"/issue/{ticket.external_id}/comment"), creates=True,
                          json={"body": adf_comment(text)})

    def set_open(self, ticket: Ticket, open_: bool) -> Ticket:
        url = self._api(f"/issue/{ticket.external_id}/transitions")
        transitions = self.http.request("GET", url).json().get("transitions", [])
        wanted = ("new", "indeterminate") if open_ else ("done",)
        chosen = next((t["id"] for cat in wanted for t in transitions
                       if ((t.get("to") or {}).get("statusCategory") or {}).get("key") == cat), None)
        if chosen is None:
            raise PermanentError(f"jira: no transition of {ticket.external_id} leads to a "
                                 f"{'to do' if open_ else 'done'} status")
        self.http.request("POST", url, json={"transition": {"id": chosen}})
        return Ticket(ticket.external_id, ticket.url, OPEN if open_ else CLOSED)

    def assign(self, ticket: Ticket, account: str | None) -> None:
        self.http.request("PUT", self._api(f"/issue/{ticket.external_id}/assignee"), json={"accountId": account})

    def fetch(self, ticket: Ticket) -> Ticket:
        answer = self.http.request("GET", self._api(f"/issue/{ticket.external_id}"), params={"fields": "status"})
        return self._ticket(ticket.external_id, (answer.json().get("fields") or {}).get("status"))
