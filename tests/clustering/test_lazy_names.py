"""The package's public names load on first use: each comes from its own module, and importing the package (or
the settings, which name the model backend through it) loads no numpy."""

import importlib
import subprocess
import sys

import pytest

import sumwatch.clustering as clustering

HEAVY = ("numpy", "umap", "hdbscan", "sklearn", "numba", "torch", "sentence_transformers", "onnxruntime")


def test_every_public_name_is_the_object_its_module_defines():
    for name in clustering.__all__:
        home = importlib.import_module(f"sumwatch.clustering.{clustering._HOMES[name]}")
        assert getattr(clustering, name) is getattr(home, name), name
    assert set(clustering.__all__) <= set(dir(clustering))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Severity'"):
        clustering.Severity  # noqa: B018 - the shared words live in sumwatch.tracer.vocabulary


@pytest.mark.integration
def test_importing_the_settings_loads_nothing_heavy():
    code = ("import sys, sumwatch.clustering, sumwatch.clustering.vocabulary, sumwatch.monitor.settings\n"
            "import sumwatch.clustering.sentence_model.backend\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the settings imported: {out.stdout.strip()}"
