"""How often the factuality rules' score-line check fails a summary humans call consistent.

    python tests/bench/scoreline_precision.py --data ../shared/data

The check (``rubrics/rules/scorelines.py``) was written from its description before any of these rows were
read, so every row is held out. For SummEval (a summary is consistent when all three experts gave it 5), the
four SummaC subsets and the seven SummEdits domains: the rows, the rows it flags, and how many of those are
labelled consistent (false failures), with the first few flagged rows to read. The last line is one JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from sumwatch.monitor.rubrics.rules.scorelines import changed_scorelines
from sumwatch.monitor.rubrics.text import detokenize


def rows(data: Path) -> Iterator[tuple[str, str, str, bool]]:
    """(set, source, summary, consistent) for every labelled row."""
    for line in (data / "summeval" / "summeval.jsonl").read_text().splitlines():
        r = json.loads(line)
        yield "summeval", r["source"], r["system_output"], r["scores"]["consistency"] >= 5.0
    for path in sorted((data / "summac").glob("summac_*.jsonl")):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            yield f"summac/{path.stem[len('summac_'):]}", r["document"], r["summary"], r["label"] == 1
    for path in sorted((data / "summedits").glob("summedits_*.json")):
        for r in json.loads(path.read_text()):
            yield f"summedits/{path.stem[len('summedits_'):]}", r["doc"], r["summary"], r["label"] == 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--show", type=int, default=8, help="flagged rows to print")
    args = ap.parse_args()
    figures: dict[str, dict[str, int]] = {}
    shown = 0
    for name, source, summary, consistent in rows(args.data):
        f = figures.setdefault(name, {"rows": 0, "consistent": 0, "flagged": 0, "flagged_consistent": 0})
        f["rows"] += 1
        f["consistent"] += consistent
        changed = changed_scorelines(detokenize(source), detokenize(summary))
        if changed:
            f["flagged"] += 1
            f["flagged_consistent"] += consistent
            if shown < args.show:
                shown += 1
                print(f"  {name} {'CONSISTENT' if consistent else 'inconsistent'}: {changed[0].summary} vs "
                      f"{changed[0].source} in {changed[0].sentence[:120]!r}")
    print(f"{'set':<24}{'rows':>7}{'consistent':>12}{'flagged':>9}{'of them consistent':>20}")
    for name, f in figures.items():
        print(f"{name:<24}{f['rows']:>7}{f['consistent']:>12}{f['flagged']:>9}{f['flagged_consistent']:>20}")
    total = {k: sum(f[k] for f in figures.values()) for k in ("rows", "consistent", "flagged", "flagged_consistent")}
    print(f"{'all':<24}{total['rows']:>7}{total['consistent']:>12}{total['flagged']:>9}"
          f"{total['flagged_consistent']:>20}")
    print(json.dumps({"bench": "scoreline_precision", "sets": figures, "all": total}))


if __name__ == "__main__":
    main()
