"""Ingest: the OTLP/HTTP receiver, OTLP decoding, the group-commit span writer, and JSONL backfill."""
