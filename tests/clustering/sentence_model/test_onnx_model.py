"""The ONNX backend: exported once from the packaged weights, cached and checked by hash, rebuilt when damaged,
close to torch's vectors, and torch in its place (one warning) when it cannot run."""

import json
import logging
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from sumwatch.clustering.sentence_model import onnx_model
from sumwatch.clustering.sentence_model.backend import ModelBackend
from sumwatch.clustering.sentence_model.embedder import Embedder, resolve_model

pytestmark = pytest.mark.integration

SENTENCES = ["The city council approved the new parks budget.", "Councillors voted to pass the budget for parks.",
             "The striker scored twice in the cup final.", "  Rain is expected tomorrow.  ", "Q3 revenue rose 12%."]
PACKAGED = Path(resolve_model("all-MiniLM-L6-v2"))
EXPORT = "sumwatch.clustering.sentence_model.export_onnx"  # the image's build step, run with -m


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache with the packaged model exported once for this module."""
    root = tmp_path_factory.mktemp("models")
    Embedder(backend="onnx", cache_dir=root).encode(["warm"])
    return root


@pytest.fixture(scope="module")
def reference() -> Embedder:
    return Embedder()


def _cache(root: Path) -> Path:
    (target,) = root.glob("*-onnx-int8")
    return target


def test_onnx_rows_are_unit_float32_and_close_to_torch(models: Path, reference: Embedder):
    emb = Embedder(backend="onnx", cache_dir=models, threads=1)
    rows = emb.encode(SENTENCES)
    assert rows.shape == (5, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert emb.backend is ModelBackend.ONNX and emb.version == "all-MiniLM-L6-v2+onnx-int8"
    assert emb.dimension == 384
    cosines = (rows * reference.encode(SENTENCES)).sum(axis=1)
    assert cosines.min() > 0.97, cosines  # int8 weights move a vector only slightly
    a, b, c = rows[:3]
    assert float(a @ b) > 0.6 > 0.2 > float(a @ c)  # order and batch do not mix rows up


def test_a_texts_vector_does_not_depend_on_what_is_encoded_with_it(models: Path):
    """int8 activations are scaled per run, so a batch would tie a text's vector to its neighbours': clustering
    and scores would then move with whatever else the cache missed. Each text runs alone."""
    long_text = " ".join(["The quarterly report lists revenue, costs and a forecast for every region."] * 12)
    alone = {text: Embedder(backend="onnx", cache_dir=models).encode([text])[0] for text in SENTENCES}
    mixed = Embedder(backend="onnx", cache_dir=models).encode([long_text, *reversed(SENTENCES), "!!! 999 ???"])
    for text, row in zip(reversed(SENTENCES), mixed[1:6]):
        assert np.array_equal(row, alone[text]), text


def test_the_cache_is_named_for_the_model_and_reused(models: Path, caplog: pytest.LogCaptureFixture):
    target = _cache(models)
    assert target.name == "all-MiniLM-L6-v2-onnx-int8"
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["source"] == onnx_model.source_hash(PACKAGED) and manifest["dimension"] == 384
    assert (target / "model.int8.onnx").stat().st_size < 30_000_000  # int8: about a quarter of the 90 MB source
    written = (target / "model.int8.onnx").stat().st_mtime_ns
    with caplog.at_level(logging.INFO):
        Embedder(backend="onnx", cache_dir=models).encode(["again"])
    assert (target / "model.int8.onnx").stat().st_mtime_ns == written
    assert not [r for r in caplog.records if "export" in r.getMessage()]


def test_a_stale_or_damaged_cache_is_found(models: Path, tmp_path: Path):
    target = shutil.copytree(_cache(models), tmp_path / "copy")
    source = onnx_model.source_hash(PACKAGED)
    assert onnx_model._check(target, source) is None
    assert onnx_model._check(target, "0" * 40) == "the source weights changed"
    manifest = onnx_model._read_manifest(target)
    (target / "manifest.json").write_text(json.dumps({**asdict(manifest), "export_version": "0"}))
    assert "exported by version 0" in str(onnx_model._check(target, source))
    (target / "manifest.json").write_text(json.dumps(asdict(manifest)))
    with open(target / "model.int8.onnx", "r+b") as f:
        f.seek(1000)
        f.write(b"\xff" * 64)
    assert onnx_model._check(target, source) == "model.int8.onnx is missing or damaged"
    (target / "manifest.json").write_text("{not json")
    assert "unreadable manifest" in str(onnx_model._check(target, source))


def test_a_damaged_graph_is_rebuilt_with_one_log_line(models: Path, tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture):
    root = tmp_path / "models"
    shutil.copytree(models, root)
    graph = _cache(root) / "model.int8.onnx"
    graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])  # a copy cut short
    with caplog.at_level(logging.WARNING):
        rows = Embedder(backend="onnx", cache_dir=root).encode(SENTENCES[:2])
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "rebuilding the ONNX cache" in warnings[0] and "damaged" in warnings[0]
    assert onnx_model._check(_cache(root), onnx_model.source_hash(PACKAGED)) is None
    assert np.allclose(rows, Embedder(backend="onnx", cache_dir=models).encode(SENTENCES[:2]), atol=1e-6)


def test_without_onnxruntime_torch_runs_after_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture, reference: Embedder):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    emb = Embedder(backend="onnx", cache_dir=tmp_path)
    with caplog.at_level(logging.WARNING):
        rows = emb.encode(SENTENCES[:2])
        emb.encode(SENTENCES[2:])
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "onnxruntime is not installed" in warnings[0] and "using torch" in warnings[0]
    assert emb.backend is ModelBackend.TORCH and emb.version == "all-MiniLM-L6-v2"
    assert np.allclose(rows, reference.encode(SENTENCES[:2]), atol=1e-5)
    assert not list(tmp_path.iterdir())  # nothing exported


def test_a_model_the_export_does_not_cover_is_named(tmp_path: Path):
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}]))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    with pytest.raises(onnx_model.OnnxExportError, match="module 'Dense' is not exported"):
        onnx_model.read_layout(tmp_path)
    assert onnx_model.read_layout(PACKAGED) == onnx_model.Layout("", "mean", 256)


def test_the_onnx_backend_needs_a_cache_dir():
    with pytest.raises(ValueError, match="cache_dir"):
        Embedder(backend="onnx")


def test_threads_reach_the_onnx_session(models: Path):
    emb = Embedder(backend="onnx", cache_dir=models, threads=2)
    session = emb._load()._session
    options = session.get_session_options()
    assert options.intra_op_num_threads == 2 and options.inter_op_num_threads == 1


def test_a_folder_exported_ahead_is_read_and_never_written(models: Path, tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture):
    # the image's build step: python -m sumwatch.clustering.sentence_model.export_onnx DIR, into a folder of its own
    ahead = tmp_path / "opt-models"
    proc = subprocess.run([sys.executable, "-m", EXPORT, str(ahead)],
                          capture_output=True, text=True, check=True)
    assert "all-MiniLM-L6-v2: onnx-int8 model in" in proc.stdout
    graph = _cache(ahead) / "model.int8.onnx"
    written = graph.stat().st_mtime_ns
    home_models = tmp_path / "home" / "models"  # a pod's empty home
    with caplog.at_level(logging.INFO):
        rows = Embedder(backend="onnx", cache_dir=home_models, prebuilt_dir=ahead).encode(SENTENCES)
    assert not [r for r in caplog.records if "export" in r.getMessage()]
    assert not home_models.exists() and graph.stat().st_mtime_ns == written
    assert np.allclose(rows, Embedder(backend="onnx", cache_dir=models).encode(SENTENCES), atol=1e-6)


def test_a_damaged_folder_exported_ahead_is_passed_over_with_one_line(models: Path, tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture):
    ahead = tmp_path / "opt-models"
    shutil.copytree(models, ahead)
    graph = _cache(ahead) / "model.int8.onnx"
    graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])
    home_models = tmp_path / "home" / "models"
    shutil.copytree(models, home_models)  # the data directory's own cache, already exported
    with caplog.at_level(logging.WARNING):
        emb = Embedder(backend="onnx", cache_dir=home_models, prebuilt_dir=ahead)
        emb.encode(SENTENCES[:2])
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "not using the models exported ahead" in warnings[0] and "damaged" in warnings[0]
    assert emb.backend is ModelBackend.ONNX
    assert graph.stat().st_size < _cache(home_models).joinpath("model.int8.onnx").stat().st_size  # left as found


def test_the_export_command_names_a_bad_model_in_one_line(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", EXPORT, str(tmp_path), "no/such-model"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "'no/such-model' is not a local model directory to export from"
