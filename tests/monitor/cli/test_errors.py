"""Every CLI error is one line on stderr (`error: ...`) and a non-zero exit, never a traceback."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.engine import local as engine_local
from sumwatch.monitor.store.connection import StoreBusyError

runner = CliRunner()


def run(env, *args):
    return runner.invoke(app, list(args), env=env)


def one_error_line(result, code):
    """The error line, after checking it is the only thing on stderr and the exit code is ``code``."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_a_window_beyond_100_years_is_refused_before_the_run(cli_env, store):
    line = one_error_line(run(cli_env, "cluster", "--window", "99999999999999999999d"), 2)
    assert "SUMWATCH_CLUSTER_WINDOW (--window) must be a positive duration of at most 100 years" in line


@pytest.mark.parametrize("url", ["htp://x", "postgres://me:secret@db:5432/otel", "ch.example.com:8123"])
def test_urls_other_than_chdb_http_https_are_refused(cli_env, url):
    line = one_error_line(run(cli_env, "db", "migrate", "--db", url), 2)
    assert "SUMWATCH_CLICKHOUSE_URL (--db) must start with chdb://, http:// or https://" in line
    assert "secret" not in line


def test_a_chdb_folder_whose_parent_is_missing_is_not_created(cli_env, tmp_path):
    line = one_error_line(run(cli_env, "traces", "--db", f"chdb://{tmp_path}/missing/db"), 3)
    assert f"the folder {tmp_path}/missing does not exist" in line
    assert not (tmp_path / "missing").exists()


def test_a_home_that_is_a_file_is_one_line(cli_env, tmp_path):
    (tmp_path / "home").write_text("")
    assert "is a file, not a folder" in one_error_line(run(cli_env, "traces", "--home", str(tmp_path / "home")), 3)


def test_export_to_a_missing_folder_or_onto_a_folder_is_refused_before_the_export(cli_env, store, tmp_path):
    target = tmp_path / "missing" / "dir" / "x.jsonl"
    line = one_error_line(run(cli_env, "corpus", "export", "-o", str(target)), 2)
    assert line == f"error: cannot write {target}: the folder {target.parent} does not exist"
    assert "it is a folder" in one_error_line(run(cli_env, "corpus", "export", "-o", str(tmp_path)), 2)
    written = run(cli_env, "corpus", "export", "--rubric", "factuality", "-o", str(tmp_path / "x.jsonl"))
    assert written.exit_code == 0 and (tmp_path / "x.jsonl").read_text().count("\n") > 0


@pytest.mark.parametrize("args, message", [
    (("corpus", "export", "--status", "bogus"),
     "status must be one of labelled, needs_label, rejected, disputed, got 'bogus'"),
    (("scores", "--trace", "xyz"), "trace id must be 32 hex characters, got 'xyz'"),
    (("db", "ddl", "--database", " "), "--database and --cluster must not be empty"),
    (("corpus", "import", "/nonexistent.jsonl"), "no such file: /nonexistent.jsonl"),
    (("issues", "show", "bogus"), "an issue id looks like SW-12"),
])
def test_bad_values_are_one_line(cli_env, store, args, message):
    assert message in one_error_line(run(cli_env, *args), 2)


def test_files_that_are_folders_are_named_as_such(cli_env, store, tmp_path):
    for command in (("ingest",), ("corpus", "import")):
        assert f"not a file: {tmp_path} (a folder)" in one_error_line(run(cli_env, *command, str(tmp_path)), 2)


def bad_lines_file(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"source": "The plant opened in May with 40 staff.", "summary": "Plant opened in May."}\n'
                     b"not json\n[1, 2]\n\xff\xfe\n")
    return path


def test_ingest_with_skipped_lines_exits_1_and_says_how_many(cli_env, store, tmp_path):
    path = bad_lines_file(tmp_path)
    result = run(cli_env, "ingest", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert [line.split(":")[1] for line in lines[:-1]] == ["2", "3", "4"]  # each skipped line, by number
    assert lines[-1] == (f"error: skipped 3 of 4 lines of {path} (1 stored); fix those lines and ingest only them "
                         f"again, or pass --allow-partial to accept a partial file")
    accepted = run(cli_env, "ingest", str(path), "--allow-partial", "--json")
    assert accepted.exit_code == 0 and json.loads(accepted.stdout)["stored"] == 1


def test_corpus_import_with_skipped_lines_exits_1_unless_partial_is_allowed(cli_env, store, tmp_path):
    path = bad_lines_file(tmp_path)
    result = run(cli_env, "corpus", "import", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: skipped 4 of 4 lines of {path} (0 stored)")
    assert run(cli_env, "corpus", "import", str(path), "--allow-partial").exit_code == 0


@pytest.mark.parametrize("line", [
    b'{"source": "a b c", "summary": "a", "timestamp": "2262-04-12T00:00:00Z"}',  # past DateTime64(9)
    b"[" * 100_000,  # deeper than the JSON parser recurses
])
@pytest.mark.parametrize("command", [("ingest",), ("corpus", "import")])
def test_input_the_parsers_or_the_database_cannot_take_ends_in_one_line(cli_env, store, tmp_path, line, command):
    path = tmp_path / "odd.jsonl"
    path.write_bytes(line + b"\n")
    result = run(cli_env, *command, str(path))
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "/tmp/tmp" not in last, last


def test_a_limit_beyond_the_maximum_is_a_usage_error_not_a_wrapped_query(cli_env, store):
    result = run(cli_env, "traces", "--limit", "4294967296")
    assert result.exit_code == 2 and "Traceback" not in result.output and "10000" in result.output


class _Answer(BaseHTTPRequestHandler):
    status = 200
    body = b"[]"

    def do_GET(self):  # noqa: N802 - the http.server name
        self.send_response(self.status)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(self.body)

    def do_POST(self):  # noqa: N802 - the same answer to a request that changes something
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def server_holding_the_store(monkeypatch):
    """A loopback stand-in for `sumwatch up`: the store is busy, held by it; returns set(status, body)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    api = f"http://127.0.0.1:{httpd.server_port}"

    def busy(settings, **kwargs):
        raise StoreBusyError("busy", api=api)

    monkeypatch.setattr(engine_local, "open_store", busy)

    def answer(status, body=b"[]"):
        monkeypatch.setattr(_Answer, "status", status)
        monkeypatch.setattr(_Answer, "body", body)
        return api

    yield answer
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("status, token, message", [
    (401, None, "refused the read (401 unauthorized): its API wants a token: set SUMWATCH_API_TOKEN (or "
                "--token) to the one it was started with"),
    (401, "wrong-token", "refused the read (401 unauthorized): SUMWATCH_API_TOKEN (or --token) here is not the "
                         "token it was"),
    (403, None, "refused the read (403 forbidden)"),
    (500, None, "failed the read (500): see its log, then try again"),
    (503, None, "failed the read (503)"),
    (400, None, "answered 400: limit must be a whole number"),
])
def test_errors_of_the_server_holding_the_store_are_one_line(server_holding_the_store, status, token, message):
    api = server_holding_the_store(status, b'{"error": "limit must be a whole number from 1 to 10000, got 0"}')
    env = {"SUMWATCH_API_TOKEN": token} if token else {}
    for args in (("traces",), ("issues",), ("issues", "show", "SW-1"), ("traces", "show", "ab" * 16)):
        result = run(env, *args)
        assert result.exit_code == 3 and "Traceback" not in result.output, result.output
        note, line = result.stderr.strip().splitlines()
        assert note == f"(the database is held by the sumwatch server at {api}; reading through it)"
        assert line.startswith(f"error: the sumwatch server at {api} {message}"), line


@pytest.mark.parametrize("status, message", [
    (401, "refused {what} (401 unauthorized): SUMWATCH_API_TOKEN (or --token) here is not the token it was"),
    (403, "refused {what} (403 forbidden)"), (500, "failed {what} (500): see its log"),
])
def test_a_command_that_writes_names_what_the_server_refused(server_holding_the_store, tmp_path, status, message):
    api = server_holding_the_store(status, b'{"error": "no"}')
    corpus = tmp_path / "items.jsonl"
    corpus.write_text('{"rubric": "factuality", "source": "a", "summary": "b"}\n')
    for args, what in ((("export", "SW-1", "--to", "markdown"), "the export"),
                       (("corpus", "label", "item-1", "correct"), "the label"), (("cluster",), "the clustering run"),
                       (("sample",), "the scoring"), (("corpus", "import", str(corpus)), "the corpus import")):
        result = run({"SUMWATCH_API_TOKEN": "wrong-token", "SUMWATCH_MARKDOWN_DIR": str(tmp_path)}, *args)
        assert result.exit_code == 3 and "Traceback" not in result.output, (args, result.output)
        line = result.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: the sumwatch server at {api} {message.format(what=what)}"), (args, line)


def test_a_server_that_does_not_answer_is_one_line(server_holding_the_store):
    api = server_holding_the_store(200, b"<html>not json</html>")
    line = run({}, "traces").stderr.strip().splitlines()[-1]
    assert line == (f"error: the server at {api} did not answer as a sumwatch server (not JSON); is another "
                    f"program on that port?")


def test_a_refused_connection_to_the_server_is_one_line(monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        api = f"http://127.0.0.1:{s.getsockname()[1]}"  # nothing listens once this closes

    def busy(settings, **kwargs):
        raise StoreBusyError("busy", api=api)

    monkeypatch.setattr(engine_local, "open_store", busy)
    result = run({}, "traces")
    assert result.exit_code == 3 and "Traceback" not in result.output
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: cannot reach the sumwatch server at {api}: connection refused")
    assert line.endswith("the server may be starting or stopping: try again, or stop it to read the database "
                         "directly")


def test_up_on_an_address_this_machine_does_not_have_is_one_line(cli_env):
    line = one_error_line(run(cli_env, "up", "--host", "192.0.2.1", "--port", "4318"), 2)  # TEST-NET-1
    assert line == ("error: cannot listen on 192.0.2.1: no such address on this machine (set --host or "
                    "SUMWATCH_HOST to one of its addresses)")


def test_a_rubric_is_one_the_database_knows_and_an_unknown_one_is_one_line(cli_env, store):
    from tone_rubric import promote_tone, summarization_spans, write_tone_scores

    from sumwatch.monitor.demo.run import run_demo

    line = one_error_line(run(cli_env, "scores", "--rubric", "tone"), 2)
    assert line == ("error: rubric must be one of 'groundedness', 'completeness', 'factuality', 'conciseness', "
                    "got 'tone'")
    assert "rubric must be a rubric name" in one_error_line(run(cli_env, "corpus", "list", "--rubric", "Tone!"), 2)
    run_demo(store, n=2)
    definition = promote_tone(store)
    write_tone_scores(store, definition, summarization_spans(store, 2))
    listed = run(cli_env, "scores", "--rubric", "tone", "--json")
    assert listed.exit_code == 0 and [r["rubric"] for r in json.loads(listed.stdout)] == ["tone", "tone"]
    assert run(cli_env, "corpus", "list", "--rubric", "tone").exit_code == 0
    line = one_error_line(run(cli_env, "corpus", "export", "--rubric", "tonality"), 2)
    assert line.endswith("'conciseness', 'tone', got 'tonality'")
