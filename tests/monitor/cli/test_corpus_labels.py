"""`sumwatch corpus add --trace`, `corpus agreement` and `corpus resolve` through the API client: a trace labelled
by two people, their kappa, the disagreement resolved, and one-line refusals."""

import json

from fakes.judge_by_prompt import NEGATIONS
from labelled_trace import SOURCE, store_trace
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

runner = CliRunner()


def run(env, *args):
    return runner.invoke(app, list(args), env=env, catch_exceptions=False)


def test_label_a_trace_from_the_cli_by_two_people_then_agree_and_resolve(cli_env, store):
    trace_id, span_id = store_trace(store)
    added = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "fail",
                "--failure-mode", "number_mismatch", "--by", "ana", "--json")
    assert added.exit_code == 0, added.output
    item = json.loads(added.stdout)
    assert (item["trace_id"], item["span_id"], item["status"], item["origin"]) == (trace_id, span_id, "labelled",
                                                                                  "trace")
    second = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "pass",
                 "--by", "ben")
    assert second.exit_code == 0 and f"{item['item_id']}: factuality disputed" in second.stdout

    agreement = json.loads(run(cli_env, "corpus", "agreement", "--json").stdout)
    assert [(p["a"], p["b"], p["items"], p["agreed"]) for p in agreement["pairs"]] == [("ana", "ben", 1, 0)]
    (d,) = agreement["disagreements"]
    assert d["labels"] == {"ana": item["human_verdict"], "ben": "correct"} and d["resolved"] == ""
    assert "1 unresolved disagreement(s)" in run(cli_env, "corpus", "agreement").stdout

    resolved = run(cli_env, "corpus", "resolve", item["item_id"], "correct", "--by", "lead")
    assert resolved.exit_code == 0 and resolved.stdout == f"{item['item_id']}: labelled as correct\n"
    (d,) = json.loads(run(cli_env, "corpus", "agreement", "--rubric", "factuality", "--json").stdout)["disagreements"]
    assert (d["resolved"], d["resolved_by"]) == ("correct", "lead")


def test_add_fail_stores_and_prints_the_failure_named_and_a_resolution_moves_the_bucket(cli_env, store):
    trace_id, _ = store_trace(store)
    bare = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "fail")
    assert bare.exit_code == 2 and bare.stderr.count("\n") == 1, bare.output
    assert "fail does not say which factuality failure: name its failure mode (number_mismatch" in bare.stderr
    bad = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "fail",
              "--failure-mode", "name_swap")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "entity_swap" in bad.stderr, bad.output

    passed = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "pass",
                 "--by", "ana")
    assert passed.exit_code == 0 and "labelled as correct, bucket pass" in passed.stdout, passed.output
    swapped = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "factuality", "--verdict", "fail",
                  "--failure-mode", "entity_swap", "--by", "ben", "--json")
    item = json.loads(swapped.stdout)
    assert item["status"] == "disputed"
    resolved = run(cli_env, "corpus", "resolve", item["item_id"], "entity_wrong", "--by", "lead")
    assert resolved.exit_code == 0, resolved.output
    listing = json.loads(run(cli_env, "corpus", "list", "--rubric", "factuality", "-n", "500", "--json").stdout)
    (listed,) = [i for i in listing if i["item_id"] == item["item_id"]]
    assert (listed["human_verdict"], listed["bucket"]) == ("entity_wrong", "entity_swap")


def test_a_new_rubrics_corpus_is_added_and_imported_by_the_same_rule(cli_env, store, tmp_path):
    trace_id, _ = store_trace(store)
    definition = tmp_path / "negations.toml"
    definition.write_text(NEGATIONS)
    lines = tmp_path / "negations.jsonl"
    lines.write_text(json.dumps({"rubric": "negations", "source": SOURCE, "summary": "The council did not approve it.",
                                 "human_verdict": "flipped", "bucket": "negation_flip"}) + "\n")
    # not promoted and no definition given: both refuse in one line naming the rubrics there are
    for args in (("corpus", "add", "--trace", trace_id, "--rubric", "negations", "--verdict", "pass"),
                 ("corpus", "import", str(lines))):
        refused = run(cli_env, *args)
        assert refused.exit_code != 0 and "'negations' is neither built in nor promoted (rubrics: groundedness, " \
            "completeness, factuality, conciseness); a new rubric's corpus needs its definition file" in \
            refused.stderr, (args, refused.output)
    # with its definition: both take it, and the label maps pass and fail through the file's verdicts
    imported = run(cli_env, "corpus", "import", str(lines), "--definition", str(definition))
    assert imported.exit_code == 0 and "added 1" in imported.stdout, imported.output
    added = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "negations", "--verdict", "fail",
                "--failure-mode", "entity_swap", "--definition", str(definition), "--by", "ana")
    assert added.exit_code == 0 and "negations labelled as renamed, bucket entity_swap" in added.stdout, added.output
    other = tmp_path / "other.toml"
    other.write_text(NEGATIONS.replace('name = "negations"', 'name = "tone"'))
    clash = run(cli_env, "corpus", "add", "--trace", trace_id, "--rubric", "negations", "--verdict", "pass",
                "--definition", str(other))
    assert clash.exit_code == 2 and "the file defines 'tone', not 'negations'" in clash.stderr, clash.output


def test_labelling_a_trace_refuses_in_one_line(cli_env, store):
    trace_id, _ = store_trace(store)
    cases = [(("--trace", "0" * 32), "no trace 00000000000000000000000000000000 with a summarization span"),
             (("--trace", trace_id, "--verdict", "awful"), "verdict must be pass, fail or a factuality verdict"),
             (("--trace", trace_id, "--rubric", "tonality"), "'tonality' is neither built in nor promoted"),
             (("--trace", trace_id, "--span", "f" * 16), "has no summarization span")]
    for args, message in cases:
        defaults = {"--rubric": "factuality", "--verdict": "numerically_wrong"}
        given = dict(zip(args[::2], args[1::2]))
        argv = [x for k, v in {**defaults, **given}.items() for x in (k, v)]
        result = run(cli_env, "corpus", "add", *argv)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        assert message in result.stderr, (message, result.stderr)
    refused = run(cli_env, "corpus", "resolve", "nosuchitem", "correct")
    assert refused.exit_code == 2 and "no corpus item 'nosuchitem'" in refused.stderr


def test_corpus_list_pages_by_cursor_and_export_takes_every_page(cli_env, store, tmp_path):
    from sumwatch.monitor.contract.calibration import CorpusItem
    from sumwatch.monitor.store.corpus import save_items

    save_items(store, [CorpusItem("factuality", f"Revenue rose {q}% in May.", f"Revenue rose {q + 1}%.",
                                  status="needs_label", proposed_verdict="numerically_wrong") for q in range(5)])
    first = run(cli_env, "corpus", "list", "--rubric", "factuality", "--status", "needs_label", "-n", "3", "--json")
    listed = run(cli_env, "corpus", "list", "--rubric", "factuality", "--status", "needs_label", "-n", "3")
    assert "5 corpus items (showing 3)" in listed.stdout and "next page: --cursor " in listed.stderr
    cursor = listed.stderr.split("next page: --cursor ")[1].strip()
    rest = run(cli_env, "corpus", "list", "--rubric", "factuality", "--status", "needs_label", "--cursor", cursor,
               "--json")
    seen = [i["item_id"] for i in json.loads(first.stdout) + json.loads(rest.stdout)]
    assert len(seen) == len(set(seen)) == 5 and "next page" not in rest.stderr
    bad = run(cli_env, "corpus", "list", "--cursor", "not-a-cursor")
    assert bad.exit_code != 0 and "cursor is not one this server gave" in bad.output
    out = tmp_path / "all.jsonl"
    assert run(cli_env, "corpus", "export", "--rubric", "factuality", "--status", "needs_label", "-o", str(out)
               ).exit_code == 0
    assert len(out.read_text().splitlines()) == 5
