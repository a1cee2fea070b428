"""The LLM judge tier: a model, reached through litellm, grades one rubric of one case at a time.

    judge = LLMJudge(LLMConfig("openai/gpt-4o-mini", max_spend_usd=5.0))
    result = await judge.ajudge("groundedness", SummaryCase(source=doc, summary=summ))
    results = await judge.ajudge_many([("factuality", case), ("completeness", case)])
    judge.calls, judge.cache_hits, judge.spent_usd

The model's answer is checked, not trusted. An item it passes must quote the source, and the quote must
really be there (otherwise the item is downgraded: the defence against prompt injection and lazy judges);
the overall verdict is rolled up from the items here. A judge that cannot answer (rate limits, server
errors and timeouts past the retries, malformed replies, the spend cap) returns verdict ``error``,
never a pass.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import unicodedata
import weakref
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from sumwatch.clustering.llm_client import (
    LLMConnection,
    clip,
    describe_error,
    json_object,
    litellm_module,
    retryable,
    scrub,
)

from .prompts import (
    FIELDS,
    PROMPT_VERSION,
    SCHEMAS,
    UNSUPPORTED,
    JudgeSchema,
    as_data,
    build_messages,
    correction_messages,
)
from .reply_cache import ReplyCache
from .verdicts import (
    COMPLETENESS,
    CONCISENESS,
    FACTUALITY,
    FAILURE_MODES,
    GROUNDEDNESS,
    LLM,
    PASSING,
    VERDICTS,
    RubricResult,
    SummaryCase,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class LLMConfig(LLMConnection):
    """The judge's config: the shared :class:`LLMConnection` (model, endpoint, key, timeout, retries,
    backoff, concurrency, and their defaults) plus the judge's own knobs, which the namer does not have.

        LLMConfig("openai/gpt-4o-mini")
        LLMConfig("ollama/llama3.1", api_base="http://127.0.0.1:11434", concurrency=4)
        LLMConfig.from_connection(connection, max_spend_usd=5.0)     # on the connection built from settings
        config.connection                                           # the connection part alone

    Costs come from litellm's price table unless ``input_cost_per_mtok`` / ``output_cost_per_mtok``
    (USD per million tokens) are given; a model litellm does not know costs 0.
    """

    temperature: float = 0.0
    max_spend_usd: float | None = None  # per judge (one run); no new calls once reached
    input_cost_per_mtok: float | None = None
    output_cost_per_mtok: float | None = None
    cache_size: int = 4096  # replies kept in memory
    cache_path: str | None = None  # JSONL file that keeps replies across runs

    @classmethod
    def from_connection(cls, connection: LLMConnection, **judge_options: Any) -> LLMConfig:
        """The judge's config on a shared connection; ``judge_options`` are the judge's own knobs
        (max_spend_usd, costs, cache)."""
        return cls(**_connection_fields(connection), **judge_options)

    @property
    def connection(self) -> LLMConnection:
        return LLMConnection(**_connection_fields(self))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.cache_size < 0:
            raise ValueError("LLMConfig: cache_size >= 0")


def _connection_fields(connection: LLMConnection) -> dict[str, Any]:
    return {f.name: getattr(connection, f.name) for f in fields(LLMConnection)}


# -- reading a reply ----------------------------------------------------------------------------------------

def _label(value: Any) -> Any:
    return "_".join(value.strip().lower().replace("-", " ").split()) if isinstance(value, str) else value


def _parse(schema: JudgeSchema, content: str | None) -> tuple[dict | None, list[str]]:
    """The reply as a dict in the schema's shape, or the problems that make it unusable.

    Spelling is forgiven ("Supported" for "supported"); a failure mode outside the rubric's list is
    dropped (a default is filled in later); anything else off the schema is a problem.
    """
    obj, unreadable = json_object(content)
    if obj is None:
        return None, unreadable
    problems: list[str] = []
    claims = obj.get("claims")
    if not isinstance(claims, list) or not claims:
        problems.append('"claims" must be a non-empty list')
        claims = []
    items = []
    for i, item in enumerate(claims):
        if not isinstance(item, dict):
            problems.append(f"claims[{i}] is not an object")
            continue
        item = dict(item)
        item["verdict"], item["failure_mode"] = _label(item.get("verdict")), _label(item.get("failure_mode") or "")
        for name in schema.item_fields:
            if name not in item and name not in FIELDS:
                item[name] = ""  # optional extras (completeness's summary_quote)
            if name not in item:
                problems.append(f'claims[{i}] has no "{name}"')
            elif not isinstance(item[name], str):
                problems.append(f'claims[{i}].{name} must be a string')
        if isinstance(item["verdict"], str) and item["verdict"] not in schema.item_verdicts:
            problems.append(f"claims[{i}].verdict {item['verdict']!r} is not one of {', '.join(schema.item_verdicts)}")
        if not isinstance(item["failure_mode"], str) or item["failure_mode"] not in schema.failure_modes:
            item["failure_mode"] = ""  # none given, or one the rubric does not have
        items.append(item)
    verdict = _label(obj.get("verdict"))
    if not isinstance(verdict, str):
        problems.append('"verdict" must be a string')
    elif verdict not in schema.verdicts:
        problems.append(f"verdict {verdict!r} is not one of {', '.join(schema.verdicts)}")
    mode = _label(obj.get("failure_mode") or "")
    if not isinstance(obj.get("explanation"), str):
        problems.append('"explanation" must be a string')
    if problems:
        return None, problems
    return {"claims": items, "verdict": verdict,
            "failure_mode": mode if isinstance(mode, str) and mode in schema.failure_modes else "",
            "explanation": obj["explanation"].strip()}, []


# -- checking the evidence ----------------------------------------------------------------------------------

_QUOTE_MARKS = re.compile("[\"'`\u00b4\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a]")
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"})
_ELLIPSIS = re.compile(r"\[?\s*(?:\.\s*\.\s*\.|\u2026)\s*\]?")


def _canon(text: str) -> str:
    """Case, quote marks, dashes, widths and whitespace set aside, so a faithful quote matches."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_DASHES)
    return " ".join(_QUOTE_MARKS.sub("", text).split())


def _quoted_from(quote: str, texts: tuple[str, ...]) -> bool:
    """True when ``quote`` (pieces joined by an ellipsis allowed) occurs in one of the canonical ``texts``.
    A quote too short to mean anything (under four letters or digits) does not count."""
    pieces = [p.strip(" .,;:!?-") for p in _ELLIPSIS.split(_canon(quote))]
    pieces = [p for p in pieces if p]
    if sum(ch.isalnum() for p in pieces for ch in p) < 4:
        return False
    return all(any(p in text for text in texts) for p in pieces)


def _detail_kind(claim: str) -> tuple[str, str]:
    """The factuality verdict and failure mode for a claim whose detail the source never states."""
    try:
        from . import text as _text

        kinds = [item.kind for item in _text.extract_items(claim)]
    except Exception:  # the shared parser is a nicety here; fall back to a digit test
        kinds = ["number"] if re.search(r"\d", claim) else []
    for kind in kinds:
        if kind == "percent":
            return "numerically_wrong", "percentage_mismatch"
        if kind in ("number", "money", "quantity"):
            return "numerically_wrong", "number_mismatch"
        if kind == "date":
            return "temporal_wrong", "date_mismatch"
        if kind == "negation":
            return "polarity_wrong", "negation_flip"
        if kind == "quantifier":
            return "numerically_wrong", "quantifier_mismatch"
    return "entity_wrong", "entity_swap"


_DEFAULT_MODE: dict[tuple[str, str], str] = {
    (GROUNDEDNESS, "partial"): "unsupported_claim", (GROUNDEDNESS, "missing"): "unsupported_claim",
    (GROUNDEDNESS, "contradicted"): "contradicted_claim",
    (COMPLETENESS, "approximate"): "approximate_fact", (COMPLETENESS, "absent"): "missing_key_fact",
    (FACTUALITY, "numerically_wrong"): "number_mismatch", (FACTUALITY, "entity_wrong"): "entity_swap",
    (FACTUALITY, "polarity_wrong"): "negation_flip", (FACTUALITY, "temporal_wrong"): "date_mismatch",
    (CONCISENESS, "padded"): "filler_phrases", (CONCISENESS, "bloated"): "repeated_fact",
    (CONCISENESS, "under_compressed"): "verbatim_copy",
}


def _default_mode(rubric: str, verdict: str, case: SummaryCase) -> str:
    mode = _DEFAULT_MODE.get((rubric, verdict), "")
    if rubric == COMPLETENESS and verdict == "absent" and case.expected_facts:
        mode = "missing_expected_fact"
    return mode if mode in FAILURE_MODES.get(rubric, ()) else ""





@dataclass
class _Judged:
    verdict: str
    failure_mode: str
    items: list[dict]
    notes: list[str]


def _check(rubric: str, case: SummaryCase, reply: dict) -> _Judged:
    """Verify each item's evidence, then roll the items up to the rubric's verdict."""
    schema = SCHEMAS[rubric]
    sources = (_canon(case.source), _canon(as_data(case.source)))
    summaries = (_canon(case.summary), _canon(as_data(case.summary)))
    items, notes = [], []
    for n, raw in enumerate(reply["claims"], 1):
        item = {name: raw.get(name, "") for name in schema.item_fields}
        item["judge_verdict"] = raw["verdict"]
        verdict, mode = raw["verdict"], raw["failure_mode"]
        if verdict in schema.needs_evidence:
            missing = []
            # an expected fact may be worded apart from the source, so its source quote may be empty;
            # a quote that is given must be real, and a key fact must come from the source
            optional = rubric == COMPLETENESS and bool(case.expected_facts) and not item["evidence_quote"].strip()
            item["evidence_found"] = optional or _quoted_from(item["evidence_quote"], sources)
            if not item["evidence_found"]:
                missing.append("its evidence quote is not in the source")
            if rubric == COMPLETENESS:
                item["summary_quote_found"] = _quoted_from(item.get("summary_quote", ""), summaries)
                if not item["summary_quote_found"]:
                    missing.append("its summary quote is not in the summary")
            if missing:
                verdict, mode = schema.downgrade_to, ""
                notes.append(f'Item {n} ("{clip(item["claim"], 80)}") was judged {raw["verdict"]}, but '
                             f'{" and ".join(missing)}; counted as {verdict}.')
        if verdict == schema.item_verdicts[0]:
            mode = ""
        elif verdict == UNSUPPORTED:  # factuality: the kind of detail decides, as for the rubric verdict
            mode = _detail_kind(item["claim"])[1]
        else:
            mode = mode or _default_mode(rubric, verdict, case)
        item["verdict"], item["failure_mode"] = verdict, mode
        items.append(item)

    verdict, decisive = _roll_up(rubric, items, reply["verdict"])
    if verdict != reply["verdict"]:
        notes.append(f"The judge's overall verdict was {reply['verdict']}; its items roll up to {verdict}.")
    if verdict in PASSING[rubric]:
        mode = ""
    elif decisive is not None and decisive["failure_mode"]:
        mode = decisive["failure_mode"]
    elif verdict == reply["verdict"] and reply["failure_mode"]:
        mode = reply["failure_mode"]
    else:
        mode = _default_mode(rubric, verdict, case)
    return _Judged(verdict, mode, items, notes)


def _most_common(verdicts: list[str], order: list[str]) -> str:
    counts = Counter(verdicts)
    return max(counts, key=lambda v: (counts[v], -order.index(v)))


def _roll_up(rubric: str, items: list[dict], judge_verdict: str) -> tuple[str, dict | None]:
    """The rubric verdict the items add up to, and the item that decided it (None when it passed or
    the judge's own overall verdict decided)."""
    verdicts = [i["verdict"] for i in items]

    def first(*wanted: str) -> dict | None:
        return next((i for i in items if i["verdict"] in wanted), None)

    if rubric == GROUNDEDNESS:
        if all(v == "supported" for v in verdicts):
            return "supported", None
        if "contradicted" in verdicts:
            return "contradicted", first("contradicted")
        if all(v == "missing" for v in verdicts):
            return "missing", first("missing")
        return "partial", first("missing", "partial")
    if rubric == COMPLETENESS:
        if "absent" in verdicts:
            return "absent", first("absent")
        if "approximate" in verdicts:
            return "approximate", first("approximate")
        return "present", None
    if rubric == FACTUALITY:
        order = list(VERDICTS[FACTUALITY])
        wrong = [v for v in verdicts if v not in ("correct", UNSUPPORTED)]
        if wrong:
            verdict = _most_common(wrong, order)
            return verdict, first(verdict)
        unverified = first(UNSUPPORTED)
        if unverified is not None:
            return _detail_kind(unverified["claim"])[0], unverified
        return "correct", None
    # conciseness: length is judged on the whole, so the judge's overall verdict counts unless it
    # passes a summary whose own items it failed
    flawed = [v for v in verdicts if v != "concise"]
    if judge_verdict != "concise" or not flawed:
        return judge_verdict, None
    verdict = _most_common(flawed, list(VERDICTS[CONCISENESS]))
    return verdict, first(verdict)


def _evidence(rubric: str, judged: _Judged, passed: bool) -> str:
    """The quotes behind the verdict: the source passages when it passed, else up to three failing
    items as summary-versus-source pairs (the ones that decided the verdict first)."""
    if passed:
        quotes = [f'"{clip(i["evidence_quote"], 200)}"' for i in judged.items if i["evidence_quote"].strip()]
        return clip("; ".join(quotes), 1200)
    good = SCHEMAS[rubric].item_verdicts[0]
    failing = sorted((i for i in judged.items if i["verdict"] != good), key=lambda i: i["verdict"] != judged.verdict)
    parts = []
    for item in failing[:3]:
        quote = clip(item["evidence_quote"], 200)
        if item.get("evidence_found") is False:  # never present an invented quote as the source's words
            source = f'nothing in the source (the judge quoted "{quote}", which is not there)'
        else:
            source = f'source "{quote}"' if quote else "nothing in the source"
        parts.append(f'summary "{clip(item["claim"], 200)}" vs {source}')
    return clip("; ".join(parts), 1200)


# -- errors from the provider -------------------------------------------------------------------------------

@dataclass
class _Spend:
    """What answering one case has used so far."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


# -- the judge ----------------------------------------------------------------------------------------------

class LLMJudge:
    """Grades ``(rubric, case)`` pairs with an LLM; see the module docstring."""

    tier = LLM

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.calls = 0  # requests sent to the provider, retries included
        self.cache_hits = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.spent_usd = 0.0
        self._cache = ReplyCache(config.cache_size, config.cache_path)
        self._semaphores: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._prices = self._own_prices()  # USD per token, when litellm's table does not decide

    @property
    def version(self) -> str:
        return f"llm-{PROMPT_VERSION}:{self.config.model}"

    # -- public entry points

    def judge(self, rubric: str, case: SummaryCase) -> RubricResult:
        """Synchronous form of ``ajudge``, for code with no event loop running."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ajudge(rubric, case))
        raise RuntimeError("LLMJudge.judge() cannot run inside an event loop; await ajudge() instead")

    async def ajudge_many(self, items: list[tuple[str, SummaryCase]]) -> list[RubricResult]:
        """All pairs at once, at most ``config.concurrency`` requests in flight; results in input order."""
        items = list(items)
        for rubric, _ in items:
            _schema(rubric)
        return list(await asyncio.gather(*(self.ajudge(rubric, case) for rubric, case in items)))

    async def ajudge(self, rubric: str, case: SummaryCase) -> RubricResult:
        _schema(rubric)
        started = time.perf_counter()
        messages = build_messages(rubric, case)
        key = self._cache.key(self.config.model, messages)
        cached = self._cache.get(key)
        spend = _Spend()
        if cached is not None:
            reply, problems = _parse(SCHEMAS[rubric], cached)
            if reply is not None:
                self.cache_hits += 1
                return self._result(rubric, case, reply, spend, started)
        async with self._semaphore():
            reply, content, failure = await self._ask(rubric, messages, spend)
        if reply is None:
            return RubricResult.failed_judge(
                rubric, failure, tier=LLM, judge_version=self.version, model=self.config.model,
                explanation=f"The LLM judge gave no usable verdict: {failure}", **self._spent(spend, started))
        self._cache.put(key, content)
        return self._result(rubric, case, reply, spend, started)

    # -- internals

    def _semaphore(self) -> asyncio.Semaphore:
        # one per event loop: the sync wrapper and the cascade each run a loop of their own
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.config.concurrency)
        return semaphore

    def _spent(self, spend: _Spend, started: float) -> dict[str, Any]:
        return {"input_tokens": spend.input_tokens, "output_tokens": spend.output_tokens,
                "cost_usd": round(spend.cost_usd, 8), "latency_ms": round((time.perf_counter() - started) * 1000, 2)}

    def _result(self, rubric: str, case: SummaryCase, reply: dict, spend: _Spend, started: float) -> RubricResult:
        judged = _check(rubric, case, reply)
        explanation = " ".join([reply["explanation"], *judged.notes]).strip()
        passed = judged.verdict in PASSING[rubric]
        return RubricResult.make(
            rubric, judged.verdict, failure_mode=judged.failure_mode, evidence=_evidence(rubric, judged, passed),
            explanation=clip(explanation, 2000), tier=LLM, judge_version=self.version, model=self.config.model,
            confident=True, details=tuple(judged.items), **self._spent(spend, started))

    def _over_budget(self) -> bool:
        cap = self.config.max_spend_usd
        return cap is not None and self.spent_usd >= cap

    def _own_prices(self) -> tuple[float, float] | None:
        """Per-token prices from the config, (0, 0) for a model litellm cannot price, or None to let
        litellm's table price each reply (it knows tiers that flat prices would miss)."""
        c = self.config
        if c.input_cost_per_mtok is not None or c.output_cost_per_mtok is not None:
            return (c.input_cost_per_mtok or 0.0) / 1e6, (c.output_cost_per_mtok or 0.0) / 1e6
        try:  # importing here also keeps litellm's import time out of the first case's latency
            litellm_module().cost_per_token(model=c.model, prompt_tokens=1, completion_tokens=1)
            return None
        except Exception:  # litellm raises for models missing from its table
            return 0.0, 0.0

    def _cost(self, response: Any, input_tokens: int, output_tokens: int) -> float:
        if self._prices is not None:
            return input_tokens * self._prices[0] + output_tokens * self._prices[1]
        try:
            computed = response._hidden_params.get("response_cost")
        except Exception:  # the reply's private metadata changed shape: price it ourselves
            computed = None
        if isinstance(computed, (int, float)):
            return float(computed)  # litellm priced the reply already
        try:
            prompt_cost, completion_cost = litellm_module().cost_per_token(
                model=self.config.model, prompt_tokens=input_tokens, completion_tokens=output_tokens)
            return float(prompt_cost) + float(completion_cost)
        except Exception:
            return 0.0

    async def _complete(self, messages: list[dict]) -> tuple[str, int, int, float]:
        """One request: (content, input tokens, output tokens, cost). Retries are the caller's, so
        litellm's and the OpenAI client's own are off."""
        c = self.config
        # Prices are not passed to litellm: it would write them into its process-wide price table,
        # where other judges (and the check in _own_prices) would find them.
        call = litellm_module().acompletion(
            model=c.model, messages=messages, temperature=c.temperature, api_base=c.api_base, api_key=c.api_key,
            timeout=c.timeout_s, response_format={"type": "json_object"}, max_retries=0, num_retries=0,
            drop_params=True)
        # litellm enforces the timeout; this outer one only guards against a client that hangs anyway
        response = await asyncio.wait_for(call, timeout=c.timeout_s + 5)
        usage = getattr(response, "usage", None)
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        content = response.choices[0].message.content if response.choices else None
        return content or "", input_tokens, output_tokens, self._cost(response, input_tokens, output_tokens)

    async def _ask(self, rubric: str, messages: list[dict], spend: _Spend) -> tuple[dict | None, str, str]:
        """(reply, raw content, "") on success, or (None, "", why not) once retries are spent."""
        c = self.config
        conversation, corrected, attempt = messages, False, 0
        while True:
            if self._over_budget():
                return None, "", f"spend cap reached (spent ${self.spent_usd:.4f} of ${c.max_spend_usd:.4f})"
            self.calls += 1
            try:
                content, input_tokens, output_tokens, cost = await self._complete(conversation)
            except Exception as exc:
                reason = scrub(describe_error(exc), c.api_key)
                if not retryable(exc):
                    log.warning("LLM judge (%s, %s): %s", c.model, rubric, reason)
                    return None, "", reason
                if attempt >= c.max_retries:
                    log.warning("LLM judge (%s, %s): giving up after %d attempts: %s", c.model, rubric,
                                attempt + 1, reason)
                    return None, "", f"gave up after {attempt + 1} attempts: {reason}"
                delay = c.retry_delay(attempt, exc)
                attempt += 1
                log.info("LLM judge (%s, %s): %s; retry %d of %d in %.2fs", c.model, rubric, reason, attempt,
                         c.max_retries, delay)
                await asyncio.sleep(delay)
                continue
            spend.input_tokens += input_tokens
            spend.output_tokens += output_tokens
            spend.cost_usd += cost
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.spent_usd += cost
            reply, problems = _parse(SCHEMAS[rubric], content)
            if reply is not None:
                return reply, content, ""
            if corrected:
                reason = "malformed judge output after a corrective retry: " + "; ".join(problems[:3])
                log.warning("LLM judge (%s, %s): %s", c.model, rubric, reason)
                return None, "", clip(reason, 300)
            log.info("LLM judge (%s, %s): unusable reply (%s); asking once more", c.model, rubric,
                     "; ".join(problems[:3]))
            corrected = True
            conversation = correction_messages(messages, content, problems)


def _schema(rubric: str) -> JudgeSchema:
    try:
        return SCHEMAS[rubric]
    except KeyError:
        raise ValueError(f"unknown rubric {rubric!r} (rubrics: {', '.join(SCHEMAS)})") from None
