"""What a command checks in this process, with its own settings, before or beside the server.

    llm, judged = llm_check(settings)              # `doctor`: one small call, then one real judge request
    text = candidate_text("tone", Path("tone.toml"))   # `judge test|promote`: the file read and checked here
    folder, compiled = warm_clustering_cache(settings)  # `cluster --warm-cache`
    export_problems("github", settings)           # `export` in this process: every problem of the target's settings
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..exports.registry import target_problems
from ..remote.llm import LLMConnection, PingResult, ping
from ..rubrics.definition import DefinitionError, load_definition
from ..rubrics.llm import LLMConfig, LLMJudge
from ..rubrics.verdicts import ERROR, GROUNDEDNESS, SummaryCase
from ..scoring.judges import llm_connection
from ..settings import Settings
from . import EngineError

# short, and plainly supported, so any working judge answers quickly and cheaply
_CASE_SOURCE = ("The city council approved a budget of 4 million dollars on Tuesday. The money pays for road "
                "repairs and two new bus lines.")
_CASE_SUMMARY = "The council approved a 4 million dollar budget for road repairs and bus lines."


@dataclass(frozen=True)
class JudgeCheck:
    """The judge's answer to one real request: a verdict it could read, or why not."""

    rubric: str
    ok: bool
    verdict: str
    latency_ms: float
    error: str = ""


def llm_check(settings: Settings) -> tuple[PingResult | None, JudgeCheck | None]:
    """The configured model's answer to one small call, and, when it answered, the judge's verdict on one real
    request; (None, None) when no model is configured."""
    connection = llm_connection(settings)
    if connection is None:
        return None, None
    result = ping(connection)
    return result, check_judge(connection) if result.ok else None


def check_judge(connection: LLMConnection) -> JudgeCheck:
    """One groundedness request as the sampler would send it (no retries, no cache), read by the judge.

        check_judge(llm_connection(settings))   # JudgeCheck(rubric='groundedness', ok=True, verdict='supported', ...)
    """
    judge = LLMJudge(LLMConfig.from_connection(replace(connection, max_retries=0)))
    result = judge.judge(GROUNDEDNESS, SummaryCase(source=_CASE_SOURCE, summary=_CASE_SUMMARY))
    ok = result.verdict != ERROR
    return JudgeCheck(GROUNDEDNESS, ok, result.verdict, round(result.latency_ms, 1), "" if ok else result.error)


def candidate_text(rubric: str, file: Path) -> str:
    """The text of the definition file for ``rubric``, checked here first: a broken file, or one defining
    another rubric, is an :class:`EngineError` naming the file and the key."""
    name, text = definition_file(file)
    if name != rubric:
        raise EngineError(f"{file}: name: the file defines {name!r}, not {rubric!r}")
    return text


def definition_file(file: Path) -> tuple[str, str]:
    """(rubric, text) of a definition file, checked here first: a broken file is an :class:`EngineError`."""
    try:
        definition = load_definition(file)
    except DefinitionError as exc:
        raise EngineError(str(exc)) from None
    return definition.name, definition.text


def warm_clustering_cache(settings: Settings) -> tuple[Path, int]:
    """(numba's cache folder, functions compiled into it now: few when it was already warm)."""
    from sumwatch.clustering.jit_cache import jit_cache_dir  # noqa: PLC0415 - numba and umap only for this
    from sumwatch.clustering.warm_cache import warm_jit_cache  # noqa: PLC0415 - as above

    folder = jit_cache_dir(settings.store.home)
    return folder.resolve(), warm_jit_cache(folder)


def export_problems(target: str, settings: Settings) -> list[str]:
    """One line per problem with the tracker ``target``'s settings here; empty when it can be used."""
    return target_problems(target, settings.exports)
