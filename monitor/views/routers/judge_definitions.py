"""Judge definitions: each rubric's active version, one version's file, its history, the diff between two
versions, and the two long actions of the loop, testing a candidate and promoting it.

    GET  /api/judges/definitions                               -> every rubric's active version
    GET  /api/judges/definitions/factuality?version=2          -> one version with its TOML text
    GET  /api/judges/definitions/factuality/diff?a=shipped&b=2 -> unified diff of the two texts
    POST /api/actions/judge_test?wait=false {"rubric": ..., "definition": "<TOML>"}   -> poll like any action

(``GET /api/judges`` is the cheap tiers' agreement with the LLM, in the scores router.) A version is a tag
stored by a promotion, or ``shipped`` for a built-in rubric's packaged file.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from ...calibration.corpus import seed_starter_corpora
from ...calibration.judges import example_ids, promote, test_candidate
from ...contract.calibration import (
    LABELLED,
    CandidateReport,
    ExampleOffer,
    JudgeDefinitionView,
    JudgeDiff,
    JudgeHistory,
    JudgeSummary,
    PromotionReport,
)
from ...rubrics.definition import BUILTIN, DefinitionError, JudgeDefinition, parse_definition
from ...store.corpus import load_items
from ...store.judges import active_definitions, judge_history, known_rubrics, stored_version
from ..errors import ApiError, error_responses
from ..services import Progress, ServicesDep
from .actions import _ACCEPTED, Wait, _run
from .params import JudgeModeName

router = APIRouter(prefix="/api", tags=["judges"], responses=error_responses(400, 401))
SHIPPED = "shipped"
RUBRIC_PATTERN = "^[a-z][a-z0-9_]{0,39}$"
RubricPath = Annotated[str, Path(pattern=RUBRIC_PATTERN, description="Rubric name (built in or custom)")]
VersionQuery = Annotated[str | None, Query(max_length=40, description="A stored version tag, or 'shipped' for a "
                                                                      "built-in rubric's packaged file")]
API_PROMOTER = "api"  # who a promotion is by when a request names nobody: the holder of the API token


class CandidateBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # JSON types as the schema says: 0 is no boolean
    rubric: str = Field(pattern=RUBRIC_PATTERN, description="the rubric the definition is for")
    definition: str = Field(min_length=1, max_length=200_000, description="the candidate definition (TOML; one "
                                                                           "that does not parse or defines another "
                                                                           "rubric answers 422)")
    origin: str | None = Field(None, max_length=500, description="the file's name, for error messages")
    mode: JudgeModeName | None = Field(None, description="judge mode (default: the server's)")
    force: str | None = Field(None, max_length=2_000, description="promote even when the gate fails, for this "
                                                                   "reason (recorded)")
    promoted_by: str | None = Field(None, max_length=200, description="who promotes (recorded; default: the API "
                                                                      "token, 'api')")


def _summary(rubric: str, definition: JudgeDefinition, s: ServicesDep) -> dict[str, Any]:
    shipped = BUILTIN.get(rubric) is definition
    record = None if shipped else stored_version(s.store, rubric, definition.version)
    return {"rubric": rubric, "version": definition.version, "judge_version": definition.judge_version,
            "builtin": rubric in BUILTIN, "shipped": shipped,
            "promoted_at": record.promoted_at if record else None, "promoted_by": record.promoted_by if record else "",
            "forced": record.forced if record else ""}


def _offers(s: ServicesDep, definition: JudgeDefinition) -> list[ExampleOffer]:
    used = example_ids(definition)
    return [ExampleOffer(item_id=i.item_id, verdict=i.human_verdict, bucket=i.bucket,
                         summary=" ".join(i.text.split())[:200],
                         paste=f'[[examples]]\ncorpus_item = "{i.item_id}"')
            for i in load_items(s.store, rubric=definition.name, status=LABELLED)
            if i.example and i.item_id not in used]


def _version(s: ServicesDep, rubric: str, version: str | None) -> tuple[JudgeDefinition, dict[str, Any]]:
    """The definition of ``rubric`` at ``version`` (None: the active one) and what its promotion recorded."""
    active = active_definitions(s.store)
    if version is None:
        if rubric not in active:
            raise ApiError(404, f"no rubric {rubric!r} (rubrics: {', '.join(known_rubrics(s.store))})")
        definition = active[rubric]
        record = None if BUILTIN.get(rubric) is definition else stored_version(s.store, rubric, definition.version)
        return definition, record.results if record else {}
    if version == SHIPPED:
        if rubric not in BUILTIN:
            raise ApiError(404, f"{rubric} is not a built-in rubric, so it has no shipped version")
        return BUILTIN[rubric], {}
    record = None
    for name in version_names(rubric, version):
        record = stored_version(s.store, rubric, name)
        if record is not None:
            break
        if rubric in BUILTIN and name == BUILTIN[rubric].version:
            return BUILTIN[rubric], {}  # the version tag `judge list` shows for the shipped file
    if record is None:
        tags = [r.version for r in judge_history(s.store, rubric)]
        if rubric in BUILTIN:
            tags += [f"{SHIPPED} (version {BUILTIN[rubric].version})"]
        raise ApiError(404, f"no version {version!r} of {rubric} (versions: {', '.join(tags) or 'none'})")
    try:
        return record.parsed(), record.results
    except DefinitionError as exc:
        raise ApiError(409, str(exc)) from None


def version_names(rubric: str, given: str) -> list[str]:
    """The version tags ``given`` may mean, as `judge list` and the Judges page show them: the tag itself, the
    tag without a leading ``v`` (``v1``), or the version in a judge version (``factuality@1~6c1f02aa``).

        version_names("factuality", "v2")   # ["v2", "2"]
    """
    names = [given]
    if given[:1] in "vV" and given[1:]:
        names.append(given[1:])
    if given.startswith(f"{rubric}@"):
        names.append(given[len(rubric) + 1:].split("~", 1)[0])
    return names


def _view(s: ServicesDep, rubric: str, definition: JudgeDefinition, results: dict[str, Any]) -> JudgeDefinitionView:
    active = active_definitions(s.store).get(rubric)
    is_active = active is not None and active.judge_version == definition.judge_version
    return JudgeDefinitionView(
        **_summary(rubric, definition, s), active=is_active,
        text=definition.text, results=results, examples_in_use=sorted(example_ids(definition)),
        inline_examples=sum(1 for e in definition.examples if not e.corpus_item),
        example_offers=_offers(s, definition))


@router.get("/judges/definitions", summary="Every rubric's active judge definition")
def definitions(s: ServicesDep) -> list[JudgeSummary]:
    active = active_definitions(s.store)
    return [JudgeSummary(**_summary(rubric, active[rubric], s)) for rubric in known_rubrics(s.store)
            if rubric in active]


@router.get("/judges/definitions/{rubric}", summary="One version of a rubric's definition (default: the active one), "
                                                    "with its file and the marked examples it does not use yet",
            responses=error_responses(404, 409))
def definition(s: ServicesDep, rubric: RubricPath, version: VersionQuery = None) -> JudgeDefinitionView:
    found, results = _version(s, rubric, version)
    return _view(s, rubric, found, results)


@router.get("/judges/definitions/{rubric}/history", summary="Every promotion of a rubric, newest first",
            responses=error_responses(404))
def history(s: ServicesDep, rubric: RubricPath) -> JudgeHistory:
    records = judge_history(s.store, rubric)
    if not records and rubric not in BUILTIN:
        raise ApiError(404, f"no rubric {rubric!r} (rubrics: {', '.join(known_rubrics(s.store))})")
    active = active_definitions(s.store).get(rubric)
    versions = []
    for record in records:
        try:
            parsed = record.parsed()
        except DefinitionError:
            continue  # a row this version cannot read is never active; `show --version` names its problem
        versions.append(_view(s, rubric, parsed, record.results))
    return JudgeHistory(rubric=rubric, active_version=active.version if active else None, versions=versions)


@router.get("/judges/definitions/{rubric}/diff", summary="Unified diff between two versions of a definition",
            responses=error_responses(404, 409))
def diff(s: ServicesDep, rubric: RubricPath,
         a: Annotated[str, Query(max_length=40, description="The older version (a tag, or 'shipped')")],
         b: Annotated[str, Query(max_length=40, description="The newer version (a tag, or 'shipped')")]) -> JudgeDiff:
    first, _ = _version(s, rubric, a)
    second, _ = _version(s, rubric, b)
    lines = difflib.unified_diff(first.text.splitlines(keepends=True), second.text.splitlines(keepends=True),
                                 fromfile=f"{rubric}@{a}", tofile=f"{rubric}@{b}")
    return JudgeDiff(rubric=rubric, a=a, b=b, diff="".join(line if line.endswith("\n") else line + "\n"
                                                            for line in lines))


def _candidate(body: CandidateBody) -> JudgeDefinition:
    """The body's definition, checked; a broken one answers 422 with its one-line problem (the schema states
    the string, not the TOML in it)."""
    try:
        candidate = parse_definition(body.definition, origin=body.origin or "<definition>")
    except DefinitionError as exc:
        raise ApiError(422, str(exc)) from None
    if candidate.name != body.rubric:
        raise ApiError(422, f"{candidate.origin}: name: the file defines {candidate.name!r}, not {body.rubric!r}")
    return candidate


@router.post("/actions/judge_test", summary="Test a candidate definition beside the active one on the rubric's "
                                            "labelled corpus (kappa overall and per bucket, changed items, cost)",
             responses={**_ACCEPTED, **error_responses(403, 409, 422)})
def judge_test(s: ServicesDep, body: CandidateBody, wait: Wait = True) -> CandidateReport:
    candidate = _candidate(body)

    def work(progress: Progress) -> CandidateReport:
        seed_starter_corpora(s.store, [body.rubric])  # the packaged starters count, as in calibrate
        return test_candidate(s.store, s.judges(body.mode), candidate, on_progress=progress)

    result: CandidateReport = _run(s, "judge_test", work, wait)
    return result


@router.post("/actions/judge_promote", summary="Test a candidate and make it the rubric's active version when the "
                                               "gate passes (or `force` gives a reason)",
             responses={**_ACCEPTED, **error_responses(403, 409, 422)})
def judge_promote(s: ServicesDep, body: CandidateBody, wait: Wait = True) -> PromotionReport:
    candidate = _candidate(body)

    def work(progress: Progress) -> PromotionReport:
        seed_starter_corpora(s.store, [body.rubric])
        return promote(s.store, s.judges(body.mode), candidate, force_reason=body.force,
                       promoted_by=body.promoted_by or API_PROMOTER, on_progress=progress)

    result: PromotionReport = _run(s, "judge_promote", work, wait)
    return result
