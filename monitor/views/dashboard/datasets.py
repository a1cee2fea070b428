"""The Datasets pages, and the issue page's form that makes a dataset of an issue's members.

    context = datasets_index(store)                                   # every dataset at its latest version
    context = dataset_page(store, "sw3", DatasetQuery(version=2))     # None when there is no such dataset
    answer = dataset_from_issue(store, "SW-3", "sw3")                 # a new version, or the latest one kept

An item's texts are cut for the table (the whole item is one click away, and the API's
``GET /api/datasets/NAME/items`` gives them all); the experiments listed are every one that ran on the dataset,
whichever version it pinned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from ...contract.datasets import DatasetAnswer, DatasetItem, check_dataset_name
from ...contract.issues import issue_label, parse_issue_id
from ...datasets.builds import UnknownIssue, from_issue
from ...datasets.versions import EmptyDataset, save_dataset
from ...experiments.run import info
from ...store.connection import Store
from ...store.datasets import dataset_versions, latest_versions, next_items_cursor, version_items
from ...store.experiments import list_experiments
from ...store.paging import DATASET_ITEMS_CURSOR, decode_cursor
from ..errors import ApiError
from .query import BadRequest, PageQuery

ITEMS_PAGE = 50  # items a page of the dataset page shows
SOURCE_CHARS = 280  # what the table shows of an item's source; the rest opens below it
TEXT_CHARS = 160  # of a reference, a question or a fact
SHOWN_QUESTIONS = 3  # questions (and facts) listed per item; the rest are counted


class DatasetQuery(PageQuery):
    """The dataset page: ``version`` (default: the latest), ``cursor`` (the Next link's), and ``made``, which the
    issue page's form adds to say what its post did."""

    version: Annotated[int, Field(ge=1, le=2**32 - 1)] | None = None
    cursor: Annotated[str, Field(max_length=2048)] | None = None
    made: Literal["new", "same"] | None = None


def clip(text: str, chars: int) -> str:
    """``text`` on one line, cut to ``chars`` characters at a word where one is near (an ellipsis says so)."""
    flat = " ".join(text.split())
    if len(flat) <= chars:
        return flat
    cut = flat[:chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > chars * 0.7 else cut).rstrip(" ,.;:") + "…"


@dataclass(frozen=True)
class ItemView:
    """An item as the table shows it: its texts cut, the whole source when the cut left some out."""

    position: int  # from 1, in the version's order
    item: DatasetItem
    source: str
    reference: str
    questions: list[str]
    facts: list[str]

    @property
    def cut(self) -> bool:
        return self.source != " ".join(self.item.source.split())

    @property
    def more_questions(self) -> int:
        return max(0, len(self.item.questions) - SHOWN_QUESTIONS)

    @property
    def more_facts(self) -> int:
        return max(0, len(self.item.expected_facts) - SHOWN_QUESTIONS)

    @property
    def trace(self) -> tuple[str, str] | None:
        """The span the item came from (a build from an issue or traces), for a link to its trace."""
        meta = self.item.metadata
        return (meta["trace_id"], meta.get("span_id", "")) if meta.get("trace_id") else None


def item_view(position: int, item: DatasetItem) -> ItemView:
    return ItemView(position, item, clip(item.source, SOURCE_CHARS), clip(item.reference, TEXT_CHARS * 2),
                    [clip(q, TEXT_CHARS) for q in item.questions[:SHOWN_QUESTIONS]],
                    [clip(f, TEXT_CHARS) for f in item.expected_facts[:SHOWN_QUESTIONS]])


def datasets_index(store: Store) -> dict[str, Any]:
    """Every dataset at its latest version, with how many experiments ran on it."""
    experiments: dict[str, int] = {}
    for row in list_experiments(store):
        experiments[row.dataset] = experiments.get(row.dataset, 0) + 1
    return {"datasets": latest_versions(store), "experiments": experiments}


def _position(cursor: str | None) -> int:
    """Where the page a cursor starts begins, from 0 (the dataset items cursor holds the last position read)."""
    if cursor is None:
        return 0
    return int(decode_cursor(DATASET_ITEMS_CURSOR, cursor, (str, int, int))[2]) + 1


def dataset_page(store: Store, name: str, q: DatasetQuery) -> dict[str, Any] | None:
    """A dataset version (the latest by default): its versions, a page of its items, and its experiments; None
    when there is no dataset ``name`` (BadRequest: no such version)."""
    versions = dataset_versions(store, name)
    if not versions:
        return None
    shown = versions[0] if q.version is None else next((v for v in versions if v.version == q.version), None)
    if shown is None:
        raise ApiError(404, f"Dataset {name} has no version {q.version} (it has 1 to {versions[0].version}).")
    items = version_items(store, name, shown.version, limit=ITEMS_PAGE, cursor=q.cursor)
    start = _position(q.cursor)
    if q.cursor is not None and not items:
        raise BadRequest("cursor is past the version's last item (follow the Next link)")
    experiments = [info(store, row) for row in list_experiments(store, dataset=name)]
    return {"name": name, "shown": shown, "versions": versions, "latest": versions[0].version,
            "items": [item_view(start + n + 1, i) for n, i in enumerate(items)], "first": start + 1,
            "next_cursor": next_items_cursor(name, shown.version, q.cursor, items, ITEMS_PAGE),
            "experiments": experiments, "made": q.made}


def dataset_from_issue(store: Store, issue_id: str, name: str) -> DatasetAnswer:
    """A version of ``name`` made of the issue's members, as ``POST /api/datasets/NAME/from-issue`` makes it:
    ValueError (one line) for a name that cannot name a dataset, ApiError 404 for an issue no finished run knows
    and 422 when none of its members recorded their texts."""
    name = check_dataset_name(name.strip())
    label = issue_label(parse_issue_id(issue_id))
    try:
        built = from_issue(store, issue_id)
    except UnknownIssue:
        raise ApiError(404, f"There is no issue {label} in a finished clustering run.") from None
    try:
        return save_dataset(store, name, built.items, origin=f"issue:{label}", notes=built.notes)
    except EmptyDataset as exc:
        raise ApiError(422, "; ".join([str(exc), *built.notes])) from None
