"""The committed faithfulness model loads offline from the repo's files and tells faithful sentences from
contradicted ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sumwatch.monitor.rubrics.learned.model import CONFIG, WEIGHTS, FaithfulnessModel, shared_model

SOURCE = ("Shares of Northwind Traders fell 8% on Tuesday after the company cut its full-year forecast. Chief "
          "executive Maria Lopez said demand in Europe had weakened. The company will close two of its five "
          "factories next year. Finance chief Raj Menon told analysts that the dividend would not be reduced.")

# (faithful, contradicted) sentence pairs about SOURCE
CASES = [
    ("Northwind Traders' shares fell 8% after it cut its forecast.",
     "Northwind Traders' shares rose 8% after it raised its forecast."),
    ("The company will close two factories next year.",
     "The company will close all five of its factories next year."),
    ("Raj Menon said the dividend would not be reduced.",
     "Raj Menon said the dividend would be reduced."),
]


def test_weights_are_in_the_repo_and_small() -> None:
    assert WEIGHTS.exists() and CONFIG.exists()
    assert WEIGHTS.stat().st_size < 25_000_000


@pytest.mark.parametrize(("faithful", "contradicted"), CASES)
def test_a_faithful_sentence_scores_above_a_contradicted_one(faithful: str, contradicted: str) -> None:
    model = shared_model()
    good = model.score(SOURCE, faithful)
    bad = model.score(SOURCE, contradicted)
    assert good.supported > bad.supported
    assert model.score(SOURCE, faithful) == good  # deterministic (and served from the cache)


def test_each_sentence_gets_a_probability_and_its_evidence() -> None:
    result = shared_model().score(SOURCE, "Maria Lopez runs Northwind Traders. Demand in Europe weakened.")
    assert len(result.sentences) == 2
    assert all(0.0 <= s.supported <= 1.0 for s in result.sentences)
    assert "Maria Lopez" in result.sentences[0].evidence
    assert result.supported == min(s.supported for s in result.sentences)


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


def test_thresholds_come_with_the_weights() -> None:
    t = FaithfulnessModel().thresholds
    assert 0.0 <= t.fail_below <= 1.0 and 0.0 <= t.balanced <= 1.0
    # a verdict fails offline only at a measured precision of .95; 0.0 means no cut reached it: never fails
    assert t.fail_precision >= 0.95 or t.fail_below == 0.0
