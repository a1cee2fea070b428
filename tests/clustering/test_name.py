"""Offline issue names read as a person would write them, and say what kind of failure it is."""

from sumwatch.clustering.name import KeywordNamer


def test_a_keyword_title_names_the_failure_kind_not_the_documents_topic():
    texts = ["factuality numerically wrong (number mismatch): patient trial dosage 40 mg vs 20 mg"] * 6
    name = KeywordNamer().name(texts, {"factuality": 6}, {"number_mismatch": 6})
    assert name.title == "Numbers that differ from the source (number mismatch)"
    assert "patient" not in name.title and "trial" not in name.title and len(name.title.split()) <= 10
    assert "figures" in name.root_cause and "verbatim" in name.fix and name.severity == "high"


def test_a_kind_without_a_title_of_its_own_falls_back_to_its_name_and_terms():
    name = KeywordNamer().name(["odd failure about widgets"] * 3, {"factuality": 3}, {"novel_mode": 3})
    assert name.title.lower().startswith("factuality novel mode")


def test_a_failure_mode_of_a_teams_own_rubric_is_described_by_its_definition():
    meanings = {"tone": "Is the tone neutral?", "sarcasm": "the summary mocks what it reports"}
    name = KeywordNamer().name(["tone slanted (sarcasm): mocks the quarter"] * 4, {"tone": 4}, {"sarcasm": 4},
                               meanings=meanings)
    assert "Sarcasm: the summary mocks what it reports." in name.description
    assert name.root_cause == ("Summaries fail the tone check, which asks: Is the tone neutral? "
                               "The failing ones show sarcasm.")
    # a failure mode the namer has a remedy for keeps it, whatever a glossary says
    known = KeywordNamer().name(["x"] * 3, {"factuality": 3}, {"number_mismatch": 3},
                                meanings={"number_mismatch": "numbers differ"})
    assert "numbers differ" not in known.description and "figures" in known.root_cause
