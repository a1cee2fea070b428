"""The trace explorer's pages: summarization spans searched and filtered, and the unsure results by kind.

    context = traces_page(store, request.query_params)     # the Traces page
    context = unsure_page(store, query)                    # the Unsure page, from its UnsureQuery

Both read through the store's readers (``list_traces``, ``unsure_kinds``), the ones the API and the CLI use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError

from ...contract.listing import CERTAINTY_CHOICES, UNSURE, VERDICT_CHOICES, TraceFilters, is_text
from ...contract.values import one_of, validation_message
from ...rubrics.verdicts import RUBRICS
from ...store.connection import Store
from ...store.judges import known_rubrics
from ...store.listing import list_traces, next_traces_cursor
from ...store.stats import filter_options
from ...store.unsure import unsure_kinds
from .query import BadRequest, FilterBar, FilterChoice, PageText, filter_choice

PAGE_SIZE = 50
UNSURE_PER_KIND = 10
BAD_CURSOR = "cursor is not one this page gave (follow the Next link)"


@dataclass(frozen=True)
class TraceQuery:
    """The Traces page's query string, checked: the filter bar, then the search and verdict filters (the one
    model of a listing's filters, :class:`TraceFilters`), and the page."""

    choice: FilterChoice
    filters: TraceFilters
    cursor: str = ""

    def __getattr__(self, name: str) -> str:
        """A filter of the form as it shows it again (``q.q``, ``q.rubric``), "" when not set."""
        if name not in _FORM:
            raise AttributeError(name)
        value = getattr(self.filters, name)
        return "" if value is None else value.isoformat() if isinstance(value, datetime) else str(value)

    @property
    def more(self) -> list[tuple[str, str, str]]:
        """(name, label, value) of the text filters the form does not lay out itself: a field added to
        :class:`TraceFilters` gets an input here, with nothing to write."""
        return [(name, name.replace("_", " ").capitalize(), getattr(self, name))
                for name, field in TraceFilters.model_fields.items()
                if name in _FORM and name not in _LAID_OUT and is_text(field)]

    def link(self, **changes: str) -> str:
        """/traces with this query, ``changes`` applied (a new filter starts from the first page)."""
        values = {**{name: getattr(self, name) for name in _FORM}, "cursor": "", **changes}
        return "/traces?" + self.choice.query(**values)

    @property
    def narrowed(self) -> bool:
        c = self.choice
        return bool(c.service or c.model or c.prompt_version or self.filters.narrowing
                    or any(value for _, _, value in self.more))


# the filters the page reads from its query string: every field of the model but those the filter bar sets
# (its time range, service, model and prompt version); the form lays out some of them by hand
_BAR = {"service", "since", "model", "prompt_version"}
_FORM = tuple(name for name in TraceFilters.model_fields if name not in _BAR)
_LAID_OUT = {"q", "rubric", "verdict", "certainty", "issue"}


def trace_query(params: Mapping[str, str], rubrics: tuple[str, ...]) -> TraceQuery:
    """The Traces page's query from its parameters; :class:`BadRequest` naming the one that is wrong, in the
    words the API uses for the same value."""
    choice = filter_choice(params)
    try:
        filters = TraceFilters.model_validate({
            "service": choice.service, "since": choice.start, "model": choice.model,
            "prompt_version": choice.prompt_version,
            **{name: value for name in _FORM if (value := (params.get(name) or "").strip())}})
        if filters.rubric:
            one_of("rubric", filters.rubric, rubrics)
    except ValidationError as exc:
        raise BadRequest(validation_message(exc.errors())) from None
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return TraceQuery(choice, filters, (params.get("cursor") or "").strip())  # the store's reader checks it


def traces_page(store: Store, params: Mapping[str, str]) -> dict[str, Any]:
    """A page of summarization spans, newest first, as the query searches and filters them, each with its
    verdict per rubric, and the link to the next page."""
    rubrics = known_rubrics(store)
    q = trace_query(params, rubrics)
    try:
        rows = list_traces(store, limit=PAGE_SIZE, cursor=q.cursor or None, filters=q.filters)
    except ValueError:
        if not q.cursor:
            raise
        raise BadRequest(BAD_CURSOR) from None  # the reader refuses a cursor it did not give
    after = next_traces_cursor(rows, PAGE_SIZE)
    shown = [r for r in (*RUBRICS, *sorted(set(rubrics) - set(RUBRICS))) if any(r in row.verdicts for row in rows)]
    return {"q": q, "choice": q.choice, "rows": rows, "options": filter_options(store), "rubrics": rubrics,
            "shown_rubrics": shown, "next": q.link(cursor=after) if after else None,
            "first": q.link() if q.cursor else None, "verdicts": VERDICT_CHOICES, "certainties": CERTAINTY_CHOICES}


class UnsureQuery(FilterBar):
    """The Unsure page's query string: the filter bar and a rubric."""

    rubric: PageText = ""


def unsure_page(store: Store, query: UnsureQuery) -> dict[str, Any]:
    """The unsure results with a suspicion in the picked time range and service, by kind, most first."""
    choice, rubric = query.choice(), query.rubric
    rubrics = known_rubrics(store)
    if rubric:
        one_of("rubric", rubric, rubrics)
    kinds = unsure_kinds(store, since=choice.start, service=choice.service or None, rubric=rubric or None,
                         model=choice.model or None, prompt_version=choice.prompt_version or None,
                         per_kind=UNSURE_PER_KIND)
    return {"choice": choice, "kinds": kinds, "total": sum(k.count for k in kinds), "rubric": rubric,
            "rubrics": rubrics, "options": filter_options(store), "per_kind": UNSURE_PER_KIND,
            "traces_link": "/traces?" + urlencode({k: v for k, v in (("range", choice.range),
                                                                      ("service", choice.service),
                                                                      ("certainty", UNSURE)) if v})}
