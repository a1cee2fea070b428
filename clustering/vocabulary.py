"""Clustering's own words: how a failure's document part is estimated (``FailureClusterer(document_part=...)``).

    DocumentPart("by_shape")         # DocumentPart.BY_SHAPE, the default

The words every room shares (``Choice``, ``Severity``, ``IssueStatus``) are the tracer's, in
:mod:`sumwatch.tracer.vocabulary`.
"""

from __future__ import annotations

from sumwatch.tracer.vocabulary import Choice


class DocumentPart(Choice):
    """How the part of a failure's vector that comes from its source document is estimated (and taken away)."""

    BY_SHAPE = "by_shape"        # the default: other_kinds where a document repeats a kind, else half of each
    OTHER_KINDS = "other_kinds"  # the mean of the document's failures of other kinds
    KIND_MEANS = "kind_means"    # the document's failures' mean deviation from their kinds' means
