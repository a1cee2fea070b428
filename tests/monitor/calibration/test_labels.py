"""Labelling as a team on the real store: a trace's span labelled into a corpus, several labels per item, Cohen's
kappa between labellers, and a disagreement resolved before calibration counts it."""

import pytest
from labelled_trace import SOURCE, store_trace

from sumwatch.monitor.calibration.gate import calibrate
from sumwatch.monitor.calibration.labels import (
    LabelError,
    UnknownItem,
    label_trace,
    labeller_agreement,
    record_label,
    resolve_item,
)
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.store.corpus import load_items, save_items
from sumwatch.monitor.store.corpus_labels import labels_of


def test_a_trace_is_labelled_into_a_corpus_with_its_provenance_and_labeller(store):
    trace_id, span_id = store_trace(store)
    item = label_trace(store, trace_id, "factuality", "fail", by="ana", note="wrong figure",
                       failure_mode="number_mismatch")
    assert (item.trace_id, item.span_id, item.origin, item.status) == (trace_id, span_id, "trace", "labelled")
    assert item.source == SOURCE and item.summary == "The council raised the parks budget by 21%."
    assert item.human_verdict != "correct" and item.note == "wrong figure"
    (stored,) = load_items(store, item_id=item.item_id)
    assert stored.span_id == span_id
    (label,) = labels_of(store, [item.item_id])[item.item_id]
    assert (label.labeller, label.verdict) == ("ana", item.human_verdict)

    # the same span labelled by a second person is a second label on the same item, not a second item
    again = label_trace(store, trace_id, "factuality", "pass", by="ben")
    assert again.item_id == item.item_id and again.status == "disputed"
    assert len(load_items(store, rubric="factuality", status="disputed")) == 1


def test_labelling_a_trace_refuses_in_one_line(store):
    trace_id, _ = store_trace(store)
    with pytest.raises(UnknownItem, match="no trace 0+1 with a summarization span"):
        label_trace(store, "0" * 31 + "1", "factuality", "fail", by="ana")
    with pytest.raises(LabelError, match="verdict must be pass, fail or a factuality verdict"):
        label_trace(store, trace_id, "factuality", "awful", by="ana")
    with pytest.raises(LabelError, match="rubric must be one of"):
        label_trace(store, trace_id, "tonality", "fail", by="ana")
    with pytest.raises(LabelError, match="trace id must be 32 hex characters"):
        label_trace(store, "nope", "factuality", "fail", by="ana")
    assert load_items(store, status="labelled") == []


def test_fail_stores_only_the_failure_a_person_named(store):
    trace_id, _ = store_trace(store)
    # factuality has four failing verdicts: a bare fail does not say which, so nothing is guessed or stored
    with pytest.raises(LabelError, match="fail does not say which factuality failure: name its failure mode "
                                         r"\(number_mismatch, .*entity_swap.*\) or give a failing verdict"):
        label_trace(store, trace_id, "factuality", "fail", by="ana")
    with pytest.raises(LabelError, match="failure mode must be one of number_mismatch.* got 'name_swap'"):
        label_trace(store, trace_id, "factuality", "fail", by="ana", failure_mode="name_swap")
    with pytest.raises(LabelError, match="percentage_mismatch belongs to no single factuality verdict"):
        label_trace(store, trace_id, "factuality", "fail", by="ana", failure_mode="percentage_mismatch")
    with pytest.raises(LabelError, match="a passing label has no failure mode"):
        label_trace(store, trace_id, "factuality", "pass", by="ana", failure_mode="entity_swap")
    assert load_items(store, rubric="factuality") == []

    item = label_trace(store, trace_id, "factuality", "fail", by="ana", failure_mode="entity_swap")
    assert (item.human_verdict, item.bucket) == ("entity_wrong", "entity_swap")
    by_verdict = label_trace(store, trace_id, "factuality", "fail", by="ben", failure_mode="entity_wrong")
    assert (by_verdict.status, by_verdict.human_verdict, by_verdict.bucket) == ("labelled", "entity_wrong",
                                                                                "entity_swap")
    finer = label_trace(store, trace_id, "factuality", "numerically_wrong", by="cy", failure_mode="percentage_mismatch")
    assert (finer.status, finer.bucket) == ("disputed", "percentage_mismatch")


def test_a_disputed_item_resolved_as_a_failure_takes_that_failures_bucket(store):
    trace_id, _ = store_trace(store)
    passed = label_trace(store, trace_id, "factuality", "pass", by="ana")
    assert passed.bucket == "pass"
    assert label_trace(store, trace_id, "factuality", "entity_wrong", by="ben").status == "disputed"
    resolved = resolve_item(store, passed.item_id, "entity_wrong", by="lead")
    assert (resolved.status, resolved.human_verdict, resolved.bucket) == ("labelled", "entity_wrong", "entity_swap")
    (stored,) = load_items(store, item_id=passed.item_id)
    assert (stored.human_verdict, stored.bucket) == ("entity_wrong", "entity_swap")
    # and resolved back to a pass, it leaves the failure bucket
    assert resolve_item(store, passed.item_id, "correct", by="lead").bucket == "pass"


def _items(store, n: int) -> list[CorpusItem]:
    items = [CorpusItem("factuality", SOURCE, f"Summary number {i}.", status="needs_label") for i in range(n)]
    save_items(store, items)
    return items


def test_kappa_between_each_pair_of_labellers_over_the_items_both_labelled(store):
    items = _items(store, 6)
    ok, wrong = "correct", "numerically_wrong"
    ana = [ok, ok, ok, wrong, wrong, ok]
    ben = [ok, ok, wrong, wrong, ok, ok]
    for item, a, b in zip(items, ana, ben):
        record_label(store, item.item_id, a, by="ana")
        record_label(store, item.item_id, b, by="ben")
    for k in (0, 3):  # cy labels two items, as ana did
        record_label(store, items[k].item_id, ana[k], by="cy")

    report = labeller_agreement(store, "factuality")
    pairs = {(p.a, p.b): p for p in report.pairs}
    # by hand: ana and ben agree on 4 of 6 (p_o = 2/3); each says correct 4 times and numerically_wrong twice, so
    # p_e = (4*4 + 2*2) / 36 = 5/9 and kappa = (2/3 - 5/9) / (1 - 5/9) = (1/9) / (4/9) = 0.25
    assert (pairs["ana", "ben"].items, pairs["ana", "ben"].agreed, pairs["ana", "ben"].kappa) == (6, 4, 0.25)
    # over the two items both labelled: the same verdicts, one of each, so kappa is 1
    assert (pairs["ana", "cy"].items, pairs["ana", "cy"].kappa) == (2, 1.0)
    assert (pairs["ben", "cy"].items, pairs["ben", "cy"].agreed, pairs["ben", "cy"].kappa) == (2, 2, 1.0)
    assert {d.item_id for d in report.disagreements} == {items[2].item_id, items[4].item_id}
    assert report.unresolved == 2
    assert {d.labels["ana"] for d in report.disagreements} == {ok, wrong}

    # a labeller's second label replaces their first
    record_label(store, items[2].item_id, wrong, by="ana")
    assert {d.item_id for d in labeller_agreement(store, "factuality").disagreements} == {items[4].item_id}


def test_a_disagreement_is_left_out_of_calibration_until_resolved_then_its_resolution_counts(store, rules_cascade):
    wrong = CorpusItem("factuality", SOURCE, "The council raised the parks budget by 21%.", status="needs_label")
    right = CorpusItem("factuality", SOURCE, "The council raised the parks budget by 12%.", status="needs_label")
    save_items(store, [wrong, right])
    record_label(store, right.item_id, "correct", by="ana")
    record_label(store, right.item_id, "correct", by="ben")
    record_label(store, wrong.item_id, "numerically_wrong", by="ana")
    disputed = record_label(store, wrong.item_id, "correct", by="ben")
    assert disputed.status == "disputed" and disputed.human_verdict == ""

    before = calibrate(store, rules_cascade, "factuality", record=False)
    assert (before.items, before.disputed) == (1, 1)
    assert any("1 item(s) left out" in w for w in before.warnings)

    resolved = resolve_item(store, wrong.item_id, "numerically_wrong", by="lead")
    assert (resolved.status, resolved.human_verdict) == ("labelled", "numerically_wrong")
    (d,) = labeller_agreement(store).disagreements
    assert (d.resolved, d.resolved_by, d.labels) == ("numerically_wrong", "lead",
                                                     {"ana": "numerically_wrong", "ben": "correct"})
    after = calibrate(store, rules_cascade, "factuality", record=False)
    assert (after.items, after.disputed) == (2, 0)
    assert after.confusion["numerically_wrong"] == {"numerically_wrong": 1}  # the resolved label is the human one
    with pytest.raises(LabelError, match="is not a factuality verdict"):
        resolve_item(store, wrong.item_id, "padded", by="lead")
    with pytest.raises(UnknownItem):
        resolve_item(store, "nosuchitem", "correct", by="lead")


def test_a_new_rubrics_label_takes_its_bucket_from_the_definition_given(store):
    from fakes.judge_by_prompt import NEGATIONS

    from sumwatch.monitor.rubrics.definition import parse_definition

    draft = parse_definition(NEGATIONS)  # not promoted: the database has no active negations definition
    trace_id, _ = store_trace(store)
    first = label_trace(store, trace_id, "negations", "renamed", by="ana", definition=draft)
    assert (first.human_verdict, first.bucket) == ("renamed", "entity_swap")
    # relabelled with another failing verdict and no failure named: the new verdict's bucket, never "pass"
    changed = label_trace(store, trace_id, "negations", "flipped", by="ana", definition=draft)
    assert (changed.item_id, changed.human_verdict, changed.bucket) == (first.item_id, "flipped", "negation_flip")
