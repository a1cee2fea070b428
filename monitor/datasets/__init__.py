"""Datasets: fixed, versioned sets of items (a source, and optionally a reference summary, expected facts,
assessment questions, a band and metadata) that an experiment runs a summarizer on, stored in ClickHouse beside
the traces. An edit makes a new version; an experiment pins the version it ran."""
