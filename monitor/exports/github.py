"""GitHub Issues (REST): one issue per sumwatch issue, found again by the marker in its body.

    POST  {api}/repos/{owner}/{repo}/issues                  {"title", "body", "labels"}
    PATCH {api}/repos/{owner}/{repo}/issues/{number}         {"title", "body"}, {"state", "state_reason"} or
                                                             {"assignees": [login]} (replaces them; [] clears)
    POST  {api}/repos/{owner}/{repo}/issues/{number}/comments {"body"}
    GET   {api}/search/issues?q=repo:{owner}/{repo} in:body "sumwatch:SW-3"

GitHub allows at most 80 content-creating requests a minute (its secondary rate limit): that is the default pace.
"""

from __future__ import annotations

import re
from typing import Any

from .config import ExportConfig, reveal
from .payload import IssuePayload, clip
from .tracker import CLOSED, OPEN, Ticket, Tracker
from .transport import Http

TITLE_LIMIT = 256
BODY_LIMIT = 65_536
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class GitHub(Tracker):
    name = "github"
    required = ("github_token", "github_repo")
    default_pace = 80.0

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        lines = super().problems(config)
        if config.github_repo and not _REPO.match(config.github_repo):
            lines.append(f"SUMWATCH_GITHUB_REPO must be owner/name, got {config.github_repo!r}")
        return lines

    def make_http(self) -> Http:
        return Http(self.name, self.config, default_pace=self.default_pace, headers={
            "authorization": f"Bearer {reveal(self.config.github_token)}", "accept": "application/vnd.github+json",
            "x-github-api-version": "2022-11-28"})

    @property
    def _issues(self) -> str:
        return f"{self.config.github_api_url.rstrip('/')}/repos/{self.config.github_repo}/issues"

    def _body(self, payload: IssuePayload) -> dict[str, Any]:
        return {"title": clip(f"[{payload.issue_id}] {payload.title}", TITLE_LIMIT),
                "body": payload.markdown(BODY_LIMIT)}

    def _ticket(self, data: dict[str, Any]) -> Ticket:
        return Ticket(str(data["number"]), str(data.get("html_url", "")), CLOSED if data.get("state") == "closed"
                      else OPEN)

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        return {"method": "POST", "url": self._issues,
                "json": {**self._body(payload), "labels": ["sumwatch", f"severity:{payload.severity}"]}}

    def create(self, payload: IssuePayload) -> Ticket:
        answer = self.http.request("POST", self._issues, creates=True, json=self.preview(payload)["json"])
        return self._ticket(answer.json())

    def find(self, payload: IssuePayload) -> Ticket | None:
        query = f'repo:{self.config.github_repo} is:issue in:body "{payload.marker}"'
        answer = self.http.request("GET", f"{self.config.github_api_url.rstrip('/')}/search/issues",
                                   params={"q": query})
        for item in answer.json().get("items", []):
            if payload.marker_comment in (item.get("body") or ""):
                return self._ticket(item)
        return None

    def update(self, ticket: Ticket, payload: IssuePayload) -> Ticket:
        answer = self.http.request("PATCH", f"{self._issues}/{ticket.external_id}", json=self._body(payload))
        return self._ticket(answer.json())

    def comment(self, ticket: Ticket, text: str) -> None:
        self.http.request("POST", f"{self._issues}/{ticket.external_id}/comments", creates=True,
                          json={"body": clip(text, BODY_LIMIT)})

    def set_open(self, ticket: Ticket, open_: bool) -> Ticket:
        body = {"state": "open"} if open_ else {"state": "closed", "state_reason": "completed"}
        return self._ticket(self.http.request("PATCH", f"{self._issues}/{ticket.external_id}", json=body).json())

    def fetch(self, ticket: Ticket) -> Ticket:
        return self._ticket(self.http.request("GET", f"{self._issues}/{ticket.external_id}").json())

    def assign(self, ticket: Ticket, account: str | None) -> None:
        self.http.request("PATCH", f"{self._issues}/{ticket.external_id}",
                          json={"assignees": [account] if account else []})
