"""One failure per span: which failing score leads, the sentence blamed, and the text that gets embedded."""

import json

import numpy as np

from sumwatch.monitor.issues.failures import (
    FailingScore,
    Failure,
    embed_failures,
    failure_text,
    load_failures,
    offending_sentence,
)
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.embeddings import EMBEDDINGS_TABLE
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores

NS = 1_700_000_000_000_000_000


def _result(rubric, verdict, tier, mode, evidence="", explanation="", details=()):
    return RubricResult.make(rubric, verdict, tier=tier, failure_mode=mode, evidence=evidence,
                             explanation=explanation, details=tuple(details))


def test_primary_failure_is_the_most_trusted_tier_then_the_lowest_score(store):
    span = ScoredSpan(SpanRef("a" * 32, "b" * 16, NS + 5, "svc"), {
        "completeness": _result("completeness", "absent", "embeddings", "missing_key_fact"),
        "groundedness": _result("groundedness", "contradicted", "rules", "contradicted_claim",
                                'summary: "A 95-minute" | source: "59 minutes"'),
        "factuality": _result("factuality", "numerically_wrong", "rules", "number_mismatch",
                              'summary: "A 95-minute" | source: "59 minutes"', "the number differs",
                              [{"claim": "A 95-minute outage hit Quayside.", "status": "numerically_wrong"}]),
        "conciseness": _result("conciseness", "concise", "rules", ""),
    })
    passing = ScoredSpan(SpanRef("c" * 32, "d" * 16, NS + 6, "svc"),
                         {"factuality": _result("factuality", "correct", "rules", "")})
    error = ScoredSpan(SpanRef("e" * 32, "f" * 16, NS + 7, "svc"),
                       {"factuality": RubricResult.make("factuality", "error", tier="llm", error="timeout")})
    write_scores(store, [span, passing, error], "v1")
    failures = load_failures(store, NS, NS + 100)
    assert [f.trace_id for f in failures] == ["a" * 32]  # passing and error verdicts are not failures
    f = failures[0]
    assert (f.rubric, f.failure_mode) == ("factuality", "number_mismatch")  # rules beat embeddings; fact. first
    assert [o.rubric for o in f.others] == ["groundedness", "completeness"]
    assert f.primary.sentence == "A 95-minute outage hit Quayside."
    assert f.text.startswith("factuality numerically wrong (number mismatch). factuality numerically_wrong")
    assert "Evidence: summary: \"A 95-minute\"" in f.text and "Sentence: A 95-minute outage" in f.text
    assert f.text.endswith("Also failing: groundedness contradicted_claim, completeness missing_key_fact.")
    assert load_failures(store, NS + 6, NS + 100) == []  # the window is on span time


def test_the_latest_judgement_of_a_span_wins(store):
    ref = SpanRef("1" * 32, "2" * 16, NS, "svc")
    wrong = _result("factuality", "entity_wrong", "rules", "entity_swap")
    write_scores(store, [ScoredSpan(ref, {"factuality": wrong})], "v1")
    write_scores(store, [ScoredSpan(ref, {"factuality": _result("factuality", "correct", "llm", "")})], "v2")
    assert load_failures(store, NS, NS + 1) == []


def test_offending_sentence_from_details_or_evidence():
    details = json.dumps([{"sentence": "Fine.", "support": 0.9}, {"sentence": "Here's a summary:", "support": 0.0}])
    assert offending_sentence(details, "") == "Here's a summary:"
    assert offending_sentence("[]", 'summary: "Sure! Here you go" | source: "x"') == "Sure! Here you go"
    assert offending_sentence("not json", "") == ""


def test_long_parts_are_clipped_so_the_label_stays_inside_the_model_window():
    score = FailingScore("groundedness", "partial", 0.5, "added_causal_link", "rules", "e" * 2000, "x " * 2000, "")
    text = failure_text(score)
    assert len(text) < 1200 and text.startswith("groundedness partial (added causal link).")


class _CountingEmbedder:
    def __init__(self):
        self.texts = []

    def encode(self, texts):
        self.texts += texts
        return np.stack([np.full(4, len(t), dtype=np.float32) / (2 * len(t)) for t in texts])


def test_each_text_is_embedded_once_and_kept_in_the_store(store):
    fs = [Failure("t", str(i), NS, "svc", FailingScore("factuality", "entity_wrong", 0, "entity_swap", "rules",
                                                         "", "", ""), text=text)
          for i, text in enumerate(["alpha", "beta", "alpha"])]
    embedder = _CountingEmbedder()
    vectors, computed = embed_failures(store, embedder, fs, model="m1")
    assert computed == 2 and embedder.texts == ["alpha", "beta"] and vectors.shape == (3, 4)
    again, computed = embed_failures(store, _CountingEmbedder(), fs, model="m1")
    assert computed == 0 and np.allclose(again, vectors)
    _, computed = embed_failures(store, _CountingEmbedder(), fs, model="m2")  # another model embeds again
    assert computed == 2
    assert store.query_rows(f"SELECT count() FROM {EMBEDDINGS_TABLE} FINAL")[0][0] == 4


def test_a_custom_rubrics_failure_blames_the_sentence_its_definition_fails(store):
    from tone_rubric import promote_tone

    tone = promote_tone(store)
    details = [{"claim": "Profits rose 4%.", "status": "neutral"},
               {"claim": "What a triumph, yet again.", "status": "slanted"}]
    result = RubricResult.judged(tone, "slanted", tier="llm", failure_mode="sarcasm", details=tuple(details),
                                 explanation="mocks the results")
    write_scores(store, [ScoredSpan(SpanRef("7" * 32, "8" * 16, NS, "svc"), {"tone": result})], "v1")
    (failure,) = load_failures(store, NS, NS + 1)
    assert (failure.rubric, failure.failure_mode) == ("tone", "sarcasm")
    assert failure.primary.sentence == "What a triumph, yet again."  # "neutral" passes tone: not the culprit
    assert failure.text.startswith("tone slanted (sarcasm). tone slanted (sarcasm): mocks the results")


def test_a_custom_rubric_is_the_primary_failure_over_a_builtin_one_failing_as_badly(store):
    from tone_rubric import promote_tone

    tone = promote_tone(store)
    span = ScoredSpan(SpanRef("5" * 32, "6" * 16, NS, "svc"), {
        "factuality": _result("factuality", "polarity_wrong", "llm", "negation_flip"),
        "tone": RubricResult.judged(tone, "slanted", tier="llm", failure_mode="sarcasm"),
        "conciseness": _result("conciseness", "padded", "llm", "filler_phrases")})
    write_scores(store, [span], "v1")
    (failure,) = load_failures(store, NS, NS + 1)
    assert failure.rubric == "tone"  # same tier, same score 0: the team's own rubric names the failure
    assert [o.rubric for o in failure.others] == ["factuality", "conciseness"]  # a higher score comes later
