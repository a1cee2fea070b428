"""The Python side: `evaluate` on items, `assert_summary` with readable failures, the pytest plugin's items."""

from __future__ import annotations

import pytest

from sumwatch.monitor.contract.datasets import DatasetItem
from sumwatch.monitor.datasets.versions import save_dataset
from sumwatch.monitor.testing import SummaryAssertionError, assert_summary, evaluate, judge_summary
from sumwatch.tracer import summarization

pytest_plugins = ["pytester"]

SOURCE = ("Aldermoor Retail's third-quarter sales grew 4% year over year to $2.0 billion. Profit came to $97 "
          "million. The company opened 12 stores.")
GOOD = "Aldermoor Retail's quarterly sales grew 4% to $2.0 billion, with profit of $97 million."
BROKEN = "Aldermoor Retail's quarterly sales grew 19% to $2.0 billion, with profit of $97 million."


@pytest.fixture
def offline(settings):
    return settings.with_(embeddings=False, judge_mode="off")


def test_assert_summary_passes_a_faithful_summary_and_names_rubric_verdict_and_evidence_when_not(offline):
    passed = assert_summary(SOURCE, GOOD, rubrics=["factuality", "groundedness"], settings=offline)
    assert set(passed) == {"factuality", "groundedness"} and all(r.passed for r in passed.values())
    with pytest.raises(SummaryAssertionError) as caught:
        assert_summary(SOURCE, BROKEN, rubrics=["factuality"], settings=offline)
    message = str(caught.value)
    assert message == 'factuality failed (percentage_mismatch): summary: "sales grew 19%" | source: "sales grew 4%"'
    assert [r.rubric for r in caught.value.failed] == ["factuality"]


def test_reference_rubrics_judge_against_the_reference_and_unknown_rubrics_are_refused(offline):
    results = judge_summary(SOURCE, "Here is a summary you asked for! " + GOOD * 3, reference=GOOD,
                            rubrics=["ref_length", "ref_format"], settings=offline)
    assert not results["ref_length"].passed and not results["ref_format"].passed
    with pytest.raises(ValueError, match="nothing here judged tone"):
        judge_summary(SOURCE, GOOD, rubrics=["tone"], settings=offline)


@summarization
def _summarize(text: str, reference: str = "") -> str:
    return reference or text.split(". ")[0] + "."


def test_evaluate_runs_a_function_on_items_and_returns_the_figures(offline, store):
    items = [{"id": f"q{i}", "source": SOURCE.replace("12 stores", f"{i} stores"), "reference": GOOD}
             for i in range(6)]
    result = evaluate(items, _summarize, name="from-python", settings=offline)
    assert result.ran == 6 and not result.errors and result.experiment.done == 6
    assert result.rate("factuality").judged == 6 and result.rates["factuality"] == 1.0
    again = evaluate(items, _summarize, name="from-python", settings=offline)
    assert again.resumed and again.ran == 0 and again.report.judged_now == 0


def test_the_pytest_plugin_makes_one_test_per_item(pytester, settings, store, monkeypatch):
    save_dataset(store, "plugin-set", [DatasetItem(item_id=f"i{n}", source=f"Text number {n}.") for n in range(3)],
                 origin="test")
    monkeypatch.setenv("SUMWATCH_HOME", str(settings.store.home))
    monkeypatch.setenv("SUMWATCH_DATABASE", settings.store.database)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile('''
        import pytest

        @pytest.mark.sumwatch_dataset("plugin-set")
        def test_item(sumwatch_item):
            assert sumwatch_item.source.startswith("Text number")
    ''')
    result = pytester.runpytest_inprocess("-p", "sumwatch.monitor.testing.pytest_plugin", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_item?i0? PASSED*", "*test_item?i2? PASSED*"])
