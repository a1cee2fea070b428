"""What runs a sentence model, as a word the settings can name: standard library only, so reading the
settings loads neither numpy nor the model."""

from __future__ import annotations

from sumwatch.tracer.vocabulary import Choice


class ModelBackend(Choice):
    """What runs a sentence model: ONNX Runtime with int8 weights, or torch (the reference)."""

    ONNX = "onnx"
    TORCH = "torch"
