"""Test a summarizer from Python and pytest, before it ships.

    from sumwatch.monitor.testing import assert_summary, evaluate

    result = evaluate("regressions-sw3", summarize, name="prompt-v4")   # or a list of items (dicts or DatasetItem)
    result.rates, result.experiment.experiment_id                       # the figures `experiment run` prints

    def test_summary_keeps_the_numbers():
        assert_summary(source, summarize(source), rubrics=["factuality"], reference=gold)
        # AssertionError: factuality failed (numerically_wrong): "19%" is not in the source ...

    @pytest.mark.sumwatch_dataset("regressions-sw3")       # one test per item (the pytest plugin)
    def test_each_item(sumwatch_item):
        assert_summary(sumwatch_item.source, summarize(sumwatch_item.source), reference=sumwatch_item.reference)

``evaluate`` runs an experiment through the running ``sumwatch up`` that holds the database, or through the app in
this process when none runs, exactly as ``sumwatch experiment run`` does. ``assert_summary`` judges one summary in
this process with the cascade the settings describe (the offline tiers unless an LLM is configured), and the
reference rubrics when a reference or questions are given.
"""

from __future__ import annotations

from .api import Evaluation, SummaryAssertionError, assert_summary, evaluate, judge_summary

__all__ = ["Evaluation", "SummaryAssertionError", "assert_summary", "evaluate", "judge_summary"]
