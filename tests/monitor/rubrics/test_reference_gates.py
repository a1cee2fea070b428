"""The Tri-Gate against a reference: length, format, drift and the composite, offline (a bag-of-words embedder)."""

import pytest
from reference_fakes import GOOD, REFERENCE, SOURCE, BagOfWords

from sumwatch.monitor.rubrics.reference_gates import (
    DRIFT_THRESHOLD,
    LENGTH_TOLERANCE,
    composite,
    drift_gate,
    format_gate,
    length_gate,
    tri_gate,
    tri_gate_score,
)
from sumwatch.monitor.rubrics.reference_verdicts import UNJUDGED, ReferenceCase
from sumwatch.monitor.rubrics.text import word_count


def case(summary: str, reference: str = REFERENCE) -> ReferenceCase:
    return ReferenceCase(SOURCE, summary, reference=reference)


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


# -- length -------------------------------------------------------------------------------------------------------

def test_a_candidate_within_a_fifth_of_the_references_length_passes_with_the_counts_as_evidence():
    result = length_gate(case(GOOD))
    own, theirs = word_count(GOOD), word_count(REFERENCE)
    assert abs(own - theirs) <= LENGTH_TOLERANCE * theirs
    assert (result.rubric, result.verdict, result.passed, result.failure_mode) == ("ref_length", "in_range", True, "")
    assert result.evidence == f"summary: {own} words | reference: {theirs} words"
    assert result.score == pytest.approx(min(own, theirs) / max(own, theirs))


@pytest.mark.parametrize(("summary_words", "verdict", "mode"), [
    (80, "in_range", ""), (120, "in_range", ""), (79, "too_short", "under_reference_length"),
    (121, "too_long", "over_reference_length"), (0, "too_short", "under_reference_length"),
])
def test_the_length_band_is_twenty_percent_either_way_inclusive(summary_words, verdict, mode):
    result = length_gate(case(words(summary_words), reference=words(100)))
    assert (result.verdict, result.failure_mode, result.passed) == (verdict, mode, verdict == "in_range")
    assert result.details[0]["low"] == 80 and result.details[0]["high"] == 120


def test_tokens_are_whitespace_separated_and_hold_a_letter_or_digit():
    # "-" and "," of tokenized text are not tokens; "U.S." and "4.2%" are one each
    result = length_gate(case("U.S. sales rose 4.2% , to $ 36 m - said Ana", reference="Sales in the U.S. rose 4.2%"))
    assert result.details[0]["summary_words"] == 9 and result.details[0]["reference_words"] == 6


@pytest.mark.parametrize("reference", ["", "   \n", " - , "])
def test_without_a_reference_length_is_unjudged_never_a_pass(reference):
    result = length_gate(case(GOOD, reference=reference))
    assert (result.verdict, result.passed, result.confident, result.score) == (UNJUDGED, False, False, 0.0)
    assert result.details == ({"unjudged": "no_reference"},) and "reference" in result.explanation


# -- format ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("summary", "mode", "quoted"), [
    ("Sure! Here is a summary of the article:\n" + GOOD, "chatty_preamble", "Sure! Here is a summary of the article:"),
    (GOOD + " I hope this helps!", "chatty_preamble", "I hope this helps!"),
    ("This summary covers the council vote. " + GOOD, "meta_commentary", "This summary covers the council vote."),
    (GOOD + "\nNote: I omitted the vote count.", "meta_commentary", "Note: I omitted the vote count."),
    ("## Library budget\n" + GOOD, "markdown_structure", "## Library budget"),
    ("**Key points:**\n" + GOOD, "markdown_structure", "**Key points:**"),
    ("- Council approved $4.2m.\n- Construction starts in March.", "markdown_structure", "- Council approved $4.2m."),
    ("It is important to note that " + GOOD + " In summary, a big step.", "filler_phrases",
     "It is important to note that, In summary"),
])
def test_chatter_meta_commentary_and_markdown_the_reference_lacks_fail_the_format_gate(summary, mode, quoted):
    result = format_gate(case(summary))
    assert (result.rubric, result.verdict, result.passed, result.failure_mode) == (
        "ref_format", "off_format", False, mode)
    assert result.evidence.startswith(f'summary: "{quoted}"')
    assert result.details[0] == {"issue": mode, "found": quoted}


def test_a_plain_summary_is_clean():
    result = format_gate(case(GOOD))
    assert (result.verdict, result.passed, result.score, result.evidence) == ("clean", True, 1.0, "")


def test_what_the_reference_itself_does_is_no_format_failure():
    headed = "## Library\n- Budget approved.\n- Work starts in March."
    assert format_gate(case("## Budget\n- Approved on Tuesday.\n- Starts in March.", reference=headed)).passed
    plain = "Budget approved. Work in March."
    assert not format_gate(case("## Budget\n- Approved on Tuesday.", reference=plain)).passed
    padded = "In summary, the council approved the budget. It is worth noting that work starts in March."
    assert format_gate(case("In summary, the budget passed. It is worth noting that work starts soon.",
                            reference=padded)).passed


def test_a_phrase_copied_from_the_source_is_content_not_chatter():
    source = SOURCE + " It remains to be seen whether the costs will rise again."
    summary = GOOD + " It remains to be seen whether the costs will rise again."
    assert format_gate(ReferenceCase(source, summary, reference=REFERENCE)).passed
    assert not format_gate(ReferenceCase(SOURCE, summary, reference=REFERENCE)).passed


def test_several_issues_name_the_worst_and_list_the_rest():
    result = format_gate(case("Sure! Here is a summary:\n## Budget\n" + GOOD + " Let me know if you need more."))
    assert result.failure_mode == "chatty_preamble"
    assert [d["issue"] for d in result.details] == ["chatty_preamble", "chatty_preamble", "markdown_structure"]
    assert "also markdown_structure" in result.explanation


def test_format_without_a_reference_is_unjudged():
    result = format_gate(case("Sure! Here is a summary: " + GOOD, reference=""))
    assert (result.verdict, result.passed, result.details) == (UNJUDGED, False, ({"unjudged": "no_reference"},))


# -- drift ----------------------------------------------------------------------------------------------------------

def test_a_summary_saying_what_the_reference_says_is_aligned():
    result = drift_gate(case(REFERENCE), BagOfWords())
    assert (result.rubric, result.verdict, result.passed, result.tier) == ("ref_drift", "aligned", True, "embeddings")
    assert result.score == pytest.approx(1.0, abs=1e-6) and result.details[0]["threshold"] == DRIFT_THRESHOLD
    assert result.model == "bag-of-words"


def test_a_summary_about_something_else_drifts_and_quotes_its_least_aligned_sentence():
    summary = "The council approved a budget on Tuesday. Ticket prices for the football final doubled overnight."
    result = drift_gate(case(summary), BagOfWords())
    assert (result.verdict, result.passed, result.failure_mode) == ("drifted", False, "semantic_drift")
    assert result.score < DRIFT_THRESHOLD
    assert result.evidence.startswith('summary: "Ticket prices for the football final doubled overnight." | ')
    assert f"below the cut {DRIFT_THRESHOLD:.2f}" in result.explanation


def test_the_cut_is_the_threshold_given():
    drifting = case("The council approved a budget on Tuesday. Ticket prices for the football final doubled.")
    cosine = drift_gate(drifting, BagOfWords()).score
    assert drift_gate(drifting, BagOfWords(), threshold=cosine).passed
    assert not drift_gate(drifting, BagOfWords(), threshold=cosine + 0.01).passed


def test_drift_embeds_each_sentence_once_in_one_call():
    embedder = BagOfWords()
    drift_gate(case(GOOD), embedder)
    assert len(embedder.encoded) == 1 and len(embedder.encoded[0]) == 6


def test_drift_without_an_embedder_or_a_reference_is_unjudged():
    no_model = drift_gate(case(GOOD), None)
    assert (no_model.verdict, no_model.passed, no_model.details) == (UNJUDGED, False, ({"unjudged": "no_embedder"},))
    no_reference = drift_gate(case(GOOD, reference=""), BagOfWords())
    assert no_reference.details == ({"unjudged": "no_reference"},)


def test_an_empty_summary_drifts():
    result = drift_gate(case(""), BagOfWords())
    assert (result.verdict, result.score) == ("drifted", 0.0)


# -- the composite --------------------------------------------------------------------------------------------------

def test_the_composite_formula():
    t = DRIFT_THRESHOLD
    assert composite(1.0, True, True) == pytest.approx(1.0)
    assert composite(t, True, True) == pytest.approx(0.5)
    assert composite(0.0, True, True) == 0.0
    assert composite(t / 2, True, True) == pytest.approx(0.25)
    assert composite(1.0, False, True) == composite(1.0, True, False) == pytest.approx(0.5)
    assert composite(1.0, False, False) == pytest.approx(0.25)
    assert composite(-0.3, True, True) == 0.0 and composite(1.2, True, True) == pytest.approx(1.0)


def test_all_gates_passing_scores_at_least_half_and_any_failing_at_most_half():
    for step in range(101):
        cosine = step / 100
        for length_ok in (True, False):
            for format_ok in (True, False):
                score = composite(cosine, length_ok, format_ok)
                assert 0.0 <= score <= 1.0
                if length_ok and format_ok and cosine >= DRIFT_THRESHOLD:
                    assert score >= 0.5
                else:
                    assert score <= 0.5


def test_the_tri_gate_passes_with_its_three_gates_and_scores_the_composite():
    good = case(GOOD)
    gates = [length_gate(good), format_gate(good), drift_gate(good, BagOfWords())]
    result = tri_gate(gates)
    assert (result.rubric, result.verdict, result.passed) == ("ref_tri_gate", "pass", True)
    assert result.score == pytest.approx(tri_gate_score(gates)) == pytest.approx(composite(gates[2].score, True, True))
    assert [d["gate"] for d in result.details] == ["ref_length", "ref_format", "ref_drift"]


def test_the_tri_gate_fails_with_the_first_failing_gate():
    chatty = case("Sure! Here is a summary: " + GOOD + " " + GOOD)
    gates = [length_gate(chatty), format_gate(chatty), drift_gate(chatty, BagOfWords())]
    result = tri_gate(gates)
    assert (result.verdict, result.passed, result.failure_mode) == ("fail", False, "over_reference_length")
    assert result.score <= 0.25 + 1e-9  # two gates failed: halved twice
    assert result.evidence.startswith("ref_length: summary: ") and "ref_format: summary: " in result.evidence


def test_the_tri_gate_is_unjudged_while_a_gate_is():
    offline = case(GOOD)
    gates = [length_gate(offline), format_gate(offline), drift_gate(offline, None)]
    assert tri_gate_score(gates) is None
    result = tri_gate(gates)
    assert (result.verdict, result.passed, result.details) == (UNJUDGED, False, ({"unjudged": "gate_unjudged"},))
    assert "ref_drift" in result.explanation
    assert tri_gate_score(gates[:2]) is None  # a gate left out counts as unjudged
