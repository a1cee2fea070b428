"""The committed faithfulness model loads offline from the repo's files and tells faithful sentences from
contradicted ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sumwatch.monitor.rubrics.learned.features import FEATURES
from sumwatch.monitor.rubrics.learned.model import CONFIG, FaithfulnessModel, ModelFileError

SOURCE = ("Shares of Northwind Traders fell 8% on Tuesday after the company cut its full-year forecast. Chief "
          "executive Maria Lopez said demand in Europe had weakened. The company will close two of its five "
          "factories next year. Finance chief Raj Menon told analysts that the dividend would not be reduced.")

# (faithful, contradicted) sentence pairs about SOURCE
CASES = [
    ("Northwind Traders' shares fell 8% after it cut its forecast.",
     "Northwind Traders' shares rose 8% after it raised its forecast."),
    ("The company will close two factories next year.",
     "The company will close all five of its factories next year."),
    pytest.param("Raj Menon said the dividend would not be reduced.", "Raj Menon said the dividend would be reduced.",
                 marks=pytest.mark.xfail(strict=True, reason="a dropped negation is no feature (see features.py); "
                                                             "the rules tier's negation check catches this one")),
    ("Maria Lopez said demand in Europe had weakened.",
     "Maria Lopez said demand in Asia had weakened."),
]


@pytest.fixture(scope="module")
def model() -> FaithfulnessModel:
    return FaithfulnessModel()  # one per module: its sentence model loads on the first score


def test_the_model_is_a_small_file_in_the_repo() -> None:
    assert CONFIG.exists() and CONFIG.stat().st_size < 25_000_000
    raw = json.loads(CONFIG.read_text())
    assert raw["features"] == list(FEATURES)
    assert all(w >= 0.0 for w in raw["weights"])  # more support never lowers the probability


@pytest.mark.parametrize(("faithful", "contradicted"), CASES)
def test_a_faithful_sentence_scores_above_a_contradicted_one(model: FaithfulnessModel, faithful: str,
                                                             contradicted: str) -> None:
    good = model.score(SOURCE, faithful)
    bad = model.score(SOURCE, contradicted)
    assert good.supported > bad.supported
    assert model.score(SOURCE, faithful) == good  # deterministic


def test_each_sentence_gets_a_probability_and_its_evidence(model: FaithfulnessModel) -> None:
    result = model.score(SOURCE, "Raj Menon spoke to analysts. Demand in Europe weakened, Lopez said.")
    assert len(result.sentences) == 2
    assert all(0.0 <= s.supported <= 1.0 for s in result.sentences)
    assert "Raj Menon" in result.sentences[0].evidence
    assert "Europe" in result.sentences[1].evidence
    assert 0.0 <= result.supported <= 1.0


@pytest.mark.integration
def test_the_model_loads_with_no_network_and_no_hub(tmp_path: Path) -> None:
    code = ("import socket\n"
            "def refuse(*a, **k):\n    raise OSError('network used')\n"
            "socket.socket.connect = refuse\n"
            "from sumwatch.monitor.rubrics.learned.model import FaithfulnessModel\n"
            "r = FaithfulnessModel().score('The cat sat on the mat.', 'A cat sat on a mat.')\n"
            "print(round(r.supported, 3))\n")
    env = {"HF_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-800:]
    assert 0.0 <= float(done.stdout.strip().splitlines()[-1]) <= 1.0


def test_cuts_come_with_the_weights() -> None:
    model = FaithfulnessModel()
    assert 0.0 <= model.fail_below <= model.doubt_below <= 1.0
    assert model.version.startswith("faith-")


@pytest.mark.parametrize(("change", "message"), [
    (lambda raw: raw.update(features=["min_words"]), "fitted on features"),
    (lambda raw: raw.update(weights=[1.0]), "need 12 values each"),
    (lambda raw: raw.pop("bias"), "not a faithfulness model file"),
])
def test_a_damaged_model_file_is_one_clear_error(tmp_path: Path, change, message: str) -> None:
    raw = json.loads(CONFIG.read_text())
    change(raw)
    bad = tmp_path / "model.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ModelFileError, match=message):
        FaithfulnessModel(bad)
    with pytest.raises(ModelFileError, match="cannot read the faithfulness model"):
        FaithfulnessModel(tmp_path / "missing.json")
