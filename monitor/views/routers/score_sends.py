"""Verdicts back out to OTLP endpoints, Langfuse and Phoenix, by hand (``sumwatch send-scores``).

    POST /api/scores/send {"to": ["langfuse"], "since": "7d"}            -> ScoreSendAnswer
    POST /api/scores/send {"dry_run": true}                              # every configured target, nothing sent

A target's refusal is a result with ``failed`` and its reason, not an error status; a target whose settings the
server lacks (or none configured) answers 409 with one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...contract.exports import ScoreSendAnswer
from ...exports.score_sends import send_scores
from ...exports.score_targets import SCORE_TARGETS
from ..errors import ApiError, error_responses
from ..services import ServicesDep
from .params import DURATION_PATTERN, capped_duration

router = APIRouter(prefix="/api", tags=["scores"], responses=error_responses(400, 401, 403, 409))

if TYPE_CHECKING:
    ScoreTargetName: TypeAlias = str
else:  # the choices as the OpenAPI document states them, from the one place they are defined
    ScoreTargetName = Literal[tuple(SCORE_TARGETS)]


class SendScores(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    to: list[ScoreTargetName] | None = Field(None, description="These targets (default: every configured one)")
    since: str | None = Field(None, max_length=40, pattern=DURATION_PATTERN,
                              description="Verdicts scored within this duration, like 24h or 7d (default "
                                          "SUMWATCH_SCORES_WINDOW; a longer one than 36500d is read as 36500d); "
                                          "failed sends are retried whatever their age")
    failing_only: bool | None = Field(None, description="Only failing verdicts (default SUMWATCH_SCORES_VERDICTS)")
    dry_run: bool = Field(False, description="Answer what would be sent; send nothing")
    retry_given_up: bool = Field(False, description="Also send the verdicts given up (refused for themselves, or "
                                                    "failing too often) once more")


@router.post("/scores/send", summary="Send verdicts not sent yet to OTLP, Langfuse or Phoenix")
def send(s: ServicesDep, body: SendScores) -> ScoreSendAnswer:
    try:
        with s.export_lock:
            results = send_scores(s.store, s.export_config, body.to,
                                  since=capped_duration(body.since) if body.since else None,
                                  failing_only=body.failing_only, dry_run=body.dry_run,
                                  retry_given_up=body.retry_given_up)
    except ValueError as exc:  # the body is the schema's and its since is capped: the targets' settings are not
        raise ApiError(409, str(exc)) from None
    return ScoreSendAnswer(results=results)
