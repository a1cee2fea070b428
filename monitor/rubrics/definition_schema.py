"""The shape of a judge definition file: its tables, their keys and each key's type, as pydantic models that read
a file before the definition's own checks (:mod:`.definition`), and the JSON Schema written from them, shipped
beside the built-in files for editors (``definitions/judge-definition.schema.json``).

    DefinitionFile.model_validate(tomllib.loads(text))    # ValidationError on a key of the wrong type or unknown
    shape_problem(exc)          # ("verdicts.loaded.what", "is not a definition key (keys: failure_mode, ...)")
    python -m sumwatch.monitor.rubrics.write_schema            # writes the schema file
    python -m sumwatch.monitor.rubrics.write_schema --check    # exit 1 when the file differs

The models say what a file may hold; what its values mean together (a verdict that passes, a failure mode that
is listed, a pattern RE2 can run) stays with the reader. The schema says a little more than the models enforce
(the units and roll-ups, the name patterns, which keys an example or a check needs), so an editor flags what the
reader would refuse, with the reader's own words for the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.config import JsonDict
from pydantic_core import ErrorDetails

from ..contract.values import RUBRIC_PATTERN

SCHEMA_PATH = Path(__file__).parent / "definitions" / "judge-definition.schema.json"
COMMAND = "python -m sumwatch.monitor.rubrics.write_schema"


class Unit:
    """What one judged item is."""

    CLAIM = "claim"  # an atomic statement of the summary
    FACT = "fact"  # a fact the summary must carry (the expected facts, or the source's key facts)
    SENTENCE = "sentence"  # a sentence or list item of the summary
    SUMMARY = "summary"  # the whole summary, as one item


UNITS: tuple[str, ...] = (Unit.CLAIM, Unit.FACT, Unit.SENTENCE, Unit.SUMMARY)

# How item verdicts add up to the summary's verdict. "grounded" and "details" are the built-in
# groundedness and factuality rules; a definition of another rubric picks one of the general three.
ROLL_UPS: dict[str, str] = {
    "worst": "the worst item verdict, verdicts being listed best first",
    "most_common": "the failing item verdict that occurs most often",
    "judge": "the judge's own overall verdict, which may not pass a summary whose items fail",
    "grounded": "groundedness: all supported, any contradicted, all missing, else partial",
    "details": "factuality: the most common error, an unverified detail classed by its kind",
}
QUOTE_SOURCES: tuple[str, ...] = ("source", "summary", "reference")
TAG_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}"  # a version tag

_NAMED: JsonDict = {"propertyNames": {"pattern": RUBRIC_PATTERN}}  # a verdict's or a failure mode's name


class _Table(BaseModel):
    # TOML's own types, as written: no text read as a number, no 1 read as true; a key not listed is refused
    model_config = ConfigDict(extra="forbid", strict=True)


class VerdictTable(_Table):
    """A verdict ([verdicts.NAME], listed best first): whether it passes, its score and what it means."""

    passes: bool = Field(False, description="Whether a summary (or an item) with this verdict passes the rubric.")
    item_only: bool = Field(False, description="Only an item may get this verdict, never the summary as a whole.")
    score: float | None = Field(
        None, ge=0, le=1,
        description="The score stored with this verdict, from 0 to 1 (derived from the verdict, never asked of the "
                    "judge); 1 when it passes, else 0, when left out.")
    failure_mode: str | None = Field(None, description="The failure mode this verdict gets when the judge names none.")
    means: str = Field(description="What the verdict means, in one line the judge reads.")


class EvidenceTable(_Table):
    """Which verdicts need a quote, where the quote must be found, and what an item without one becomes."""

    required_for: list[str] | None = Field(
        None, description="The verdicts an item gets only with a quote found where quote_from says; the passing "
                          "verdicts when left out.")
    unquoted: str | None = Field(
        None, description="The verdict an item needing a quote gets without a real one; the first verdict that does "
                          "not pass when left out.")
    quote_from: str | None = Field(
        None, json_schema_extra={"enum": list(QUOTE_SOURCES)},
        description="Where an evidence quote must be found: the source (the default for claims and facts), the "
                    "summary, or the reference summary (a definition with reference = true).")


class ExampleTable(_Table):
    """A graded case shown to the judge ([[examples]]): source, summary and verdict written here, or a
    labelled corpus item's id."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [{"required": ["corpus_item"]},
                                                           {"required": ["source", "summary", "verdict"]}]})

    corpus_item: str | None = Field(
        None, description="A labelled corpus item, by id, whose texts and verdict the example takes when the judge "
                          "is built; instead of source, summary and verdict.")
    source: str | None = Field(None, description="The example's source text.")
    summary: str | None = Field(None, description="The example's summary.")
    verdict: str | None = Field(None, description="The summary's verdict, one of the verdicts.")
    failure_mode: str | None = Field(None, description="The failure mode behind the verdict, one of the failure modes.")
    why: str | None = Field(None, description="Why the summary gets that verdict, shown to the judge with it.")


class CheckTable(_Table):
    """A deterministic test ([[checks]]): a listed phrase or a pattern found in the summary fails the rubric with
    certainty, and no LLM is asked."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [{"required": ["phrases"]}, {"required": ["pattern"]}]})

    phrases: list[str] | None = Field(None, description="Phrases that fail the summary: whole words, any case.")
    pattern: str | None = Field(
        None, description="A regular expression that fails the summary when it matches; RE2 runs it, so no "
                          "look-around or back-references.")
    verdict: str = Field(description="The verdict a hit gives: one that does not pass.")
    failure_mode: str = Field(description="The failure mode a hit gives, one of the failure modes.")
    why: str | None = Field(None, description="Why a hit fails the summary, given with the verdict.")


class DefinitionFile(_Table):
    """A judge definition: a rubric as a TOML file a person reads and edits; sumwatch checks it when it is read."""

    model_config = ConfigDict(title="sumwatch judge definition")

    name: str = Field(json_schema_extra={"pattern": RUBRIC_PATTERN},
                      description="The rubric's name: lower-case letters, digits and _, starting with a letter.")
    version: str = Field(
        json_schema_extra={"pattern": f"^{TAG_PATTERN}$"},
        description="This definition's version tag (letters, digits, '.', '_' or '-'); stored judgements carry it "
                    "with a hash of the content.")
    question: str = Field(description="The question the judge answers: a categorical verdict, never a score on a "
                                      "scale.")
    criteria: str = Field(description="The grading criteria the judge follows; {item_verdicts} and {failure_modes} "
                                      "are replaced by the lists of verdicts and failure modes.")
    unit: str = Field(json_schema_extra={"enum": list(UNITS)},
                      description="What one judged item is: an atomic claim of the summary, a fact it must carry, "
                                  "a sentence, or the whole summary.")
    roll_up: str = Field(
        "worst", json_schema_extra={"enum": list(ROLL_UPS)},
        description="How item verdicts add up to the summary's: the worst, the most common failing one, or the "
                    "judge's own; grounded and details are the built-in groundedness and factuality rules.")
    failure_modes: dict[str, str] = Field(
        min_length=1, json_schema_extra=_NAMED,
        description="The failure modes (the calibration buckets), each with one line saying what it means.")
    verdicts: dict[str, VerdictTable] = Field(
        min_length=2, json_schema_extra=_NAMED,
        description="The verdicts, best first: the first passes, at least one does not.")
    evidence: EvidenceTable | None = Field(None, description="Which verdicts stand only with a quote.")
    length_note: bool = Field(False, description="Tell the judge the summary's length against the source's and "
                                                 "its length band.")
    reference: bool = Field(
        False, description="The judge also reads a reference (gold) summary of the source, as data between "
                           "<reference> tags: a rubric for experiments on a dataset whose items carry one. It is "
                           "judged only where a case has a reference, never by the sampler; a rubric named ref_... "
                           "must set it.")
    examples: list[ExampleTable] = Field(default_factory=list, description="Few-shot hard cases shown to the judge.")
    checks: list[CheckTable] = Field(default_factory=list,
                                     description="Deterministic tests that fail a summary before any LLM is asked.")
    model: str | None = Field(None, description="This rubric's own LLM, as litellm names it; the configured one when "
                                                "left out.")
    description: str | None = Field(None, description="What the rubric checks, in a sentence or two for people; the "
                                                      "judge never reads it.")


# the tables a key may sit in, by the first part of its place in the file
_TABLES: dict[str, type[_Table]] = {"verdicts": VerdictTable, "evidence": EvidenceTable, "examples": ExampleTable,
                                    "checks": CheckTable}

# the reader's words for a table or a key of the wrong shape, by its place ("*" is any name or position), and
# how many parts of the place the message names
_PROBLEMS: dict[tuple[str, ...], tuple[int, str]] = {
    ("verdicts",): (1, "needs at least two verdicts, each a table with passes and means"),
    ("verdicts", "*"): (2, "must be a table with passes and means"),
    ("verdicts", "*", "passes"): (2, "passes and item_only are true or false"),
    ("verdicts", "*", "item_only"): (2, "passes and item_only are true or false"),
    ("verdicts", "*", "score"): (3, "must be a number from 0 to 1 (derived from the verdict, never asked of the "
                                    "judge)"),
    ("failure_modes",): (1, "is missing: list each failure mode with a one-line description (they are the "
                            "calibration buckets)"),
    ("failure_modes", "*"): (2, "has no description: give each failure mode one line saying what it means"),
    ("evidence",): (1, "must be a table (required_for, unquoted, quote_from)"),
    ("evidence", "required_for"): (2, "must be a list of verdicts"),
    ("evidence", "required_for", "*"): (2, "must be a list of verdicts"),
    ("examples",): (1, "must be an array of tables ([[examples]])"),
    ("examples", "*"): (2, "must be a table"),
    ("checks",): (1, "must be an array of tables ([[checks]])"),
    ("checks", "*"): (2, "must be a table"),
    ("checks", "*", "phrases"): (3, "must be a list of non-empty phrases"),
    ("checks", "*", "phrases", "*"): (3, "must be a list of non-empty phrases"),
}


def _key(place: Sequence[str | int]) -> str:
    """A place in the file as the reader names it: ``verdicts.loaded.score``, ``checks[1].pattern``."""
    key = ""
    for part in place:
        key += f"[{part + 1}]" if isinstance(part, int) else f".{part}" if key else part
    return key


def _pattern(place: Sequence[str | int]) -> tuple[str, ...]:
    named = place[:1] in (("verdicts",), ("failure_modes",))  # their second part is a name the file chose
    return tuple("*" if isinstance(p, int) or (named and i == 1) else p for i, p in enumerate(place))


def shape_problem(exc: ValidationError) -> tuple[str, str]:
    """The key and the problem of the first error of a file's shape, in the reader's words: an unknown key first
    (the first by name in its table), then the others in the file's order of keys."""
    errors = exc.errors(include_url=False)
    unknown = [e for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        table = unknown[0]["loc"][:-1]
        error = min((e for e in unknown if e["loc"][:-1] == table), key=lambda e: str(e["loc"][-1]))
        known = (_TABLES[str(table[0])] if table else DefinitionFile).model_fields
        return _key(error["loc"]), f"is not a definition key (keys: {', '.join(sorted(known))})"
    error = errors[0]
    place = error["loc"]
    named = _PROBLEMS.get(_pattern(place))
    if named is not None:
        parts, problem = named
        return _key(place[:parts]), problem
    return _key(place), _problem(error)


def _problem(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return "is missing"
    if error["type"] == "string_type":
        return f"must be text, not {type(error['input']).__name__}"
    if error["type"] == "bool_type":
        return "must be true or false"
    return error["msg"][:1].lower() + error["msg"][1:]


# -- the JSON Schema --------------------------------------------------------------------------------------

def _without_null(node: Any) -> Any:
    """The schema as TOML reads it: TOML has no null, so a key that may be left out is one that is absent, and
    ``anyOf [X, null]`` is X; descriptions as single paragraphs."""
    if isinstance(node, list):
        return [_without_null(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_null(v) for k, v in node.items() if not (k == "default" and v is None)}
    if isinstance(out.get("description"), str):  # a docstring's lines, as one paragraph
        out["description"] = " ".join(out["description"].split())
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        kept = [o for o in options if o != {"type": "null"}]
        del out["anyOf"]
        out = {**kept[0], **out} if len(kept) == 1 else {"anyOf": kept, **out}
    return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a definition file (draft 2020-12), as shipped."""
    schema = _without_null(DefinitionFile.model_json_schema())
    assert isinstance(schema, dict)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="Write the JSON Schema of a judge definition file.")
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 when the shipped file differs")
    args = parser.parse_args(argv)
    text = schema_text()
    if args.check:
        same = SCHEMA_PATH.is_file() and SCHEMA_PATH.read_text() == text
        if not same:
            print(f"{SCHEMA_PATH} differs from the models; write it again: {COMMAND}", file=sys.stderr)
        return 0 if same else 1
    SCHEMA_PATH.write_text(text)
    return 0
