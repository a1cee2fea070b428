"""More than one model process: the same spans get the same scores, each once, with the real sentence model."""

import pytest

from sumwatch.clustering.sentence_model.model_pool import model_processes, usable_cpus
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.scoring import judges
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.settings import Settings, SettingsError


def _scores(store):
    rows = store.query_rows("SELECT TraceId, SpanId, Rubric, Verdict, Score, Passed, Tier FROM sumwatch_scores FINAL")
    return {(t, s, r): (v, score, passed, tier) for t, s, r, v, score, passed, tier in rows}


def _fresh_cascade(settings):
    # a model of its own, with an empty vector cache: the second pass must compute every vector again
    return judges.build_cascade(settings, mode="off")


@pytest.mark.integration
def test_two_model_processes_give_the_scores_of_one(store, tmp_path):
    settings = Settings.from_env(env={"SUMWATCH_MODEL_BACKEND": "onnx", "SUMWATCH_MODEL_THREADS": "1"},
                                 home=tmp_path)
    run_demo(store, n=12, seed=7)  # about 180 distinct sentences: three model batches, so the helper takes some
    one = Sampler.from_settings(store, _fresh_cascade(settings), settings, workers=1)
    first = one.run_pass()
    alone = _scores(store)
    assert first.workers == 1 and first.scored_spans == 12 and len(alone) == 48

    store.command("TRUNCATE TABLE sumwatch_scores")
    cascade = _fresh_cascade(settings)
    two = Sampler.from_settings(store, cascade, settings, workers=2)
    try:
        second = two.run_pass(all_spans=True)
        embedder = cascade.embeddings.embedder
        assert embedder.processes == 2 and embedder._pool._executor is not None  # a helper really ran
    finally:
        cascade.embeddings.embedder.set_processes(1)  # stops the helper
    assert second.workers == 2 and second.scored_spans == 12
    assert _scores(store) == alone  # same verdicts, scores (to the bit) and tiers
    rows = store.query_rows("SELECT count(), uniqExact(TraceId, SpanId, Rubric) FROM sumwatch_scores")[0]
    assert tuple(rows) == (48, 48)  # each span scored once on each rubric
    assert two.run_pass(all_spans=True).scored_spans == 0


def test_workers_setting_auto_and_bad_values():
    assert Settings.from_env(env={}).sampler.sampler_workers == 0  # auto
    assert Settings.from_env(env={"SUMWATCH_SAMPLER_WORKERS": "auto"}).sampler.sampler_workers == 0
    assert Settings.from_env(env={"SUMWATCH_SAMPLER_WORKERS": "3"}).sampler.sampler_workers == 3
    assert model_processes(0, 1) == usable_cpus() and model_processes(0, 64) == 1 and model_processes(2, 1) == 2
    for value in ("two", "-1", "1000"):
        with pytest.raises(SettingsError) as caught:
            Settings.from_env(env={"SUMWATCH_SAMPLER_WORKERS": value})
        assert "SUMWATCH_SAMPLER_WORKERS workers must be a number of processes" in str(caught.value)
        assert "\n" not in str(caught.value)
