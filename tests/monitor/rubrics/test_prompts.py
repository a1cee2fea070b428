"""LLM judge prompts and schemas, without calling a model."""

from __future__ import annotations

from sumwatch.monitor.rubrics.prompts import SCHEMAS, UNSUPPORTED
from sumwatch.monitor.rubrics.verdicts import COMPLETENESS, CONCISENESS, FACTUALITY, GROUNDEDNESS, PASSING, RUBRICS


def test_a_passing_item_verdict_only_stands_with_a_quote_from_the_source():
    for rubric in (GROUNDEDNESS, COMPLETENESS, FACTUALITY):
        schema = SCHEMAS[rubric]
        assert PASSING[rubric] <= schema.needs_evidence <= set(schema.item_verdicts)
        assert schema.downgrade_to not in PASSING[rubric] and schema.downgrade_to in schema.item_verdicts
    assert SCHEMAS[GROUNDEDNESS].needs_evidence == {"supported", "partial"}
    assert SCHEMAS[COMPLETENESS].needs_evidence == {"present", "approximate"}
    assert SCHEMAS[FACTUALITY].needs_evidence == {"correct"} and SCHEMAS[FACTUALITY].downgrade_to == UNSUPPORTED
    assert not SCHEMAS[CONCISENESS].needs_evidence
    assert set(SCHEMAS) == set(RUBRICS)
