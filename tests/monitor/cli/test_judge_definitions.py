"""`sumwatch judge list|show|diff|history|test|promote` and `corpus label --example`, through the real entry
point on the test's database; test and promote against a loopback LLM that answers by what the request holds."""

import json

import pytest
from fakes.judge_by_prompt import LENIENT, NEGATIONS, factuality_by_prompt, factuality_corpus, system_prompts
from fakes.openai_server import FakeOpenAI
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition
from sumwatch.monitor.store.corpus import load_items, save_items
from sumwatch.monitor.store.judges import JudgeRecord, active_definitions, judge_history, record_promotion

runner = CliRunner()
SOURCE = "The council approved the budget on Monday. Spending on parks rises next year."


def run(env, *args):
    return runner.invoke(app, list(args), env=env)


def edited(version="2", marker="Read every negation twice."):
    text = BUILTIN["factuality"].text.replace('version = "1"', f'version = "{version}"')
    return text.replace("Work in this order:", f"{marker}\nWork in this order:")


def test_list_show_history_and_diff_of_a_promoted_version(cli_env, store):
    listed = json.loads(run(cli_env, "judge", "list", "--json").stdout)
    assert [r["rubric"] for r in listed] == ["groundedness", "completeness", "factuality", "conciseness"]
    assert all(r["shipped"] and r["builtin"] for r in listed)
    record_promotion(store, JudgeRecord.of(parse_definition(edited()), promoted_by="ana", forced="corpus too small",
                                           results={"kappa": 0.8, "buckets": {"negation_flip": 0.7}}))
    row = next(r for r in json.loads(run(cli_env, "judge", "list", "--json").stdout) if r["rubric"] == "factuality")
    assert row["version"] == "2" and not row["shipped"] and row["forced"] == "corpus too small"

    shown = run(cli_env, "judge", "show", "factuality")
    assert shown.exit_code == 0 and "Read every negation twice." in shown.stdout
    assert parse_definition(shown.stdout).version == "2"  # the file as stored: save it, edit it, test it
    shipped = run(cli_env, "judge", "show", "factuality", "--version", "shipped")
    assert shipped.stdout == BUILTIN["factuality"].text

    diff = run(cli_env, "judge", "diff", "factuality", "shipped", "2")
    assert diff.exit_code == 0
    assert "--- factuality@shipped" in diff.stdout and "+++ factuality@2" in diff.stdout
    assert '-version = "1"' in diff.stdout and "+Read every negation twice." in diff.stdout

    history = run(cli_env, "judge", "history", "factuality")
    assert history.exit_code == 0 and "0.800" in history.stdout and "negation_flip 0.700" in history.stdout
    assert "corpus too small" in history.stdout


def test_unknown_versions_and_rubrics_are_one_line(cli_env, store):
    missing = run(cli_env, "judge", "show", "factuality", "--version", "9")
    assert missing.exit_code == 1 and missing.stderr.strip().splitlines() == [
        "error: no version '9' of factuality (versions: shipped (version 1))"]
    unknown = run(cli_env, "judge", "show", "tone")
    assert unknown.exit_code == 1 and "no rubric 'tone'" in unknown.stderr
    bad_name = run(cli_env, "judge", "history", "Tone!")
    assert bad_name.exit_code == 2 and "not a rubric name" in bad_name.stderr


def test_diff_takes_the_version_names_list_shows(cli_env, store):
    listed = {r["rubric"]: r for r in json.loads(run(cli_env, "judge", "list", "--json").stdout)}
    shipped = listed["factuality"]
    assert (shipped["version"], shipped["shipped"]) == ("1", True)
    record_promotion(store, JudgeRecord.of(parse_definition(edited()), promoted_by="ana"))
    listed = json.loads(run(cli_env, "judge", "list", "--json").stdout)
    promoted = next(r for r in listed if r["rubric"] == "factuality")
    for a, b in (("shipped", "1"), ("1", "2"), ("v1", "v2"), (shipped["judge_version"], promoted["judge_version"])):
        diff = run(cli_env, "judge", "diff", "factuality", a, b)
        assert diff.exit_code == 0, (a, b, diff.output)
        if a == "shipped":
            assert diff.stdout == "" and "are the same file" in diff.stderr
        else:
            assert '-version = "1"' in diff.stdout and "+Read every negation twice." in diff.stdout, (a, b)
    shown = run(cli_env, "judge", "show", "factuality", "--version", "v1")
    assert shown.exit_code == 0 and shown.stdout == BUILTIN["factuality"].text
    unknown = run(cli_env, "judge", "diff", "factuality", "shipped", "v7")
    assert unknown.exit_code == 1 and unknown.stderr.strip().splitlines() == [
        "error: no version 'v7' of factuality (versions: 2, shipped (version 1))"]


def test_a_promotion_records_who_made_it(cli_env, store, tmp_path):
    candidate = tmp_path / "factuality.toml"
    candidate.write_text(edited())
    # the rules tier alone judges the gate: the embeddings tier would load the sentence model (integration tier)
    env = {**cli_env, "USER": "dana", "LOGNAME": "dana", "LNAME": "dana", "USERNAME": "dana",
           "SUMWATCH_EMBEDDINGS": "false"}
    promoted = run(env, "judge", "promote", "factuality", "--file", str(candidate), "--mode", "off",
                   "--force", "corpus too small")
    assert promoted.exit_code == 0, promoted.output
    assert "promoted factuality@2~" in promoted.stdout and " by dana:" in promoted.stdout
    assert judge_history(store, "factuality")[0].promoted_by == "dana"
    row = next(r for r in json.loads(run(cli_env, "judge", "list", "--json").stdout) if r["rubric"] == "factuality")
    assert row["promoted_by"] == "dana"
    assert "by dana" in run(cli_env, "judge", "show", "factuality").stderr


def test_a_broken_candidate_file_is_one_line_naming_file_and_key(cli_env, store, tmp_path):
    path = tmp_path / "factuality.toml"
    path.write_text(edited().replace("[failure_modes]\nnumber_mismatch = \"a count or amount differs from the "
                                     "source\"", "[failure_modes]\nnumber_mismatch = \"\""))
    for command in ("test", "promote"):
        result = run(cli_env, "judge", command, "factuality", "--file", str(path))
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, result.output
        assert lines[0] == f"error: {path}: failure_modes.number_mismatch: has no description: give each failure " \
                           f"mode one line saying what it means"
    path.write_text("name = [")
    result = run(cli_env, "judge", "test", "factuality", "--file", str(path))
    assert result.exit_code == 2 and "not valid TOML" in result.stderr and len(result.stderr.splitlines()) == 1
    path.write_text(BUILTIN["groundedness"].text)
    result = run(cli_env, "judge", "test", "factuality", "--file", str(path))
    assert result.exit_code == 2 and "the file defines 'groundedness', not 'factuality'" in result.stderr


@pytest.mark.parametrize(("content", "line"), [
    # tomllib reads nesting by recursion: this was a 3,000-line traceback and exit 1
    ('name = "factuality"\n\nchecks = ' + "[" * 2000 + "]" * 2000 + "\n",
     "line 3: checks nests more than 32 levels deep (arrays and inline tables)"),
    (b'name = "factuality"\nquestion = "caf\xe9?"\n', "line 2, column 16: not UTF-8 text (byte 0xe9)"),
    ('name = "factuality"\nquestion = "\\ud800"\n', "not valid TOML"),
])
def test_a_deep_or_undecodable_candidate_file_is_one_line(cli_env, store, tmp_path, content, line):
    path = tmp_path / "deep.toml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run(cli_env, "judge", "test", "factuality", "--file", str(path))
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {path}: ") and line in lines[0]


def test_label_example_offers_the_item_to_the_definition(cli_env, store):
    hard = CorpusItem("factuality", SOURCE, "The council did not approve the budget.", status="needs_label",
                      proposed_verdict="polarity_wrong")
    save_items(store, [hard])
    labelled = run(cli_env, "corpus", "label", hard.item_id, "polarity_wrong", "--bucket", "negation_flip",
                   "--example")
    assert labelled.exit_code == 0 and "offered as a few-shot example" in labelled.stdout
    (item,) = load_items(store, item_id=hard.item_id)
    assert item.example and item.status == "labelled"

    view = json.loads(run(cli_env, "judge", "show", "factuality", "--json").stdout)
    assert [o["item_id"] for o in view["example_offers"]] == [hard.item_id]
    shown = run(cli_env, "judge", "show", "factuality")
    assert f'corpus_item = "{hard.item_id}"' in shown.stderr

    # a version that uses it no longer offers it
    uses = edited() + f'\n[[examples]]\ncorpus_item = "{hard.item_id}"\n'
    record_promotion(store, JudgeRecord.of(parse_definition(uses)))
    view = json.loads(run(cli_env, "judge", "show", "factuality", "--json").stdout)
    assert view["example_offers"] == [] and view["examples_in_use"] == [hard.item_id]

    rejected = run(cli_env, "corpus", "label", hard.item_id, "rejected", "--example")
    assert rejected.exit_code == 2 and "a rejected item cannot be a few-shot example" in rejected.stderr


@pytest.fixture
def llm_env(cli_env):
    with FakeOpenAI(factuality_by_prompt) as fake:
        yield fake, {**cli_env, "SUMWATCH_LLM_MODEL": "openai/judge-test", "SUMWATCH_LLM_API_BASE": fake.base_url,
                     "SUMWATCH_LLM_API_KEY": "k", "SUMWATCH_EMBEDDINGS": "false", "SUMWATCH_JUDGE_MODE": "always"}


def negations(version, marker=""):
    text = NEGATIONS.replace('version = "1"', f'version = "{version}"')
    return text.replace('criteria = "', f'criteria = "{marker} ') if marker else text


@pytest.mark.integration
def test_a_custom_rubric_through_test_and_promote_refusing_a_worse_edit_unless_forced(llm_env, store, tmp_path):
    fake, env = llm_env
    save_items(store, factuality_corpus("negations"))
    first, good, bad = tmp_path / "v1.toml", tmp_path / "v2.toml", tmp_path / "v3.toml"
    first.write_text(negations("1"))
    good.write_text(negations("2", "Quote the whole sentence."))
    bad.write_text(negations("3", LENIENT))

    # a new rubric: nothing active to compare with, so its first version passes and becomes the baseline
    tested = run(env, "judge", "test", "negations", "--file", str(first))
    assert tested.exit_code == 0, tested.output
    assert "no active version" in tested.stdout and "candidate run: 10 LLM call(s)" in tested.stdout
    promoted = run(env, "judge", "promote", "negations", "--file", str(first))
    assert promoted.exit_code == 0 and "promoted negations@1~" in promoted.stdout, promoted.output

    passed = run(env, "judge", "test", "negations", "--file", str(good))
    assert passed.exit_code == 0, passed.output
    assert "negations@2~" in passed.stdout and "negation_flip" in passed.stdout and "gate: passed" in passed.stdout
    assert "no item changed verdict" in passed.stdout
    assert any("Quote the whole sentence." in p for p in system_prompts(fake))

    tested = run(env, "judge", "test", "negations", "--file", str(bad))
    assert tested.exit_code == 1, tested.output
    assert "3 item(s) changed verdict" in tested.stdout
    assert "gate: bucket negation_flip: kappa 0.000 is 1.000 below the active version" in tested.stderr
    as_json = json.loads(run(env, "judge", "test", "negations", "--file", str(bad), "--json").stdout)
    assert as_json["gate"]["passed"] is False and len(as_json["changed"]) == 3

    refused = run(env, "judge", "promote", "negations", "--file", str(bad))
    assert refused.exit_code == 1 and "error: not promoted: the gate failed" in refused.stderr
    assert [r.version for r in judge_history(store, "negations")] == ["1"]

    forced = run(env, "judge", "promote", "negations", "--file", str(bad), "--force", "negations mislabelled",
                 "--by", "ana")
    assert forced.exit_code == 0, forced.output
    assert "promoted negations@3~" in forced.stdout and "gate overridden: negations mislabelled" in forced.stdout
    stored = judge_history(store, "negations")[0]
    assert (stored.version, stored.forced, stored.promoted_by) == ("3", "negations mislabelled", "ana")
    assert LENIENT in active_definitions(store)["negations"].criteria
    listed = {r["rubric"]: r for r in json.loads(run(env, "judge", "list", "--json").stdout)}
    assert listed["negations"]["version"] == "3" and not listed["negations"]["builtin"]

    # the same tag with other content: one line, nothing stored
    clash = tmp_path / "clash.toml"
    clash.write_text(negations("3", "Something else."))
    result = run(env, "judge", "promote", "negations", "--file", str(clash))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output
    assert "version '3' is stored with other content" in result.stderr
    assert len(judge_history(store, "negations")) == 2
