"""The embeddings tier: sentence support, topic drift, fact coverage, batching, and the consistency score."""

import pytest

from sumwatch.monitor.rubrics.cascade import Cascade
from sumwatch.monitor.rubrics.consistency import consistency_score
from sumwatch.monitor.rubrics.embeddings import EmbeddingJudge
from sumwatch.monitor.rubrics.verdicts import RubricResult, SummaryCase

pytestmark = pytest.mark.integration

SOURCE = ("The city council voted on Tuesday to approve a new budget of $4.2 million for public parks. "
          "The plan adds three playgrounds in the northern district and extends library opening hours. "
          "Council member Ana Ruiz said the money comes from a one-time state grant. "
          "Critics argued the city should instead repair its aging water pipes. "
          "Construction of the playgrounds is expected to start in May and finish by the end of the year.")
PARAPHRASE = ("On Tuesday the city council approved a $4.2 million parks budget. It funds three new playgrounds "
              "in the north and longer library hours, paid for by a one-time state grant.")
INVENTED = ("The city council approved a $4.2 million parks budget. "
            "The mayor resigned after a corruption scandal involving the police chief.")
NEW_NUMBER = "The city council approved a $9.8 million budget for public parks on Tuesday."
OFF_TOPIC = ("The striker scored twice in the second half as the visitors won the championship final. "
             "Fans celebrated in the streets until morning.")
FACTS = ("The parks budget is $4.2 million.",
         "Three playgrounds will be built in the northern district.",
         "Critics wanted the aging water pipes repaired instead.")


@pytest.fixture(scope="module")
def judge() -> EmbeddingJudge:
    return EmbeddingJudge()


def case(summary: str, **kw) -> SummaryCase:
    return SummaryCase(source=SOURCE, summary=summary, **kw)


def test_a_faithful_paraphrase_is_supported_with_a_high_score(judge: EmbeddingJudge):
    result = judge.judge("groundedness", case(PARAPHRASE))
    assert (result.verdict, result.passed, result.confident) == ("supported", True, True)
    # the verdict reads the support (cosine and terms); the score, which ranks, also counts word pairs, which
    # a paraphrase rewords: still well above an invented sentence's
    assert all(d["support"] >= 0.8 for d in result.details)
    assert 0.65 <= result.score < min(d["support"] for d in result.details)
    assert result.score > judge.judge("groundedness", case(INVENTED)).score + 0.15
    assert result.tier == "embeddings" and result.judge_version == "emb-3:all-MiniLM-L6-v2"
    assert len(result.details) == 2 and all(d["similarity"] > 0.7 for d in result.details)
    assert all(0.0 < d["pair_support"] < 1.0 for d in result.details)


def test_an_invented_sentence_fails_and_is_quoted_with_its_best_source_match(judge: EmbeddingJudge):
    result = judge.judge("groundedness", case(INVENTED))
    assert result.verdict == "missing" and not result.passed
    assert result.failure_mode == "unsupported_claim"
    assert "The mayor resigned after a corruption scandal" in result.evidence and "source:" in result.evidence
    assert result.score < judge.judge("groundedness", case(PARAPHRASE)).score


def test_a_number_the_source_never_states_is_not_supported_and_left_open(judge: EmbeddingJudge):
    result = judge.judge("groundedness", case(NEW_NUMBER))
    assert result.verdict != "supported" and result.failure_mode == "unsupported_number"
    assert not result.confident  # the rules or the LLM settle numbers
    assert "9.8" in result.explanation


def test_an_off_topic_summary_is_topic_drift(judge: EmbeddingJudge):
    result = judge.judge("groundedness", case(OFF_TOPIC))
    assert (result.verdict, result.failure_mode, result.confident) == ("missing", "topic_drift", True)
    assert result.score <= 0.25 and "something else" in result.explanation


def test_a_missing_expected_fact_is_named_in_the_evidence(judge: EmbeddingJudge):
    result = judge.judge("completeness", case(PARAPHRASE, expected_facts=FACTS))
    assert result.verdict != "present" and not result.passed
    assert result.failure_mode == "missing_expected_fact"
    assert "Critics wanted the aging water pipes repaired instead." in result.evidence
    status = {d["fact"]: d["status"] for d in result.details}
    assert status[FACTS[0]] == "present" and status[FACTS[2]] == "absent"


def test_expected_facts_all_carried_are_present(judge: EmbeddingJudge):
    result = judge.judge("completeness", case(PARAPHRASE, expected_facts=FACTS[:1]))
    assert result.verdict == "present" and result.passed


def test_without_expected_facts_coverage_is_of_key_source_sentences(judge: EmbeddingJudge):
    covered = judge.judge("completeness", case(PARAPHRASE))
    off = judge.judge("completeness", case(OFF_TOPIC))
    assert covered.score > off.score
    assert off.verdict == "absent" and off.failure_mode == "missing_key_fact"
    assert all(d["fact"] in SOURCE for d in covered.details)


def test_key_source_sentences_are_never_filler_turns(judge: EmbeddingJudge):
    # a meeting transcript in SummEdits' style: the turns that state nothing must not become facts to expect
    transcript = ("PhD D: Okay . Grad C: Yeah . PhD A: So the new recognizer cut the word error rate on the digits "
                  "task from nine percent to six percent . PhD D: Yeah . Professor B: Right , so I guess we know "
                  "that . Grad C: The training run on the far-field microphones still crashes after two hours . "
                  "PhD D: Okay . Professor B: We will rerun the far-field training next week with smaller batches .")
    summary = ("The new recognizer lowered the digits word error rate from nine to six percent; the far-field "
               "training still crashes and will be rerun next week with smaller batches.")
    result = judge.judge("completeness", SummaryCase(source=transcript, summary=summary))
    facts = [row["fact"] for row in result.details]
    assert facts and all(len(fact.split()) > 5 for fact in facts), facts
    assert result.verdict == "present", result.explanation


def test_factuality_and_conciseness_are_left_to_other_tiers(judge: EmbeddingJudge):
    assert judge.judge("factuality", case(PARAPHRASE)) is None
    assert judge.judge("conciseness", case(PARAPHRASE)) is None
    assert set(judge.judge_all(case(PARAPHRASE))) == {"groundedness", "completeness"}
    with pytest.raises(ValueError):
        judge.judge("fluency", case(PARAPHRASE))


def test_judge_batch_equals_judge_all_per_case(judge: EmbeddingJudge):
    cases = [case(PARAPHRASE, expected_facts=FACTS), case(INVENTED), case(OFF_TOPIC), case(NEW_NUMBER)]
    batch = judge.judge_batch(cases)
    for one, together in zip(cases, batch):
        alone = judge.judge_all(one)
        assert alone == together
        assert all(alone[r].details == together[r].details for r in alone)


def test_empty_summary_and_empty_source(judge: EmbeddingJudge):
    empty = judge.judge_all(case(""))
    assert empty["groundedness"].verdict == "missing" and empty["completeness"].verdict == "absent"
    assert judge.judge_all(SummaryCase(source="", summary=PARAPHRASE)) == {}


def test_consistency_score_ranks_faithful_above_invented(judge: EmbeddingJudge):
    faithful, invented = (judge.judge("groundedness", case(s)) for s in (PARAPHRASE, INVENTED))
    assert consistency_score(faithful) > consistency_score(invented)
    wrong = RubricResult.make("factuality", "numerically_wrong", tier="rules")
    assert consistency_score(faithful, wrong) == faithful.score  # fitted weight: 0
    assert consistency_score(faithful, wrong, factuality_weight=0.5) == pytest.approx(faithful.score / 2)


class _UnsureRules:
    version = "unsure"

    def judge(self, rubric, cs):
        passing = {"groundedness": "supported", "completeness": "present", "factuality": "correct",
                   "conciseness": "concise"}[rubric]
        return RubricResult.make(rubric, passing, tier="rules", confident=False)


def test_the_cascade_takes_this_tier_where_the_rules_are_unsure(judge: EmbeddingJudge):
    cascade = Cascade(rules=_UnsureRules(), embeddings=judge)
    results = cascade.score(case(OFF_TOPIC))
    # the embedding tier's drift is a suspicion: offline it is recorded as unsure, kept for an LLM to confirm
    g = results["groundedness"]
    assert g.tier == "embeddings" and not g.confident and g.details[-1]["suspicion"] == "topic_drift"
    assert results["factuality"].tier == "rules"
    assert judge.version in cascade.version
