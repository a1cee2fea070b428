"""A sentence-transformers model on ONNX Runtime with int8 weights, exported from its own files offline.

    model = OnnxSentenceModel.load(model_dir, home / "models", threads=1)   # exports on first use, then reads the cache
    rows = model.encode(["The cat sat.", "A dog ran."])   # float32, shape (2, 384), unit rows; each text alone

The first load runs ``torch.onnx.export`` on the transformer with its pooling (mean or CLS, as the model's
modules.json says) and the L2 normalisation, then ``quantize_dynamic`` turns the weights into int8 per output
channel. The result lives in ``cache_root/<model>-onnx-int8/`` beside a manifest that holds the hash of the
source files (weights, configs, tokenizer) with :data:`EXPORT_VERSION`, and the hash of the files written. Each
load checks both; a mismatch or a damaged file is rebuilt, with one log line. Only this first build needs
torch: later loads read the tokenizer and the graph with ``tokenizers`` and ``onnxruntime`` alone.

A folder exported ahead (``prebuilt``, e.g. an image's, made at build time) is read first and never written:
when its manifest matches the source files and its files their hashes it is used, else the cache under
``cache_root`` as above. Sampler pods whose home is an empty volume so skip the export at each start.

    python -m sumwatch.clustering.sentence_model.export_onnx DIR [MODEL]   # MODEL (the packaged default) into DIR
"""

from __future__ import annotations

import fcntl
import hashlib
import inspect
import json
import logging
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported with the runtime, not with this module
    from ..arrays import Vectors

# Bump when the export or the quantization below changes what the cached graph computes: caches rebuild.
EXPORT_VERSION = "1"
BACKEND_TAG = "onnx-int8"
OPSET = 17
_GRAPH, _MANIFEST, _TOKENIZER = "model.int8.onnx", "manifest.json", "tokenizer.json"
# the files of a sentence-transformers directory that decide its vectors (README and the like do not)
_SOURCE_SUFFIXES = (".json", ".safetensors", ".bin", ".txt", ".model")
_POOLINGS = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
_MODULE_PREFIX = "sentence_transformers.models."

_log = logging.getLogger(__name__)


class OnnxExportError(RuntimeError):
    """The model could not be exported, quantized or loaded on ONNX Runtime."""


@dataclass(frozen=True)
class Layout:
    """What the export reproduces of a sentence-transformers directory."""

    transformer_dir: str  # relative to the model directory
    pooling: str  # "mean" or "cls"
    max_seq_length: int


@dataclass(frozen=True)
class Manifest:
    """Written beside the cached graph; a load trusts the cache only when every field matches."""

    source: str  # hash of the source files and EXPORT_VERSION
    export_version: str
    graph: str  # hash of the int8 graph as written
    tokenizer: str  # hash of the tokenizer file as written
    max_seq_length: int
    dimension: int


def read_layout(model_dir: Path) -> Layout:
    """``read_layout(path)`` -> Layout("", "mean", 256) for all-MiniLM-L6-v2; raises OnnxExportError for a
    module the export does not cover (a Dense layer, max pooling ...)."""
    modules_file = model_dir / "modules.json"
    modules = json.loads(modules_file.read_text()) if modules_file.exists() else []
    transformer, pooling = "", "mean"  # sentence-transformers' own choice for a plain transformer directory
    for module in modules:
        kind = str(module.get("type", "")).removeprefix(_MODULE_PREFIX)
        path = str(module.get("path", ""))
        if kind == "Transformer":
            transformer = path
        elif kind == "Pooling":
            config = json.loads((model_dir / path / "config.json").read_text())
            chosen = [name for key, name in _POOLINGS.items() if config.get(key)]
            others = [k for k, v in config.items() if k.startswith("pooling_mode_") and v and k not in _POOLINGS]
            if len(chosen) != 1 or others:
                raise OnnxExportError(f"pooling {sorted(k for k, v in config.items() if v is True)} is not exported "
                                      f"(mean or CLS only)")
            pooling = chosen[0]
        elif kind != "Normalize":  # the embedder asks for unit vectors either way
            raise OnnxExportError(f"module {kind or module!r} is not exported (Transformer, Pooling, Normalize only)")
    config_file = model_dir / transformer / "sentence_bert_config.json"
    if not config_file.exists():
        config_file = model_dir / "sentence_bert_config.json"
    config = json.loads(config_file.read_text()) if config_file.exists() else {}
    return Layout(transformer, pooling, int(config.get("max_seq_length") or 512))


def source_hash(model_dir: Path) -> str:
    """One hash of the files that decide the model's vectors, and of EXPORT_VERSION."""
    digest = hashlib.blake2b(f"export {EXPORT_VERSION}".encode(), digest_size=20)
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file() and p.suffix in _SOURCE_SUFFIXES):
        digest.update(b"\0" + path.relative_to(model_dir).as_posix().encode() + b"\0")
        digest.update(_file_hash(path).encode())
    return digest.hexdigest()


class OnnxSentenceModel:
    """An int8 ONNX graph (transformer, pooling, normalisation) and its tokenizer; see the module docstring."""

    def __init__(self, session: Any, tokenizer: Any, dimension: int) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._dimension = dimension
        self._inputs = {i.name for i in session.get_inputs()}

    @classmethod
    def load(cls, model_dir: Path, cache_root: Path, threads: int = 1, name: str | None = None,
             prebuilt: Path | None = None) -> OnnxSentenceModel:
        """The graph for ``model_dir`` (in a folder named after ``name``, else the directory) from ``prebuilt``
        when it holds a matching one, else from ``cache_root``, exported first when missing or stale."""
        try:
            import onnxruntime as ort  # noqa: PLC0415 - heavy: loaded on first use
            from tokenizers import Tokenizer  # noqa: PLC0415 - heavy: loaded on first use
        except ImportError as exc:
            raise OnnxExportError(f"{exc.name or 'onnxruntime'} is not installed") from exc
        label = re.sub(r"[^\w.-]+", "--", name or model_dir.name).strip("-") or "model"
        target = cache_root / f"{label}-{BACKEND_TAG}"
        ahead = _prebuilt(model_dir, prebuilt / target.name) if prebuilt is not None else None
        if prebuilt is not None and ahead is not None:
            target = prebuilt / target.name
        manifest = ahead if ahead is not None else _cached(model_dir, target)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # a worker that spins while waiting for work burns CPU a shared core could give to another process
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = ort.InferenceSession(str(target / _GRAPH), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail / InvalidGraph types
            raise OnnxExportError(f"onnxruntime could not load {target / _GRAPH}: {exc}") from exc
        tokenizer = Tokenizer.from_file(str(target / _TOKENIZER))
        tokenizer.no_padding()  # each text runs alone (see encode)
        tokenizer.enable_truncation(max_length=manifest.max_seq_length)
        return cls(session, tokenizer, manifest.dimension)

    def get_sentence_embedding_dimension(self) -> int:
        return self._dimension

    def encode(self, texts: list[str]) -> Vectors:
        """Unit-length float32 rows, one per text, in order. Each text runs alone, so its vector depends on the
        text and nothing else: int8 activations are scaled per run from the whole input, which in a batch would
        tie a text's vector to its neighbours' (and to padding), and make clustering or scores move with whatever
        else was encoded alongside. Alone costs no more CPU at this size (no padding; 1.00x on 1,530 summaries of
        49 tokens, 0.72x on 300 documents of 222, against length-sorted batches of 64)."""
        import numpy as np  # noqa: PLC0415 - heavy: loaded on first use

        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, piece in enumerate(self._tokenizer.encode_batch([t.strip() for t in texts])):  # stripped as s-t does
            shape = (1, len(piece.ids))
            feed = {"input_ids": np.asarray(piece.ids, dtype=np.int64).reshape(shape),
                    "attention_mask": np.ones(shape, dtype=np.int64),
                    "token_type_ids": np.asarray(piece.type_ids, dtype=np.int64).reshape(shape)}
            out[row] = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0][0]
        return out


def _cached(model_dir: Path, target: Path) -> Manifest:
    """The manifest of a cache that matches ``model_dir``, building it first (under a lock, so sampler
    processes that start together export once)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    source = source_hash(model_dir)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        problem = _check(target, source)
        if problem is None:
            return _read_manifest(target)
        if problem != "not built yet":
            _log.warning("rebuilding the ONNX cache %s: %s", target, problem)
        return _build(model_dir, target, source)


def _prebuilt(model_dir: Path, target: Path) -> Manifest | None:
    """The manifest of a read-only folder exported ahead when it matches ``model_dir``, else None (one log line
    when it exists but does not match: the model is then exported under the cache root)."""
    if not target.exists():
        return None
    problem = _check(target, source_hash(model_dir))
    if problem is not None:
        _log.warning("not using the models exported ahead in %s: %s", target, problem)
        return None
    return _read_manifest(target)


def _check(target: Path, source: str) -> str | None:
    """Why the cache at ``target`` cannot be used for ``source``, or None when it can."""
    if not (target / _MANIFEST).exists():
        return "not built yet"
    try:
        manifest = _read_manifest(target)
    except (OSError, ValueError, TypeError) as exc:
        return f"unreadable manifest ({exc})"
    if manifest.export_version != EXPORT_VERSION:
        return f"exported by version {manifest.export_version}, now {EXPORT_VERSION}"
    if manifest.source != source:
        return "the source weights changed"
    for name, expected in ((_GRAPH, manifest.graph), (_TOKENIZER, manifest.tokenizer)):
        if not (target / name).exists() or _file_hash(target / name) != expected:
            return f"{name} is missing or damaged"
    return None


def _read_manifest(target: Path) -> Manifest:
    return Manifest(**json.loads((target / _MANIFEST).read_text()))


def _build(model_dir: Path, target: Path, source: str) -> Manifest:
    layout = read_layout(model_dir)
    started = time.process_time()
    _log.info("exporting %s to ONNX int8 under %s (once per model and data directory)", target.name, target)
    target.mkdir(parents=True, exist_ok=True)
    (target / _MANIFEST).unlink(missing_ok=True)  # no manifest: a build cut short is never trusted
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as scratch:
        work = Path(scratch)
        dimension = _export(model_dir, layout, work / "model.onnx", work)
        _quantize(work / "model.onnx", work / _GRAPH)
        for name in (_GRAPH, _TOKENIZER):
            os.replace(work / name, target / name)
    manifest = Manifest(source, EXPORT_VERSION, _file_hash(target / _GRAPH), _file_hash(target / _TOKENIZER),
                        layout.max_seq_length, dimension)
    partial = target / f"{_MANIFEST}.partial"
    partial.write_text(json.dumps(asdict(manifest), indent=1))
    os.replace(partial, target / _MANIFEST)
    _log.info("exported %s in %.1f CPU-s", target.name, time.process_time() - started)
    return manifest


def _export(model_dir: Path, layout: Layout, out: Path, tokenizer_dir: Path) -> int:
    """Export transformer + pooling + normalisation as one fp32 graph; save the fast tokenizer beside it.
    Returns the embedding dimension."""
    import warnings  # noqa: PLC0415 - only a first build needs it

    try:
        import torch  # noqa: PLC0415 - heavy: only a first build needs it
        import transformers  # noqa: PLC0415 - heavy: only a first build needs it
    except ImportError as exc:
        raise OnnxExportError(f"exporting needs {exc.name}, which is not installed") from exc
    source = model_dir / layout.transformer_dir
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(source))
        if not getattr(tokenizer, "is_fast", False):
            raise OnnxExportError(f"{source} has no fast tokenizer (tokenizer.json) to run without transformers")
        tokenizer.save_pretrained(str(tokenizer_dir))
        transformers.utils.logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        # eager attention: the traced graph then holds plain MatMul/Softmax, which quantize and run anywhere
        encoder = transformers.AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
    except OnnxExportError:
        raise
    except Exception as exc:  # transformers raises OSError, ValueError, ...
        raise OnnxExportError(f"could not read {source}: {type(exc).__name__}: {exc}") from exc
    takes_types = "token_type_ids" in inspect.signature(encoder.forward).parameters
    names = ["input_ids", "attention_mask", *(["token_type_ids"] if takes_types else [])]
    sample = tokenizer(["an example sentence", "another"], padding=True, return_tensors="pt")
    args = tuple(sample[n] for n in names)
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"embedding": {0: "batch"}}
    graph = _pooled_module(torch, encoder, layout.pooling, takes_types)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python branches
        try:
            torch.onnx.export(graph, args, str(out), dynamo=False, input_names=names, output_names=["embedding"],
                              dynamic_axes=axes, opset_version=OPSET)
        except Exception as exc:  # the exporter raises many types
            raise OnnxExportError(f"torch.onnx.export failed: {type(exc).__name__}: {exc}") from exc
        dimension = int(graph(*args).shape[1])
    return dimension


def _pooled_module(torch: Any, encoder: Any, pooling: str, takes_types: bool) -> Any:
    """The encoder followed by pooling and L2 normalisation, as sentence-transformers computes them."""

    class Pooled(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            extra = {"token_type_ids": token_type_ids} if takes_types else {}
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask, **extra)[0]
            if pooling == "cls":
                pooled = hidden[:, 0]
            else:
                weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return Pooled()


def _quantize(fp32: Path, out: Path) -> None:
    """Weights to int8, one scale per output channel; activations are quantized per run, from
    that run's own range (one text per run: see :meth:`OnnxSentenceModel.encode`)."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415 - heavy: first build
    except ImportError as exc:
        raise OnnxExportError(f"quantizing needs {exc.name}, which is not installed") from exc
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer advises pre-processing on the root logger; dynamic needs none
    try:
        quantize_dynamic(fp32, out, per_channel=True, weight_type=QuantType.QInt8)
    except Exception as exc:  # onnx and onnxruntime raise many types
        raise OnnxExportError(f"quantize_dynamic failed: {type(exc).__name__}: {exc}") from exc
    finally:
        root.setLevel(level)


def _file_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()

