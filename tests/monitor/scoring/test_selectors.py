"""Configured selectors: from a file and from variables, glob / regex / any-of matches that agree in SQL and in
Python, templates, the legacy filter adding to the tag, bad configuration as one line; the recognition step
(every call recognised, only the sampled share scored) and GenAI log records that arrive late."""

import json

import pytest

from sumwatch.monitor.scoring.sampler import Sampler, SamplingPolicy, SpanSelector
from sumwatch.monitor.scoring.selectors import Selectors
from sumwatch.monitor.settings import Settings, SettingsError
from sumwatch.monitor.store.genai_events import GenAiEvent, write_genai_events
from sumwatch.monitor.store.watermarks import read_watermark
from tests.monitor.scoring.chat_calls import COUNCIL, EARNINGS, SUMMARIES, gen_ai_events, gen_ai_span_without_content

BASE_NS = 1767225600 * 10**9
PROMPT = "You are given a customer document.\nDOCUMENT START\n{doc}\nDOCUMENT END\nWrite a short summary."


def span(i, name, attributes, service="bot", events=()):
    return (BASE_NS + i * 10**9, f"{i:032x}", f"{i:016x}", "", "", name, "Client", service,
            {"service.name": service}, "custom", "", attributes, 10, "Unset", "",
            tuple(BASE_NS + i * 10**9 for _ in events), tuple(n for n, _ in events), tuple(a for _, a in events),
            (), (), (), ())


def recognised_rows(store):
    rows = store.query_rows("SELECT SpanId, Instrumentation, Source, Summary, Model, InputTokens, Band, DocumentId "
                            "FROM sumwatch_recognised FINAL")
    return {int(r[0], 16): r[1:] for r in rows}


TOML = r'''
[[selector]]
name = "rag"
span_name_glob = "rag.*.answer"
attribute_regexes = { "app.prompt" = "DOCUMENT START" }
source = "app.prompt"
summary = "app.answer"
source_template = '(?s)DOCUMENT START\n(?P<document>.*?)\nDOCUMENT END'
model = "app.model"
input_tokens = "app.tokens_in"
band = "app.band"
document_id = "app.doc"

[[selector]]
name = "digest"
any = [{ service = "digest-worker" }, { span_name_regex = "^digest[.-]" }]
attributes = { "app.kind" = "digest" }
source = "in"
summary = "out"
'''


@pytest.fixture
def configured(tmp_path):
    path = tmp_path / "selectors.toml"
    path.write_text(TOML)
    env = {"SUMWATCH_SELECTORS": str(path),
           "SUMWATCH_SELECTOR_NOTES": json.dumps({"span_name": "notes.summarize", "source": "gen_ai.input.messages",
                                                  "summary": "gen_ai.output.messages"})}
    return Settings.from_env(env)


def test_selectors_from_a_file_and_variables_match_alike_in_sql_and_python(store, rules_cascade, configured):
    assert [e.name for e in configured.sampler.selector_entries()] == ["rag", "digest", "notes"]
    messages = json.dumps([{"role": "user", "content": f"Summarize: {EARNINGS}"}])
    answer = json.dumps([{"role": "assistant", "content": "Revenue rose 6%; margin fell; outlook cut."}])
    rows = [
        span(1, "rag.v2.answer", {"app.prompt": PROMPT.format(doc=COUNCIL), "app.answer": "Bridge shut March-June.",
                                  "app.model": "m-1", "app.tokens_in": "321", "app.band": "tldr", "app.doc": "d-7"}),
        span(2, "rag.v2.answer", {"app.prompt": "DOCUMENT START, no end", "app.answer": "x"}),  # template fails
        span(3, "rag.answer.v2", {"app.prompt": PROMPT.format(doc=COUNCIL), "app.answer": "y"}),  # glob fails
        span(4, "anything", {"app.kind": "digest", "in": COUNCIL, "out": "Bridge shut."}, service="digest-worker"),
        span(5, "digest-daily", {"app.kind": "digest", "in": EARNINGS, "out": "Revenue up."}),
        span(6, "digest-daily", {"app.kind": "other", "in": EARNINGS, "out": "Revenue up."}),  # own key fails
        span(7, "weekly", {"app.kind": "digest", "in": EARNINGS, "out": "Revenue up."}),  # no alternative holds
        span(8, "notes.summarize", {"gen_ai.input.messages": messages, "gen_ai.output.messages": answer}),
        span(9, "unrelated", {"foo": "bar"}),
    ]
    store.insert_spans(rows)
    selector = SpanSelector.from_settings(configured)
    selectors = selector.selectors
    # the SQL cut takes exactly the spans the Python match takes
    params = {}
    in_sql = {int(sid, 16) for (sid,) in store.query_rows(
        f"SELECT SpanId FROM otel_traces WHERE {selectors.where(params)}", params)}
    in_python = {int(r[2], 16) for r in rows if selectors.first(r[5], r[7], r[11]) is not None}
    assert in_sql == in_python == {1, 2, 4, 5, 8}

    sampler = Sampler(store, rules_cascade, selector)
    assert sampler.recognise_pending() == 4  # span 2 matched "rag" but its template found no document
    found = recognised_rows(store)
    assert set(found) == {1, 4, 5, 8}
    # the template cut the document out of the prompt; the other keys came along
    assert found[1] == ("rag", COUNCIL, "Bridge shut March-June.", "m-1", 321, "tldr", "d-7")
    assert found[4][:3] == ("digest", COUNCIL, "Bridge shut.")
    # a JSON message list is read as messages: the user turn and the answer's text, not the JSON
    assert found[8][:3] == ("notes", f"Summarize: {EARNINGS}", "Revenue rose 6%; margin fell; outlook cut.")
    report = sampler.run_pass()
    assert report.scored_spans == 4


def test_a_refusal_says_which_selector_and_why(configured):
    selectors = Selectors.from_settings(configured)
    refusal = selectors.recognise("rag.x.answer", "bot", {"app.prompt": "DOCUMENT START but no end",
                                                          "app.answer": "a"})
    assert refusal.instrumentation == "rag" and "source_template does not match" in refusal.reason
    missing = selectors.recognise("notes.summarize", "bot", {})
    assert missing.instrumentation == "notes" and "gen_ai.input.messages" in missing.reason
    # matched by none: the built-in rules answer
    assert selectors.recognise("other", "bot", {"foo": "bar"}).instrumentation == ""


def test_the_legacy_filter_adds_to_the_tag(store, rules_cascade):
    from sumwatch.monitor.demo.run import run_demo

    run_demo(store, n=3, seed=4)  # tagged spans
    store.insert_spans([span(1, "ChatCompletion", {"llm.request.kind": "summary", "doc": COUNCIL,
                                                   "ans": "The bridge closes from March to June."}),
                        span(2, "ChatCompletion", {"llm.request.kind": "other", "doc": COUNCIL, "ans": "x"})])
    settings = Settings.from_env({"SUMWATCH_SPAN_FILTER": "span_name=ChatCompletion,attr:llm.request.kind=summary",
                                  "SUMWATCH_SOURCE_KEY": "doc", "SUMWATCH_SUMMARY_KEY": "ans"})
    assert [e.name for e in settings.sampler.selector_entries()] == ["span_filter"]
    report = Sampler.from_settings(store, rules_cascade, settings).run_pass()
    assert report.recognised == 1 and report.scored_spans == 4  # the three tagged spans and the one it matches
    assert set(recognised_rows(store)) == {1}


@pytest.mark.parametrize(("env", "line"), [
    ({"SUMWATCH_SELECTORS": "{path}"},
     "SUMWATCH_SELECTORS {path}: selector 'rag' has a regular expression in span_name_regex that RE2 (the "
     "database's engine) refuses: missing ): (unclosed"),
    # Python reads these two; ClickHouse's RE2 does not, so every pass would fail on them in the database
    ({"SUMWATCH_SELECTOR_RAG": '{"span_name_regex": "a*+", "source": "a", "summary": "b"}'},
     "SUMWATCH_SELECTOR_RAG: selector 'rag' has a regular expression in span_name_regex that RE2 (the database's "
     "engine) refuses: bad repetition operator: *+"),
    ({"SUMWATCH_SELECTOR_RAG": '{"span_name_regex": "(?>ab)c", "source": "a", "summary": "b"}'},
     "refuses: invalid perl operator: (?>"),
    ({"SUMWATCH_SELECTOR_RAG": '{"span_name": "x", "source": "a"}'},
     "SUMWATCH_SELECTOR_RAG: selector 'rag' needs summary"),
    ({"SUMWATCH_SELECTOR_RAG": '{"source": "a", "summary": "b"}'}, "SUMWATCH_SELECTOR_RAG: selector 'rag' matches "
                                                                   "nothing"),
    ({"SUMWATCH_SELECTOR_RAG": '{"span_name": "x", "source": "a", "summary": "b", "source_template": "(.*)"}'},
     "SUMWATCH_SELECTOR_RAG: selector 'rag' has a source_template without a named group (?P<document>...)"),
    ({"SUMWATCH_SELECTOR_RAG": '{"attribute_regexes": {"k": "(?<=a)b"}, "source": "a", "summary": "b"}'},
     "refuses: invalid perl operator: (?<="),
    ({"SUMWATCH_SELECTOR_RAG": '{"span_nam": "x"}'}, "SUMWATCH_SELECTOR_RAG: selector 'rag' has an unknown key "
                                                      "'span_nam'"),
    ({"SUMWATCH_SELECTOR_RAG": "span_name=x"}, "SUMWATCH_SELECTOR_RAG: not a JSON object"),
    ({"SUMWATCH_SELECTOR_RAG": "[" * 5000 + "]" * 5000}, "SUMWATCH_SELECTOR_RAG: a JSON object nested too deeply"),
    ({"SUMWATCH_SELECTOR_RAG": '{"span_name": "\\ud800", "source": "a", "summary": "b"}'},
     "SUMWATCH_SELECTOR_RAG: holds text that is not Unicode ('\\ud800')"),
    ({"SUMWATCH_SELECTORS": "{deep}"}, "SUMWATCH_SELECTORS {deep}: line 6: any nests more than 32 levels deep"),
    ({"SUMWATCH_SELECTORS": "/nonexistent/selectors.toml"}, "SUMWATCH_SELECTORS /nonexistent/selectors.toml: "
                                                             "cannot read the file"),
    ({"SUMWATCH_SPAN_FILTER": "spanname=x"}, "SUMWATCH_SPAN_FILTER has a bad span filter"),
])
def test_bad_configuration_is_one_line_naming_where_which_entry_and_field(tmp_path, env, line):
    path = tmp_path / "bad.toml"
    path.write_text('[[selector]]\nname = "rag"\nspan_name_regex = "(unclosed"\nsource = "a"\nsummary = "b"\n')
    deep = tmp_path / "deep.toml"
    deep.write_text('[[selector]]\nname = "rag"\nspan_name = "x"\nsource = "a"\nsummary = "b"\n'
                    'any = ' + "[" * 2000 + "]" * 2000 + "\n")
    env = {k: v.replace("{path}", str(path)).replace("{deep}", str(deep)) for k, v in env.items()}
    line = line.replace("{deep}", str(deep))
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    message = str(caught.value)
    assert message.startswith(line.replace("{path}", str(path))) or line in message
    assert "\n" not in message and "Traceback" not in message


def test_every_call_is_recognised_but_only_the_sampled_share_is_scored(store, rules_cascade):
    call = SUMMARIES[0]
    rows = [span(i, "summarize", {"app.kind": "digest", "in": COUNCIL, "out": call.answer}) for i in range(1, 41)]
    store.insert_spans(rows)
    settings = Settings.from_env({"SUMWATCH_SELECTOR_DIGEST": json.dumps(
        {"attributes": {"app.kind": "digest"}, "source": "in", "summary": "out"})})
    policy = SamplingPolicy(rate=0.3)
    sampler = Sampler(store, rules_cascade, SpanSelector.from_settings(settings), policy)
    report = sampler.run_pass()
    assert report.recognised == 40 and len(recognised_rows(store)) == 40  # listed and counted: all of them
    sampled = {r[1] for r in rows if policy.takes(r[1], "bot", "Unset")}
    scored = {t for (t,) in store.query_rows("SELECT DISTINCT TraceId FROM sumwatch_scores")}
    assert scored == sampled and 0 < len(sampled) < 40
    assert read_watermark(store, sampler.recognition_watermark) == rows[-1][0]
    again = sampler.run_pass()
    assert again.recognised == 0 and again.scored_spans == 0


def test_content_logged_after_the_look_back_is_still_joined(store, rules_cascade):
    call = SUMMARIES[0]
    old = span(1, "chat gpt-4o-mini", gen_ai_span_without_content(call))
    newer = span(5000, "chat gpt-4o-mini", {"gen_ai.operation.name": "chat"})  # moves the watermark on
    store.insert_spans([old, newer])
    sampler = Sampler(store, rules_cascade, lookback_s=60)
    first = sampler.run_pass()
    assert first.recognised == 0 and read_watermark(store, sampler.recognition_watermark) == newer[0]
    # the call's log records arrive now, timestamped after the bound; the span is far behind it
    write_genai_events(store, [GenAiEvent(newer[0] + i, old[1], old[2], e["event.name"], e["body"], i)
                               for i, e in enumerate(gen_ai_events(call))])
    second = sampler.run_pass()
    assert second.recognised == 1 and second.scored_spans == 1
    assert recognised_rows(store)[1][1:3] == (call.document, call.answer)
    assert sampler.run_pass().scored_spans == 0


def test_records_sent_late_with_their_own_old_time_are_joined_on_the_next_pass(store, rules_cascade):
    call = SUMMARIES[0]
    old = span(1, "chat gpt-4o-mini", gen_ai_span_without_content(call))
    hour_later = span(3601, "chat gpt-4o-mini", {"gen_ai.operation.name": "chat"})  # moves the watermark on
    store.insert_spans([old, hour_later])
    sampler = Sampler(store, rules_cascade)  # the default 10-minute look-back: the old span is far behind it
    first = sampler.run_pass()
    assert first.recognised == 0 and first.scored_spans == 0
    assert read_watermark(store, sampler.recognition_watermark) == hour_later[0]
    # an exporter's batch log processor flushes the call's records an hour later, stamped with the call's time
    write_genai_events(store, [GenAiEvent(old[0] + i, old[1], old[2], e["event.name"], e["body"], i)
                               for i, e in enumerate(gen_ai_events(call))])
    second = sampler.run_pass()
    assert second.recognised == 1 and second.scored_spans == 1
    assert recognised_rows(store)[1][1:3] == (call.document, call.answer)
    assert sampler.run_pass().scored_spans == 0
