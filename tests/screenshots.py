"""Regenerate the dashboard's screenshots in docs/screenshots/ (PNG, one per page).

    .venv/bin/python tests/screenshots.py            # the demo workload scored and clustered as `sumwatch demo` does
    .venv/bin/python tests/screenshots.py --quick    # rules tier only and a word-count embedding: seconds, no model

It builds the demo's data in a temporary database, serves it with the real server on 127.0.0.1 and photographs
each page in headless Chromium (Debian's chromium package).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"


def build(store, settings, quick: bool, n: int) -> None:
    """Two batches of demo traffic, each scored and then clustered (so issues have a history and a trend)."""
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


def shoot(base: str, store, out: Path) -> list[Path]:
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
             ("labelling", "/labelling", None), ("compare", "/compare", None)]
    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context(viewport={"width": 1440, "height": 1000}, device_scale_factor=1).new_page()
        for name, path, anchor in pages:
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
            if anchor:
                page.evaluate(f"document.querySelector('{anchor}').scrollIntoView()")
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
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")

    from sumwatch.monitor.settings import Settings
    from sumwatch.monitor.store.connection import Store
    from sumwatch.monitor.store.migrations import migrate

    sys.path.insert(0, str(ROOT / "tests" / "monitor" / "views" / "dashboard"))
    from served_dashboard import serve

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sw-shots-") as home:
        settings = Settings.from_env(env={"HF_HUB_OFFLINE": "1"}, home=Path(home), port=0)
        store = Store.open(settings)
        try:
            migrate(store)
            build(store, settings, args.quick, args.n)
            server = serve(store, settings)
            try:
                for path in shoot(server.endpoint, store, args.out):
                    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
            finally:
                server.stop()
        finally:
            store.close()


if __name__ == "__main__":
    main()
