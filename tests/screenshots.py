"""Regenerate the dashboard's screenshots in docs/screenshots/ (PNG, one per page).

    .venv/bin/python tests/screenshots.py            # the demo workload scored and clustered as `sumwatch demo` does
    .venv/bin/python tests/screenshots.py --quick    # rules tier only and a word-count embedding: seconds, no model
    .venv/bin/python tests/screenshots.py --only judges,dataset    # just these pages (names: --help)

It builds the demo's data in a temporary database (with a promoted judge version, a dataset made from traces and
two experiment runs on it, judged offline), serves it with the real server on 127.0.0.1, the markdown tracker
configured, and photographs each page in headless Chromium (Debian's chromium package).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
SHOTS = ("overview", "issues", "issue", "issue-evidence", "map", "trace", "labelling", "compare", "judges", "judge",
         "judge-diff", "dataset", "experiment-compare", "export-menu")
DATASET, BASE, CANDIDATE = "demo-sample", "lead-v1", "lead-v2"


def build(store, settings, quick: bool, n: int) -> None:
    """Two batches of demo traffic, each scored and then clustered (so issues have a history and a trend), with a
    factuality version promoted between them; then a dataset and two experiment runs on it."""
    from sumwatch.monitor.demo.run import run_demo, score_demo
    from sumwatch.monitor.issues.job import run_clustering
    from sumwatch.monitor.scoring.judges import build_cascade

    cascade = build_cascade(settings, mode="off", embeddings=not quick)
    embedder = cascade.embeddings.embedder if cascade.embeddings is not None else None  # one model for both
    if quick:
        sys.path.insert(0, str(ROOT / "tests" / "monitor" / "views" / "dashboard"))
        from served_dashboard import WordEmbedder

        embedder = WordEmbedder()
    for seed, size in ((7, n), (8, n // 2)):
        result = run_demo(store, n=size, seed=seed)
        score_demo(store, cascade, result.run_id)
        run_clustering(store, settings, embedder=embedder)
        if seed == 7:  # the second batch is judged by the promoted version: the judge page has a rate on each side
            cascade = promote_judge(store, cascade)
    experiments(store, settings, cascade)


def promote_judge(store, cascade):
    """Factuality version 2 (its criteria reworded) tested on the starter corpus and promoted, as `sumwatch judge
    promote` does; the cascade judging with the store's active versions."""
    from sumwatch.monitor.calibration.corpus import seed_starter_corpora
    from sumwatch.monitor.calibration.judges import promote
    from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition
    from sumwatch.monitor.store.judges import active_definitions

    text = BUILTIN["factuality"].text.replace('version = "1"', 'version = "2"').replace(
        "Work in this order:", "Work in this order (a number rounded differently from the source is wrong):")
    seed_starter_corpora(store, ["factuality"])
    report = promote(store, cascade, parse_definition(text, origin="factuality.toml"), promoted_by="ana")
    if not report.promoted:
        sys.exit(f"factuality version 2 was not promoted: {report.refused}")
    return cascade.with_definitions(active_definitions(store))


def _wrong_number(text: str) -> str:
    """The first number of ``text`` with its digits reversed (14 -> 41), or one more when that reads the same."""
    def swap(m: re.Match[str]) -> str:
        flipped = m.group()[::-1].lstrip("0") or "0"
        return flipped if flipped != m.group() else str(int(m.group()) + 1)

    return re.sub(r"\d+", swap, text, count=1)


def _lead(text: str) -> str:
    return " ".join(re.split(r"(?<=[.!?])\s+", text.strip())[:2])


def lead_v1(text: str) -> str:  # the base: the source's first two sentences, a number changed in a sixth of them
    return _wrong_number(_lead(text)) if len(text) % 6 == 1 else _lead(text)


def lead_v2(text: str) -> str:  # the candidate: that sixth right, a number changed in all the others
    return _wrong_number(_lead(text)) if len(text) % 6 != 1 else _lead(text)


def experiments(store, settings, cascade) -> None:
    """A dataset of the newest demo calls (as `sumwatch dataset from-traces` makes it) and the two tasks above run
    on it through the experiment runner and the API in this process, each judged offline."""
    from sumwatch.monitor.contract.listing import TraceFilters
    from sumwatch.monitor.datasets.builds import from_traces
    from sumwatch.monitor.datasets.versions import save_dataset
    from sumwatch.monitor.experiments.run import experiment, judge_experiment
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app
    from sumwatch.monitor.views.client import ApiClient
    from sumwatch.monitor.views.experiment_runner import run_experiment

    built = from_traces(store, TraceFilters(), 40)
    save_dataset(store, DATASET, built.items, origin="traces", description="the 40 newest demo calls",
                 notes=built.notes)
    with ApiClient.in_process(create_app(Runtime.build(settings, store))) as client:
        for name, task in ((BASE, lead_v1), (CANDIDATE, lead_v2)):
            run_experiment(client, DATASET, task, task_name=f"screenshots:{task.__name__}", name=name)
            judge_experiment(store, cascade, experiment(store, name))


def shoot(base: str, store, out: Path, only: set[str]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from sumwatch.monitor.issues.reads import issue_list
    from sumwatch.monitor.store.projections import load_projection

    issues = issue_list(store).issues
    # the issue shown: one whose judge quoted both texts (factuality, then groundedness), as most are
    issues.sort(key=lambda r: ({"factuality": 0, "groundedness": 1}.get(r.rubric, 2), -r.traces))
    points = load_projection(store)
    failing = next((p for p in points if p.issue_id), points[0] if points else None)
    # (file, path, element to scroll to first or None); each shot is the 1440x1000 window, not the whole page
    pages = [("overview", "/", None), ("issues", "/issues?status=all", None),
             ("issue", f"/issues/{issues[0].issue_id}" if issues else None, None),
             ("issue-evidence", f"/issues/{issues[0].issue_id}" if issues else None, "#representatives"),
             ("map", "/map", None), ("trace", f"/traces/{failing.trace_id}" if failing else None, None),
             ("labelling", "/labelling", None), ("compare", "/compare", None),
             ("judges", "/judges", None), ("judge", "/judges/factuality", "#judge-history"),
             ("judge-diff", "/judges/factuality/diff?from=shipped&to=2", None),
             ("dataset", f"/datasets/{DATASET}", None),
             ("experiment-compare", f"/experiments/{BASE}/compare/{CANDIDATE}", None),
             ("export-menu", f"/issues/{issues[0].issue_id}" if issues else None, None)]
    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context(viewport={"width": 1440, "height": 1000}, device_scale_factor=1).new_page()
        for name, path, anchor in pages:
            if name not in only:
                continue
            if path is None:
                print(f"skipped {name}: nothing to show", file=sys.stderr)
                continue
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            page.wait_for_function("() => [...document.querySelectorAll('[data-figure]')].every(e => e.dataset.drawn)")
            if name == "labelling":  # a few labels from the keyboard, so the calibration table has numbers
                for key in "ffpf":
                    page.keyboard.press(key)
                    page.wait_for_timeout(400)
                page.goto(base + path)
            if name == "export-menu":  # the issue filed with the markdown tracker: the result beside the button
                page.click("#export-issue")
                page.wait_for_function("() => !document.querySelector('#export-issue').disabled")
            if anchor:
                # down to it, never sideways (a table wider than the window would scroll the page left)
                page.evaluate(f"window.scrollTo(0, document.querySelector('{anchor}').getBoundingClientRect().top"
                              f" + window.scrollY - 16)")
            target = out / f"{name}.png"
            page.screenshot(path=str(target))
            written.append(target)
        browser.close()
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="rules tier and a word-count embedding (no model)")
    ap.add_argument("--n", type=int, default=200, help="demo summarization calls")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", metavar="NAME[,NAME]", default=",".join(SHOTS),
                    help=f"shoot just these pages, of: {', '.join(SHOTS)}")
    args = ap.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if not only or only - set(SHOTS):
        sys.exit(f"--only: unknown page(s) {', '.join(sorted(only - set(SHOTS))) or '(none given)'}; "
                 f"pages: {', '.join(SHOTS)}")
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")

    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    sys.path.insert(0, str(ROOT / "tests" / "monitor" / "views" / "dashboard"))
    from served_dashboard import serve

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sw-shots-") as home:
        (Path(home) / "tickets").mkdir()  # the markdown tracker's folder: the issue page's Export lists it
        env = {"HF_HUB_OFFLINE": "1", "SUMWATCH_MARKDOWN_DIR": str(Path(home) / "tickets")}
        settings = Settings.from_env(env=env, home=Path(home), port=0)
        store = Store.open(settings)
        try:
            migrate(store)
            build(store, settings, args.quick, args.n)
            server = serve(store, settings, export_config=settings.exports)
            try:
                for path in shoot(server.endpoint, store, args.out, only):
                    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            finally:
                server.stop()
        finally:
            store.close()


if __name__ == "__main__":
    main()
