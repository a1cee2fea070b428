"""Calibration as stored: the baseline the gate compares a judge with. Running a calibration is an action
(``POST /api/actions/calibrate``), which holds the calibration job lock; a read never runs the judge."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from ...store.baselines import latest_baseline
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import RubricPath

router = APIRouter(prefix="/api/calibration", tags=["calibration"], responses=error_responses(400, 401))


class CalibrationBaseline(BaseModel):
    rubric: str
    judge_version: str
    kappa: float
    bucket_kappas: dict[str, float]


@router.get("/{rubric}", summary="The stored calibration baseline of a rubric (kappa overall and per bucket)",
            responses=error_responses(404))
def baseline(s: ServicesDep, rubric: RubricPath) -> CalibrationBaseline:
    found = latest_baseline(s.store, rubric)
    if found is None:
        raise ApiError(404, f"no {rubric} baseline yet: run `sumwatch calibrate --rubric {rubric}`")
    version, kappa, buckets = found
    return CalibrationBaseline(rubric=rubric, judge_version=version, kappa=kappa, bucket_kappas=buckets)
