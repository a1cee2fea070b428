"""`sumwatch dataset` through the API client, in this process: import (bad lines reported, exit 1 unless
--allow-partial), list, show, export read back as the same items, from-issue, from-traces, from-corpus, and each
refusal as one line with its exit status (2: bad arguments, 1: no such dataset, version or issue)."""

import json

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import app

runner = CliRunner()


def run(env, *args):
    return runner.invoke(app, list(args), env=env, catch_exceptions=False)


def one_line_error(result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("error: ") and result.stderr.endswith("\n"), result.stderr
    assert result.stderr.count("\n") == 1 and text in result.stderr, result.stderr


def write_lines(path, *rows) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return str(path)


def test_import_reports_bad_lines_keeps_the_good_ones_and_exits_1_unless_partial_is_allowed(cli_env, store, tmp_path):
    f = write_lines(tmp_path / "news.jsonl", {"id": "a", "source": "Doc A.", "questions": ["Is it A?"]}, "{oops",
                    {"source": "Doc B.", "band": "tldr"}, {"source": ""})
    first = run(cli_env, "dataset", "import", "news", f, "--description", "first cut")
    assert first.exit_code == 1
    assert first.stdout == "news version 1: 2 items (a new dataset)\n"
    lines = first.stderr.splitlines()
    assert lines[:2] == [f"{f}:2: skipped: not JSON (Expecting property name enclosed in double quotes)",
                         f"{f}:4: skipped: source: blank (an item needs text to summarize)"]
    assert lines[2] == (f"error: skipped 2 of 4 lines of {f} (2 items kept); fix those lines and import again, or "
                        f"pass --allow-partial to accept a partial file")
    again = run(cli_env, "dataset", "import", "news", f, "--allow-partial", "--json")
    assert again.exit_code == 0
    answer = json.loads(again.stdout)
    assert (answer["created"], answer["dataset"]["version"], answer["items"]) == (False, 1, 2)
    assert [s["line"] for s in answer["skipped"]] == [2, 4]
    assert run(cli_env, "dataset", "import", "news", f, "--allow-partial").stdout == (
        "news: no new version, the items are the same as version 1's (2 items)\n")


def test_export_writes_lines_that_import_reads_back_as_the_same_items(cli_env, store, tmp_path):
    csv_file = tmp_path / "seed.csv"
    csv_file.write_text('id,source,reference,expected_facts,metadata.topic\n'
                        '1,"A source, with a comma",A ref.,"12%\nthe council",parks\n2,Another source,,,\n')
    assert run(cli_env, "dataset", "import", "seed", str(csv_file)).exit_code == 0
    out = tmp_path / "out.jsonl"
    exported = run(cli_env, "dataset", "export", "seed", "-o", str(out), "--json")
    assert exported.exit_code == 0 and json.loads(exported.stdout)["written"] == 2
    assert json.loads(out.read_text().splitlines()[0]) == {"id": "1", "source": "A source, with a comma",
                                                           "reference": "A ref.",
                                                           "expected_facts": ["12%", "the council"],
                                                           "metadata": {"topic": "parks"}}
    same = run(cli_env, "dataset", "import", "seed", str(out))
    assert same.exit_code == 0 and "no new version" in same.stdout
    assert run(cli_env, "dataset", "import", "copy", str(out)).exit_code == 0
    shown = [json.loads(run(cli_env, "dataset", "show", name, "--json").stdout) for name in ("seed", "copy")]
    assert shown[0]["items"] == shown[1]["items"] and len(shown[0]["items"]) == 2
    assert shown[0]["dataset"]["digest"] == shown[1]["dataset"]["digest"]
    assert run(cli_env, "dataset", "export", "copy").stdout == out.read_text()  # stdout without --output


def test_list_and_show_name_each_version_and_old_versions_stay_readable(cli_env, store, tmp_path):
    run(cli_env, "dataset", "import", "news", write_lines(tmp_path / "v1.jsonl", {"source": "Old doc."}))
    run(cli_env, "dataset", "import", "news", write_lines(tmp_path / "v2.jsonl", {"source": "New doc."},
                                                            {"source": "Newer doc."}))
    listed = json.loads(run(cli_env, "dataset", "list", "--json").stdout)
    assert [(d["name"], d["version"], d["items"], d["origin"]) for d in listed] == [("news", 2, 2, "file:v2.jsonl")]
    old = json.loads(run(cli_env, "dataset", "show", "news", "--version", "1", "--json").stdout)
    assert [v["version"] for v in old["versions"]] == [2, 1]
    assert [i["source"] for i in old["items"]] == ["Old doc."]
    page = json.loads(run(cli_env, "dataset", "show", "news", "-n", "1", "--json").stdout)
    assert [i["source"] for i in page["items"]] == ["New doc."] and page["next_cursor"]
    text = run(cli_env, "dataset", "show", "news").stdout
    assert "news: 2 version(s)" in text and "version 2: 2 items" in text and "Newer doc." in text
    assert "1 dataset(s)" in run(cli_env, "dataset", "list").stdout


def test_from_issue_traces_and_corpus_make_versions(cli_env, store, issue, corpus):
    made = json.loads(run(cli_env, "dataset", "from-issue", "SW-1", "sw1", "--json").stdout)
    assert (made["dataset"]["origin"], made["items"], made["created"]) == ("issue:SW-1", 2, True)
    assert len(made["notes"]) == 2
    items = json.loads(run(cli_env, "dataset", "show", "sw1", "--json").stdout)["items"]
    assert items[0]["metadata"]["summary_before"] == "summary 1"
    traced = run(cli_env, "dataset", "from-traces", "digest", "--service", "digest", "--search", "council", "-n", "5")
    assert traced.exit_code == 0 and traced.stdout == "digest version 1: 1 items (a new dataset)\n"
    assert "1 spans repeat a source already taken" in traced.stderr
    from_corpus = run(cli_env, "dataset", "from-corpus", "fact", "--rubric", "factuality", "--status", "labelled",
                      "--description", "labelled only")
    assert from_corpus.exit_code == 0 and "fact version 1: 1 items" in from_corpus.stdout
    assert json.loads(run(cli_env, "dataset", "list", "--json").stdout)[1]["description"] == "labelled only"


@pytest.mark.parametrize(("args", "code", "text"), [
    (("show", "nope"), 1, "error: no dataset 'nope'"),
    (("export", "nope"), 1, "error: no dataset 'nope'"),
    (("show", "news", "--version", "5"), 1, "error: dataset 'news' has no version 5 (it has 1 to 1)"),
    (("show", "bad name"), 2, "a dataset name is 1 to 64 letters, digits, '_', '-' or '.'"),
    (("import", "news", "missing.jsonl"), 2, "no such file: missing.jsonl"),
    (("import", "news", "{tmp}/items.txt"), 2, "cannot tell the format of {tmp}/items.txt from its name: pass "
                                              "--format jsonl, csv, parquet"),
    (("import", "news", "{tmp}/items.txt", "--format", "xlsx"), 2, "--format must be one of jsonl, csv, parquet"),
    (("import", "news", "{tmp}/items.txt", "--format", "parquet"), 2, "{tmp}/items.txt: not a Parquet file this "
                                                                      "server can read"),
    (("import", "news", "{tmp}/empty.jsonl"), 2, "{tmp}/empty.jsonl: the file holds no items"),
    (("import", "news", "{tmp}/bad.csv"), 2, "{tmp}/bad.csv: the CSV header has unknown column(s) 'title'"),
    (("from-issue", "SW-9", "x"), 1, "error: no issue SW-9"),
    (("from-issue", "nine", "x"), 2, "an issue id looks like SW-12 (or just 12), got 'nine'"),
    (("from-traces", "x", "--service", "nothing-here"), 1, "nothing to store in dataset 'x': no items; no "
                                                           "summarization span matches the filters"),
    (("from-traces", "x", "--verdict", "maybe"), 2, "--verdict must be one of 'pass' or 'fail', got 'maybe'"),
    (("from-corpus", "x", "--rubric", "tonality"), 2, "rubric must be one of"),
    (("from-corpus", "x", "--rubric", "factuality", "--status", "odd"), 2, "--status must be one of labelled"),
])
def test_each_refusal_is_one_line_with_its_exit_status_and_nothing_stored_is_lost(cli_env, store, tmp_path, args,
                                                                                   code, text):
    (tmp_path / "items.txt").write_text('{"source": "x"}\n')
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "bad.csv").write_text("source,title\nA,B\n")
    from sumwatch.monitor.contract.datasets import DatasetItem
    from sumwatch.monitor.datasets.versions import save_dataset
    from sumwatch.monitor.store.datasets import dataset_versions, version_items

    save_dataset(store, "news", [DatasetItem(item_id="k", source="Kept.")], origin="file:v1.jsonl")
    result = run(cli_env, "dataset", *(a.replace("{tmp}", str(tmp_path)) for a in args))
    one_line_error(result, code, text.replace("{tmp}", str(tmp_path)))
    assert [v.version for v in dataset_versions(store, "news")] == [1]
    assert [i.source for i in version_items(store, "news", 1)] == ["Kept."]
    assert [v.name for v in dataset_versions(store, "x")] == []
