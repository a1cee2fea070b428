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
import copy
import logging
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from sumwatch.clustering.json_model import JsonAnswer
from sumwatch.clustering.name import clip

from ..remote.llm import LitellmModel, LLMConnection, json_object
from . import text as _text
from .definition import BUILTIN, JudgeDefinition, Unit
from .prompts import (
    CORRECTION,
    FIELDS,
    UNSUPPORTED,
    JudgeSchema,
    as_data,
    prompt_version,
    system_prompt,
    user_prompt,
)
from .reply_cache import ReplyCache
from .verdicts import COMPLETENESS, LLM, RUBRICS, RubricResult, SummaryCase

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


def _parse(schema: JudgeSchema, content: str | None) -> tuple[dict[str, Any] | None, list[str]]:
    """The reply (a cached one, say) as a dict in the schema's shape, or the problems that make it unusable."""
    obj, unreadable = json_object(content)
    if obj is None:
        return None, unreadable
    return _read(schema, obj)


def _read(schema: JudgeSchema, obj: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The reply's JSON object in the schema's shape, or the problems that make it unusable.

    Spelling is forgiven ("Supported" for "supported"); a failure mode outside the rubric's list is
    dropped (a default is filled in later); anything else off the schema is a problem.
    """
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


def quoted_in(quote: str, text: str) -> bool:
    """Whether ``quote`` is really in ``text``, as the judge's evidence is checked: case, quote marks, dashes,
    widths and whitespace aside, pieces joined by an ellipsis allowed, at least four letters or digits.

        quoted_in("revenue rose 12%", "Quarterly revenue rose 12% to $4.2 million.")  # True
    """
    return _quoted_from(quote, (_canon(text), _canon(as_data(text))))


def _detail_kind(claim: str) -> tuple[str, str]:
    """The factuality verdict and failure mode for a claim whose detail the source never states."""
    try:
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


def _default_mode(definition: JudgeDefinition, verdict: str, case: SummaryCase) -> str:
    """The failure mode for ``verdict`` when the judge named none: the definition's, except that a
    built-in completeness fact missing from a span's own expected facts is a missing expected fact."""
    spec = definition.verdict(verdict)
    mode = spec.failure_mode if spec is not None else ""
    if definition.name == COMPLETENESS and verdict == "absent" and case.expected_facts:
        mode = "missing_expected_fact"
    return mode if mode in definition.mode_names else ""


@dataclass
class _Judged:
    verdict: str
    failure_mode: str
    items: list[dict[str, Any]]
    notes: list[str]


def _check(definition: JudgeDefinition, case: SummaryCase, reply: dict[str, Any]) -> _Judged:
    """Verify each item's evidence, then roll the items up to the rubric's verdict."""
    schema = JudgeSchema.of(definition)
    summaries = (_canon(case.summary), _canon(as_data(case.summary)))
    quoted = {"source": case.source, "reference": case.reference}.get(definition.quote_from)
    sources = (_canon(quoted), _canon(as_data(quoted))) if quoted is not None else summaries
    items, notes = [], []
    for n, raw in enumerate(reply["claims"], 1):
        item = {name: raw.get(name, "") for name in schema.item_fields}
        item["judge_verdict"] = raw["verdict"]
        verdict, mode = raw["verdict"], raw["failure_mode"]
        if verdict in schema.needs_evidence:
            missing = []
            # an expected fact may be worded apart from the source, so its source quote may be empty;
            # a quote that is given must be real, and a key fact must come from the source
            optional = definition.unit == Unit.FACT and bool(case.expected_facts) and not item["evidence_quote"].strip()
            item["evidence_found"] = optional or _quoted_from(item["evidence_quote"], sources)
            if not item["evidence_found"]:
                missing.append(f"its evidence quote is not in the {definition.quote_from}")
            if definition.unit == Unit.FACT:
                item["summary_quote_found"] = _quoted_from(item.get("summary_quote", ""), summaries)
                if not item["summary_quote_found"]:
                    missing.append("its summary quote is not in the summary")
            if missing:
                verdict, mode = schema.downgrade_to, ""
                notes.append(f'Item {n} ("{clip(item["claim"], 80)}") was judged {raw["verdict"]}, but '
                             f'{" and ".join(missing)}; counted as {verdict}.')
        if verdict == schema.item_verdicts[0]:
            mode = ""
        elif definition.roll_up == "details" and verdict == UNSUPPORTED:  # the kind of detail decides
            mode = _detail_kind(item["claim"])[1]
        else:
            mode = mode or _default_mode(definition, verdict, case)
        item["verdict"], item["failure_mode"] = verdict, mode
        items.append(item)

    verdict, decisive = _roll_up(definition, items, reply["verdict"])
    if verdict != reply["verdict"]:
        notes.append(f"The judge's overall verdict was {reply['verdict']}; its items roll up to {verdict}.")
    if verdict in definition.passing:
        mode = ""
    elif decisive is not None and decisive["failure_mode"]:
        mode = decisive["failure_mode"]
    elif verdict == reply["verdict"] and reply["failure_mode"]:
        mode = reply["failure_mode"]
    else:
        mode = _default_mode(definition, verdict, case)
    return _Judged(verdict, mode, items, notes)


def _most_common(verdicts: list[str], order: list[str]) -> str:
    counts = Counter(verdicts)
    return max(counts, key=lambda v: (counts[v], -order.index(v)))


def _roll_up(definition: JudgeDefinition, items: list[dict[str, Any]],
             judge_verdict: str) -> tuple[str, dict[str, Any] | None]:
    """The rubric verdict the items add up to, by the definition's roll-up, and the item that decided it
    (None when it passed or the judge's own overall verdict decided)."""
    verdicts = [i["verdict"] for i in items]
    order = list(definition.overall)
    good = order[0]

    def first(*wanted: str) -> dict[str, Any] | None:
        return next((i for i in items if i["verdict"] in wanted), None)

    rule = definition.roll_up
    if rule == "grounded":
        if all(v == "supported" for v in verdicts):
            return "supported", None
        if "contradicted" in verdicts:
            return "contradicted", first("contradicted")
        if all(v == "missing" for v in verdicts):
            return "missing", first("missing")
        return "partial", first("missing", "partial")
    if rule == "details":
        wrong = [v for v in verdicts if v not in (good, UNSUPPORTED)]
        if wrong:
            verdict = _most_common(wrong, order)
            return verdict, first(verdict)
        unverified = first(UNSUPPORTED)
        if unverified is not None:
            return _detail_kind(unverified["claim"])[0], unverified
        return good, None
    # an item-only verdict counts as the first failing verdict the rubric has
    fallback = next(v for v in order if v not in definition.passing)
    ranked = [v if v in order else fallback for v in verdicts]
    flawed = [v for v in ranked if v != good]
    if rule == "worst":
        if not flawed:
            return good, None
        verdict = max(flawed, key=order.index)
        return verdict, items[ranked.index(verdict)]
    if rule == "most_common":
        failing = [v for v in ranked if v not in definition.passing]
        if not failing:
            return (_most_common(flawed, order), None) if flawed else (good, None)
        verdict = _most_common(failing, order)
        return verdict, items[ranked.index(verdict)]
    # "judge": the whole is judged (length, say), so the judge's overall verdict counts unless it passes a
    # summary whose own items it failed
    if judge_verdict != good or not flawed:
        return judge_verdict, None
    verdict = _most_common(flawed, order)
    return verdict, items[ranked.index(verdict)]


def _evidence(definition: JudgeDefinition, judged: _Judged, passed: bool) -> str:
    """The quotes behind the verdict: the source passages when it passed, else up to three failing
    items as summary-versus-source pairs (the ones that decided the verdict first)."""
    if passed:
        quotes = [f'"{clip(i["evidence_quote"], 200)}"' for i in judged.items if i["evidence_quote"].strip()]
        return clip("; ".join(quotes), 1200)
    good = definition.item_verdicts[0]
    place = definition.quote_from
    failing = sorted((i for i in judged.items if i["verdict"] != good), key=lambda i: i["verdict"] != judged.verdict)
    parts = []
    for item in failing[:3]:
        quote = clip(item["evidence_quote"], 200)
        if item.get("evidence_found") is False:  # never present an invented quote as the source's words
            source = f'nothing in the {place} (the judge quoted "{quote}", which is not there)'
        else:
            source = f'{place} "{quote}"' if quote else f"nothing in the {place}"
        parts.append(f'summary "{clip(item["claim"], 200)}" vs {source}')
    return clip("; ".join(parts), 1200)


# -- the judge ----------------------------------------------------------------------------------------------

class LLMJudge:
    """Grades ``(rubric, case)`` pairs with an LLM; see the module docstring. ``client`` is the model it asks
    (by default a :class:`LitellmModel` on the config: retries, concurrency, repair turn and spend cap
    live there); ``calls``, ``input_tokens``, ``output_tokens`` and ``spent_usd`` are the client's counts.
    ``definitions`` are the rubrics it can judge (the four built-ins unless given); a definition with its
    own ``model`` is asked through a client of its own on the same connection."""

    tier = LLM

    def __init__(self, config: LLMConfig, client: LitellmModel | None = None,
                 definitions: Mapping[str, JudgeDefinition] | None = None) -> None:
        self.config = config
        self._allowance: float | None = None  # USD this judge may still spend (the daily cap), None: no limit
        self.client = client if client is not None else self._client(config.model)
        self._clients: dict[str, LitellmModel] = {config.model: self.client}
        self.cache_hits = 0
        self._cache = ReplyCache(config.cache_size, config.cache_path)
        self.definitions: dict[str, JudgeDefinition] = {}
        self._prompts: dict[str, str] = {}
        self.use(definitions if definitions is not None else BUILTIN)

    def _client(self, model: str) -> LitellmModel:
        config = self.config
        client = LitellmModel(replace(config.connection, model=model), name="LLM judge",
                              temperature=config.temperature, max_spend_usd=config.max_spend_usd,
                              input_cost_per_mtok=config.input_cost_per_mtok,
                              output_cost_per_mtok=config.output_cost_per_mtok)
        self._limit(client)
        return client

    def allow_spend(self, usd: float | None) -> None:
        """From now on, send no request once ``usd`` more has been spent (the rest of a daily cap; None: only
        the configured cap per run). A request refused so answers an error that begins with the spend cap."""
        self._allowance = usd
        for client in self._clients.values():
            self._limit(client)

    def _limit(self, client: LitellmModel) -> None:
        caps = [c for c in (self.config.max_spend_usd,
                            None if self._allowance is None else client.spent_usd + max(0.0, self._allowance))
                if c is not None]
        client.max_spend_usd = min(caps) if caps else None

    def use(self, definitions: Mapping[str, JudgeDefinition]) -> None:
        """Judge with ``definitions`` from now on (a promotion read from the store, a candidate under test)."""
        self.definitions = dict(definitions)
        self._prompts = {name: system_prompt(d) for name, d in self.definitions.items()}

    def with_definitions(self, definitions: Mapping[str, JudgeDefinition]) -> LLMJudge:
        """A judge on the same clients, cache and counts that judges with ``definitions``."""
        other = copy.copy(self)
        other.use(definitions)
        return other

    def model_for(self, rubric: str) -> str:
        return self._definition(rubric).model or self.config.model

    @property
    def version(self) -> str:
        """Every rubric's prompt and the model: the four shipped files alone give the version they always had."""
        names = [*(n for n in RUBRICS if n in self._prompts), *sorted(set(self._prompts) - set(RUBRICS))]
        return f"llm-{prompt_version([self._prompts[n] for n in names])}:{self.config.model}"

    def version_for(self, rubric: str) -> str:
        """The version of one rubric's judge: its prompt and its model."""
        self._definition(rubric)
        return f"llm-{prompt_version([self._prompts[rubric]])}:{self.model_for(rubric)}"

    @property
    def calls(self) -> int:
        return sum(client.calls for client in self._clients.values())

    @property
    def input_tokens(self) -> int:
        return sum(client.input_tokens for client in self._clients.values())

    @property
    def output_tokens(self) -> int:
        return sum(client.output_tokens for client in self._clients.values())

    @property
    def spent_usd(self) -> float:
        return sum(client.spent_usd for client in self._clients.values())

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
            self._definition(rubric)
        return list(await asyncio.gather(*(self.ajudge(rubric, case) for rubric, case in items)))

    async def ajudge(self, rubric: str, case: SummaryCase) -> RubricResult:
        definition = self._definition(rubric)
        schema = JudgeSchema.of(definition)
        model = self.model_for(rubric)
        client = self._clients.get(model)
        if client is None:
            client = self._clients[model] = self._client(model)
        started = time.perf_counter()
        messages = [{"role": "system", "content": self._prompts[rubric]},
                    {"role": "user", "content": user_prompt(definition, case)}]
        key = self._cache.key(model, messages)
        cached = self._cache.get(key)
        if cached is not None:
            reply, _ = _parse(schema, cached)
            if reply is not None:
                self.cache_hits += 1
                return self._result(definition, case, reply, _spent(None, started))
        answer = await client.ask_json(messages, lambda obj: _read(schema, obj), CORRECTION,
                                       what=f"LLM judge ({rubric})")
        if answer.value is None:
            log.warning("LLM judge (%s, %s): %s", model, rubric, answer.error)
            return RubricResult.failed_judge(
                rubric, answer.error, tier=LLM, judge_version=self.version_for(rubric), model=model,
                explanation=f"The LLM judge gave no usable verdict: {answer.error}", **_spent(answer, started))
        self._cache.put(key, answer.content)
        return self._result(definition, case, answer.value, _spent(answer, started))

    # -- internals

    def _definition(self, rubric: str) -> JudgeDefinition:
        try:
            return self.definitions[rubric]
        except KeyError:
            raise ValueError(f"unknown rubric {rubric!r} (rubrics: {', '.join(self.definitions)})") from None

    def _result(self, definition: JudgeDefinition, case: SummaryCase, reply: dict[str, Any],
                spent: dict[str, Any]) -> RubricResult:
        judged = _check(definition, case, reply)
        explanation = " ".join([reply["explanation"], *judged.notes]).strip()
        passed = judged.verdict in definition.passing
        return RubricResult.judged(
            definition, judged.verdict, failure_mode=judged.failure_mode,
            evidence=_evidence(definition, judged, passed), explanation=clip(explanation, 2000), tier=LLM,
            judge_version=self.version_for(definition.name), model=self.model_for(definition.name), confident=True,
            details=tuple(judged.items), **spent)


def _spent(answer: JsonAnswer[Any] | None, started: float) -> dict[str, Any]:
    """What answering one case used (nothing for a cached reply), as RubricResult's fields."""
    latency_ms = round((time.perf_counter() - started) * 1000, 2)
    if answer is None:
        return {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "latency_ms": latency_ms}
    return {"input_tokens": answer.input_tokens, "output_tokens": answer.output_tokens, "cost_usd": answer.cost_usd,
            "latency_ms": latency_ms}
