"""Text analysis the judge tiers share: sentences, words, numbers, dates, names and cues, read from plain strings."""

from __future__ import annotations

import pytest

from sumwatch.monitor.rubrics import text as tx
from sumwatch.tracer import word_count as tracer_word_count


def test_sentences_survive_abbreviations_decimals_and_bullets():
    text = ("Dr. Lee said U.S. sales hit $1.5 million, up 4.2% on the year. The firm also hired staff.\n"
            "- Owner: Ana Ruiz will draft the memo.\n- Bo Chen: book the venue")
    assert tx.split_sentences(text) == [
        "Dr. Lee said U.S. sales hit $1.5 million, up 4.2% on the year.",
        "The firm also hired staff.",
        "Owner: Ana Ruiz will draft the memo.",
        "Bo Chen: book the venue",
    ]


def test_words_lowercase_and_strip_punctuation():
    assert tx.words("U.S. sales, up 4.2% — “best” ever") == ["us", "sales", "up", "42", "best", "ever"]
    assert tx.word_count("- Owner: Ana — done.") == 3


def test_numbers_money_percentages_and_units_are_read_with_their_scale():
    items = {i.text: i for i in tx.extract_items(
        "Sales of $4.2 million and €30m rose 12 percent; 40 beds, 188 minutes and 3.2 mg over three weeks.")}
    assert items["$4.2 million"].kind == tx.MONEY and items["$4.2 million"].value == 4_200_000
    assert items["€30m"].unit == "EUR" and items["€30m"].value == 30_000_000
    assert items["12 percent"].kind == tx.PERCENT and items["12 percent"].value == 12
    assert items["40 beds"].kind == tx.QUANTITY and items["40 beds"].unit == "bed"
    assert items["188 minutes"].dimension == "time" and items["188 minutes"].base == 188 * 60
    assert items["3.2 mg"].unit == "mg"
    assert items["three weeks"].value == 3


def test_equivalent_amounts_match_and_different_ones_do_not():
    def first(text: str) -> tx.Item:
        return next(i for i in tx.extract_items(text) if i.kind in tx.NUMERIC_KINDS)

    assert tx.values_match(first("$4.2 million"), first("4,200,000 dollars"))
    assert tx.values_match(first("up 12%"), first("rose 12 percent"))
    assert tx.values_match(first("2 hours"), first("120 minutes"))
    assert tx.values_match(first("$705 million"), first("$705.1 million"))  # rounded restatement
    assert tx.values_match(first("about 50%"), first("48%"))  # stated as approximate
    assert not tx.values_match(first("$2,000"), first("$2,400"))
    assert not tx.values_match(first("21%"), first("12%"))
    assert not tx.values_match(first("12%"), first("12 stores"))
    assert tx.unit_differs(first("188 hours"), first("188 minutes"))


def test_dates_quarters_and_times_get_comparable_keys():
    text = "On Monday, March 5, 2024 at 2 p.m. the third-quarter plan for Q4 was set."
    keys = {i.key for i in tx.extract_items(text)}
    assert {"weekday:1", "day:3-5", "year:2024", "time:14:00", "quarter:3", "quarter:4"} <= keys
    assert [i.key for i in tx.extract_items("Q3 sales") if i.kind == tx.DATE] == ["quarter:3"]
    assert tx.date_supported("month:3", frozenset({"day:3-5"}))
    assert not tx.date_supported("day:3-7", frozenset({"day:3-5"}))
    # "May" the modal verb and "March" the verb are not months
    assert not tx.parse("Prices may fall. March on.").items(tx.DATE)
    assert [i.key for i in tx.parse("It opens in May. Talks end by March.").items(tx.DATE)] == ["month:5", "month:3"]


def test_day_first_and_lower_case_dates_read_as_dates():
    # day-first keeps its day ("22 February 2020" is February 22, not "February" of 2020)
    assert {i.key for i in tx.extract_items("It closed on 22 February 2020.")} >= {"day:2-22", "year:2020"}
    # lower-case month names in transcripts count when a day or a year sits beside them
    assert [i.key for i in tx.extract_items("we launch on april 14 then") if i.kind == tx.DATE] == ["day:4-14"]
    assert [i.key for i in tx.extract_items("due by 3 june") if i.kind == tx.DATE] == ["day:6-3"]
    # ... and the verbs stay verbs
    for text in ("you may 2 times over", "the 2 may be right", "by march the plan was done", "an august body"):
        assert not [i for i in tx.extract_items(text) if i.kind == tx.DATE], text


def test_names_skip_capitalized_sentence_openers():
    names = [i.text for i in tx.extract_items("Overall, Redfern Steel and Bank of America met Dana Whitcombe.")
             if i.kind == tx.ENTITY]
    assert names == ["Redfern Steel", "Bank of America", "Dana Whitcombe"]
    # a plain word that opens a sentence is not a name when the text uses it in lower case
    opener = [i for i in tx.extract_items("Nursing staff rose.", frozenset({"nursing"})) if i.kind == tx.ENTITY]
    assert opener == []


@pytest.mark.parametrize("text,negated", [
    ("The board did not approve it.", True), ("Sales won't recover.", True), ("It never shipped.", True),
    ("It shipped without tests.", True), ("The firm failed to file.", True), ("She declined to comment.", True),
    ("No link was found.", True), ("Neither plan passed.", True),
    ("Send it no later than May 3.", False), ("Revenue declined to $4 million.", False),
    ("It was a never-before-seen image.", False), ("It goes without saying.", False),
])
def test_negation_cues(text, negated):
    assert tx.has_negation(text) is negated


def test_quantifiers_carry_a_strength():
    strengths = {i.key: i.strength for i in tx.extract_items(
        "All staff, nearly all sites, most regions, several divisions and a few stores.") if i.kind == tx.QUANTIFIER}
    assert strengths == {"all": 4, "nearly all": 3, "most": 2, "several": 1, "a few": 1}
    # time phrases and totals are not quantifiers
    assert not [i for i in tx.extract_items("Every year 64,000 failed in all.") if i.kind == tx.QUANTIFIER]


def test_hedges_and_causal_connectives():
    hedges = [i.key for i in tx.extract_items("Perhaps it seems the figure might be revised.") if i.kind == tx.HEDGE]
    assert hedges == ["perhaps", "seems", "might"]
    assert tx.causal_cue("Sales fell because of the strike.") == "because of"
    assert tx.causal_cue("Sales fell in May.") is None
    assert tx.causal_cue("Errors began after the deploy.") is None
    assert tx.causal_cue("Errors began after the deploy.", strength="sequence") == "after"


def test_terms_fold_paraphrases_together():
    assert {"revenu", "rise", "12"} <= tx.terms("Revenue rose 12%") & tx.terms("sales grew 12 percent")


def test_word_count_is_the_tracers_counter():
    """summary.word_count on a span and the rubrics' length bands count words the same way."""
    assert tx.word_count is tracer_word_count


def test_words_keep_unicode_letters():
    assert tx.words("Criadouro Onça Pintada, São Paulo") == ["criadouro", "onça", "pintada", "são", "paulo"]
    assert {"onça", "são"} <= tx.name_tokens("Criadouro Onça Pintada near São Paulo")
    assert "onça" in tx.terms("the Onça sanctuary")
    assert [i.text for i in tx.extract_items("The jaguars reached Criadouro Onça Pintada and Écija.",
                                             kinds=frozenset({tx.ENTITY}))] == ["Criadouro Onça Pintada", "Écija"]


def test_ages_are_told_from_other_amounts():
    def ages(text: str) -> list[tuple[str, bool]]:
        return [(i.text, tx.is_age(text, i)) for i in tx.extract_items(text, kinds=tx.NUMERIC_KINDS)]
    assert ages("The 31-year-old has played 200 games.") == [("31-year", True), ("200 games", False)]
    assert ages("Jones, 31, joined at the age of 12.") == [("31", True), ("12", True)]
    assert ages("Revenue rose 12% in 2 years.") == [("12%", False), ("2 years", False)]


def test_a_names_kind_follows_how_the_sentence_uses_it():
    def name(sentence: str, text: str) -> tx.Item:
        return next(e for e in tx.parse(sentence).sentences[0].of_kind(tx.ENTITY) if e.text == text)

    fans = "Fans gathered at Anfield as Jordan Henderson scored."
    assert tx.name_kind(fans, name(fans, "Anfield")) == "place"
    assert tx.name_kind(fans, name(fans, "Jordan Henderson")) == "person"
    outage = "The Nimbus Notes file sync service was degraded."
    assert tx.name_kind(outage, name(outage, "Nimbus Notes")) == "other"  # a thing, though two plain words
    said = "The White House said it would review the decision."
    assert tx.name_kind(said, name(said, "White House")) == "org"
    vote = "Rockhurst's council backed the rebuild, and the Ashbury City Council agreed."
    assert tx.possessed_noun(vote, name(vote, "Rockhurst's")) == "council"
    assert tx.names_noun(vote, name(vote, "Ashbury City Council"), "council")
    assert tx.possessed_noun(said, name(said, "White House")) == ""
