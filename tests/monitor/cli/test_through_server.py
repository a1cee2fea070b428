"""Every command prints the same whether it opens the database itself or goes through the `sumwatch up` that
holds it, command by command, in text and --json.

Commands that change the store (ingest, sample, cluster, corpus import and label, calibrate) run on two
databases loaded from the same file: one opened here, one behind a server on 127.0.0.1. Read commands then
read one database both ways. Judges are the offline rules (no embedding model), as the server's are.
"""

import json
import re
import shlex
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S
from served import serve
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.engine import local as engine_local
from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.store.connection import Store, StoreBusyError
from sumwatch.monitor.store.migrations import migrate

pytestmark = pytest.mark.integration

runner = CliRunner()
TOKEN = "through-the-server"
# twenty summaries that change a figure of their source (one kind of failure) and six that copy it
NUMBERS = [(what, a, a + 9 if i < 20 else a) for i, (what, a) in enumerate(
    (w, 10 + n) for n in range(13) for w in ("revenue", "headcount"))]


def _backfill(tmp_path: Path) -> Path:
    path = tmp_path / "backfill.jsonl"
    lines = [json.dumps({"source": f"The {what} figure was {a}% in March, the report says, after a quiet quarter "
                                   f"for the {what} team.",
                         "summary": f"{what.title()} was {b}% in March.", "band": "tldr", "domain": "finance",
                         "document_id": f"doc-{i}", "timestamp": f"2026-11-20T10:{i:02d}:00Z", "service": "digest"})
             for i, (what, a, b) in enumerate(NUMBERS)]
    path.write_text("\n".join(lines) + "\nnot json\n")
    return path


def _corpus_file(tmp_path: Path) -> tuple[Path, str]:
    items = [CorpusItem("factuality", f"Sales rose {n}% in May.", f"Sales rose {n + 1}% in May.",
                        status="needs_label", proposed_verdict="numerically_wrong", origin="import") for n in (3, 5)]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in items) + '{"rubric": "tone"}\n')
    return path, items[0].item_id


@pytest.fixture
def two_stores(settings, store, cli_env, monkeypatch, tmp_path):
    """(run here on database A, run through a server on database B, run here on database B)."""
    settings_b = settings.with_(database=f"t_{uuid.uuid4().hex[:10]}", api_token=TOKEN, embeddings=False)
    store_b = Store.open(settings_b)
    migrate(store_b)
    # as `sumwatch up` serves them: the tracker exports with the server's own settings (Markdown files here)
    tickets = ExportConfig(markdown_dir=str(tmp_path / "tickets-b"))
    server = serve(settings_b, store_b, export_config=tickets)
    env_a = {**cli_env, "SUMWATCH_EMBEDDINGS": "false", "SUMWATCH_MARKDOWN_DIR": str(tmp_path / "tickets-a")}
    env_b = {**env_a, "SUMWATCH_DATABASE": settings_b.store.database, "SUMWATCH_API_TOKEN": TOKEN}
    real = engine_local.open_store

    @contextmanager
    def held(settings, *, busy_to_caller=False, **kw):  # open_store while `sumwatch up` holds database B
        if busy_to_caller and settings.store.database == settings_b.store.database:
            raise StoreBusyError("held", api=server.endpoint)
        with real(settings, busy_to_caller=busy_to_caller, **kw) as opened:
            yield opened

    monkeypatch.setattr(engine_local, "open_store", held)
    through: list = []

    def invoke(env, args, remote):
        through.append(remote)
        monkeypatch.setattr(engine_local, "open_store", held if remote else real)
        return runner.invoke(app, args, env=env, catch_exceptions=False)

    # the server applies its own tracker settings: a command that sets another Markdown folder is refused there
    env_plain = {k: v for k, v in env_b.items() if k != "SUMWATCH_MARKDOWN_DIR"}
    yield (lambda *args: invoke(env_a, list(args), False), lambda *args: invoke(env_b, list(args), True),
           lambda *args: invoke(env_b, list(args), False), lambda *args: invoke(env_plain, list(args), True))
    server.stop()
    store_b.command(f"DROP DATABASE IF EXISTS `{settings_b.store.database}`")
    store_b.close()


_NOTE = re.compile(r"\(the database is held by the sumwatch server at \S+; \w+ through it\)\n")
_LOADING = re.compile(r"^.*Loading weights.*\n", re.M)  # a model loading its weights, on whichever side is first
# doctor names whose daily cap it reports (the server's: test_a_daily_cap_of_the_commands_own_says_which_one_applies)
_CAP_OWNER = re.compile(r" of the server at http://[^)\s]+(?=\))")
_RUN = re.compile(r"\d{8}T\d{6}-[0-9a-f]{6}")
_TIMES = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00)?|\d+\.\ds\b")


def _same(here, there, args, *, mask=False, note=True):
    """Equal exit codes, stdout and stderr (less the note that the server is used); masked: run ids, times.
    ``note``: the command went through the server (not refused before it opened anything)."""
    assert bool(_NOTE.search(there.stderr)) == note, (args, there.stderr)
    out_here, out_there = here.stdout, _CAP_OWNER.sub("", there.stdout)
    err_here, err_there = (_LOADING.sub("", e) for e in (here.stderr, _NOTE.sub("", there.stderr)))
    if mask:
        out_here, out_there, err_here, err_there = (_TIMES.sub("<t>", _RUN.sub("<run>", t))
                                                    for t in (out_here, out_there, err_here, err_there))
    assert (here.exit_code, out_here, err_here) == (there.exit_code, out_there, err_there), args
    return here


def _same_json(here, there, args, drop=()):
    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop}
        return [clean(v) for v in value] if isinstance(value, list) else value

    assert here.exit_code == there.exit_code == 0, (args, here.output, there.output)
    assert clean(json.loads(here.stdout)) == clean(json.loads(there.stdout)), args
    return json.loads(here.stdout)


def test_commands_that_change_the_store_print_the_same_through_the_server(two_stores, tmp_path):
    here, there, _, _ = two_stores
    backfill = _backfill(tmp_path)
    ingested = _same(here("ingest", str(backfill)), there("ingest", str(backfill)), "ingest")
    assert ingested.exit_code == 1 and f"stored 26 summarization spans from {backfill}" in ingested.stdout
    assert f"{backfill}:27:" in ingested.stderr  # the bad line, by number, both ways

    sampled = _same(here("sample"), there("sample"), "sample", mask=True)
    assert sampled.stdout.startswith("scored 26 spans (104 rubric scores)")
    _same_json(here("sample", "--all", "--json"), there("sample", "--all", "--json"), "sample --json",
               drop=("seconds",))
    bad_shard = _same(here("sample", "--shard", "3/2"), there("sample", "--shard", "3/2"), "sample --shard",
                      note=False)
    assert bad_shard.exit_code == 2
    bad_workers = _same(here("sample", "--workers", "two"), there("sample", "--workers", "two"), "sample --workers",
                        note=False)
    assert bad_workers.exit_code == 2 and bad_workers.stderr.count("\n") == 1 and "--workers must" in bad_workers.stderr
    # the option reaches the server's pass: its report names the processes it ran the model in
    assert _same_json(here("sample", "--all", "--workers", "2", "--json"),
                      there("sample", "--all", "--workers", "2", "--json"), "sample --workers",
                      drop=("seconds",))["workers"] == 2

    clustered = _same(here("cluster", "--window", "3650d"), there("cluster", "--window", "3650d"), "cluster",
                      mask=True)
    assert "clustering run" in clustered.stdout and "issues in this run" in clustered.stdout
    _same_json(here("cluster", "--window", "3650d", "--json"), there("cluster", "--window", "3650d", "--json"),
               "cluster --json", drop=("run_id", "window_start", "window_end", "seconds", "map_seconds",
                                       "first_seen", "last_seen"))

    refused = there("export", "SW-1", "--to", "markdown")
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 2  # the note, then one line
    assert "SUMWATCH_MARKDOWN_DIR is " in refused.stderr and "applies its own" in refused.stderr
    _exports_print_the_same(here, two_stores[3], two_stores[2], tmp_path)

    corpus, item_id = _corpus_file(tmp_path)
    imported = _same(here("corpus", "import", str(corpus)), there("corpus", "import", str(corpus)), "import")
    assert imported.exit_code == 1 and "added 2, updated 0 corpus items; skipped 1 bad line(s)" in imported.stdout
    labelled = _same(here("corpus", "label", item_id, "correct", "--note", "checked"),
                     there("corpus", "label", item_id, "correct", "--note", "checked"), "label")
    assert labelled.stdout == f"{item_id}: labelled as correct\n"
    for args in (("corpus", "label", "nope", "correct"), ("corpus", "label", item_id, "splendid")):
        refused = _same(here(*args), there(*args), args)
        assert refused.exit_code == 2 and refused.stderr.startswith("error: ")
    _same_json(here("corpus", "label", item_id, "rejected", "--json"),
               there("corpus", "label", item_id, "rejected", "--json"), "label --json")

    calibrated = _same(here("calibrate", "--rubric", "factuality", "--mode", "off"),
                       there("calibrate", "--rubric", "factuality", "--mode", "off"), "calibrate")
    assert "overall kappa" in calibrated.stdout
    _same_json(here("calibrate", "--rubric", "factuality", "--mode", "off", "--json", "--no-record"),
               there("calibrate", "--rubric", "factuality", "--mode", "off", "--json", "--no-record"),
               "calibrate --json")


def _exports_print_the_same(here, there, local_b, tmp_path):
    """`sumwatch export` by id and by filters (Markdown tickets in tmp folders: one here, one the server's),
    then `issues show` with its ticket, print the same both ways (less the folders' names). What prints trace
    ids (a dry run's tickets, `issues show`) is compared on the server's database, read here and through it."""
    dirs = {(tmp_path / "tickets-a").resolve(): "<dir>", (tmp_path / "tickets-b").resolve(): "<dir>"}
    note_re = re.compile(r"\(the database is held by the sumwatch server at \S+; exporting through it, with its "
                         r"tracker settings\)\n|" + _NOTE.pattern)
    for folder in dirs:
        folder.mkdir()

    def masked(result):
        text, err = result.stdout, result.stderr
        for folder, name in dirs.items():
            text = text.replace(folder.as_uri(), name).replace(str(folder), name)
        return result.exit_code, text, note_re.sub("", err)

    def same(*args, note=True, on_b=False):
        a, b = (local_b if on_b else here)(*args), there(*args)
        assert bool(note_re.search(b.stderr)) == note, (args, b.stderr)
        assert masked(a) == masked(b), args
        return a

    planned = same("export", "--status", "ongoing", "--min-severity", "high", "--to", "markdown", "--dry-run",
                   on_b=True)
    assert planned.exit_code == 0 and "-> markdown (would-create):" in planned.stdout
    assert not any(any(folder.iterdir()) for folder in dirs)  # a dry run writes nothing
    created = same("export", "SW-1", "--to", "markdown")
    assert created.exit_code == 0 and "created" in created.stdout and "SW-1.md" in created.stdout
    assert all((folder / "SW-1.md").is_file() for folder in dirs)
    batch = json.loads(same("export", "--status", "ongoing", "--to", "markdown", "--json").stdout)
    assert {r["action"] for r in batch} <= {"created", "updated"} and len(batch) >= 1
    assert [r["action"] for r in batch if r["issue_id"] == "SW-1"] in ([], ["updated"])
    missing = same("export", "SW-99", "--to", "markdown")
    assert missing.exit_code == 1 and "no issue SW-99 in the last clustering run" in missing.stderr
    shown = same("issues", "show", "SW-1", on_b=True)
    assert "Tickets" in shown.stdout and "markdown" in shown.stdout and "<dir>/SW-1.md" in masked(shown)[1]
    detail = json.loads(same("issues", "show", "SW-1", "--json", on_b=True).stdout)
    assert [(t["target"], t["external_id"], t["phase"]) for t in detail["exports"]] == [
        ("markdown", "SW-1.md", "synced")]


@pytest.mark.parametrize("args", [
    ["traces"], ["traces", "--json", "-n", "3"], ["traces", "--service", "digest"],
    ["traces", "--domain", "finance", "--band", "tldr", "--since", "3650d", "--json"], ["scores"],
    ["scores", "--failing", "--rubric", "factuality", "--json"], ["issues"], ["issues", "--json"],
    ["issues", "show", "SW-1"], ["issues", "show", "SW-1", "--json"], ["issues", "show", "SW-99"],
    ["corpus", "list", "-n", "5"], ["corpus", "list", "--status", "needs_label", "--json"],
    ["corpus", "export", "--rubric", "factuality"], ["judges"], ["judges", "--json"], ["doctor"],
    ["doctor", "--json"],
])
def test_read_commands_print_the_same_through_the_server(two_stores, tmp_path, args):
    _, there, local_b, _ = two_stores
    backfill = _backfill(tmp_path)
    for step in (["ingest", str(backfill)], ["sample"], ["cluster", "--window", "3650d"]):
        local_b(*step)
    _same(local_b(*args), there(*args), args)


def test_a_wrong_token_is_one_line_and_the_token_option_wins(two_stores):
    _, there, _, _ = two_stores
    refused = there("--token", "not-the-token", "traces")
    assert refused.exit_code == 3 and "Traceback" not in refused.output
    assert refused.stderr.strip().splitlines()[-1].endswith("refused the read (401 unauthorized): SUMWATCH_API_TOKEN "
                                                            "(or --token) here is not the token it was started with")
    assert there("--token", TOKEN, "traces", "--json").exit_code == 0
    for args, what in ((("export", "SW-1", "--to", "markdown"), "the export"),
                       (("corpus", "label", "some-item", "correct"), "the label"),
                       (("cluster",), "the clustering run")):
        refused = there("--token", "not-the-token", *args)
        assert refused.exit_code == 3 and "Traceback" not in refused.output
        line = refused.stderr.strip().splitlines()[-1]
        assert f"refused {what} (401 unauthorized)" in line and "refused the read" not in line, (args, line)


def test_a_command_that_cannot_go_through_names_the_holders_whole_command_line(settings, store):
    """`db migrate` on a database another process holds: one line naming that process's command line."""
    env = {"SUMWATCH_HOME": str(settings.store.home), "SUMWATCH_DATABASE": settings.store.database, "PATH": ""}
    result = subprocess.run([str(Path(sys.executable).with_name("sumwatch")), "db", "migrate"], env=env,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 3 and "Traceback" not in result.stderr
    holder = shlex.join([Path(sys.argv[0]).name] + sys.argv[1:])
    line = " ".join(result.stderr.split())
    assert line.startswith("error: The embedded database at") and f"(`{holder}`)" in line, line


def test_triage_commands_print_the_same_through_the_server(two_stores, tmp_path):
    here, there, local_b, _ = two_stores
    backfill = _backfill(tmp_path)
    for step in (["ingest", str(backfill)], ["sample"], ["cluster", "--window", "3650d"]):
        here(*step)
        there(*step)
    for args in (["issues", "assign", "SW-1", "ana", "--by", "ben"], ["issues", "comment", "SW-1", "same cause",
                                                                       "--by", "ben"],
                 ["issues", "resolve", "SW-1", "--by", "ben"], ["issues", "mute", "SW-1", "--for", "soon"],
                 ["issues", "resolve", "SW-99"], ["issues", "merge", "SW-1", "--into", "SW-1"]):
        done = _same(here(*args), there(*args), args, mask=True)
        assert done.exit_code == 0 or done.stderr.count("\n") == 1, (args, done.stderr)
    listing = _same(here("issues"), there("issues"), "issues", mask=True)
    assert "resolved @ana" in listing.stdout
    # trace ids differ between the two databases: `issues show` is read here and through the server on one
    shown = _same(local_b("issues", "show", "SW-1"), there("issues", "show", "SW-1"), "issues show")
    assert "same cause" in shown.stdout and "ben" in shown.stdout


def test_a_daily_cap_of_the_commands_own_says_which_one_applies(two_stores, monkeypatch):
    here, there, _, _ = two_stores
    monkeypatch.setenv("SUMWATCH_LLM_DAILY_CAP_USD", "3")
    mine = here("doctor")
    assert mine.exit_code == 0 and "of the $3.00 daily cap (SUMWATCH_LLM_DAILY_CAP_USD)" in mine.stdout
    served = there("doctor")
    assert served.exit_code == 0, served.output
    assert "of the $10.00 daily cap (SUMWATCH_LLM_DAILY_CAP_USD of the server at http://127.0.0.1:" in served.stdout
    assert "it is 3 here, which that server does not apply" in served.stdout
    for args in (["sample"], ["rescore", "--dry-run"]):  # a command that would judge is refused, in one line
        refused = there(*args)
        assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 2  # the note, the error
        assert "SUMWATCH_LLM_DAILY_CAP_USD is 3.0 here, but the sumwatch server at" in refused.stderr
