"""The trace explorer's pages: summarization spans searched and filtered, and the unsure results by kind.

    context = traces_page(store, request.query_params)     # the Traces page
    context = unsure_page(store, request.query_params)     # the Unsure page

Both read through the store's readers (``list_traces``, ``unsure_kinds``), the ones the API and the CLI use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from ...contract.issues import parse_issue_id
from ...rubrics.verdicts import RUBRICS
from ...store.connection import Store
from ...store.judges import known_rubrics
from ...store.listing import (
    CERTAINTY_CHOICES,
    CONFIDENT,
    FAIL,
    PASS,
    UNSURE,
    VERDICT_CHOICES,
    TraceFilters,
    choice_flag,
    list_traces,
    next_traces_cursor,
)
from ...store.paging import TRACES_CURSOR, decode_cursor
from ...store.stats import filter_options
from ...store.unsure import unsure_kinds
from .query import BadRequest, FilterChoice, filter_choice, text_param

PAGE_SIZE = 50
UNSURE_PER_KIND = 10


@dataclass(frozen=True)
class TraceQuery:
    """The Traces page's query string, checked: the filter bar, the search, the verdict filters, the page."""

    choice: FilterChoice
    text: str = ""
    rubric: str = ""
    verdict: str = ""
    certainty: str = ""
    issue: str = ""
    cursor: str = ""

    @property
    def filters(self) -> TraceFilters:
        c = self.choice
        return TraceFilters(service=c.service or None, since=c.start, model=c.model or None,
                            prompt_version=c.prompt_version or None, text=self.text or None,
                            rubric=self.rubric or None, passed=choice_flag(self.verdict, PASS, FAIL, "verdict"),
                            unsure=choice_flag(self.certainty, UNSURE, CONFIDENT, "certainty"),
                            issue=parse_issue_id(self.issue) if self.issue else None)

    def link(self, **changes: str) -> str:
        """/traces with this query, ``changes`` applied (a new filter starts from the first page)."""
        values = {"q": self.text, "rubric": self.rubric, "verdict": self.verdict, "certainty": self.certainty,
                  "issue": self.issue, "cursor": "", **changes}
        return "/traces?" + self.choice.query(**values)

    @property
    def narrowed(self) -> bool:
        c = self.choice
        return bool(c.service or c.model or c.prompt_version or self.text or self.rubric or self.verdict
                    or self.certainty or self.issue)


def trace_query(params: Mapping[str, str], rubrics: tuple[str, ...]) -> TraceQuery:
    """The Traces page's query from its parameters; :class:`BadRequest` naming the one that is wrong."""
    choice = filter_choice(params)
    rubric = (params.get("rubric") or "").strip()
    if rubric and rubric not in rubrics:
        raise BadRequest(f"rubric must be one of {', '.join(rubrics)}, got {rubric[:40]!r}")
    verdict = (params.get("verdict") or "").strip()
    if verdict and verdict not in VERDICT_CHOICES:
        raise BadRequest(f"verdict must be one of {', '.join(VERDICT_CHOICES)}, got {verdict[:40]!r}")
    certainty = (params.get("certainty") or "").strip()
    if certainty and certainty not in CERTAINTY_CHOICES:
        raise BadRequest(f"certainty must be one of {', '.join(CERTAINTY_CHOICES)}, got {certainty[:40]!r}")
    issue = text_param(params, "issue")
    if issue:
        try:
            parse_issue_id(issue)
        except ValueError as exc:
            raise BadRequest(f"issue: {exc}") from None
    cursor = text_param(params, "cursor")
    if cursor:
        try:
            decode_cursor(TRACES_CURSOR, cursor, (int, str, str))
        except ValueError:
            raise BadRequest("cursor is not one this page gave (follow the Next link)") from None
    return TraceQuery(choice, text_param(params, "q"), rubric, verdict, certainty, issue, cursor)


def traces_page(store: Store, params: Mapping[str, str]) -> dict[str, Any]:
    """A page of summarization spans, newest first, as the query searches and filters them, each with its
    verdict per rubric, and the link to the next page."""
    rubrics = known_rubrics(store)
    q = trace_query(params, rubrics)
    rows = list_traces(store, limit=PAGE_SIZE, cursor=q.cursor or None, filters=q.filters)
    after = next_traces_cursor(rows, PAGE_SIZE)
    shown = [r for r in (*RUBRICS, *sorted(set(rubrics) - set(RUBRICS))) if any(r in row.verdicts for row in rows)]
    return {"q": q, "choice": q.choice, "rows": rows, "options": filter_options(store), "rubrics": rubrics,
            "shown_rubrics": shown, "next": q.link(cursor=after) if after else None,
            "first": q.link() if q.cursor else None, "verdicts": VERDICT_CHOICES, "certainties": CERTAINTY_CHOICES}


def unsure_page(store: Store, params: Mapping[str, str]) -> dict[str, Any]:
    """The unsure results with a suspicion in the picked time range and service, by kind, most first."""
    choice = filter_choice(params)
    rubrics = known_rubrics(store)
    rubric = (params.get("rubric") or "").strip()
    if rubric and rubric not in rubrics:
        raise BadRequest(f"rubric must be one of {', '.join(rubrics)}, got {rubric[:40]!r}")
    kinds = unsure_kinds(store, since=choice.start, service=choice.service or None, rubric=rubric or None,
                         model=choice.model or None, prompt_version=choice.prompt_version or None,
                         per_kind=UNSURE_PER_KIND)
    return {"choice": choice, "kinds": kinds, "total": sum(k.count for k in kinds), "rubric": rubric,
            "rubrics": rubrics, "options": filter_options(store), "per_kind": UNSURE_PER_KIND,
            "traces_link": "/traces?" + urlencode({k: v for k, v in (("range", choice.range),
                                                                      ("service", choice.service),
                                                                      ("certainty", UNSURE)) if v})}
