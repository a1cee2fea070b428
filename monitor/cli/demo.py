"""`sumwatch demo`: the whole loop on a generated workload with planted failures."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import typer

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    engine_errors,
    err,
    flag,
    load_settings,
    out,
    print_json,
    stage_bars,
    table,
)
from .issues import print_run


def demo(n: int = typer.Option(200, "--n", min=1, help="How many summarization calls to generate."),
         seed: int = typer.Option(7, "--seed", help="Random seed of the generated workload (same seed, same "
                                                    "documents and planted failures)."),
         score: bool = flag(True, "--score/--no-score", help="Score the run with the judge cascade."),
         cluster: bool = flag(True, "--cluster/--no-cluster", help="Cluster failing spans into issues "
                                                                   "(after scoring)."),
         mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
         serve: bool = flag(False, "--serve", help="Then serve the dashboard (and API and receiver) on the demo's "
                                                   "data until Ctrl-C, as `sumwatch up --no-worker` does."),
         port: int | None = typer.Option(None, "--port", help="Port for --serve (default 4318; 0 takes a free one)."),
         db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """The whole loop on a realistic workload with planted failures: trace a decorated summarizer, score the
    spans, cluster the failures into named issues, promote examples for labelling; --serve then opens the
    dashboard on it."""
    settings = load_settings(db, home)
    with engine_errors():
        from ..engine.demo import run_demo  # noqa: PLC0415 - start-up: a command imports what it runs

        with demo_progress(n, stages=1 + score + (score and cluster)) as progress:
            run = run_demo(settings, n=n, seed=seed, mode=mode, score=score, cluster=cluster, progress=progress)
    result, scoring, clustering = run.result, run.scoring, run.clustering
    if json_:
        print_json({**result.to_json(), "scoring": scoring, "clustering": clustering})
        if serve:
            serve_dashboard(port, db, home)
        return
    out.print(f"demo run {result.run_id}: {result.generated} summarization calls traced, "
              f"{result.stored} spans stored in {settings.store.database} on {settings.safe_url}")
    total = max(result.stored, 1)
    out.print(table("stored spans by domain", ["domain", "spans"], sorted(result.by_domain.items())))
    if scoring is None:
        out.print(table("stored spans by planted failure mode (ground truth; scorers never read it)",
                         ["planted mode", "spans", "share"],
                         [(m, c, f"{c / total:.0%}")
                          for m, c in sorted(result.by_mode.items(), key=lambda kv: -kv[1])]))
    else:
        out.print(f"scored {scoring.scored} spans with {scoring.judge_version} in {scoring.seconds:.1f}s")
        out.print(table("pass rate per rubric", ["rubric", "pass rate"],
                         [(r, f"{v:.0%}") for r, v in scoring.pass_rates.items()]))
        clean = scoring.detection.get("none", {})
        out.print(table("detection per planted failure mode (ground truth from the generator)",
                         ["planted mode", "spans", "flagged", "unsure", "caught by"],
                         [(m, d["spans"], f"{d['flagged_share']:.0%}", f"{d.get('unsure', 0) / d['spans']:.0%}",
                           ", ".join(f"{r} {c}" for r, c in sorted(d["caught_by"].items(), key=lambda kv: -kv[1])))
                          for m, d in scoring.detection.items() if m != "none"],
                         caption=f"good summaries flagged (false positives): {clean.get('flagged_share', 0):.0%} "
                                 f"of {clean.get('spans', 0)}, unsure "
                                 f"{clean.get('unsure', 0) / max(clean.get('spans', 0), 1):.0%}; unsure = suspected "
                                 f"by the cheap tiers, waiting for an LLM to confirm (SUMWATCH_LLM_MODEL), kept out "
                                 f"of the issues"))
    out.print(table("examples", ["trace id", "domain", "band", "planted", "summary"],
                     [(e["trace_id"], e["domain"], e["band"], e["planted_mode"], e["summary"][:90])
                      for e in result.examples]))
    if clustering is not None:
        print_run(clustering)
        out.print("next: `sumwatch issues`, `sumwatch issues show SW-1`, `sumwatch corpus list --status needs_label`, "
                  "`sumwatch traces show TRACE_ID`")
    else:
        out.print("next: `sumwatch traces`, `sumwatch scores --failing`, `sumwatch traces show TRACE_ID`")
    if serve:
        serve_dashboard(port, db, home)
    else:
        out.print(dashboard_hint(settings.receiver.host, settings.receiver.port, home), markup=False)


def dashboard_hint(host: str, port: int, home: Path | None) -> str:
    """The demo's last line: how to open the dashboard on what it stored (the demo's process has let go of the
    database, so `sumwatch up` on the same home serves it)."""
    where = f" --home {home}" if home is not None else ""
    return (f"open the dashboard: `sumwatch up{where}` and browse http://{host}:{port}/ "
            f"(or `sumwatch demo{where} --serve` to run the demo again and serve it)")


@contextmanager
def demo_progress(n: int, *, stages: int) -> Iterator[Callable[[str, int, int | None], None]]:
    """Progress bars on a terminal; elsewhere (a log, CI, a pipe) one line per stage on stderr, started when the
    stage reports first and finished with its time, so a run that is not watched still shows where it is."""
    if err.is_terminal:
        with stage_bars() as bars:
            yield bars
        return
    lines = StageLines(err.file, n, stages)
    try:
        yield lines
    finally:
        lines.finish()


class StageLines:
    """``[2/3] scoring 200 spans ... done in 12 s``: the demo's stages as lines. The clustering run reports
    sub-stages (``clustering: embed``, ...); they fold into one ``clustering`` line."""

    NOUNS = {"summarizing": "{n} calls", "scoring": "{n} spans", "clustering": "the failing spans"}

    def __init__(self, stream: IO[str], n: int, stages: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.n, self.stages, self.clock = stream, n, stages, clock
        self.current: str | None = None
        self.number = 0
        self.since = clock()

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        name = stage.split(":", 1)[0].strip()
        if name != self.current:
            self.finish()
            self.current, self.number = name, self.number + 1
            what = self.NOUNS.get(name, "").format(n=self.n)
            self.stream.write(f"[{self.number}/{max(self.stages, self.number)}] {name} {what} ...".replace("  ", " "))
            self.stream.flush()
        if name != "clustering" and total and done >= total:  # clustering's sub-stages each count to their own end
            self.finish()

    def finish(self) -> None:
        """End the open stage's line with its time (from the end of the stage before, so set-up counts too)."""
        if self.current is not None:
            now = self.clock()
            self.stream.write(f" done in {now - self.since:.0f} s\n")
            self.stream.flush()
            self.current, self.since = None, now


def serve_dashboard(port: int | None, db: str | None, home: Path | None) -> None:
    """`sumwatch up --no-worker` on the demo's database: it prints the dashboard's URL and runs until Ctrl-C."""
    from .serve import up  # noqa: PLC0415 - start-up: a command imports what it runs

    out.print("serving the demo's data: open the dashboard URL below (Ctrl-C to stop)")
    up(host=None, port=port, with_worker=False, db=db, home=home)
