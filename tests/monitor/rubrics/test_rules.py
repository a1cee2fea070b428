"""The rules tier: RulesJudge on small hand-written source/summary pairs.

Each rule is checked both ways: the failure it should catch, and a faithful paraphrase it must leave alone.
"""

from __future__ import annotations

import pytest

from sumwatch.monitor.rubrics.rules import RulesJudge
from sumwatch.monitor.rubrics.verdicts import (
    COMPLETENESS,
    CONCISENESS,
    FACTUALITY,
    FAILURE_MODES,
    GROUNDEDNESS,
    PASSING,
    RubricResult,
    SummaryCase,
)

SOURCE = (
    "Harlow Mills reported third-quarter revenue of $4.2 million, up 12% from a year earlier. "
    "The outage lasted 188 minutes on March 5 and affected 12% of requests. "
    "The board did not approve the proposed share buyback. "
    "Most regions reported higher sales, according to chief executive Dana Whitcombe. "
    "Net income was $310,000, compared with $290,000 last year. "
    "Dr. Whitcombe said the U.S. business grew faster than the European one. "
    "Warehouse staff moved the spring catalogue into the new distribution center in Tilbury. "
    "The company plans to publish its annual report in the spring, after the auditors finish their review. "
    "Shareholders will vote on a new dividend policy at the meeting."
)

judge = RulesJudge()


def run(rubric: str, summary: str, source: str = SOURCE, **kw) -> RubricResult:
    result = judge.judge(rubric, SummaryCase(source=source, summary=summary, **kw))
    assert result.tier == "rules" and result.judge_version == judge.version
    if not result.passed:
        assert result.failure_mode in FAILURE_MODES[rubric], result.failure_mode
    assert result.explanation
    return result


def quotes_both(evidence: str, summary_phrase: str, source_phrase: str) -> bool:
    summary_part, _, source_part = evidence.partition(" | ")
    return (summary_part.startswith("summary: ") and summary_phrase in summary_part
            and source_part.startswith("source: ") and source_phrase in source_part)


# ---------------------------------------------------------------- the judge: contract


def test_unknown_rubric_is_rejected():
    with pytest.raises(ValueError, match="unknown rubric"):
        judge.judge("fluency", SummaryCase(source=SOURCE, summary="Harlow Mills grew."))


def test_judge_names_its_tier():
    assert judge.tier == "rules" and judge.version == "rules-5"


# ---------------------------------------------------------------- factuality


def test_changed_percentage_is_numerically_wrong_and_quotes_both():
    r = run(FACTUALITY, "The outage lasted 188 minutes and affected 21% of requests.")
    assert (r.verdict, r.failure_mode, r.confident, r.passed) == ("numerically_wrong", "percentage_mismatch", True,
                                                                  False)
    assert quotes_both(r.evidence, "21% of requests", "12% of requests")
    assert r.details and r.details[0]["status"] == "numerically_wrong"


def test_changed_amount_is_a_number_mismatch():
    r = run(FACTUALITY, "Harlow Mills reported third-quarter revenue of $4.8 million.")
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "number_mismatch")
    assert quotes_both(r.evidence, "$4.8 million", "$4.2 million")


def test_same_number_in_another_unit_is_a_unit_mismatch():
    r = run(FACTUALITY, "The outage lasted 188 hours on March 5.")
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "unit_mismatch")
    assert quotes_both(r.evidence, "188 hours", "188 minutes")


def test_changed_date_is_temporal_wrong():
    r = run(FACTUALITY, "The outage lasted 188 minutes on March 7.")
    assert (r.verdict, r.failure_mode) == ("temporal_wrong", "date_mismatch")
    assert quotes_both(r.evidence, "March 7", "March 5")


@pytest.mark.parametrize(("source", "summary"), [
    # SummEdits meeting transcripts write dates in lower case; summaries capitalize them
    ("PhD A: so the deadline is april 14 for the draft . Grad C: okay .", "The draft is due on April 14."),
    ("The tribunal ruled on 22 February 2020 that the dismissal was unfair.",
     "On February 22, 2020 the tribunal found the dismissal unfair."),
])
def test_dates_written_differently_are_the_same_date(source, summary):
    r = RulesJudge().judge(FACTUALITY, SummaryCase(source=source, summary=summary))
    assert r.verdict in PASSING[FACTUALITY], r.explanation


def test_lower_case_source_date_still_catches_a_changed_day():
    r = RulesJudge().judge(FACTUALITY, SummaryCase(source="PhD A: the deadline is april 14 for the draft .",
                                                   summary="The draft is due on April 16."))
    assert (r.verdict, r.failure_mode) == ("temporal_wrong", "date_mismatch")


@pytest.mark.parametrize("summary", [
    "Harlow Mills' Q3 revenue rose 12 percent to 4.2 million dollars.",
    "Revenue in the third quarter was $4.2m, a 12% gain.",
    "The outage ran for 188 minutes on March 5, hitting 12% of requests.",
    "Net income reached $310,000 against $290,000 a year before.",
])
def test_faithful_paraphrases_are_correct(summary):
    r = run(FACTUALITY, summary)
    assert r.verdict == "correct" and r.passed and r.failure_mode == ""


def test_correct_is_confident_only_when_everything_checkable_was_found():
    sure = run(FACTUALITY, "Net income was $310,000, compared with $290,000 last year.")
    assert sure.verdict == "correct" and sure.confident
    # a figure the source never mentions, with no rival figure to compare: not settled here
    unsure = run(FACTUALITY, "Harlow Mills opened 14 stores.")
    assert unsure.verdict == "correct" and not unsure.confident


def test_dropped_negation_is_polarity_wrong():
    r = run(FACTUALITY, "The board approved the proposed share buyback.")
    assert (r.verdict, r.failure_mode, r.confident) == ("polarity_wrong", "negation_flip", True)
    assert quotes_both(r.evidence, "The board approved the proposed share buyback",
                       "The board did not approve the proposed share buyback")


def test_added_negation_is_polarity_wrong():
    r = run(FACTUALITY, "Warehouse staff did not move the spring catalogue into the new distribution center.")
    assert (r.verdict, r.failure_mode) == ("polarity_wrong", "negation_flip")


@pytest.mark.parametrize("summary", [
    "The board rejected the proposed buyback.",
    "The proposed share buyback was not approved by the board.",
    "It goes without saying that the outage lasted 188 minutes.",
])
def test_negation_paraphrases_keep_polarity(summary):
    assert run(FACTUALITY, summary).verdict == "correct"


def test_stronger_quantifier_is_flagged_and_same_strength_is_not():
    r = run(FACTUALITY, "All regions reported higher sales.")
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "quantifier_mismatch")
    assert quotes_both(r.evidence, "All regions", "Most regions")
    assert run(FACTUALITY, "A majority of regions reported higher sales.").verdict == "correct"


def test_weaker_quantifier_is_a_soft_factual_slip_but_still_grounded():
    source = "All regions reported higher sales."
    r = run(FACTUALITY, "Some regions reported higher sales.", source=source)
    assert (r.verdict, r.failure_mode, r.confident) == ("numerically_wrong", "quantifier_mismatch", False)
    assert run(GROUNDEDNESS, "Some regions reported higher sales.", source=source).verdict == "supported"
    # one step down ("all" -> "nearly all") is a fair hedge
    assert run(FACTUALITY, "Nearly all regions reported higher sales.", source=source).verdict == "correct"


def test_difference_of_two_source_figures_is_not_a_mismatch():
    source = "The median emergency room wait fell to 76 minutes from 114 minutes last year."
    r = run(FACTUALITY, "The median ER wait fell by 38 minutes to 76 minutes.", source=source)
    assert r.verdict == "correct" and not r.confident  # derived, so left to a later tier to confirm
    assert run(FACTUALITY, "The median ER wait fell by 48 minutes to 76 minutes.", source=source).verdict \
        == "numerically_wrong"


def test_swapped_name_is_entity_wrong():
    # a name the source lacks, in the slot where the source names another person: a swap (of another kind,
    # a body for its spokesman, it would not be)
    r = run(FACTUALITY, "Most regions reported higher sales, said chief executive Morgan Ellery.")
    assert (r.verdict, r.failure_mode) == ("entity_wrong", "entity_swap")
    assert quotes_both(r.evidence, "Morgan Ellery", "Dana Whitcombe")


def test_name_from_elsewhere_in_the_source_put_in_the_wrong_slot():
    source = ("Ana Ruiz will draft the customer announcement by May 3. "
              "Bo Chen will book the venue for the offsite by May 9.")
    r = run(FACTUALITY, "Bo Chen will draft the customer announcement by May 3.", source=source)
    assert (r.verdict, r.failure_mode) == ("entity_wrong", "entity_swap")
    assert quotes_both(r.evidence, "Bo Chen", "Ana Ruiz")
    assert run(FACTUALITY, "Ana Ruiz drafts the customer announcement by May 3.", source=source).passed


# ---------------------------------------------------------------- groundedness


def test_grounded_summary_is_supported_with_per_claim_details():
    r = run(GROUNDEDNESS, "Harlow Mills' Q3 revenue rose 12% to $4.2 million. The board did not approve the buyback.")
    assert r.verdict == "supported" and r.passed
    assert [d["status"] for d in r.details] == ["supported", "supported"]
    assert set(r.details[0]) >= {"claim", "status", "evidence"}


def test_one_unsupported_claim_of_three_is_partial():
    r = run(GROUNDEDNESS, "Net income was $310,000. The board did not approve the buyback. "
                          "Harlow Mills also opened 14 stores.")
    assert (r.verdict, r.failure_mode, r.confident) == ("partial", "unsupported_number", True)
    assert [d["status"] for d in r.details] == ["supported", "supported", "unsupported"]
    assert "14 stores" in r.details[2]["evidence"]


def test_mostly_unsupported_summary_is_missing():
    r = run(GROUNDEDNESS, "Harlow Mills opened 14 stores. Sales tripled in Ohio.")
    assert r.verdict == "missing" and not r.passed


def test_name_the_source_never_mentions_is_unsupported():
    r = run(GROUNDEDNESS, "Net income was $310,000. Revenue rose 12%. Analysts at Brockway Partners cheered.")
    assert (r.verdict, r.failure_mode) == ("partial", "unsupported_entity")
    assert "Brockway Partners" in r.evidence


def test_acronyms_demonyms_and_headlines_are_not_unsupported_names():
    source = ("Regulators Approve Emergency Room Expansion Plan\n"
              "Chinese regulators approved the emergency room expansion on Monday.")
    r = run(GROUNDEDNESS, "China's regulators approved the ER expansion on Monday.", source=source)
    assert r.verdict == "supported"
    r = run(GROUNDEDNESS, "The ER expansion was approved by Korean regulators on Monday.", source=source)
    assert (r.verdict, r.failure_mode) == ("missing", "unsupported_entity")


def test_contradicting_number_is_contradicted():
    r = run(GROUNDEDNESS, "Net income was $410,000, compared with $290,000 last year.")
    assert (r.verdict, r.failure_mode, r.confident) == ("contradicted", "contradicted_claim", True)
    assert quotes_both(r.evidence, "$410,000", "$310,000")


def test_added_causal_link_is_flagged():
    summary = "Net income rose to $310,000 because the board did not approve the buyback."
    r = run(GROUNDEDNESS, summary)
    assert r.failure_mode == "added_causal_link" and not r.passed
    assert r.evidence.startswith('summary: "Net income rose') and "source: " in r.evidence


def test_causal_link_stated_in_the_source_is_supported():
    source = ("Net income fell to $310,000 because freight costs doubled. "
              "The board did not approve the buyback.")
    r = run(GROUNDEDNESS, "Profit dropped to $310,000 due to higher freight costs.", source=source)
    assert r.verdict == "supported"


# ---------------------------------------------------------------- completeness

FACTS = ("Revenue was $4.2 million, up 12%", "The outage lasted 188 minutes on March 5",
         "Net income was $310,000")


def test_all_expected_facts_present():
    summary = ("Q3 revenue rose 12% to $4.2 million; net income was $310,000. "
               "A 188-minute outage hit on March 5.")
    r = run(COMPLETENESS, summary, expected_facts=FACTS)
    assert (r.verdict, r.confident) == ("present", True)
    assert [d["status"] for d in r.details] == ["present"] * 3


def test_one_missing_fact_of_three_is_approximate_and_passes():
    r = run(COMPLETENESS, "Q3 revenue rose 12% to $4.2 million; net income was $310,000.", expected_facts=FACTS)
    assert r.verdict == "approximate" and r.passed and r.failure_mode == ""
    assert [d["status"] for d in r.details] == ["present", "absent", "present"]


def test_most_facts_missing_is_absent():
    r = run(COMPLETENESS, "Harlow Mills reported its quarterly results and a board decision.", expected_facts=FACTS)
    assert (r.verdict, r.failure_mode, r.confident) == ("absent", "missing_expected_fact", True)
    assert "188 minutes" in r.evidence


def test_far_too_short_summary_is_absent_for_its_band():
    r = run(COMPLETENESS, "Revenue grew.", band="exec_summary")
    assert (r.verdict, r.failure_mode, r.confident) == ("absent", "under_band_length", True)


def test_without_expected_facts_coverage_is_left_to_a_later_tier():
    r = run(COMPLETENESS, "Revenue grew 12% to $4.2 million.", band="tldr")
    assert (r.verdict, r.confident) == ("present", False)


# ---------------------------------------------------------------- conciseness

TIGHT = "Harlow Mills' Q3 revenue rose 12% to $4.2 million; net income was $310,000 and a buyback was rejected."


def test_tight_summary_is_concise_and_confident():
    r = run(CONCISENESS, TIGHT, band="tldr")
    assert (r.verdict, r.confident, r.score) == ("concise", True, 1.0)


@pytest.mark.parametrize("summary,phrase", [
    ("It is important to note that Q3 revenue rose 12% to $4.2 million.", "It is important to note that"),
    ("In conclusion, revenue rose 12% to $4.2 million in the third quarter.", "In conclusion"),
    ("In today's fast-paced retail world, revenue rose 12% to $4.2 million.", "In today's fast-paced retail world"),
])
def test_filler_phrases_pad(summary, phrase):
    r = run(CONCISENESS, summary, band="tldr")
    assert (r.verdict, r.failure_mode, r.confident) == ("padded", "filler_phrases", True)
    assert phrase in r.evidence


def test_one_weak_filler_word_alone_is_not_padding():
    assert run(CONCISENESS, "Overall, Q3 revenue rose 12% to $4.2 million.", band="tldr").verdict == "concise"


@pytest.mark.parametrize("summary", [
    "Sure! Here's a summary of the report:\n\nQ3 revenue rose 12% to $4.2 million.",
    "Certainly. Q3 revenue rose 12% to $4.2 million.",
    "Q3 revenue rose 12% to $4.2 million. I hope this helps!",
    "Q3 revenue rose 12% to $4.2 million. Let me know if you want more detail.",
])
def test_assistant_preambles_and_closers_pad(summary):
    r = run(CONCISENESS, summary, band="tldr")
    assert (r.verdict, r.failure_mode) == ("padded", "chatty_preamble")


def test_a_capitalized_opening_word_is_not_a_preamble():
    r = run(CONCISENESS, "Great Lakes shipping revenue rose 12% to $4.2 million.", source=SOURCE * 3, band="tldr")
    assert r.verdict == "concise"


def test_copying_eight_source_words_is_under_compressed():
    r = run(CONCISENESS, "Staff moved the spring catalogue into the new distribution center in Tilbury.", band="tldr")
    assert (r.verdict, r.failure_mode) == ("under_compressed", "verbatim_copy")
    assert "spring catalogue into the new distribution center in Tilbury" in r.evidence
    # seven shared words in a row is a normal restatement
    r = run(CONCISENESS, "Workers moved the spring catalogue into the new Tilbury distribution center.", band="tldr")
    assert r.verdict == "concise"


def test_three_hedges_in_a_sentence_pad():
    r = run(CONCISENESS, "Revenue perhaps rose 12%, though this might possibly be revised.", band="tldr")
    assert (r.verdict, r.failure_mode) == ("padded", "hedging")
    assert run(CONCISENESS, "Revenue may have risen 12%, which could be revised.", band="tldr").verdict == "concise"


def test_restating_one_fact_twice_pads():
    r = run(CONCISENESS, "- Net income was $310,000, up from $290,000.\n- Revenue rose 12%.\n"
                         "- Net income rose to $310,000 from $290,000.", band="action_recap")
    assert (r.verdict, r.failure_mode) == ("padded", "repeated_fact")
    assert r.evidence.count("summary: ") == 2


def test_far_over_the_band_is_bloated():
    long = " ".join(["Revenue rose 12% to $4.2 million in the quarter."] * 9)  # 81 words, tldr max is 40
    r = run(CONCISENESS, long, source=SOURCE * 10, band="tldr")
    assert (r.verdict, r.failure_mode) == ("bloated", "over_band_length")
    assert r.score <= 0.25 and "81 words" in r.evidence


def test_too_little_compression_is_under_compressed():
    # 37 words: inside the tldr word band, but half the length of its 75-word source
    summary = ("Harlow Mills grew revenue 12% to $4.2 million in the third quarter; an outage lasted 188 minutes on "
               "March 5; the board did not approve a buyback; net income was $310,000 versus $290,000 before.")
    r = run(CONCISENESS, summary, source=" ".join(SOURCE.split()[:75]), band="tldr")
    assert (r.verdict, r.failure_mode) == ("under_compressed", "low_compression")


def test_custom_or_missing_band_sets_no_length_check():
    long = " ".join(["Revenue rose 12% to $4.2 million in the quarter."] * 9)
    for band in (None, "custom"):
        assert run(CONCISENESS, long, source=SOURCE * 10, band=band).failure_mode != "over_band_length"


def test_verdicts_always_pass_through_the_shared_records():
    for rubric in (GROUNDEDNESS, COMPLETENESS, FACTUALITY, CONCISENESS):
        r = run(rubric, TIGHT, band="tldr", expected_facts=FACTS)
        assert r.passed == (r.verdict in PASSING[rubric])
        assert 0.0 <= r.score <= 1.0


def test_tokenized_text_is_read_like_ordinary_text():
    """Datasets and some pipelines tokenize ("do n't", "team 's", "word ."): sentences must still split,
    so a negation in a neighbouring quote is not read as a flipped claim."""
    from sumwatch.monitor.rubrics.text import detokenize

    assert detokenize("I do n't know . ' Next one 's here , ( fine ) .") == "I don't know.' Next one's here, (fine)."
    source = ("Townsend said : ' I do n't have a problem with that , I 'm the first to admit when I 'm wrong . ' "
              "Townsend hit back at Merson on Twitter after scoring for England against Italy .")
    summary = "Townsend hit back at merson on twitter after scoring for england against italy ."
    result = RulesJudge().judge("factuality", SummaryCase(source, summary))
    assert result.verdict == "correct", result.evidence


def test_a_copied_run_is_restatement_only_when_it_is_most_of_its_sentence():
    source = ("The regional transit authority approved a new fare structure on Tuesday after months of public "
              "hearings, raising the base fare from two dollars to two dollars and fifty cents for adult riders.")
    pasted = ("The regional transit authority approved a new fare structure on Tuesday after months of public "
              "hearings.")
    compressed = ("Riders will pay more: the regional transit authority approved a new fare structure on Tuesday, "
                  "lifting adult fares by half a dollar after a long debate.")  # an 11-word run in 25 words
    restated = judge.judge("conciseness", SummaryCase(source, pasted))
    assert restated.failure_mode == "verbatim_copy" and "restates the source" in restated.explanation
    assert judge.judge("conciseness", SummaryCase(source, compressed)).verdict == "concise"


def test_compression_is_judged_only_where_the_source_allows_it():
    short = "The council met on Monday and approved the budget for the new library in the town centre."  # 17 words
    ok = judge.judge("conciseness", SummaryCase(short, "The council approved the new library budget on Monday.",
                                                band="tldr"))
    assert ok.passed and ok.failure_mode == ""


def test_a_name_turned_modifier_is_not_checked_as_a_name():
    # SummEdits podcast and sales_email rows, consistent by human label: "Sims-centric", "AI-based"
    source = "The hosts run a channel on YouTube about The Sims and review tools that use AI to plan schedules."
    summary = "A Sims-centric YouTube channel reviews AI-based scheduling tools."
    for rubric in ("factuality", "groundedness"):
        result = judge.judge(rubric, SummaryCase(source, summary))
        assert result.failure_mode not in ("entity_swap", "unsupported_entity"), result


def test_numbers_split_or_stripped_by_tokenization_still_match():
    # SummaC rows: "# 299" is CNN/DailyMail's tokenized "£299"; "£50, 000" a split thousands separator
    watch = ("The 26-year-old was the beneficiary of the timepiece - which ranges in price from £299 to £13,500 - "
             "as he visited an Apple store.")
    assert judge.judge("factuality", SummaryCase(watch, "the timepiece ranges from # 299 to # 13,500 .")).passed
    fund = "The families set out to raise £50,000 for the memorial, and the total has now been reached."
    assert judge.judge("factuality", SummaryCase(fund, "a campaign to raise £50, 000 has reached its goal.")).passed
    wrong = judge.judge("factuality", SummaryCase(fund, "a campaign to raise £60, 000 has reached its goal."))
    assert not wrong.passed and wrong.failure_mode == "number_mismatch"


def test_a_number_word_split_by_tokenization_is_read_whole():
    # a SummEdits meeting transcript (consistent by human label): "twenty - five" is 25
    source = "Professor C: Yeah , at the last workshop they got twenty - five machines and everyone ran jobs ."
    summary = "At a previous workshop there were 25 machines that everyone ran jobs on."
    assert judge.judge("factuality", SummaryCase(source, summary)).passed
    wrong = judge.judge("factuality", SummaryCase(source, "At a previous workshop there were 20 machines."))
    assert not wrong.passed and wrong.failure_mode == "number_mismatch"


# ---------------------------------------------------------------- false alarms on faithful public summaries
# Each case is built from a consistent summary the name and number checks used to flag (issue 20).


def test_a_name_with_non_ascii_letters_copied_verbatim_is_supported():
    source = "The jaguars were moved to the Criadouro Onça Pintada sanctuary near Curitiba, where vets will treat them."
    summary = "The jaguars were moved to the Criadouro Onça Pintada sanctuary, where vets will treat them."
    assert run(FACTUALITY, summary, source=source).verdict == "correct"
    assert run(GROUNDEDNESS, summary, source=source).verdict == "supported"


@pytest.mark.parametrize("source, summary", [
    ("Norway's Kristoff won the sprint in Oslo on Sunday, ahead of the Dutch rider. The Katusha rider said the "
     "finish suited him.", "Alexander Kristoff won the sprint on Sunday, ahead of a Dutch rider."),
    ("Mr Salmond said Scotland would hold a second referendum. Salmond added that the vote would come within "
     "two years.", "Alex Salmond said Scotland would hold a second referendum within two years."),
    ("The Liberal Democrat leader said the party would oppose the bill in parliament next week.",
     "The Lib Dem leader said the party would oppose the bill."),
])
def test_a_source_name_written_another_way_is_no_swap(source, summary):
    # a first name the source leaves out, a title in place of the first name, a clipped party name
    assert run(FACTUALITY, summary, source=source).verdict == "correct"
    assert run(GROUNDEDNESS, summary, source=source).verdict == "supported"


def test_a_surname_the_source_gives_another_first_name_is_a_swap():
    # not the same person put another way (that would be "Mr Whitcombe"): another first name is another person
    source = "Chief executive Dana Whitcombe said most regions reported higher sales. Mr Whitcombe left early."
    r = run(GROUNDEDNESS, "Morgan Whitcombe said most regions reported higher sales.", source=source)
    assert (r.verdict, r.failure_mode) == ("contradicted", "contradicted_claim")
    assert quotes_both(r.evidence, "Morgan Whitcombe", "Dana Whitcombe")


@pytest.mark.parametrize("source, summary, name", [
    # a body named where the source quotes its spokesman
    ("A spokesman for the president, Josh Earnest, said the administration would review the decision.",
     "The White House said the administration would review the decision.", "White House"),
    # a club named where the source names its ground
    ("Fans gathered at Anfield on Saturday as Jordan Henderson scored the winner in the second half.",
     "Fans gathered to watch Liverpool on Saturday as Jordan Henderson scored the winner.", "Liverpool"),
])
def test_a_name_of_another_kind_is_never_a_precise_swap(source, summary, name):
    r = run(FACTUALITY, summary, source=source)
    assert r.failure_mode != "entity_swap" and r.verdict == "correct"
    r = run(GROUNDEDNESS, summary, source=source)
    assert r.verdict != "contradicted" and r.failure_mode == "unsupported_entity" and name in r.evidence


# Planted swaps of the factuality starter corpus: a name the source lacks, of the same kind as the one the
# source has in that statement, is a swap again (the rebuild first let them through as unsupported names).
@pytest.mark.parametrize("source, summary, swapped, original", [
    # whoever owns the same thing: "Rockhurst's council" where the source has the Ashbury City Council
    ("The Ashbury City Council voted 7 to 2 on February 8 to approve the rebuilding of the Foundry Street Bridge, "
     "with a budget of $117 million. Mayor Lena Adeyemi welcomed the vote.",
     "Rockhurst's council backed the $117 million bridge rebuild in a 7-2 vote on February 8.",
     "Rockhurst's", "Ashbury City Council"),
    # a plain name for a service the source names with "the" (no person, though two plain words)
    ("The Nimbus Notes file sync service was degraded for 168 minutes on February 18, beginning at 14:24 UTC. At "
     "the peak, 34% of requests to the service failed.",
     "A 168-minute file sync service outage hit Kitestream on February 18.", "Kitestream", "Nimbus Notes"),
    # an organisation for an organisation, the source's name before the clause that matches
    ("A total of 1,300 adults took part. Vantor Medicines, which developed oriluzumab, said it intends to submit "
     "an application for regulatory approval in early next year.",
     "Ilex Biopharma aims to file oriluzumab with regulators in early next year.", "Ilex Biopharma",
     "Vantor Medicines"),
])
def test_a_name_of_the_same_kind_in_the_sources_slot_is_a_swap(source, summary, swapped, original):
    r = run(FACTUALITY, summary, source=source)
    assert (r.verdict, r.failure_mode) == ("entity_wrong", "entity_swap")
    assert quotes_both(r.evidence, swapped, original)


def test_a_club_and_its_ground_both_in_the_source_are_no_swap():
    source = ("Liverpool drew 1-1 with Chelsea on Sunday. The match at Anfield was delayed by rain. "
              "Fans at Anfield sang throughout the second half.")
    summary = "Liverpool and Chelsea drew 1-1 in a match delayed by rain at Anfield."
    assert run(FACTUALITY, summary, source=source).verdict == "correct"
    assert run(GROUNDEDNESS, summary, source=source).passed


def test_a_source_name_in_another_role_is_a_suspicion():
    source = ("Acme's chief executive Dana Lee announced the merger on Monday. Raj Menon, the company's CFO, "
              "said the deal would close in May.")
    r = run(GROUNDEDNESS, "CEO Raj Menon said the deal would close in May.", source=source)
    assert (r.passed, r.failure_mode, r.confident) == (False, "unsupported_claim", False)
    assert quotes_both(r.evidence, "CEO Raj Menon", "the company's CFO")
    assert not run(FACTUALITY, "CEO Raj Menon said the deal would close in May.", source=source).confident
    # the role the source gives him, spelled out, is no clash
    assert run(GROUNDEDNESS, "Chief financial officer Raj Menon said the deal would close in May.",
               source=source).verdict == "supported"


@pytest.mark.parametrize("source, summary", [
    # the summary's bare "31" is the 31-year-old's age, not "the age of 12" in the closest statement
    ("Jones, who joined the club at the age of 12, signed a new contract on Monday. The 31-year-old has played "
     "200 games.", "Jones, 31, signed a new contract with the club on Monday."),
    # "six days a week" is no restatement of a time of day with no unit beside it
    ("When Parliament is sitting, the Daily Politics is on BBC2 from 1200-1300 on weekdays, and the Sunday "
     "Politics is on air for much of the year.", "The Daily and Sunday Politics are on air six days a week for "
                                                 "much of the year."),
    # "two students" taken to hospital is not the school's "900 students"
    ("The academy, with 900 students, was evacuated on Tuesday after a gas leak near the science block. Two were "
     "taken to hospital.", "The academy was evacuated after a gas leak near the science block and two students "
                           "were taken to hospital."),
])
def test_an_amount_is_compared_only_with_amounts_of_its_role(source, summary):
    assert run(FACTUALITY, summary, source=source).verdict == "correct"
    # no contradiction; "six days", which the source does not state, stays an unsupported amount
    assert run(GROUNDEDNESS, summary, source=source).verdict in ("supported", "missing")


def test_a_changed_amount_of_the_same_role_stays_a_mismatch():
    source = ("Jones, who joined the club at the age of 12, signed a new contract on Monday. The 31-year-old has "
              "played 200 games.")
    r = run(FACTUALITY, "The 31-year-old Jones, who joined the club at the age of 14, signed a new contract.",
            source=source)
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "number_mismatch")
    assert quotes_both(r.evidence, "14", "age of 12")
    source = ("The academy, with 900 students, was evacuated on Tuesday after a gas leak near the science block. "
              "Two were taken to hospital.")
    r = run(FACTUALITY, "The academy was evacuated after a gas leak and three students were taken to hospital.",
            source=source)
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "number_mismatch")
    r = run(FACTUALITY, "Revenue rose 21% in the third quarter.", source="Revenue rose 12% in the third quarter.")
    assert (r.verdict, r.failure_mode, r.confident) == ("numerically_wrong", "percentage_mismatch", True)


@pytest.mark.parametrize("source, summary, changed", [
    # a vote tally: the bare "2" is no count of the "two-lane" bridge elsewhere in the source
    ("On December 13, Dunmore council members approved the rebuilding of the Quarry Avenue Bridge by a vote of 10 "
     "to 1, setting aside $231 million for the work. The two-lane Quarry Avenue Bridge will be replaced with a "
     "620-meter, four-lane crossing.", "A $231 million bridge rebuild won council approval 10-2 in Dunmore.", "2"),
    # the same count named another way ("people", "adults") about the same words
    ("A total of 590 adults with chronic migraine took part in the Phase 2 study, which was run at 28 sites across "
     "6 countries.", "354 people with chronic migraine were enrolled across 6 countries.", "354 people"),
])
def test_a_changed_count_is_caught_whatever_the_source_calls_it(source, summary, changed):
    r = run(FACTUALITY, summary, source=source)
    assert (r.verdict, r.failure_mode) == ("numerically_wrong", "number_mismatch") and changed in r.evidence
    # the source's own figures pass
    faithful = summary.replace("10-2", "10-1").replace("354 people", "590 people")
    assert run(FACTUALITY, faithful, source=source).verdict == "correct"


def test_hedges_the_source_uses_are_not_padding():
    source = ("Scientists say the comet could possibly be visible next week, although it may perhaps break up before "
              "then, and forecasts are uncertain.")
    summary = "The comet could possibly become visible next week, but it may break up first."
    assert run(CONCISENESS, summary, source=source).verdict == "concise"
    # the same summary of a source that states it plainly stacks hedges of its own
    plain = "Scientists say the comet will be visible next week unless it breaks up before then."
    r = run(CONCISENESS, summary, source=plain)
    assert (r.verdict, r.failure_mode) == ("padded", "hedging")


def test_groundedness_reports_a_missing_name_before_a_negation_read_from_wording():
    source = "Harlow Mills opened a store in Leeds on Monday. The board did not approve the buyback."
    r = run(GROUNDEDNESS, "Harlow Mills opened a store in Halifax on Monday, and the board approved the buyback.",
            source=source)
    assert (r.passed, r.failure_mode) == (False, "unsupported_entity") and "Halifax" in r.evidence


def test_shouted_words_are_no_name_the_source_lacks():
    # CNN/Daily Mail highlights (HaluEval's consistent summaries) end with link text in capitals
    source = ("Arsenal beat Burnley 1-0 at Turf Moor on Saturday. Aaron Ramsey scored the only goal after 12 "
              "minutes, and the win lifted Arsene Wenger's side to second in the Premier League.")
    summary = "Arsenal beat Burnley 1-0 at Turf Moor. CLICK HERE for all the latest news."
    result = RulesJudge().judge("groundedness", SummaryCase(source, summary))
    assert result.passed, result.evidence
    # a name the source lacks is still found when it is not shouted
    lacking = RulesJudge().judge("groundedness", SummaryCase(source, "Olivier Giroud scored as Arsenal won 1-0."))
    assert not lacking.passed
