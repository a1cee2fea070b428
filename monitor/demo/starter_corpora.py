"""Build the starter calibration corpora shipped in ``monitor/calibration/corpora/``.

    python -m sumwatch.monitor.demo.starter_corpora --summedits ../shared/data/summedits \
        --out monitor/calibration/corpora

Two origins, both with known verdicts:
- ``perturbation``: the demo generator's documents with one planted failure (or none), mapped to the
  rubric that owns the failure and its verdict; completeness also gets summaries with one key fact
  dropped;
- ``summedits``: a small selection from SummEdits (Laban et al., 2023; Apache-2.0), where an
  originally consistent summary was edited (entity modification, antonym swap, negation, inserted
  fact): factuality and groundedness items, bucketed by edit type. See ATTRIBUTION.md.

The selection is seeded, so rebuilding gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..contract.calibration import PASS_BUCKET, CorpusItem
from ..rubrics.verdicts import CLEAN, COMPLETENESS, CONCISENESS, FACTUALITY, GROUNDEDNESS, RUBRICS
from . import generate_workload

# planted mode -> (rubric, human verdict); the bucket is the planted mode
PLANTED: dict[str, tuple[str, str]] = {
    "number_changed": (FACTUALITY, "numerically_wrong"),
    "entity_swapped": (FACTUALITY, "entity_wrong"),
    "negation_flipped": (FACTUALITY, "polarity_wrong"),
    "quantifier_drift": (GROUNDEDNESS, "partial"),
    "causal_added": (GROUNDEDNESS, "partial"),
    "filler_padding": (CONCISENESS, "padded"),
    "hedging_inflated": (CONCISENESS, "padded"),
    "chatty_preamble": (CONCISENESS, "padded"),
    "verbatim_restatement": (CONCISENESS, "under_compressed"),
}
PASS_VERDICT = CLEAN
PER_BUCKET, PASS_ITEMS = 14, 30


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text.strip()) if s.strip()]


def perturbation_items(seed: int = 2024) -> Iterator[CorpusItem]:
    cases = generate_workload(700, seed=seed)
    rng = random.Random(seed)
    taken: dict[tuple[str, str], int] = {}

    def room(rubric: str, bucket: str, limit: int) -> bool:
        key = (rubric, bucket)
        if taken.get(key, 0) >= limit:
            return False
        taken[key] = taken.get(key, 0) + 1
        return True

    for case in cases:
        common: dict[str, Any] = dict(source=case.source, band=case.band, expected_facts=case.expected_facts,
                                      origin="perturbation")
        mode = case.planted_mode
        if mode == "none":
            for rubric in RUBRICS:
                if room(rubric, PASS_BUCKET, PASS_ITEMS):
                    yield CorpusItem(rubric=rubric, summary=case.summary, human_verdict=PASS_VERDICT[rubric],
                                     bucket=PASS_BUCKET, **common)
            # completeness failures: the good summary with one key-fact sentence dropped
            sentences = _sentences(case.summary)
            if len(sentences) >= 3 and room(COMPLETENESS, "dropped_fact", PER_BUCKET):
                drop = rng.randrange(len(sentences))
                yield CorpusItem(rubric=COMPLETENESS, summary=" ".join(s for k, s in enumerate(sentences) if k != drop),
                                 human_verdict="absent", bucket="dropped_fact",
                                 note=f"dropped: {sentences[drop]}", **common)
        elif mode == "length_out_of_band":  # too long: conciseness; too short: completeness
            long = len(case.summary.split()) > len(case.reference_summary.split())
            rubric, verdict = (CONCISENESS, "bloated") if long else (COMPLETENESS, "absent")
            bucket = "over_band_length" if long else "under_band_length"
            if room(rubric, bucket, PER_BUCKET):
                yield CorpusItem(rubric=rubric, summary=case.summary, human_verdict=verdict, bucket=bucket, **common)
        elif mode in PLANTED:
            rubric, verdict = PLANTED[mode]
            if room(rubric, mode, PER_BUCKET):
                yield CorpusItem(rubric=rubric, summary=case.summary, human_verdict=verdict, bucket=mode, **common)


# SummEdits edit types -> (rubric, verdict); rows with exactly these edits are taken
SUMMEDITS_BUCKETS: dict[tuple[str, ...], tuple[str, str, str]] = {
    ("entity_modification",): (FACTUALITY, "entity_wrong", "entity_modification"),
    ("antonym_swap",): (FACTUALITY, "polarity_wrong", "antonym_swap"),
    ("antonym_swap", "negation_insertion_removal"): (FACTUALITY, "polarity_wrong", "negation_insertion_removal"),
    ("hallucinated_fact_insertion",): (GROUNDEDNESS, "partial", "hallucinated_fact_insertion"),
}
SUMMEDITS_DOMAINS = ("news", "sales_call", "sales_email", "ectsum", "scitldr", "qmsumm")
MAX_DOC_CHARS = 3500


def summedits_items(root: Path, seed: int = 2024) -> Iterator[CorpusItem]:
    rows = []
    for domain in SUMMEDITS_DOMAINS:
        for row in json.loads((root / f"summedits_{domain}.json").read_text()):
            if len(row["doc"]) <= MAX_DOC_CHARS:
                rows.append((domain, row))
    rng = random.Random(seed)
    rng.shuffle(rows)
    counts: dict[str, int] = {}
    for domain, row in rows:
        edits = tuple(sorted(row["edit_types"] or ()))
        if int(row["label"]) == 1 and not edits:
            for rubric in (FACTUALITY, GROUNDEDNESS):
                key = f"{rubric}/pass"
                if counts.get(key, 0) < PASS_ITEMS // 2:
                    counts[key] = counts.get(key, 0) + 1
                    yield CorpusItem(rubric=rubric, source=row["doc"], summary=row["summary"],
                                     human_verdict=PASS_VERDICT[rubric], bucket=PASS_BUCKET,
                                     origin=f"summedits:{domain}", note=f"summedits id {row['id']}")
        elif int(row["label"]) == 0 and edits in SUMMEDITS_BUCKETS:
            rubric, verdict, bucket = SUMMEDITS_BUCKETS[edits]
            key = f"{rubric}/{bucket}"
            if counts.get(key, 0) < PER_BUCKET:
                counts[key] = counts.get(key, 0) + 1
                yield CorpusItem(rubric=rubric, source=row["doc"], summary=row["summary"], human_verdict=verdict,
                                 bucket=bucket, origin=f"summedits:{domain}", note=f"summedits id {row['id']}")


def build(out: Path, summedits: Path | None) -> dict[str, int]:
    items = list(perturbation_items())
    if summedits is not None:
        items += list(summedits_items(summedits))
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for rubric in RUBRICS:
        chosen = [i for i in items if i.rubric == rubric]
        (out / f"{rubric}.jsonl").write_text("".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n"
                                                     for i in chosen))
        written[rubric] = len(chosen)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description="Build the starter calibration corpora.")
    ap.add_argument("--summedits", type=Path, help="folder with summedits_<domain>.json files")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "corpora")
    args = ap.parse_args()
    print(json.dumps(build(args.out, args.summedits)))


if __name__ == "__main__":
    main()
