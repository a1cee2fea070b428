"""Export a sentence model to int8 ONNX into a folder, as an image's build step does for
``SUMWATCH_MODEL_PREBUILT_DIR`` (see :mod:`.onnx_model`).

    python -m sumwatch.clustering.sentence_model.export_onnx /opt/sumwatch/models    # the packaged all-MiniLM-L6-v2
    python -m sumwatch.clustering.sentence_model.export_onnx /opt/sumwatch/models path/to/model

Its own module, not ``onnx_model``'s, because ``embedder`` imports that one: ``-m`` on it would run a second copy.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .embedder import DEFAULT_MODEL, resolve_model
from .onnx_model import BACKEND_TAG, OnnxExportError, OnnxSentenceModel


def main() -> None:
    """``python -m sumwatch.clustering.sentence_model.export_onnx DIR [MODEL]``: export MODEL (default: the
    packaged one) into DIR, as an image's build step does for ``SUMWATCH_MODEL_PREBUILT_DIR``."""
    if len(sys.argv) not in (2, 3):
        print("usage: python -m sumwatch.clustering.sentence_model.export_onnx CACHE_DIR [MODEL]", file=sys.stderr)
        raise SystemExit(2)
    name = sys.argv[2] if len(sys.argv) == 3 else DEFAULT_MODEL
    model_dir = Path(resolve_model(name))
    if not model_dir.is_dir():
        print(f"{name!r} is not a local model directory to export from", file=sys.stderr)
        raise SystemExit(2)
    cache_root = Path(sys.argv[1]).resolve()
    try:
        model = OnnxSentenceModel.load(model_dir, cache_root, name=name)
    except OnnxExportError as exc:
        print(f"could not export {name}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"{name}: {BACKEND_TAG} model in {cache_root} ({model.get_sentence_embedding_dimension()} dimensions)")


if __name__ == "__main__":
    main()
