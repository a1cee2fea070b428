"""The target names commands check before a request (the contract) are the classes' names (the registries)."""

from __future__ import annotations

from sumwatch.monitor.contract.exports import SCORE_TARGET_NAMES, TARGET_NAMES
from sumwatch.monitor.exports.registry import TARGETS
from sumwatch.monitor.exports.score_targets import SCORE_TARGETS


def test_the_contract_names_every_tracker_and_score_target_in_the_registries_order():
    assert tuple(TARGETS) == TARGET_NAMES
    assert tuple(SCORE_TARGETS) == SCORE_TARGET_NAMES
