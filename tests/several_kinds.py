"""A workload of many demo documents, each failing one to four ways: the shape between the demo (every document
fails once) and a few documents failing often.

    cases = several_kind_cases(documents=60, seed=31, domains=("finance", "healthcare", "news"))
    texts, meta = case_failures(cases)   # traced, scored offline and loaded as the clustering job does
    texts, meta = case_failures(demo.generate_workload(120, seed=11))   # the demo's own cases, the same way

Each document is a demo document (:func:`sumwatch.monitor.demo.corpus.build_document`); it gets one to four
distinct planted failure modes, each in a summary of its own (one span per summary, the document as its
source), so a document's failures quote the same names and figures while their kinds differ. The kind a
bench scores against is the judged (rubric, failure mode) of each failing span, as in the demo workload.
"""

from __future__ import annotations

import random
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

from sumwatch.clustering.pipeline import PointMeta
from sumwatch.monitor.demo import DemoCase
from sumwatch.monitor.demo.corpus import DOMAIN_PREFIX, build_document
from sumwatch.monitor.demo.perturb import PLANTED_MODES, PlantingError, build_reference, expected_facts
from sumwatch.monitor.demo.planting import MODE_NEEDS, plant

_BANDS = ("tldr", "exec_summary", "abstract")


def several_kind_cases(documents: int, seed: int, domains: Sequence[str]) -> list[DemoCase]:
    """``documents`` documents of ``domains`` (in turn), each with 1-4 planted modes (drawn uniformly), one
    case per (document, mode); a mode that cannot be planted in the document is left out."""
    rng = random.Random(seed)
    cases: list[DemoCase] = []
    for d in range(documents):
        domain = domains[d % len(domains)]
        doc_rng = random.Random(rng.getrandbits(64))
        doc = build_document(domain, d // len(domains), doc_rng)
        band = _BANDS[doc_rng.randrange(len(_BANDS))]
        for mode in doc_rng.sample(PLANTED_MODES, doc_rng.randint(1, 4)):
            try:
                reference = build_reference(doc, band, doc_rng, MODE_NEEDS.get(mode))
                planted, detail = plant(mode, reference, doc, doc_rng)
            except (PlantingError, RuntimeError):
                continue
            cases.append(DemoCase(document_id=f"{DOMAIN_PREFIX[domain]}-{seed}-{d + 1:04d}", domain=domain,
                                  title=doc.title, source=doc.text, summary=planted.render(), band=band,
                                  planted_mode=mode, planted_detail=detail,
                                  expected_facts=expected_facts(doc, reference),
                                  reference_summary=reference.render()))
    return cases


def case_failures(cases: Sequence[DemoCase], home: Path | None = None) -> tuple[list[str], list[PointMeta]]:
    """Demo cases (these or ``generate_workload``'s) traced into a fresh embedded database as ``sumwatch demo``
    traces them, scored offline, and loaded as the clustering job loads failures: texts and (rubric, failure
    mode, document digest)."""
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415

    from sumwatch.monitor.demo.run import build_summarizer  # noqa: PLC0415
    from sumwatch.monitor.issues.failures import load_failures  # noqa: PLC0415
    from sumwatch.monitor.scoring.judges import build_cascade  # noqa: PLC0415
    from sumwatch.monitor.scoring.sampler import Sampler  # noqa: PLC0415
    from sumwatch.monitor.settings import Settings  # noqa: PLC0415
    from sumwatch.monitor.store.connection import Store  # noqa: PLC0415
    from sumwatch.monitor.store.migrations import migrate  # noqa: PLC0415
    from sumwatch.tracer import configure  # noqa: PLC0415

    # ``home``: an embedded folder this process already has open (a test's), used with a database of its own, since
    # chDB holds one folder per process; else a temporary folder of its own
    with tempfile.TemporaryDirectory() as temporary:
        database = f"several_{uuid.uuid4().hex[:10]}" if home is not None else "several"
        settings = Settings.from_env(env={}, home=home or Path(temporary), database=database)
        store = Store.open(settings)
        try:
            migrate(store)
            provider = TracerProvider(resource=Resource.create({"service.name": "several-kinds"}))
            configure(provider=provider, clickhouse=store.client, database=store.database, set_global=False)
            summarize = build_summarizer(provider, uuid.uuid4().hex[:12])
            for case in cases:
                summarize(case.source, case.band, case.document_id, case.domain, list(case.expected_facts),
                          case=case)
            provider.force_flush()
            provider.shutdown()
            Sampler(store, build_cascade(settings, mode="off")).run_pass()
            failures = load_failures(store, 0, 2**62)
        finally:
            if home is not None:
                store.command(f"DROP DATABASE IF EXISTS `{database}`")
            store.close()
    return [f.text for f in failures], [PointMeta(f.rubric, f.failure_mode, f.document) for f in failures]
