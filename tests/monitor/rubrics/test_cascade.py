"""The cascade's escalation policy, with small tiers plugged in (each stage is swappable)."""

import pytest

from sumwatch.monitor.rubrics.cascade import Cascade
from sumwatch.monitor.rubrics.verdicts import RUBRICS, RubricResult, SummaryCase

PASS = {"groundedness": "supported", "completeness": "present", "factuality": "correct", "conciseness": "concise"}


class Rules:
    version = "r"

    def __init__(self, confident=(), failing=()):
        self.confident, self.failing = set(confident), set(failing)

    def judge(self, rubric, case):
        if rubric in self.failing:
            fail = {"groundedness": "partial", "completeness": "absent", "factuality": "numerically_wrong",
                    "conciseness": "padded"}[rubric]
            return RubricResult.make(rubric, fail, tier="rules", confident=True)
        return RubricResult.make(rubric, PASS[rubric], tier="rules",
                                 confident=rubric in self.confident or rubric == "conciseness")


class Embeddings:
    version = "e"

    def __init__(self, confident=()):
        self.confident = set(confident)

    def judge_batch(self, cases):
        return [{r: RubricResult.make(r, PASS[r], tier="embeddings", confident=r in self.confident)
                 for r in ("groundedness", "completeness")} for _ in cases]


class LLM:
    version = "l"

    def __init__(self, error=False):
        self.asked, self.error = [], error

    async def ajudge_many(self, items):
        self.asked.extend(items)
        return [RubricResult.failed_judge(r, "timeout", tier="llm") if self.error
                else RubricResult.make(r, PASS[r], tier="llm") for r, _ in items]


CASE = SummaryCase("source text here", "summary")


def asked_rubrics(llm):
    return sorted(r for r, _ in llm.asked)


def test_off_never_calls_the_llm_and_answers_every_rubric():
    out = Cascade(Rules(), Embeddings(confident={"completeness"})).score(CASE)
    assert set(out) == set(RUBRICS)
    assert out["completeness"].tier == "embeddings"  # a confident embedding result settles an unsure pass
    # neither tier sure: the rules verdict stays, marked unsettled
    assert out["groundedness"].tier == "rules" and not out["groundedness"].confident
    assert out["factuality"].tier == "rules"


class UnsureFailingRules(Rules):
    def judge(self, rubric, case):
        if rubric == "groundedness":
            return RubricResult.make(rubric, "partial", tier="rules", confident=False)
        return super().judge(rubric, case)


def test_an_embedding_pass_never_overturns_a_rules_failure():
    # offline the suspicion cannot be confirmed: recorded as unsure, but it is the rules' suspicion that
    # stands (with its verdict in the details), not the embedding tier's pass
    out = Cascade(UnsureFailingRules(), Embeddings(confident={"groundedness"})).score(CASE)
    g = out["groundedness"]
    assert g.tier == "rules" and g.passed and not g.confident and g.details[-1]["verdict"] == "partial"
    llm = LLM()
    Cascade(UnsureFailingRules(), Embeddings(confident={"groundedness"}), llm).score(CASE)
    assert ("groundedness" in asked_rubrics(llm))


def test_ambiguous_sends_only_unsettled_pairs():
    llm = LLM()
    out = Cascade(Rules(confident={"factuality"}), Embeddings(confident={"groundedness"}), llm).score(CASE)
    assert asked_rubrics(llm) == ["completeness"]
    assert out["completeness"].tier == "llm" and out["groundedness"].tier == "embeddings"


class CertainRules(Rules):
    """Conciseness fails with a kind certain by construction (a listed filler phrase)."""

    def judge(self, rubric, case):
        if rubric == "conciseness":
            return RubricResult.make(rubric, "padded", tier="rules", failure_mode="filler_phrases",
                                     evidence='summary: "it is important to note"')
        return super().judge(rubric, case)


def test_always_sends_everything_but_failures_certain_by_construction():
    llm = LLM()
    out = Cascade(CertainRules(failing={"factuality"}), Embeddings(), llm, mode="always").score(CASE)
    assert asked_rubrics(llm) == ["completeness", "factuality", "groundedness"]
    assert out["conciseness"].verdict == "padded" and out["conciseness"].tier == "rules"
    assert out["factuality"].tier == "llm"  # the rules' failure was a suspicion: the LLM decided


def test_llm_errors_are_final_and_never_pass():
    out = Cascade(Rules(), Embeddings(), LLM(error=True)).score(CASE)
    assert out["completeness"].verdict == "error" and not out["completeness"].passed


def test_rubric_subset_and_bad_configuration():
    llm = LLM()
    out = Cascade(Rules(), None, llm).score_batch([CASE], rubrics=["factuality"])[0]
    assert list(out) == ["factuality"] and asked_rubrics(llm) == ["factuality"]
    with pytest.raises(ValueError, match="needs an LLM"):
        Cascade(Rules(), mode="always")
    with pytest.raises(ValueError, match="judge mode must be one of"):
        Cascade(Rules(), llm=LLM(), mode="sometimes")
    assert Cascade(Rules(), Embeddings(), LLM()).version == "cascade-3/r/e/l@ambiguous"
    with pytest.raises(ValueError, match="audit rate"):
        Cascade(Rules(), llm=LLM(), audit_rate=1.5)


class SuspiciousRules(Rules):
    """Factuality fails on a flipped negation (a suspicion), groundedness on a changed number (precise)."""

    def judge(self, rubric, case):
        if rubric == "factuality":
            return RubricResult.make(rubric, "polarity_wrong", tier="rules", failure_mode="negation_flip",
                                     evidence='summary: "approved" | source: "did not approve"',
                                     explanation="The summary drops a negation.")
        if rubric == "groundedness":
            return RubricResult.make(rubric, "contradicted", tier="rules", failure_mode="contradicted_claim",
                                     evidence='summary: "21%" | source: "12%"',
                                     details=({"claim": "x", "status": "contradicted",
                                               "failure_mode": "number_mismatch"},))
        return super().judge(rubric, case)


def test_offline_only_precise_kinds_fail_and_suspicions_are_recorded_as_unsure():
    out = Cascade(SuspiciousRules(confident={"completeness"})).score(CASE)
    assert out["groundedness"].verdict == "contradicted" and not out["groundedness"].passed
    f = out["factuality"]
    assert f.passed and f.verdict == "correct" and not f.confident and f.failure_mode == ""
    assert "negation_flip" in f.explanation and "no LLM" in f.explanation and f.evidence.startswith("summary:")
    assert f.details[-1] == {"suspicion": "negation_flip", "verdict": "polarity_wrong", "evidence": f.evidence}


class ScoredEmbeddings(Embeddings):
    def judge_batch(self, cases):
        return [{r: RubricResult.make(r, PASS[r], tier="embeddings", score=0.8, confident=False)
                 for r in ("groundedness", "completeness")} for _ in cases]


def test_offline_groundedness_and_factuality_store_the_embedding_consistency_score():
    # groundedness stores the support; a precise factuality failure ranks below the same support without
    # one; an unsure suspicion does not lower it; completeness and conciseness keep their own scores
    out = Cascade(SuspiciousRules(confident={"completeness"}), ScoredEmbeddings()).score(CASE)
    assert not out["groundedness"].passed and out["groundedness"].score == pytest.approx(0.8)
    assert out["factuality"].passed and not out["factuality"].confident
    assert out["factuality"].score == pytest.approx(0.8)

    class NumberRules(Rules):
        def judge(self, rubric, case):
            if rubric == "factuality":
                return RubricResult.make(rubric, "numerically_wrong", tier="rules", failure_mode="number_mismatch")
            return super().judge(rubric, case)

    out = Cascade(NumberRules(confident={"completeness"}), ScoredEmbeddings()).score(CASE)
    assert out["factuality"].verdict == "numerically_wrong" and out["factuality"].score == pytest.approx(0.56)
    assert out["completeness"].score == 1.0 and out["conciseness"].score == 1.0
    # without the embedding tier the rules' own score stays
    assert Cascade(SuspiciousRules()).score(CASE)["factuality"].score == SuspiciousRules().judge(
        "factuality", CASE).score


def test_ambiguous_sends_suspicions_with_the_rules_finding_as_a_hint_and_keeps_the_cheap_verdict():
    llm = LLM()
    out = Cascade(SuspiciousRules(confident={"completeness"}), None, llm, audit_rate=0.0).score(CASE)
    asked = dict(llm.asked)
    # the suspicion and the number contradiction both go (only certain kinds stand alone with an LLM),
    # the unsure pass goes, the confident pass does not
    assert sorted(asked) == ["factuality", "groundedness"]
    assert "negation_flip" in asked["factuality"].hint and "did not approve" in asked["factuality"].hint
    f = out["factuality"]
    assert f.tier == "llm" and f.passed
    assert f.details[-1] == {"cheap_tier": "rules", "cheap_verdict": "polarity_wrong", "cheap_passed": False,
                             "cheap_failure_mode": "negation_flip", "route": "suspicion"}


def test_an_audit_sample_of_confident_results_goes_to_the_llm_deterministically():
    cases = [SummaryCase(f"source {i}", f"summary {i}") for i in range(400)]
    llm = LLM()
    results = Cascade(Rules(confident=RUBRICS), None, llm, rubrics=["factuality"]).score_batch(cases)
    audited = [r["factuality"] for r in results if r["factuality"].tier == "llm"]
    assert 8 <= len(audited) <= 32  # about 5% of 400
    assert all(r.details[-1]["route"] == "audit" for r in audited)
    again = LLM()
    Cascade(Rules(confident=RUBRICS), None, again, rubrics=["factuality"]).score_batch(cases)
    assert again.asked == llm.asked  # the same cases every run
    none = LLM()
    Cascade(Rules(confident=RUBRICS), None, none, rubrics=["factuality"], audit_rate=0.0).score_batch(cases)
    assert none.asked == []


class ScoredRules(Rules):
    """Rules that fail factuality on some cases (a suspicion) and pass the rest with a per-case score."""

    def judge(self, rubric, case):
        if rubric == "factuality" and "wrong" in case.summary:
            return RubricResult.make(rubric, "entity_wrong", tier="rules", failure_mode="unsupported_claim")
        score = float(case.summary.split()[-1]) if rubric == "groundedness" else 1.0
        return RubricResult.make(rubric, PASS[rubric], score=score, tier="rules", confident=True)


def test_a_budget_spends_its_requests_on_the_least_sure_results_and_leaves_the_rest_unsure():
    cases = [SummaryCase("source text here", f"claim {'wrong ' if k == 3 else ''}{score}")
             for k, score in enumerate((0.9, 0.2, 0.95, 0.8, 0.1, 0.99))]
    llm = LLM()
    out = Cascade(ScoredRules(), None, llm, mode="ambiguous", audit_rate=0.0, budget=0.5).score_batch(cases)
    # 0.5 requests per span over 6 spans: 3 requests; the suspicion first, then the lowest-scoring passes
    assert sorted((r, c.summary) for r, c in llm.asked) == [
        ("factuality", "claim wrong 0.8"), ("groundedness", "claim 0.1"), ("groundedness", "claim 0.2")]
    assert out[3]["factuality"].tier == "llm" and out[4]["groundedness"].tier == "llm"


def test_a_suspicion_the_budget_leaves_out_is_recorded_as_unsure():
    cases = [SummaryCase("source text here", f"claim wrong {k}") for k in range(4)]
    llm = LLM()
    out = Cascade(ScoredRules(), None, llm, mode="ambiguous", audit_rate=0.0, budget=0.5).score_batch(cases)
    assert len(llm.asked) == 2
    left = [o["factuality"] for o in out if o["factuality"].tier == "rules"]
    assert len(left) == 2 and all(r.passed and not r.confident and "Unsure" in r.explanation for r in left)


def test_a_zero_budget_asks_only_for_the_audit_sample():
    cases = [SummaryCase("source text here", f"claim wrong {k}") for k in range(20)]
    llm = LLM()
    Cascade(ScoredRules(), None, llm, mode="ambiguous", audit_rate=0.0, budget=0.0).score_batch(cases)
    assert llm.asked == []
    with pytest.raises(ValueError, match="the judge budget is LLM requests per span"):
        Cascade(ScoredRules(), None, LLM(), mode="ambiguous", budget=-1.0)


class Sentence:
    def __init__(self, sentence, supported, evidence):
        self.sentence, self.supported, self.evidence = sentence, supported, evidence


class Faithful:
    def __init__(self, *scores):
        self.sentences = tuple(Sentence(f"sentence {k}", p, f"passage {k}") for k, p in enumerate(scores))

    @property
    def supported(self):
        return min(s.supported for s in self.sentences)

    @property
    def weakest(self):
        return min(self.sentences, key=lambda s: s.supported)


class Learned:
    version = "learned-t"
    fail_below, doubt_below = 0.05, 0.5

    def __init__(self, by_summary):
        self.by_summary = by_summary

    def score_many(self, cases):
        return [self.by_summary[summary] for _, summary in cases]


def test_the_learned_tier_fails_only_below_its_precise_cut_and_marks_doubt_for_the_llm():
    learned = Learned({"low": Faithful(0.9, 0.01), "doubt": Faithful(0.3), "fine": Faithful(0.97)})
    cases = [SummaryCase("source text here", s) for s in ("low", "doubt", "fine")]
    low, doubt, fine = Cascade(Rules(confident=RUBRICS), learned=learned).score_batch(cases)
    g = low["groundedness"]
    assert (g.verdict, g.tier, g.failure_mode, g.confident) == ("partial", "learned", "unsupported_claim", True)
    assert g.evidence == 'summary "sentence 1" vs source "passage 1"' and g.score == 0.01
    assert doubt["groundedness"].passed and doubt["groundedness"].score == 0.3  # the stored score ranks by it
    assert fine["groundedness"].passed and fine["factuality"].score == 0.97
    llm = LLM()
    Cascade(Rules(confident=RUBRICS), None, llm, mode="ambiguous", audit_rate=0.0, learned=learned).score_batch(cases)
    # with an LLM, the learned failure is a suspicion it confirms, and a doubtful pass is asked about too
    assert sorted((r, c.summary) for r, c in llm.asked) == [
        ("factuality", "doubt"), ("factuality", "low"), ("groundedness", "doubt"), ("groundedness", "low")]
    assert "learned-t" in Cascade(Rules(), learned=learned).version_for("groundedness")
