"""The edit-test-promote loop against a loopback LLM that answers by what the request holds: an edited criterion
and few-shot examples reach the judge, a worse edit is refused by the gate, a forced one is stored with its reason."""

import pytest
from fakes.judge_by_prompt import LENIENT, SOURCE, factuality_by_prompt, factuality_corpus, system_prompts
from fakes.openai_server import FakeOpenAI

from sumwatch.monitor.calibration.judges import promote, resolve_examples, test_candidate
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.rubrics.definition import BUILTIN, DefinitionError, parse_definition
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.store.baselines import latest_baseline
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.store.judges import active_definitions, judge_history

pytestmark = pytest.mark.integration

CUSTOM = '''name = "tone"
version = "1"
question = "Is the summary neutral in tone?"
unit = "summary"
criteria = "Judge the tone of the whole summary."

[verdicts.neutral]
passes = true
means = "no loaded words"

[verdicts.loaded]
failure_mode = "loaded_words"
means = "words that take a side"

[failure_modes]
loaded_words = "adjectives or verbs that take a side"
'''


def candidate(version="2", marker="", examples=""):
    text = BUILTIN["factuality"].text.replace('version = "1"', f'version = "{version}"')
    if marker:
        text = text.replace("Work in this order:", f"{marker}\nWork in this order:")
    return parse_definition(text + examples, origin=f"factuality-{version}.toml")


@pytest.fixture
def fake():
    with FakeOpenAI(factuality_by_prompt) as server:
        yield server


@pytest.fixture
def cascade(settings, fake):
    with_llm = settings.with_(llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k")
    return build_cascade(with_llm, mode="always", embeddings=False)


def test_an_edited_criterion_reaches_the_judge_and_a_neutral_edit_passes(store, fake, cascade):
    save_items(store, factuality_corpus())
    report = test_candidate(store, cascade, candidate(marker="Quote the whole sentence, never a fragment."))
    assert any("Quote the whole sentence, never a fragment." in s for s in system_prompts(fake))
    assert report.gate.passed and report.items == 10 and report.changed == []
    assert report.active.kappa == report.candidate.kappa == 1.0
    assert report.active_version == BUILTIN["factuality"].judge_version
    assert report.llm_calls == 10 and report.input_tokens > 0 and report.output_tokens > 0


def test_a_worse_edit_is_refused_on_its_bucket_and_not_stored(store, fake, cascade):
    save_items(store, factuality_corpus())
    worse = candidate(marker=LENIENT)
    report = test_candidate(store, cascade, worse)
    assert not report.gate.passed
    assert any(r.startswith("bucket negation_flip: kappa 0.000 is 1.000 below the active version 1.000")
               for r in report.gate.reasons), report.gate.reasons
    assert {b.bucket: b.kappa for b in report.candidate.buckets}["entity_swap"] == 1.0  # the other bucket held
    assert sorted((c.bucket, c.human, c.active, c.candidate) for c in report.changed) == [
        ("negation_flip", "polarity_wrong", "polarity_wrong", "correct")] * 3

    refused = promote(store, cascade, worse)
    assert not refused.promoted and "the gate failed" in refused.refused
    assert judge_history(store, "factuality") == []
    assert active_definitions(store)["factuality"] is BUILTIN["factuality"]

    forced = promote(store, cascade, worse, force_reason="the negation items are mislabelled", promoted_by="ana")
    assert forced.promoted and forced.forced == "the negation items are mislabelled"
    (stored,) = judge_history(store, "factuality")
    assert stored.forced == "the negation items are mislabelled" and stored.promoted_by == "ana"
    assert stored.results["buckets"]["negation_flip"] == 0.0 and stored.results["gate_passed"] is False
    assert active_definitions(store)["factuality"].judge_version == worse.judge_version
    assert latest_baseline(store, "factuality")[0] == worse.judge_version


def test_a_version_tag_is_bound_to_its_content_and_promoting_it_again_is_a_rollback(store, fake, cascade):
    save_items(store, factuality_corpus())
    first = promote(store, cascade, candidate("2", marker="Check names first."))
    second = promote(store, cascade, candidate("3", marker="Check names last."))
    assert first.promoted and second.promoted and not second.again
    with pytest.raises(ValueError, match="version '2' is stored with other content .* give the edit a new version tag"):
        promote(store, cascade, candidate("2", marker="Something else."))
    back = promote(store, cascade, candidate("2", marker="Check names first."))
    assert back.promoted and back.again
    assert active_definitions(store)["factuality"].version == "2"


def test_few_shot_examples_reach_the_judge_and_leave_the_measurement(store, fake, cascade):
    items = factuality_corpus()
    save_items(store, items)
    marked = items[4]  # a negation, labelled
    inline = ('\n[[examples]]\nsource = "The board met on Friday."\nsummary = "The board never met."\n'
              'verdict = "polarity_wrong"\nfailure_mode = "negation_flip"\nwhy = "never reverses met"\n')
    by_id = f'\n[[examples]]\ncorpus_item = "{marked.item_id}"\n'
    with_examples = candidate(examples=inline + by_id)
    report = test_candidate(store, cascade, with_examples)
    assert report.candidate_version == report.candidate.judge_version == with_examples.judge_version  # as stored
    prompts = [s for s in system_prompts(fake) if "The board never met." in s]
    assert prompts and all(marked.summary in s and "<example>" in s for s in prompts)
    assert report.excluded == [marked.item_id] and report.items == 9
    assert any("few-shot examples are left out of the measurement" in n for n in report.notes)


def test_an_example_or_a_corpus_label_the_candidate_cannot_read_is_one_line(store, cascade):
    save_items(store, factuality_corpus())
    missing = candidate(examples='\n[[examples]]\ncorpus_item = "nope"\n')
    with pytest.raises(DefinitionError) as raised:
        resolve_examples(store, missing)
    assert str(raised.value) == ("factuality-2.toml: examples[1].corpus_item: 'nope' is not an item of the "
                                 "factuality corpus")
    pending = CorpusItem("factuality", SOURCE, "The council met.", status="needs_label")
    save_items(store, [pending])
    with pytest.raises(DefinitionError, match="is needs_label, not labelled"):
        resolve_examples(store, candidate(examples=f'\n[[examples]]\ncorpus_item = "{pending.item_id}"\n'))


def test_a_custom_rubric_without_labelled_items_has_nothing_to_gate_against(store, cascade):
    tone = parse_definition(CUSTOM, origin="tone.toml")
    report = test_candidate(store, cascade, tone)
    assert not report.gate.passed and report.candidate is None and report.active_version is None
    assert "the tone corpus has no labelled items: nothing to gate against" in report.gate.reasons[0]
    assert not promote(store, cascade, tone).promoted
    forced = promote(store, cascade, tone, force_reason="new rubric, corpus to follow")
    assert forced.promoted and active_definitions(store)["tone"].version == "1"
    save_items(store, [CorpusItem("tone", SOURCE, "The council wisely approved the budget.", "glowing", "loaded")])
    with pytest.raises(ValueError, match="labelled 'glowing', which is not one of the verdicts of tone.toml"):
        test_candidate(store, cascade, tone)
