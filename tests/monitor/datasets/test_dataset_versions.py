"""Versions in the store: an edit makes a new version, the same items make none, every old version stays readable
and pages by cursor; datasets made from an issue's members, from the Traces filters and from a corpus."""

import pytest
from dataset_spans import SOURCES, trace_id

from sumwatch.monitor.contract.datasets import DatasetItem, item_id_for
from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.datasets.builds import SUMMARY_BEFORE, UnknownIssue, from_corpus, from_issue, from_traces
from sumwatch.monitor.datasets.versions import EmptyDataset, save_dataset
from sumwatch.monitor.store.datasets import (
    dataset_versions,
    find_version,
    latest_versions,
    next_items_cursor,
    version_items,
)


def items(*sources: str, reference: str = "") -> list[DatasetItem]:
    return [DatasetItem(item_id=item_id_for(s), source=s, reference=reference) for s in sources]


def test_an_edit_makes_a_new_version_the_same_items_none_and_old_versions_stay_readable(store):
    first = save_dataset(store, "news", items("A.", "B."), origin="file:a.jsonl", description="first cut")
    assert (first.created, first.dataset.version, first.previous, first.added) == (True, 1, None, 2)
    same = save_dataset(store, "news", items("A.", "B."), origin="file:a.jsonl", description="again")
    assert (same.created, same.dataset.version, same.dataset.description) == (False, 1, "first cut")
    assert same.notes == ["the description was not changed: the items are the same as version 1's, so no version "
                          "was made"]
    edited = save_dataset(store, "news", items("A.", reference="ref") + items("C."), origin="traces")
    assert (edited.created, edited.dataset.version, edited.previous) == (True, 2, 1)
    assert (edited.added, edited.removed, edited.changed) == (1, 1, 1)  # C. added, B. removed, A. given a reference
    reordered = save_dataset(store, "news", items("C.", "A."), origin="traces")
    assert reordered.created and reordered.dataset.version == 3  # the order is part of the items

    assert [v.version for v in dataset_versions(store, "news")] == [3, 2, 1]
    assert [i.source for i in version_items(store, "news", 1)] == ["A.", "B."]  # still as it was made
    assert version_items(store, "news", 2)[0].reference == "ref"
    assert find_version(store, "news").version == 3 and find_version(store, "news", 9) is None
    assert find_version(store, "news", 1).origin == "file:a.jsonl"
    save_dataset(store, "other", items("Z."), origin="corpus:factuality")
    assert [(v.name, v.version) for v in latest_versions(store)] == [("news", 3), ("other", 1)]


def test_nothing_to_store_and_a_bad_name_are_refused_before_anything_is_written(store):
    with pytest.raises(EmptyDataset):
        save_dataset(store, "news", [], origin="traces")
    with pytest.raises(ValueError, match="^a dataset name is 1 to 64 letters"):
        save_dataset(store, "no spaces", items("A."), origin="traces")
    assert latest_versions(store) == []


def test_a_versions_items_page_by_cursor_each_once_and_a_cursor_of_another_version_is_refused(store):
    save_dataset(store, "big", items(*(f"Doc {n}." for n in range(7))), origin="traces")
    save_dataset(store, "big", items(*(f"Doc {n}." for n in range(3))), origin="traces")
    seen, cursor = [], None
    while True:
        page = version_items(store, "big", 1, limit=3, cursor=cursor)
        seen += [i.source for i in page]
        cursor = next_items_cursor("big", 1, cursor, page, 3)
        if cursor is None:
            break
    assert seen == [f"Doc {n}." for n in range(7)]
    first = next_items_cursor("big", 1, None, version_items(store, "big", 1, limit=2), 2)
    with pytest.raises(ValueError, match="another dataset version"):
        version_items(store, "big", 2, limit=2, cursor=first)


def test_an_issues_members_give_their_sources_with_the_failing_summaries(store, issue):
    built = from_issue(store, "sw-1")
    # most central first; span 3 repeats span 0's source; span 9 recorded no text
    assert [i.source for i in built.items] == [SOURCES[1], SOURCES[0]]
    first = built.items[1]
    assert first.metadata == {SUMMARY_BEFORE: "summary 0", "issue": "SW-1", "trace_id": trace_id(0),
                              "span_id": f"{1:016x}", "rubric": "factuality", "verdict": "numerically_wrong",
                              "failure_mode": "number_mismatch"}
    assert (first.expected_facts, first.band, first.item_id) == (("12%",), "tldr", item_id_for(SOURCES[0]))
    assert built.notes == ["1 members left out: their spans recorded no source or summary text (text capture off, "
                           "or the spans were removed)", "1 members repeat a source already taken: one item per source"]
    with pytest.raises(UnknownIssue, match="^no issue SW-7$"):
        from_issue(store, "SW-7")


def test_the_traces_filters_select_the_spans(store, spans):
    built = from_traces(store, TraceFilters(service="digest"), limit=10)
    assert [i.source for i in built.items] == [SOURCES[0], SOURCES[2], SOURCES[1]]  # newest first, one per source
    assert built.items[1].metadata[SUMMARY_BEFORE] == "summary 2"
    assert built.items[1].metadata["service"] == "digest"
    assert [i.source for i in from_traces(store, TraceFilters(q="river"), limit=10).items] == [SOURCES[2]]
    assert from_traces(store, TraceFilters(service="digest"), limit=1).items[0].source == SOURCES[3]
    nothing = from_traces(store, TraceFilters(service="alerts"), limit=10)
    assert nothing.items == [] and nothing.notes[0].startswith("1 spans left out")


def test_a_corpus_gives_one_item_per_source_with_a_labelled_pass_as_its_reference(store, corpus):
    built = from_corpus(store, "factuality")
    by_source = {i.source: i for i in built.items}
    assert sorted(by_source) == ["Costs fell 4% in June.", "Revenue rose 12% in May."]  # the rejected one left out
    revenue = by_source["Revenue rose 12% in May."]
    assert (revenue.reference, revenue.expected_facts, revenue.band) == ("Revenue rose 12%.", ("12%",), "tldr")
    assert revenue.metadata[SUMMARY_BEFORE] == "Revenue rose 21%."
    assert revenue.metadata["human_verdict"] == "numerically_wrong" and revenue.metadata["rubric"] == "factuality"
    assert by_source["Costs fell 4% in June."].reference == ""  # not labelled: no reference
    assert built.notes == ["1 corpus items share a source with another: one item per source"]
    assert [i.source for i in from_corpus(store, "factuality", "rejected").items] == ["Staff grew to 40."]
