"""The data loaders read each source with its provenance; the splits never share a set, domain or article."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import pytest

from sumwatch.monitor.rubrics.learned import data
from sumwatch.monitor.rubrics.learned.premise import overlap_share
from sumwatch.monitor.rubrics.learned.synthetic import contradict

ARTICLE = ("Marseille prosecutor Brice Robin told CNN that so far no videos were used in the crash investigation. "
           "All 150 people on board Germanwings Flight 9525 were killed. Paris Match and Bild reported that the "
           "video was recovered from a phone at the wreckage site. The airline said the co-pilot had informed "
           "its training school of an episode of severe depression in 2009.")
OTHER = ("The Palestinian Authority officially became the 123rd member of the International Criminal Court on "
         "Wednesday. Israel and the United States opposed the move. The formal accession was marked with a "
         "ceremony at The Hague.")


def _write_shared(root: Path) -> Path:
    (root / "summedits").mkdir(parents=True)
    (root / "summac").mkdir()
    (root / "summeval").mkdir()
    for n, domain in enumerate(data.SUMMEDITS_DOMAINS):
        doc = OTHER if domain in data.CHOICE_DOMAINS else ARTICLE
        original = "All 150 people on board were killed. Bild reported a video from the wreckage."
        rows = [{"id": f"{n}a", "doc": f"{doc} ({domain})", "summary": original, "label": 1,
                 "original_summary": original, "edit_types": "[]", "split": "test"},
                {"id": f"{n}b", "doc": f"{doc} ({domain})", "label": 0, "original_summary": original,
                 "summary": "All 250 people on board were killed. Bild reported a video from the wreckage.",
                 "edit_types": "['entity_modification']", "split": "test"}]
        (root / "summedits" / f"summedits_{domain}.json").write_text(json.dumps(rows))
    for subset in data.SUMMAC_SUBSETS:
        rows = [{"id": f"{subset}_0", "document": OTHER, "summary": "Israel opposed the move.", "label": 1,
                 "cut": "val", "model_name": "x"}]
        (root / "summac" / f"summac_{subset}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    summeval = [{"doc_id": "d", "system_id": f"M{k}", "source": OTHER, "reference": "", "system_output": out,
                 "scores": {"consistency": score, "coherence": 3, "fluency": 3, "relevance": 3}}
                for k, (out, score) in enumerate([("Israel opposed the move .", 5.0), ("Israel backed it .", 2.0),
                                                  ("It joined the court .", 4.0)])]
    (root / "summeval" / "summeval.jsonl").write_text("\n".join(json.dumps(r) for r in summeval))
    return root


def _write_wheel(path: Path, documents: list[str]) -> Path:
    rows = [{"document": d, "right_summary": "The prosecutor said no videos were used.",
             "hallucinated_summary": "The prosecutor said a video was used. It showed the crash."} for d in documents]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(data.HALUEVAL_MEMBER, "\n".join(json.dumps(r) for r in rows))
    return path


def test_each_source_is_read_with_its_provenance(tmp_path: Path) -> None:
    shared = _write_shared(tmp_path / "data")
    sets = data.load_all(shared, _write_wheel(tmp_path / "evs.whl", [ARTICLE + " More text.", OTHER]))
    assert set(sets) == ({f"summedits/{d}" for d in data.SUMMEDITS_DOMAINS}
                         | {f"summac/{s}" for s in data.SUMMAC_SUBSETS} | {"summeval", "halueval"})
    news = sets["summedits/news"]
    assert [r.label for r in news] == [1, 0]
    assert news[1].sentence_labels == (0, 1)  # the edited sentence is the first one
    assert news[0].provenance.licence == "Apache-2.0"
    assert sets["halueval"][0].provenance.licence.startswith("MIT")
    assert "research use" in sets["summac/factcc"][0].provenance.licence
    # SummEval: 5.0 consistent, <= 3.0 inconsistent, the 4.0 between is skipped
    assert [(r.summary, r.label) for r in sets["summeval"]] == [("Israel opposed the move .", 1),
                                                                ("Israel backed it .", 0)]
    assert [r.label for r in sets["halueval"]] == [1, 0, 1, 0]


def test_splits_hold_out_whole_sets_domains_and_report_articles(tmp_path: Path) -> None:
    shared = _write_shared(tmp_path / "data")
    # the second HaluEval article is a report article (SummaC / SummEval's): it must not be trained on
    sets = data.load_all(shared, _write_wheel(tmp_path / "evs.whl", [ARTICLE + " More text.", OTHER]))
    split = data.make_splits(sets, seed=1, train_articles=1, choice_articles=0)
    train_sets = {r.set_name for r in split.train}
    assert train_sets == {"halueval", "synthetic"} | {f"summedits/{d}" for d in data.TRAIN_DOMAINS}
    assert {r.set_name for r in split.choice} == {f"summedits/{d}" for d in data.CHOICE_DOMAINS}
    assert not set(data.TRAIN_DOMAINS) & set(data.CHOICE_DOMAINS)
    assert set(split.report) == {f"summac/{s}" for s in data.SUMMAC_SUBSETS} | {"summeval"}
    assert not any("Criminal Court" in r.source for r in split.train)
    assert {r.label for r in split.train} == {0, 1}
    # HaluEval articles beyond the training ones go to the choice rows, never to both
    more = data.make_splits(sets, seed=1, train_articles=0, choice_articles=5)
    assert {r.set_name for r in more.choice} >= {"halueval"}
    assert "halueval" not in {r.set_name for r in more.train}


def test_a_bad_wheel_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "not.whl"
    bad.write_text("nope")
    with pytest.raises(data.DataError, match="cannot read HaluEval"):
        data.load_halueval(bad)


def test_synthetic_summaries_pair_an_extract_with_its_contradiction() -> None:
    rows = [data.LabelledSummary("halueval", ARTICLE, "x", 1)] * 2  # one source, read once
    made = data.synthetic_summaries(rows, random.Random(3))
    assert [r.label for r in made] == [1, 0]
    faithful, edited = made
    assert overlap_share(ARTICLE, faithful.summary) == 1.0  # an extract of the source
    assert edited.summary != faithful.summary and edited.sentence_labels.count(0) == 1
    edit = contradict("All 150 people on board were killed.", ["Brice Robin"], random.Random(3))
    assert edit is not None and edit.text != "All 150 people on board were killed."
