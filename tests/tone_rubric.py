"""A team's own rubric, ``tone``, promoted into a store the way `judge promote` stores it, and tone scores for
stored summarization spans written as the sampler writes them (``RubricResult.judged``): what the
custom-rubric tests share.

    definition = promote_tone(store)
    spans = summarization_spans(store, 12)                  # after run_demo(store, n=12)
    write_tone_scores(store, definition, spans[:8], spans[8:])   # 8 sarcastic, 4 neutral
"""

from __future__ import annotations

from sumwatch.monitor.rubrics.definition import JudgeDefinition, parse_definition
from sumwatch.monitor.rubrics.verdicts import LLM, RubricResult
from sumwatch.monitor.store.judges import JudgeRecord, record_promotion
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer.otel_traces import TRACES_TABLE
from sumwatch.tracer.semconv import TASK, TASK_SUMMARIZATION

TONE_QUESTION = "Does the summary keep a neutral, factual tone, without mocking or cheering what it reports?"
SARCASM_MEANS = "the summary mocks the people or the events it reports, saying the opposite of what it means"
TONE = f'''
# A team's own judge: does the summary keep the even tone of a briefing?
name = "tone"
version = "1"
question = "{TONE_QUESTION}"
unit = "summary"
roll_up = "worst"
criteria = """
Read the whole summary as one item and give its verdict:
{{item_verdicts}}
For a summary that is not neutral, name the failure mode that fits best:
{{failure_modes}}
"""

[verdicts.neutral]
passes = true
score = 1.0
means = "the summary reports what the source says in a plain, even voice"

[verdicts.slanted]
passes = false
score = 0.0
failure_mode = "sarcasm"
means = "the summary takes a side: it mocks, cheers or editorialises"

[failure_modes]
sarcasm = "{SARCASM_MEANS}"
cheerleading = "the summary praises or hypes what it reports beyond what the source says"

[evidence]
required_for = []
quote_from = "summary"
'''


def promote_tone(store) -> JudgeDefinition:
    definition = parse_definition(TONE, origin="tone.toml")
    record_promotion(store, JudgeRecord.of(definition, promoted_by="test"))
    return definition


def summarization_spans(store, n: int) -> list[SpanRef]:
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp), ServiceName FROM {TRACES_TABLE} "
        f"WHERE SpanAttributes['{TASK}'] = '{TASK_SUMMARIZATION}' ORDER BY TraceId LIMIT {int(n)}")
    return [SpanRef(t, s, int(ts), svc) for t, s, ts, svc in rows]


def sarcastic(definition: JudgeDefinition, i: int) -> RubricResult:
    return RubricResult.judged(definition, "slanted", failure_mode="sarcasm",
                               evidence=f'summary: "what a triumph, yet another brilliant quarter #{i}"',
                               explanation="The summary mocks the company's results with sarcastic praise instead "
                                           "of reporting them plainly.",
                               tier=LLM, judge_version=definition.judge_version, model="openai/judge-test")


def neutral(definition: JudgeDefinition) -> RubricResult:
    return RubricResult.judged(definition, "neutral", tier=LLM, judge_version=definition.judge_version,
                               model="openai/judge-test")


def write_tone_scores(store, definition: JudgeDefinition, failing: list[SpanRef], passing: list[SpanRef] = ()) -> int:
    scored = ([ScoredSpan(ref, {"tone": sarcastic(definition, i)}) for i, ref in enumerate(failing)]
              + [ScoredSpan(ref, {"tone": neutral(definition)}) for ref in passing])
    return write_scores(store, scored, definition.judge_version)


# a tone judge with a deterministic check (a banned phrase) beside its LLM criteria
CHECKED_TONE = '''
name = "tone"
version = "v1"
question = "Is the summary written in a neutral, professional tone?"
unit = "summary"
criteria = """
Read the summary as a customer would. Cheering or mocking wording fails.
"""

[verdicts.neutral]
passes = true
means = "plain and professional throughout"

[verdicts.loaded]
failure_mode = "emotive_wording"
means = "some wording takes sides or carries emotion"

[failure_modes]
emotive_wording = "words that carry emotion or take sides"
banned_phrase = "a phrase the team never allows"

[[checks]]
phrases = ["guaranteed returns"]
verdict = "loaded"
failure_mode = "banned_phrase"
'''
