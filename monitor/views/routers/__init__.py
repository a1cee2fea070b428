"""The API's routers, one per resource; ``create_app`` includes them all (``ROUTERS``)."""

from __future__ import annotations

from . import (
    actions,
    alerts,
    calibration,
    corpus,
    datasets,
    experiments,
    exports,
    issues,
    judge_definitions,
    rescore,
    runs,
    score_sends,
    scores,
    status,
    traces,
    triage,
    unsure,
)

# rescore before actions: a 405's Allow names the first route whose path matches, and /api/actions/rescore is
# the rescore router's POST before it is GET /api/actions/{action}
ROUTERS = [traces.router, scores.router, runs.router, issues.router, triage.router, exports.router, corpus.router,
           calibration.router, judge_definitions.router, rescore.router, actions.router, status.router,
           score_sends.router, alerts.router, unsure.router, datasets.router,
           experiments.router]
