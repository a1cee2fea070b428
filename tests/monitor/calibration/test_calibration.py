"""Calibration corpora: kappa, import/export, labelling, and the gate on a worse judge."""

import json

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.calibration.corpus import export_jsonl, import_jsonl, label_item, seed_starter_corpora
from sumwatch.monitor.calibration.gate import agreement, calibrate, cohen_kappa
from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.rubrics.cascade import Cascade
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.corpus import check_item, load_items, save_items

SOURCE = "The council approved the budget on Monday. Spending on parks rises 12% next year."


def test_cohen_kappa_matches_hand_computation():
    # 10 items: observed agreement 0.7; marginals yes 6/5, no 4/5 -> expected 0.5 -> kappa 0.4
    human = ["y", "y", "y", "y", "y", "y", "n", "n", "n", "n"]
    judge = ["y", "y", "y", "y", "n", "n", "y", "n", "n", "n"]
    assert cohen_kappa(human, judge) == pytest.approx(0.4)
    assert cohen_kappa(["a", "b"], ["a", "b"]) == 1.0
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None  # undefined: one label everywhere
    with pytest.raises(ValueError):
        cohen_kappa(["a"], ["a", "b"])


def test_bucket_kappa_is_against_the_passing_items():
    items = ([CorpusItem("factuality", SOURCE, f"ok {i}", "correct", "pass") for i in range(4)]
             + [CorpusItem("factuality", SOURCE, f"bad {i}", "numerically_wrong", "number_changed") for i in range(4)]
             + [CorpusItem("factuality", SOURCE, f"neg {i}", "polarity_wrong", "negation_flipped") for i in range(4)])
    judge = ["correct"] * 4 + ["numerically_wrong"] * 4 + ["correct"] * 4  # misses every negation
    report = agreement("factuality", items, judge, "j")
    buckets = {b.bucket: b for b in report.buckets}
    assert buckets["number_changed"].kappa == 1.0
    assert buckets["negation_flipped"].kappa == 0.0 and buckets["negation_flipped"].judge_pass_rate == 1.0
    assert report.accuracy == pytest.approx(8 / 12, abs=1e-4)


def test_items_validate_their_verdicts(store):
    # the record checks its own shape; its rubric and verdicts are checked on the server, before it is stored
    wrong = CorpusItem("factuality", SOURCE, "x", "supported")
    with pytest.raises(ValueError, match="not a factuality verdict"):
        check_item(wrong)
    with pytest.raises(ValueError, match="not a factuality verdict"):
        save_items(store, [wrong])
    assert load_items(store, item_id=wrong.item_id) == []
    with pytest.raises(ValueError, match="rubric 'Tone!' is neither built in"):
        check_item(CorpusItem("Tone!", SOURCE, "x", "ok"))
    with pytest.raises(ValueError, match="needs a human_verdict"):
        CorpusItem("factuality", SOURCE, "x")
    item = CorpusItem("factuality", SOURCE, "x", status="needs_label", proposed_verdict="correct")
    assert item.item_id and check_item(item) is item


def test_import_export_roundtrip_reports_bad_lines(store, tmp_path):
    good = CorpusItem("groundedness", SOURCE, "Parks spending rises 12%.", "supported", origin="manual")
    path = tmp_path / "items.jsonl"
    path.write_text(export_jsonl([good])
                    + '{"rubric": "Tone!", "source": "s", "summary": "x", "human_verdict": "ok"}\nnot json\n'
                    + json.dumps({**good.to_json(), "human_verdict": "correct", "item_id": ""}) + "\n"
                    + "[" * 5000 + "]" * 5000 + "\n")
    report = import_jsonl(store, path)
    assert report.added == 1 and report.updated == 0
    assert [line for line, _ in report.bad] == [2, 3, 4, 5]
    assert report.bad[3][1] == "JSON nested too deeply to read"
    assert "rubric 'Tone!' is neither built in" in report.bad[0][1]
    again = import_jsonl(store, path)
    assert again.added == 0 and again.updated == 1
    (loaded,) = load_items(store, rubric="groundedness")
    assert loaded == good
    assert json.loads(export_jsonl([loaded])) == good.to_json()


def test_promoted_items_count_only_once_labelled(store):
    pending = CorpusItem("factuality", SOURCE, "Parks spending rises 21%.", status="needs_label",
                         proposed_verdict="numerically_wrong", origin="cluster:SW-1")
    save_items(store, [pending])
    assert load_items(store, rubric="factuality", status="labelled") == []
    labelled = label_item(store, pending.item_id, "numerically_wrong", bucket="number_changed")
    assert labelled.status == "labelled" and labelled.human_verdict == "numerically_wrong"
    (item,) = load_items(store, rubric="factuality", status="labelled")
    assert item.bucket == "number_changed" and item.origin == "cluster:SW-1"
    with pytest.raises(ValueError, match="not a factuality verdict"):
        label_item(store, pending.item_id, "supported")
    with pytest.raises(KeyError):
        label_item(store, "missing-id", "correct")


def test_starter_corpora_cover_all_rubrics_and_seed_idempotently(store):
    first = seed_starter_corpora(store)
    assert all(count >= 50 for count in first.values()), first
    assert seed_starter_corpora(store) == {r: 0 for r in first}
    origins = {i.origin.split(":")[0] for i in load_items(store, rubric="factuality")}
    assert origins == {"perturbation", "summedits"}


class AlwaysPass:
    """A broken judge: everything passes."""

    version = "always-pass"

    def judge(self, rubric, case):
        verdict = {"groundedness": "supported", "completeness": "present", "factuality": "correct",
                   "conciseness": "concise"}[rubric]
        return RubricResult.make(rubric, verdict, tier="rules")


def test_gate_records_a_baseline_then_fails_a_worse_judge(store, rules_cascade):
    seed_starter_corpora(store, ["factuality"])
    first = calibrate(store, rules_cascade, "factuality")
    # offline the rules fail only precise kinds (numbers, percentages, units): the swapped names and flipped
    # negations of the corpus wait for an LLM, so the offline judge agrees less, though above chance
    assert first.gate.passed and first.recorded and first.kappa > 0.1
    worse = calibrate(store, Cascade(rules=AlwaysPass()), "factuality")
    assert not worse.gate.passed and not worse.recorded
    assert any("overall kappa" in reason for reason in worse.gate.reasons)
    assert any(reason.startswith("bucket ") for reason in worse.gate.reasons)
    again = calibrate(store, rules_cascade, "factuality")  # the baseline is still the good judge's
    assert again.gate.passed and again.gate.baseline_version == rules_cascade.version


def test_calibrate_command_prints_a_table_and_exits_nonzero_on_a_drop(cli_env, store, monkeypatch):
    runner = CliRunner()
    env = {**cli_env, "SUMWATCH_EMBEDDINGS": "false"}
    ok = runner.invoke(app, ["calibrate", "--rubric", "conciseness", "--mode", "off"], env=env)
    assert ok.exit_code == 0, ok.stderr
    assert "overall kappa" in ok.stdout and "filler_padding" in ok.stdout
    from sumwatch.monitor.scoring import judges

    monkeypatch.setattr(judges, "build_cascade", lambda *a, **k: Cascade(rules=AlwaysPass()))
    bad = runner.invoke(app, ["calibrate", "--rubric", "conciseness", "--json"], env=env)
    assert bad.exit_code == 1
    report = json.loads(bad.stdout)
    assert report["gate"]["passed"] is False and report["recorded"] is False


def test_a_bucket_the_judge_passes_entirely_is_a_warning_not_a_baseline(store):
    items = [CorpusItem(rubric="factuality", source=SOURCE, summary=f"Parks spending rises {n}%.", human_verdict=v,
                        bucket=b) for n, v, b in ((12, "correct", "pass"), (13, "correct", "pass"),
                                                  (21, "numerically_wrong", "number_mismatch"),
                                                  (31, "numerically_wrong", "number_mismatch"))]
    report = agreement("factuality", items, ["correct", "correct", "correct", "correct"], "always-pass")
    (bucket,) = [b for b in report.buckets if b.bucket == "number_mismatch"]
    assert not bucket.measurable and bucket.judge_pass_rate == 1.0
    assert report.warnings and "no disagreement to measure" in report.warnings[0]
    fair = agreement("factuality", items, ["correct", "correct", "numerically_wrong", "correct"], "fair")
    assert all(b.measurable for b in fair.buckets) and not fair.warnings


def test_a_promoted_rubric_is_calibrated_on_its_own_corpus_and_its_labels_are_its_verdicts(store, rules_cascade):
    from tone_rubric import TONE

    from sumwatch.monitor.rubrics.definition import parse_definition
    from sumwatch.monitor.store.judges import JudgeRecord, record_promotion

    with pytest.raises(ValueError, match="rubric must be one of .*got 'tone'"):
        calibrate(store, rules_cascade, "tone")  # not promoted yet
    # a listed phrase decides with certainty, so the rules tier alone can judge this rubric
    checked = TONE + '\n[[checks]]\nphrases = ["what a triumph"]\nverdict = "slanted"\nfailure_mode = "sarcasm"\n'
    record_promotion(store, JudgeRecord.of(parse_definition(checked, origin="tone.toml")))
    save_items(store, [CorpusItem("tone", SOURCE, f"What a triumph: parks get {i}% more.", "slanted", "sarcasm",
                                  status="labelled") for i in range(4)]
               + [CorpusItem("tone", SOURCE, f"The council approved the budget ({i}).", "neutral", "pass",
                             status="labelled") for i in range(4)])
    report = calibrate(store, rules_cascade, "tone")
    assert report.items == 8 and report.kappa == 1.0 and report.recorded
    assert {b.bucket: b.kappa for b in report.buckets} == {"pass": None, "sarcasm": 1.0}

    waiting = CorpusItem("tone", SOURCE, "Parks win again, hooray.", "", "sarcasm", status="needs_label",
                         proposed_verdict="slanted")
    save_items(store, [waiting])
    with pytest.raises(ValueError, match="'padded' is not a tone verdict \\(one of neutral, slanted, or rejected\\)"):
        label_item(store, waiting.item_id, "padded")
    assert label_item(store, waiting.item_id, "slanted").status == "labelled"
