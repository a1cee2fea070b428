"""Linear (GraphQL): ``issueCreate``, ``issueUpdate`` (also its ``assigneeId``, a user id, null for nobody),
``commentCreate`` and an attachment linking back.

    POST {api}   Authorization: <API key>   {"query": "mutation IssueCreate($input: IssueCreateInput!) ...",
                                             "variables": {"input": {"id", "teamId", "title", "description",
                                                                     "priority"}}}

The issue's id is chosen by sumwatch (a UUID derived from the marker), which Linear accepts on create: a create
that timed out is looked up by that id before it is sent again, so it never makes a second issue.
"""

from __future__ import annotations

import uuid
from typing import Any

from .config import reveal
from .payload import IssuePayload, clip
from .tracker import CLOSED, OPEN, Ticket, Tracker
from .transport import Http, PermanentError

TITLE_LIMIT = 255
DESCRIPTION_LIMIT = 100_000
_PRIORITY = {"critical": 1, "high": 2, "medium": 3, "low": 4}
_NAMESPACE = uuid.UUID("0e7c5b0e-6f43-4b8e-9a51-0d3d6f2b7a10")
_ISSUE_FIELDS = "id identifier url state { type }"

CREATE = f"""mutation IssueCreate($input: IssueCreateInput!) {{
  issueCreate(input: $input) {{ success issue {{ {_ISSUE_FIELDS} }} }}
}}"""
UPDATE = f"""mutation IssueUpdate($id: String!, $input: IssueUpdateInput!) {{
  issueUpdate(id: $id, input: $input) {{ success issue {{ {_ISSUE_FIELDS} }} }}
}}"""
COMMENT = """mutation CommentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) { success }
}"""
ATTACH = """mutation AttachmentCreate($input: AttachmentCreateInput!) {
  attachmentCreate(input: $input) { success }
}"""
ISSUE = f"""query Issue($id: String!) {{ issue(id: $id) {{ {_ISSUE_FIELDS} }} }}"""
STATES = """query TeamStates($id: String!) { team(id: $id) { states { nodes { id type position } } } }"""


class Linear(Tracker):
    name = "linear"
    required = ("linear_api_key", "linear_team")
    default_pace = 60.0  # Linear allows 1,500 requests an hour per API key; creates are a share of those

    def make_http(self) -> Http:
        return Http(self.name, self.config, default_pace=self.default_pace,
                    headers={"authorization": reveal(self.config.linear_api_key), "content-type": "application/json"})

    def _gql(self, query: str, variables: dict[str, Any], *, creates: bool = False) -> dict[str, Any]:
        answer = self.http.request("POST", self.config.linear_api_url, creates=creates,
                                   json={"query": query, "variables": variables})
        data = answer.json()
        if data.get("errors"):
            message = "; ".join(str(e.get("message", e)) for e in data["errors"])[:300]
            raise PermanentError(f"linear: {message}")
        return data.get("data") or {}

    @staticmethod
    def issue_uuid(payload: IssuePayload) -> str:
        return str(uuid.uuid5(_NAMESPACE, payload.marker))

    def _ticket(self, issue: dict[str, Any]) -> Ticket:
        kind = (issue.get("state") or {}).get("type", "")
        closed = kind in ("completed", "canceled")
        return Ticket(str(issue["id"]), str(issue.get("url", "")), CLOSED if closed else OPEN)

    def _input(self, payload: IssuePayload) -> dict[str, Any]:
        return {"title": clip(f"[{payload.issue_id}] {payload.title}", TITLE_LIMIT),
                "description": payload.markdown(DESCRIPTION_LIMIT), "priority": _PRIORITY.get(payload.severity, 0)}

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        variables = {"input": {"id": self.issue_uuid(payload), "teamId": self.config.linear_team,
                               **self._input(payload)}}
        return {"method": "POST", "url": self.config.linear_api_url, "json": {"query": CREATE, "variables": variables}}

    def create(self, payload: IssuePayload) -> Ticket:
        data = self._gql(CREATE, self.preview(payload)["json"]["variables"], creates=True)
        result = data.get("issueCreate") or {}
        if not result.get("success") or not result.get("issue"):
            raise PermanentError("linear: issueCreate did not succeed")
        ticket = self._ticket(result["issue"])
        if payload.issue_url:  # the back-link; Linear keeps one attachment per URL and issue
            self._gql(ATTACH, {"input": {"issueId": ticket.external_id, "url": payload.issue_url,
                                         "title": f"sumwatch {payload.issue_id}",
                                         "subtitle": payload.counts_line()}})
        return ticket

    def find(self, payload: IssuePayload) -> Ticket | None:
        try:
            issue = self._gql(ISSUE, {"id": self.issue_uuid(payload)}).get("issue")
        except PermanentError as exc:
            if "not found" in str(exc).lower():  # Linear answers an unknown id with "Entity not found"
                return None
            raise
        return self._ticket(issue) if issue else None

    def update(self, ticket: Ticket, payload: IssuePayload) -> Ticket:
        data = self._gql(UPDATE, {"id": ticket.external_id, "input": self._input(payload)})
        issue = (data.get("issueUpdate") or {}).get("issue")
        return self._ticket(issue) if issue else ticket

    def comment(self, ticket: Ticket, text: str) -> None:
        self._gql(COMMENT, {"input": {"issueId": ticket.external_id, "body": clip(text, DESCRIPTION_LIMIT)}},
                  creates=True)

    def set_open(self, ticket: Ticket, open_: bool) -> Ticket:
        team = self._gql(STATES, {"id": self.config.linear_team}).get("team") or {}
        states = sorted((team.get("states") or {}).get("nodes") or [], key=lambda s: s.get("position", 0))
        wanted = ("unstarted", "backlog", "triage") if open_ else ("completed",)
        chosen = next((s["id"] for kind in wanted for s in states if s.get("type") == kind), None)
        if chosen is None:
            raise PermanentError(f"linear: the team has no workflow state of type {wanted[0]}")
        data = self._gql(UPDATE, {"id": ticket.external_id, "input": {"stateId": chosen}})
        issue = (data.get("issueUpdate") or {}).get("issue")
        return self._ticket(issue) if issue else ticket

    def assign(self, ticket: Ticket, account: str | None) -> None:
        data = self._gql(UPDATE, {"id": ticket.external_id, "input": {"assigneeId": account}})
        if not (data.get("issueUpdate") or {}).get("success"):
            raise PermanentError(f"linear: assigning {ticket.external_id} did not succeed")

    def fetch(self, ticket: Ticket) -> Ticket:
        issue = self._gql(ISSUE, {"id": ticket.external_id}).get("issue")
        if not issue:
            raise PermanentError(f"linear: issue {ticket.external_id} no longer exists")
        return self._ticket(issue)
