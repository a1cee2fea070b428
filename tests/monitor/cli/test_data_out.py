"""`sumwatch traces --output` and `sumwatch scores --output`: every matching row out, in the format asked."""

import json

import pyarrow.parquet as pq
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.scoring.sampler import Sampler


def test_every_span_and_score_goes_to_a_file(store, cli_env, rules_cascade, tmp_path):
    run_demo(store, n=6)
    Sampler(store, rules_cascade).run_pass()
    runner = CliRunner()
    spans = runner.invoke(app, ["traces", "--limit", "1", "--output", str(tmp_path / "spans.parquet")], env=cli_env)
    assert spans.exit_code == 0 and "wrote" in spans.stderr
    assert pq.read_table(tmp_path / "spans.parquet").num_rows == 6  # --limit bounds listings, not exports
    scores = runner.invoke(app, ["scores", "--rubric", "factuality", "-o", str(tmp_path / "f.jsonl")], env=cli_env)
    rows = [json.loads(line) for line in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert scores.exit_code == 0 and len(rows) == 6 and {r["rubric"] for r in rows} == {"factuality"}
    assert not list(tmp_path.glob("*.part"))  # written beside the file, then moved into place
    bad = runner.invoke(app, ["traces", "-o", str(tmp_path / "x.csv"), "--format", "csv"], env=cli_env)
    assert bad.exit_code == 2 and bad.stderr.strip() == "error: --format must be jsonl or parquet, got 'csv'"
    nowhere = runner.invoke(app, ["traces", "-o", str(tmp_path / "no" / "x.jsonl")], env=cli_env)
    assert nowhere.exit_code == 2 and "does not exist" in nowhere.stderr
