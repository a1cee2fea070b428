"""A loopback stand-in for an OpenAI-compatible chat completions API, for tests and benchmarks.

    with FakeOpenAI(sequence(error(429, retry_after=0.05), answer(reply))) as fake:  # reply: a dict or text
        judge = LLMJudge(LLMConfig("openai/judge-test", api_base=fake.base_url, api_key="test-key"))
        ...
        fake.requests[0].body["temperature"]  # what the client sent
        fake.max_in_flight                    # how many requests were open at once

A responder is a callable ``responder(request_json) -> (status, body, headers, delay_s)``: a dict body is
sent as JSON, a str or bytes body as it is. The helpers below build the usual replies; ``judge_responder``
(the default) plays a competent judge without a model. ``latency_s`` adds a fixed delay to every reply.
Delays are ``asyncio.sleep``, so slow replies never hold up other requests.

Run it on its own (for a benchmark whose client should not share a process with the server):

    python tests/fakes/openai_server.py --latency 0.3
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .loopback import LoopbackServer

Body = dict | list | str | bytes
Reply = tuple[int, Body, dict[str, str], float]
Responder = Callable[[dict], Reply]

_ids = itertools.count(1)


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON
    at: float = field(default_factory=time.monotonic)


def _message_text(request: dict) -> str:
    parts = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def chat_completion(request: dict, content: str, *, prompt_tokens: int | None = None,
                    completion_tokens: int | None = None) -> dict:
    """An OpenAI-shaped chat completion whose message is ``content``; usage is ~4 characters a token."""
    prompt = _tokens(_message_text(request)) if prompt_tokens is None else prompt_tokens
    completion = _tokens(content) if completion_tokens is None else completion_tokens
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model") or "fake"),
        "system_fingerprint": "fp_fake",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "logprobs": None,
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def answer(content: str | dict, *, delay_s: float = 0.0, prompt_tokens: int | None = None,
           completion_tokens: int | None = None) -> Responder:
    """A 200 reply carrying ``content`` (a dict is sent as its JSON text, a str as it is: malformed is fine)."""
    text = content if isinstance(content, str) else json.dumps(content)

    def respond(request: dict) -> Reply:
        body = chat_completion(request, text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return 200, body, {}, delay_s

    return respond


def error(status: int, message: str = "", *, retry_after: float | None = None,
          delay_s: float = 0.0) -> Responder:
    """An OpenAI-shaped error reply, with a Retry-After header when given."""
    kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
    body = {"error": {"message": message or f"fake error {status}", "type": kind, "param": None, "code": kind}}
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    return lambda request: (status, body, headers, delay_s)


def sequence(*responders: Responder, then: Responder | None = None) -> Responder:
    """Replies in order, one per request; afterwards ``then`` (default: the last one again)."""
    pending = list(responders)
    last = then or (responders[-1] if responders else judge_responder)
    lock = threading.Lock()

    def respond(request: dict) -> Reply:
        with lock:
            nxt = pending.pop(0) if pending else last
        return nxt(request)

    return respond


# -- the default: a deterministic judge that quotes the source -----------------------------------------------

_TAG = r"<{0}>\n?(.*?)\n?</{0}>"
_WORD = re.compile(r"[a-z0-9%$.,]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _block(text: str, tag: str) -> str:
    found = re.search(_TAG.format(tag), text, re.S)
    return found.group(1).strip() if found else ""


def _words(text: str) -> set[str]:
    return {w.strip(".,") for w in _WORD.findall(text.lower())} - {""}


def _best_sentence(claim: str, sentences: list[str]) -> tuple[str, float]:
    want = _words(claim)
    best, score = "", 0.0
    for sentence in sentences:
        shared = len(want & _words(sentence)) / (len(want) or 1)
        if shared > score:
            best, score = sentence, shared
    return best, score


def judge_responder(request: dict) -> Reply:
    """Plays a competent judge: each summary sentence (or expected fact) is a claim, backed by the source
    sentence sharing the most words with it. Enough word overlap passes; little overlap fails."""
    messages = request.get("messages") or []
    # the case is in the first user message; a later one is a request to correct a reply
    text = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
    source, summary = _block(text, "source"), _block(text, "summary")
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    rubric = next((r for r in ("groundedness", "completeness", "factuality", "conciseness")
                   if f"rubric: {r}" in system.lower()), "groundedness")
    sentences = [s.strip() for s in _SENTENCE.split(source) if s.strip()]
    facts = [line.strip()[2:].strip() for line in _block(text, "expected_facts").splitlines()
             if line.strip().startswith("- ")]
    items = facts or [s.strip() for s in _SENTENCE.split(summary) if s.strip()] or [summary]
    good, bad, failure = {
        "groundedness": ("supported", "missing", "unsupported_claim"),
        "completeness": ("present", "absent", "missing_expected_fact" if facts else "missing_key_fact"),
        "factuality": ("correct", "entity_wrong", "entity_swap"),
        "conciseness": ("concise", "padded", "filler_phrases"),
    }[rubric]
    summary_sentences = [s.strip() for s in _SENTENCE.split(summary) if s.strip()]
    claims = []
    for item in items:
        quote, overlap = _best_sentence(item, sentences)
        claim = {"claim": item, "evidence_quote": quote}
        if rubric == "completeness":  # a fact counts when the summary carries it
            in_summary, overlap = _best_sentence(item, summary_sentences)
            claim["summary_quote"] = in_summary if overlap >= 0.5 else ""
        ok = overlap >= 0.5
        claim.update(verdict=good if ok else bad, failure_mode="" if ok else failure)
        claims.append(claim)
    failing = [c for c in claims if c["verdict"] != good]
    verdict = good if not failing else ("partial" if rubric == "groundedness" and len(failing) < len(claims)
                                        else failing[0]["verdict"])
    reply = {
        "claims": claims,
        "verdict": verdict,
        "failure_mode": failing[0]["failure_mode"] if failing else "",
        "explanation": f"{len(claims) - len(failing)} of {len(claims)} items check out against the source.",
    }
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


# -- the server -------------------------------------------------------------------------------------------------

class FakeOpenAI(LoopbackServer):
    """The fake API on 127.0.0.1 (an OS-chosen port), served from a background thread."""

    def __init__(self, responder: Responder | None = None, *, latency_s: float = 0.0,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.responder: Responder = responder or judge_responder
        self.latency_s = latency_s
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests open at once: shows whether a client serializes
        LoopbackServer.__init__(self, "the fake OpenAI server", host=host, port=port)
        self._stopping = False
        routes = [Route(path, self._complete, methods=["POST"])
                  for path in ("/v1/chat/completions", "/chat/completions")]
        self.app = Starlette(routes=routes)

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    @property
    def port(self) -> int:
        if self._socket is None:
            raise RuntimeError("the fake server is not running")
        return self._socket.getsockname()[1]

    async def _complete(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.requests.append(Received(request.url.path, dict(request.headers), body))
        if not isinstance(body, dict):
            return JSONResponse({"error": {"message": "body is not a JSON object", "type": "invalid_request"}},
                                status_code=400)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            status, reply, headers, delay_s = self.responder(body)
            await self._sleep(delay_s + self.latency_s)
        finally:
            self.in_flight -= 1
        if isinstance(reply, (dict, list)):
            return JSONResponse(reply, status_code=status, headers=headers)
        return Response(reply, status_code=status, headers=headers, media_type="application/json")

    async def _sleep(self, seconds: float) -> None:
        # in slices, so that stopping the server does not wait on (or cancel) a long scripted delay
        deadline = time.monotonic() + seconds
        while not self._stopping and (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.05))

    def start(self) -> FakeOpenAI:
        self._stopping = False
        return super().start()

    def stop(self) -> None:
        self._stopping = True  # a scripted delay in progress ends at its next slice
        super().stop()


def _main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Serve the fake OpenAI-compatible judge on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every reply")
    args = parser.parse_args()
    with FakeOpenAI(latency_s=args.latency, port=args.port) as fake:
        print(fake.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    _main()
