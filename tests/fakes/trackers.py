"""Loopback stand-ins for GitHub Issues, Linear, Jira Cloud, a Slack incoming webhook and a signed webhook receiver.

    with FakeTrackers() as fake:
        config = fake.config(markdown_dir=tmp)          # an ExportConfig pointing every target here
        fake.fault = lambda target, op: Fault(429, retry_after="0.01") if op == "create" else None
        ...
        fake.problems        # requests whose shape the API would refuse (each also answered 400 or 422)
        fake.duplicates()    # tickets created twice for one sumwatch issue

Each API checks what its documentation requires: auth header, JSON shape, the GraphQL mutation and its variables,
the ADF document and its size, Block Kit blocks, the webhook's HMAC signature and timestamp. ``fault(target, op)``
may answer any status (with Retry-After) or a delay longer than the client waits; a create that times out is
still stored, as a real tracker would.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from .loopback import LoopbackServer

GITHUB_TOKEN = "ghp_FAKEtoken1234567890"
LINEAR_KEY = "lin_api_FAKEkey1234567890"
JIRA_EMAIL, JIRA_TOKEN = "bot@example.com", "ATATT-FAKE-jira-token-123"
WEBHOOK_SECRET = "whsec-FAKE-secret-123"
SLACK_PATH = "/slack/services/T000/B000/FAKEslackSECRET123"
MARKER = re.compile(r"sumwatch[:-](SW-\d+)")
_ADF_BLOCKS = {"paragraph", "heading", "blockquote", "codeBlock", "bulletList", "orderedList", "listItem", "rule"}


@dataclass
class Fault:
    status: int | None = None  # answer this status (None: answer normally, after ``delay``)
    retry_after: str | None = None
    delay: float = 0.0  # seconds before answering; the operation is applied first
    echo: bool = False  # the error body repeats the request's URL and Authorization header, as some servers do


@dataclass
class Seen:
    target: str
    op: str
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeTrackers(LoopbackServer):
    fault: Callable[[str, str], Fault | None] | None = None
    requests: list[Seen] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    github: dict[int, dict[str, Any]] = field(default_factory=dict)
    github_comments: list[tuple[int, str]] = field(default_factory=list)
    linear: dict[str, dict[str, Any]] = field(default_factory=dict)
    linear_comments: list[tuple[str, str]] = field(default_factory=list)
    linear_attachments: list[dict[str, Any]] = field(default_factory=list)
    jira: dict[str, dict[str, Any]] = field(default_factory=dict)
    jira_comments: list[tuple[str, Any]] = field(default_factory=list)
    slack: list[dict[str, Any]] = field(default_factory=list)
    webhook: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        LoopbackServer.__init__(self, "the fake trackers")
        self.app = Starlette(routes=[
            Route("/github/repos/{owner}/{repo}/issues", self._gh_create, methods=["POST"]),
            Route("/github/repos/{owner}/{repo}/issues/{number:int}", self._gh_issue, methods=["GET", "PATCH"]),
            Route("/github/repos/{owner}/{repo}/issues/{number:int}/comments", self._gh_comment, methods=["POST"]),
            Route("/github/search/issues", self._gh_search, methods=["GET"]),
            Route("/linear/graphql", self._linear, methods=["POST"]),
            Route("/jira/rest/api/3/issue", self._jira_create, methods=["POST"]),
            Route("/jira/rest/api/3/issue/{key}", self._jira_issue, methods=["GET", "PUT"]),
            Route("/jira/rest/api/3/issue/{key}/comment", self._jira_comment, methods=["POST"]),
            Route("/jira/rest/api/3/issue/{key}/transitions", self._jira_transitions, methods=["GET", "POST"]),
            Route("/jira/rest/api/3/issue/{key}/assignee", self._jira_assignee, methods=["PUT"]),
            Route("/jira/rest/api/3/search/jql", self._jira_search, methods=["GET"]),
            Route(SLACK_PATH, self._slack, methods=["POST"]),
            Route("/hooks/sumwatch", self._webhook, methods=["POST"]),
        ])

    # -- life ------------------------------------------------------------------------------------
    def config(self, **overrides: Any) -> Any:
        from sumwatch.monitor.exports.config import ExportConfig

        values = dict(github_token=GITHUB_TOKEN, github_repo="acme/summaries", github_api_url=self.base + "/github",
                      linear_api_key=LINEAR_KEY, linear_team="team-1", linear_api_url=self.base + "/linear/graphql",
                      jira_url=self.base + "/jira", jira_email=JIRA_EMAIL, jira_token=JIRA_TOKEN, jira_project="OPS",
                      slack_webhook_url=self.base + SLACK_PATH, webhook_url=self.base + "/hooks/sumwatch",
                      webhook_secret=WEBHOOK_SECRET, public_url="https://sumwatch.example.com",
                      export_timeout_s=2.0, export_backoff_s=0.001, export_max_wait_s=5.0,
                      export_pace="github=60000,linear=60000,jira=60000,slack=60000")
        values.update(overrides)
        return ExportConfig(**values)

    def duplicates(self, target: str | None = None) -> int:
        """Tickets beyond the first for one sumwatch issue, in each tracker (or ``target``); repeated webhook
        deliveries; Slack messages beyond one per issue and event."""
        texts = ([("github", i["body"]) for i in self.github.values()]
                 + [("linear", i["description"]) for i in self.linear.values()]
                 + [("jira", " ".join(i["fields"]["labels"])) for i in self.jira.values()])
        counts = Counter((t, m.group(1)) for t, text in texts if (m := MARKER.search(text)))
        counts.update(("webhook", m["delivery"]) for m in self.webhook)
        counts.update(("slack", m["blocks"][0]["text"]["text"]) for m in self.slack)
        return sum(c - 1 for (t, _), c in counts.items() if target in (None, t))

    # -- plumbing ------------------------------------------------------------------------------
    async def _begin(self, request: Request, target: str, op: str, auth_ok: bool
                     ) -> tuple[Any, Response | None, float]:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(Seen(target, op, request.method, request.url.path, dict(request.headers), body))
        if not auth_ok:
            return body, JSONResponse({"message": "Bad credentials"}, status_code=401), 0.0
        fault = self.fault(target, op) if self.fault else None
        if fault and fault.status:
            headers = {"retry-after": fault.retry_after} if fault.retry_after else {}
            message = f"fault {fault.status}"
            if fault.echo:
                message += f" for {request.url} with Authorization: {request.headers.get('authorization', '')}"
            return body, JSONResponse({"message": message}, status_code=fault.status, headers=headers), 0.0
        return body, None, fault.delay if fault else 0.0

    def _refuse(self, status: int, problem: str) -> Response:
        self.problems.append(problem)
        return JSONResponse({"message": problem}, status_code=status)

    @staticmethod
    async def _after(delay: float, response: Response) -> Response:
        if delay:
            await asyncio.sleep(delay)
        return response

    # -- GitHub ----------------------------------------------------------------------------------
    def _gh_auth(self, request: Request) -> bool:
        return (request.headers.get("authorization") == f"Bearer {GITHUB_TOKEN}"
                and request.headers.get("accept") == "application/vnd.github+json"
                and request.headers.get("x-github-api-version") == "2022-11-28")

    def _gh_view(self, n: int) -> dict[str, Any]:
        issue = self.github[n]
        return {"id": 1000 + n, "number": n, "html_url": f"https://github.com/acme/summaries/issues/{n}", **issue}

    async def _gh_create(self, request: Request) -> Response:
        body, refused, delay = await self._begin(request, "github", "create", self._gh_auth(request))
        if refused:
            return refused
        if not isinstance(body, dict) or not isinstance(body.get("title"), str) or not body["title"] \
                or len(body["title"]) > 256 or len(body.get("body") or "") > 65536 \
                or not all(isinstance(x, str) for x in body.get("labels", [])):
            return self._refuse(422, "github: create needs a title (<=256), a body (<=65536) and string labels")
        with self._lock:
            n = len(self.github) + 1
            self.github[n] = {"title": body["title"], "body": body.get("body", ""), "state": "open",
                              "labels": body.get("labels", [])}
        return await self._after(delay, JSONResponse(self._gh_view(n), status_code=201))

    async def _gh_issue(self, request: Request) -> Response:
        n = request.path_params["number"]
        op = "fetch" if request.method == "GET" else "update"
        body, refused, delay = await self._begin(request, "github", op, self._gh_auth(request))
        if refused:
            return refused
        if n not in self.github:
            return JSONResponse({"message": "Not Found"}, status_code=404)
        if request.method == "PATCH":
            fields = {"title", "body", "state", "state_reason", "labels", "assignees"}
            if not isinstance(body, dict) or set(body) - fields \
                    or body.get("state", "open") not in ("open", "closed") \
                    or not isinstance(body.get("assignees", []), list) \
                    or not all(isinstance(a, str) and a for a in body.get("assignees", [])):
                return self._refuse(422, f"github: bad PATCH body {body!r:.100}")
            self.github[n].update(body)
        return await self._after(delay, JSONResponse(self._gh_view(n)))

    async def _gh_comment(self, request: Request) -> Response:
        body, refused, delay = await self._begin(request, "github", "comment", self._gh_auth(request))
        if refused:
            return refused
        if not isinstance(body, dict) or not body.get("body"):
            return self._refuse(422, "github: a comment needs a body")
        self.github_comments.append((request.path_params["number"], body["body"]))
        return await self._after(delay, JSONResponse({"id": len(self.github_comments)}, status_code=201))

    async def _gh_search(self, request: Request) -> Response:
        _, refused, delay = await self._begin(request, "github", "find", self._gh_auth(request))
        if refused:
            return refused
        q = request.query_params.get("q", "")
        quoted = re.search(r'"([^"]+)"', q)
        if not quoted or "repo:acme/summaries" not in q:
            return self._refuse(422, f"github: search query without repo: and a quoted phrase: {q!r}")
        items = [self._gh_view(n) for n, i in self.github.items() if quoted.group(1) in i["body"]]
        return await self._after(delay, JSONResponse({"total_count": len(items), "items": items}))

    # -- Linear ----------------------------------------------------------------------------------
    def _linear_view(self, issue_id: str) -> dict[str, Any]:
        i = self.linear[issue_id]
        return {"id": issue_id, "identifier": i["identifier"], "url": f"https://linear.app/acme/issue/{i['identifier']}",
                "state": {"type": i["state"]}}

    async def _linear(self, request: Request) -> Response:
        ok = request.headers.get("authorization") == LINEAR_KEY and \
            request.headers.get("content-type", "").startswith("application/json")
        raw = json.loads(await request.body() or b"{}")
        query = raw.get("query", "") if isinstance(raw, dict) else ""
        op = next((name for name in ("issueCreate", "issueUpdate", "commentCreate", "attachmentCreate", "team",
                                     "issue") if re.search(rf"\b{name}\s*\(", query)), "?")
        kind = {"issueCreate": "create", "issueUpdate": "update", "commentCreate": "comment", "issue": "fetch",
                "attachmentCreate": "attach", "team": "states"}.get(op, "?")
        body, refused, delay = await self._begin(request, "linear", kind, ok)
        if refused:
            return refused
        v = body.get("variables") or {}
        if op == "issueCreate":
            inp = v.get("input") or {}
            if not re.match(r"mutation \w+\(\$input: IssueCreateInput!\)", query) or not inp.get("teamId") \
                    or not inp.get("title") or not isinstance(inp.get("priority"), int):
                return self._refuse(400, f"linear: bad issueCreate {query[:60]!r} {inp.keys()}")
            if inp.get("id") in self.linear:
                return JSONResponse({"errors": [{"message": "Entity already exists"}]})
            with self._lock:
                iid = inp.get("id") or f"gen-{len(self.linear)}"
                self.linear[iid] = {"identifier": f"ENG-{len(self.linear) + 1}", "title": inp["title"],
                                    "description": inp.get("description", ""), "state": "unstarted"}
            data = {"issueCreate": {"success": True, "issue": self._linear_view(iid)}}
        elif op == "issueUpdate":
            inp = v.get("input") or {}
            if "$id: String!" not in query or v.get("id") not in self.linear:
                return JSONResponse({"errors": [{"message": "Entity not found: Issue"}]})
            if "stateId" in inp:
                self.linear[v["id"]]["state"] = {"s-todo": "unstarted", "s-done": "completed"}[inp["stateId"]]
            if "assigneeId" in inp and not (inp["assigneeId"] is None or isinstance(inp["assigneeId"], str)):
                return self._refuse(400, "linear: assigneeId is a user id or null")
            self.linear[v["id"]].update({k: inp[k] for k in ("title", "description", "assigneeId") if k in inp})
            data = {"issueUpdate": {"success": True, "issue": self._linear_view(v["id"])}}
        elif op == "commentCreate":
            inp = v.get("input") or {}
            if inp.get("issueId") not in self.linear or not inp.get("body"):
                return self._refuse(400, "linear: commentCreate needs issueId and body")
            self.linear_comments.append((inp["issueId"], inp["body"]))
            data = {"commentCreate": {"success": True}}
        elif op == "attachmentCreate":
            inp = v.get("input") or {}
            if inp.get("issueId") not in self.linear or not str(inp.get("url", "")).startswith("http") \
                    or not inp.get("title"):
                return self._refuse(400, "linear: attachmentCreate needs issueId, url and title")
            self.linear_attachments.append(inp)
            data = {"attachmentCreate": {"success": True}}
        elif op == "team":
            data = {"team": {"states": {"nodes": [{"id": "s-done", "type": "completed", "position": 3},
                                                  {"id": "s-todo", "type": "unstarted", "position": 1}]}}}
        elif op == "issue":
            if v.get("id") not in self.linear:
                return JSONResponse({"errors": [{"message": "Entity not found: Issue"}]})
            data = {"issue": self._linear_view(v["id"])}
        else:
            return self._refuse(400, f"linear: unknown operation {query[:80]!r}")
        return await self._after(delay, JSONResponse({"data": data}))

    # -- Jira ------------------------------------------------------------------------------------
    def _jira_auth(self, request: Request) -> bool:
        expected = "Basic " + base64.b64encode(f"{JIRA_EMAIL}:{JIRA_TOKEN}".encode()).decode()
        return request.headers.get("authorization") == expected

    def _adf_problem(self, doc: Any) -> str | None:
        if not isinstance(doc, dict) or doc.get("type") != "doc" or doc.get("version") != 1:
            return "description is not an ADF doc of version 1"
        if len(json.dumps(doc, ensure_ascii=False)) > 32767:
            return "description is over 32,767 characters"

        def walk(node: Any, top: bool) -> str | None:
            kind = node.get("type")
            if kind == "text":
                return None if isinstance(node.get("text"), str) and node["text"] else "empty text node"
            if top and kind not in _ADF_BLOCKS:
                return f"{kind} is not a block node"
            for child in node.get("content", []):
                if (problem := walk(child, kind in ("blockquote", "listItem"))) is not None:
                    return problem
            return None
        for block in doc.get("content", []):
            if (problem := walk(block, True)) is not None:
                return problem
        return None

    def _jira_view(self, key: str) -> dict[str, Any]:
        done = self.jira[key]["status"] == "done"
        return {"id": key.split("-")[1], "key": key, "fields": {"status": {
            "name": "Done" if done else "To Do", "statusCategory": {"key": "done" if done else "new"}}}}

    async def _jira_create(self, request: Request) -> Response:
        body, refused, delay = await self._begin(request, "jira", "create", self._jira_auth(request))
        if refused:
            return refused
        fields = (body or {}).get("fields") or {}
        problem = self._adf_problem(fields.get("description"))
        if problem or (fields.get("project") or {}).get("key") != "OPS" or not fields.get("summary") \
                or len(fields["summary"]) > 255 or not (fields.get("issuetype") or {}).get("name"):
            return self._refuse(400, f"jira: {problem or 'project, summary (<=255) and issuetype are required'}")
        with self._lock:
            key = f"OPS-{len(self.jira) + 1}"
            self.jira[key] = {"fields": fields, "status": "new"}
        return await self._after(delay, JSONResponse({"id": key[4:], "key": key, "self": f"/issue/{key}"},
                                                     status_code=201))

    async def _jira_issue(self, request: Request) -> Response:
        key = request.path_params["key"]
        body, refused, delay = await self._begin(request, "jira", "fetch" if request.method == "GET" else "update",
                                                 self._jira_auth(request))
        if refused:
            return refused
        if key not in self.jira:
            return JSONResponse({"errorMessages": ["Issue does not exist"]}, status_code=404)
        if request.method == "PUT":
            fields = (body or {}).get("fields") or {}
            if (problem := self._adf_problem(fields.get("description"))) is not None:
                return self._refuse(400, f"jira: {problem}")
            self.jira[key]["fields"].update(fields)
            return await self._after(delay, Response(status_code=204))
        return await self._after(delay, JSONResponse(self._jira_view(key)))

    async def _jira_assignee(self, request: Request) -> Response:
        key = request.path_params["key"]
        body, refused, delay = await self._begin(request, "jira", "assign", self._jira_auth(request))
        if refused:
            return refused
        if key not in self.jira:
            return JSONResponse({"errorMessages": ["Issue does not exist"]}, status_code=404)
        account = (body or {}).get("accountId", "")
        if not isinstance(body, dict) or set(body) != {"accountId"} or not (account is None or isinstance(account, str)
                                                                             and account):
            return self._refuse(400, "jira: assignee takes {\"accountId\": <account id> or null}")
        self.jira[key]["assignee"] = account
        return await self._after(delay, Response(status_code=204))

    async def _jira_comment(self, request: Request) -> Response:
        body, refused, delay = await self._begin(request, "jira", "comment", self._jira_auth(request))
        if refused:
            return refused
        if (problem := self._adf_problem((body or {}).get("body"))) is not None:
            return self._refuse(400, f"jira comment: {problem}")
        self.jira_comments.append((request.path_params["key"], body["body"]))
        return await self._after(delay, JSONResponse({"id": str(len(self.jira_comments))}, status_code=201))

    async def _jira_transitions(self, request: Request) -> Response:
        key = request.path_params["key"]
        body, refused, delay = await self._begin(request, "jira", "transition", self._jira_auth(request))
        if refused:
            return refused
        if request.method == "GET":
            return JSONResponse({"transitions": [
                {"id": "11", "name": "To Do", "to": {"statusCategory": {"key": "new"}}},
                {"id": "31", "name": "Done", "to": {"statusCategory": {"key": "done"}}}]})
        tid = ((body or {}).get("transition") or {}).get("id")
        if tid not in ("11", "31"):
            return self._refuse(400, f"jira: unknown transition {tid!r}")
        self.jira[key]["status"] = "done" if tid == "31" else "new"
        return await self._after(delay, Response(status_code=204))

    async def _jira_search(self, request: Request) -> Response:
        _, refused, delay = await self._begin(request, "jira", "find", self._jira_auth(request))
        if refused:
            return refused
        label = re.search(r'labels = "([^"]+)"', request.query_params.get("jql", ""))
        if not label:
            return self._refuse(400, "jira: search without a labels clause")
        found = [self._jira_view(k) for k, i in self.jira.items() if label.group(1) in i["fields"]["labels"]]
        return await self._after(delay, JSONResponse({"issues": found, "isLast": True}))

    # -- Slack and the webhook -------------------------------------------------------------------
    async def _slack(self, request: Request) -> Response:
        body, refused, delay = await self._begin(request, "slack", "send", True)
        if refused:
            return refused
        blocks = (body or {}).get("blocks")
        if not isinstance(body, dict) or not body.get("text") or not isinstance(blocks, list) \
                or not 0 < len(blocks) <= 50:
            return PlainTextResponse("invalid_blocks", status_code=400)
        for block in blocks:
            text = (block.get("text") or {}).get("text", "")
            if block.get("type") == "header" and (block["text"].get("type") != "plain_text" or len(text) > 150):
                return PlainTextResponse("invalid_blocks", status_code=400)
            if block.get("type") == "section" and (not text or len(text) > 3000):
                return PlainTextResponse("invalid_blocks", status_code=400)
            if block.get("type") not in ("header", "section", "context", "actions", "divider"):
                return PlainTextResponse("invalid_blocks", status_code=400)
        self.slack.append(body)
        return await self._after(delay, PlainTextResponse("ok"))

    async def _webhook(self, request: Request) -> Response:
        raw = await request.body()
        ts = request.headers.get("x-sumwatch-timestamp", "")
        expected = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), ts.encode() + b"." + raw, hashlib.sha256).hexdigest()
        fresh = ts.isdigit() and abs(time.time() - int(ts)) < 300
        signed = hmac.compare_digest(expected, request.headers.get("x-sumwatch-signature", ""))

        async def again() -> dict[str, Any]:
            return {"type": "http.request", "body": raw, "more_body": False}
        request = Request(request.scope, again)
        body, refused, delay = await self._begin(request, "webhook", "send", signed and fresh)
        if refused:
            return refused
        self.webhook.append({"delivery": request.headers.get("x-sumwatch-delivery"), "body": body})
        return await self._after(delay, JSONResponse({"ok": True}))
