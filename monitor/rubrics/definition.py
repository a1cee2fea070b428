"""Judge definitions: a rubric as a small TOML file a person can read and edit, checked when it is loaded.

    definition = load_definition(Path("tone.toml"))          # DefinitionError: one line, file, key, problem
    definition = parse_definition(text, origin="tone.toml")
    BUILTIN["groundedness"].criteria                         # the four shipped files, parsed
    definition.judge_version                                 # "tone@v2~3f2a9c01": tag and content

A definition holds what a team may change: the question, the verdicts and which pass, the failure modes
(the calibration buckets) with one line each, the grading criteria, the unit judged, few-shot examples,
deterministic checks and a model. ``reference = true`` has the judge also read a reference summary (an
experiment's dataset item, see :mod:`.reference`; the sampler never runs such a rubric). What is not theirs to
change stays in code (:mod:`.prompts`, :mod:`.llm`): source, summary and reference arrive as tagged data, never
instructions; the JSON answer shape; quotes checked against the text they claim to come from.

A file's shape (its tables, keys and their types) is read first, by :class:`.definition_schema.DefinitionFile`,
which also writes the JSON Schema shipped beside the built-in files for editors; the reader here checks what the
values mean together.

TOML rather than YAML: Python reads it without a dependency (``tomllib``), and it has no implicit types
(YAML reads ``no`` as false and ``1.10`` as a float, which would quietly turn a verdict or a version
tag into something else); multi-line strings keep criteria readable, and comments are allowed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..contract.values import RUBRIC_NAME
from ..settings.patterns import PatternError, user_pattern
from ..settings.user_files import UserFileError, parse_toml, read_user_text
from .definition_schema import QUOTE_SOURCES, TAG_PATTERN, DefinitionFile, shape_problem
from .definition_schema import ROLL_UPS as ROLL_UPS
from .definition_schema import UNITS as UNITS
from .definition_schema import Unit as Unit

DEFINITIONS_DIR = Path(__file__).parent / "definitions"
BUILTIN_NAMES: tuple[str, ...] = ("groundedness", "completeness", "factuality", "conciseness")
# The reference rubrics of experiments (:mod:`.reference`) own the names that start with ``ref_``: the ones computed
# in code are no definition's, and a definition named ref_... reads the reference (``reference = true``), so a
# team's rubric never lands on a reference rubric's row.
REFERENCE_PREFIX = "ref_"
COMPUTED_REFERENCE_RUBRICS: tuple[str, ...] = ("ref_length", "ref_format", "ref_drift", "ref_tri_gate",
                                               "ref_coverage")


_BUILTIN_ROLL_UPS = {"grounded": "groundedness", "details": "factuality"}

_NAME = RUBRIC_NAME
_TAG = re.compile(TAG_PATTERN)
_SCORE_ASK = re.compile(r"\b(?:score|rate|grade)\b[^.\n]{0,60}?\b\d+\s*(?:-|to|–|out of)\s*\d+\b"
                        r"|\bon a scale\b|\b\d+\s*(?:-|to|–)\s*\d+\s*scale\b", re.IGNORECASE)
METHOD = "verdicts, not scores; evidence before verdict"


class DefinitionError(ValueError):
    """A definition that cannot be used; the message is one line naming the file, the key and the problem."""

    def __init__(self, origin: str, key: str, problem: str) -> None:
        self.origin, self.key, self.problem = origin, key, problem
        super().__init__(f"{origin}: {key}: {problem}" if key else f"{origin}: {problem}")


@dataclass(frozen=True)
class VerdictDef:
    name: str
    passes: bool
    score: float
    means: str
    item_only: bool = False  # an item may say it, the summary's verdict never does
    failure_mode: str = ""  # the failure mode when the judge names none


@dataclass(frozen=True)
class Example:
    """A graded case shown to the judge: inline texts, or a corpus item resolved when the judge is built."""

    verdict: str = ""
    source: str = ""
    summary: str = ""
    failure_mode: str = ""
    why: str = ""
    corpus_item: str = ""

    @property
    def resolved(self) -> bool:
        return bool(self.source and self.summary and self.verdict)


@dataclass(frozen=True)
class Check:
    """A deterministic test on the summary: a listed phrase (whole words, any case) or a regular expression
    (RE2, see :mod:`..settings.patterns`). A hit fails the rubric with certainty; no LLM is asked."""

    verdict: str
    failure_mode: str
    phrases: tuple[str, ...] = ()
    pattern: str = ""
    why: str = ""

    def find(self, summary: str) -> str:
        """The text of the first hit in ``summary``, or ""; PatternTimeout when the pattern runs past its
        time limit."""
        for phrase in self.phrases:
            hit = re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", summary,
                            re.IGNORECASE)
            if hit:
                return hit.group(0)
        if self.pattern:
            found = user_pattern(self.pattern).search(summary)
            if found is not None:
                return found.text or self.pattern
        return ""


@dataclass(frozen=True)
class JudgeDefinition:
    name: str
    version: str
    question: str
    unit: str
    roll_up: str
    criteria: str
    verdicts: tuple[VerdictDef, ...]
    failure_modes: tuple[tuple[str, str], ...]  # (name, what it means), in the file's order
    evidence_required_for: frozenset[str]
    unquoted: str  # what an item needing a quote becomes without a real one ("" when none need one)
    quote_from: str  # "source" or "summary": where an evidence quote must be found
    length_note: bool = False
    reference: bool = False  # the judge also reads the case's reference summary (experiments only)
    examples: tuple[Example, ...] = ()
    checks: tuple[Check, ...] = ()
    model: str = ""
    description: str = ""
    text: str = field(default="", compare=False)  # the file as written
    origin: str = field(default="", compare=False)

    # -- views

    @property
    def builtin(self) -> bool:
        return self.name in BUILTIN_NAMES

    @property
    def overall(self) -> tuple[str, ...]:
        """The verdicts a summary may get, best first."""
        return tuple(v.name for v in self.verdicts if not v.item_only)

    @property
    def item_verdicts(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.verdicts)

    @property
    def passing(self) -> frozenset[str]:
        return frozenset(v.name for v in self.verdicts if v.passes and not v.item_only)

    @property
    def scores(self) -> dict[str, float]:
        return {v.name: v.score for v in self.verdicts if not v.item_only}

    @property
    def meanings(self) -> dict[str, str]:
        return {v.name: v.means for v in self.verdicts}

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.failure_modes)

    @property
    def mode_hints(self) -> dict[str, str]:
        return dict(self.failure_modes)

    def verdict(self, name: str) -> VerdictDef | None:
        return next((v for v in self.verdicts if v.name == name), None)

    @property
    def content_hash(self) -> str:
        """Digest of everything that reaches the judge or decides a verdict (not comments or layout)."""
        # an example from the corpus counts by its id: resolving it to the item's texts is the same definition
        examples = tuple(e.corpus_item if e.corpus_item else e for e in self.examples)
        parts = [self.name, self.version, self.question, self.unit, self.roll_up, self.criteria, str(self.length_note),
                 repr(self.verdicts), repr(self.failure_modes), repr(sorted(self.evidence_required_for)),
                 self.unquoted, self.quote_from, repr(examples), repr(self.checks), self.model]
        if self.reference:  # only when set, so every definition without it keeps the hash it had
            parts.append("reference")
        return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()[:8]

    @property
    def judge_version(self) -> str:
        return f"{self.name}@{self.version}~{self.content_hash}"

    def with_examples(self, examples: tuple[Example, ...]) -> JudgeDefinition:
        """The same definition with its corpus examples resolved to texts."""
        return JudgeDefinition(**{**self.__dict__, "examples": examples})


# -- reading ------------------------------------------------------------------------------------------

def load_definition(path: Path) -> JudgeDefinition:
    """The definition in the TOML file at ``path``; a file that cannot be used raises :class:`DefinitionError`."""
    try:
        text = read_user_text(path)
    except FileNotFoundError:
        raise DefinitionError(str(path), "", "no such file") from None
    except UserFileError as exc:
        raise DefinitionError(str(path), "", str(exc)) from None
    except OSError as exc:
        raise DefinitionError(str(path), "", f"cannot be read ({exc.__class__.__name__}: {exc})") from None
    return parse_definition(text, origin=str(path))


def parse_definition(text: str, *, origin: str = "<definition>") -> JudgeDefinition:
    """``text`` (TOML) as a checked definition, or :class:`DefinitionError` naming ``origin``, the key and
    what is wrong."""
    try:
        data = parse_toml(text)
    except UserFileError as exc:
        raise DefinitionError(origin, "", str(exc)) from None
    try:
        DefinitionFile.model_validate(data)  # the file's shape: its keys and their types
    except ValidationError as exc:
        raise DefinitionError(origin, *shape_problem(exc)) from None
    return _Reader(origin, data).definition(text)


class _Reader:
    """What a definition means, read from a file whose shape :class:`DefinitionFile` has checked: every key known
    and of its type."""

    def __init__(self, origin: str, data: dict[str, Any]) -> None:
        self.origin, self.data = origin, data

    def fail(self, key: str, problem: str) -> DefinitionError:
        return DefinitionError(self.origin, key, problem)

    def text(self, table: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str:
        value = table.get(key)
        if value is None:
            if required:
                raise self.fail(where, "is missing")
            return ""
        if not isinstance(value, str):
            raise self.fail(where, f"must be text, not {type(value).__name__}")
        value = value.strip()
        if required and not value:
            raise self.fail(where, "is empty")
        return value

    def definition(self, source_text: str) -> JudgeDefinition:
        d = self.data
        name = self.text(d, "name", "name")
        if not _NAME.fullmatch(name):
            raise self.fail("name", f"{name!r} must be lower-case letters, digits and _ (starting with a letter, "
                                    f"at most 40)")
        reference = bool(d.get("reference", False))
        if name in COMPUTED_REFERENCE_RUBRICS:
            raise self.fail("name", f"{name!r} is a reference rubric computed in code, not a definition; choose "
                                    f"another name")
        if name.startswith(REFERENCE_PREFIX) and not reference:
            raise self.fail("name", f"names starting {REFERENCE_PREFIX} are the reference rubrics'; set reference = "
                                    f"true for a judge that reads the reference, or choose another name")
        version = self.text(d, "version", "version")
        if not _TAG.fullmatch(version):
            raise self.fail("version", f"{version!r} must be letters, digits, '.', '_' or '-' (at most 40)")
        question = self.text(d, "question", "question")
        criteria = self.text(d, "criteria", "criteria")
        for key, value in (("question", question), ("criteria", criteria)):
            if _SCORE_ASK.search(value):
                raise self.fail(key, f"asks for a score on a scale ({_SCORE_ASK.search(value).group(0)!r}); "  # type: ignore[union-attr]
                                     f"a judge gives categorical verdicts with evidence: {METHOD}")
        unit = self.text(d, "unit", "unit")
        if unit not in UNITS:
            raise self.fail("unit", f"{unit!r} is not a unit (one of {', '.join(UNITS)})")
        roll_up = self.text(d, "roll_up", "roll_up", required=False) or "worst"
        if roll_up not in ROLL_UPS:
            raise self.fail("roll_up", f"{roll_up!r} is not a roll-up (one of {', '.join(ROLL_UPS)})")
        if roll_up in _BUILTIN_ROLL_UPS and _BUILTIN_ROLL_UPS[roll_up] != name:
            raise self.fail("roll_up", f"{roll_up!r} is the {_BUILTIN_ROLL_UPS[roll_up]} rule; use worst, most_common "
                                       f"or judge")
        modes = self.failure_modes()
        verdicts = self.verdicts(modes)
        by_name = {v.name: v for v in verdicts}
        required_for, unquoted, quote_from = self.evidence(verdicts, unit, reference)
        length_note = bool(d.get("length_note", False))
        examples = self.examples(by_name, dict(modes))
        checks = self.checks(by_name, dict(modes))
        model = self.text(d, "model", "model", required=False)
        definition = JudgeDefinition(
            name=name, version=version, question=question, unit=unit, roll_up=roll_up, criteria=criteria,
            verdicts=verdicts, failure_modes=modes, evidence_required_for=required_for, unquoted=unquoted,
            quote_from=quote_from, length_note=length_note, reference=reference, examples=examples, checks=checks,
            model=model, description=self.text(d, "description", "description", required=False), text=source_text,
            origin=self.origin)
        _check_builtin(definition, self)
        return definition

    def failure_modes(self) -> tuple[tuple[str, str], ...]:
        table: dict[str, str] = self.data["failure_modes"]
        out = []
        for mode, hint in table.items():
            key = f"failure_modes.{mode}"
            if not _NAME.fullmatch(mode):
                raise self.fail(key, "a failure mode is lower-case letters, digits and _")
            if not hint.strip():
                raise self.fail(key, "has no description: give each failure mode one line saying what it means")
            if "\n" in hint.strip():
                raise self.fail(key, "the description must be one line")
            out.append((mode, hint.strip()))
        return tuple(out)

    def verdicts(self, modes: tuple[tuple[str, str], ...]) -> tuple[VerdictDef, ...]:
        table: dict[str, dict[str, Any]] = self.data["verdicts"]
        mode_names = {m for m, _ in modes}
        out = []
        for name, spec in table.items():
            key = f"verdicts.{name}"
            if not _NAME.fullmatch(name):
                raise self.fail(key, f"a verdict is a lower-case word ({METHOD})" if name[:1].isdigit()
                                else "a verdict is lower-case letters, digits and _")
            passes, item_only = bool(spec.get("passes", False)), bool(spec.get("item_only", False))
            score = spec.get("score", 1.0 if passes else 0.0)
            mode = self.text(spec, "failure_mode", f"{key}.failure_mode", required=False)
            if mode and mode not in mode_names:
                raise self.fail(f"{key}.failure_mode", f"{mode!r} is not one of the failure_modes")
            out.append(VerdictDef(name, passes, float(score), self.text(spec, "means", f"{key}.means"), item_only,
                                  mode))
        overall = [v for v in out if not v.item_only]
        if not any(v.passes for v in overall):
            raise self.fail("verdicts", "no verdict passes: mark at least one with passes = true")
        if all(v.passes for v in overall):
            raise self.fail("verdicts", "every verdict passes: a judge that cannot fail measures nothing")
        if not overall[0].passes:
            raise self.fail(f"verdicts.{overall[0].name}", "the first verdict must pass (verdicts are listed best "
                                                           "first; the first is what a clean summary gets)")
        return tuple(out)

    def evidence(self, verdicts: tuple[VerdictDef, ...], unit: str,
                 reference: bool) -> tuple[frozenset[str], str, str]:
        table: dict[str, Any] = self.data.get("evidence", {})
        names = [v.name for v in verdicts]
        quote_from = self.text(table, "quote_from", "evidence.quote_from", required=False) or (
            "source" if unit in (Unit.CLAIM, Unit.FACT) else "summary")
        if quote_from not in QUOTE_SOURCES:
            raise self.fail("evidence.quote_from", f"{quote_from!r} must be {', '.join(QUOTE_SOURCES[:-1])} or "
                                                   f"{QUOTE_SOURCES[-1]}")
        if quote_from == "reference" and not reference:
            raise self.fail("evidence.quote_from", "a quote from the reference needs reference = true")
        required = table.get("required_for")
        if required is None:
            required = [v.name for v in verdicts if v.passes]
        for v in required:
            if v not in names:
                raise self.fail("evidence.required_for", f"{v!r} is not one of the verdicts ({', '.join(names)})")
        unquoted = self.text(table, "unquoted", "evidence.unquoted", required=False)
        if required and not unquoted:
            unquoted = next(v.name for v in verdicts if not v.passes)
        if unquoted and unquoted not in names:
            raise self.fail("evidence.unquoted", f"{unquoted!r} is not one of the verdicts ({', '.join(names)})")
        if unquoted in required:
            raise self.fail("evidence.unquoted", "an item without a quote cannot become a verdict that needs one")
        return frozenset(required), unquoted if required else "", quote_from

    def examples(self, verdicts: dict[str, VerdictDef], modes: dict[str, str]) -> tuple[Example, ...]:
        rows: list[dict[str, Any]] = self.data.get("examples", [])
        out = []
        for n, row in enumerate(rows, 1):
            key = f"examples[{n}]"
            item = self.text(row, "corpus_item", f"{key}.corpus_item", required=False)
            texts = {k: self.text(row, k, f"{key}.{k}", required=not item) for k in ("source", "summary", "verdict")}
            if item and any(texts.values()):
                raise self.fail(key, "give either corpus_item or source, summary and verdict, not both")
            verdict = texts["verdict"]
            if verdict and verdict not in verdicts:
                raise self.fail(f"{key}.verdict", f"{verdict!r} is not one of the verdicts ({', '.join(verdicts)})")
            mode = self.text(row, "failure_mode", f"{key}.failure_mode", required=False)
            if mode and mode not in modes:
                raise self.fail(f"{key}.failure_mode", f"{mode!r} is not one of the failure_modes")
            out.append(Example(verdict, texts["source"], texts["summary"], mode,
                               self.text(row, "why", f"{key}.why", required=False), item))
        return tuple(out)

    def checks(self, verdicts: dict[str, VerdictDef], modes: dict[str, str]) -> tuple[Check, ...]:
        rows: list[dict[str, Any]] = self.data.get("checks", [])
        out = []
        for n, row in enumerate(rows, 1):
            key = f"checks[{n}]"
            phrases: list[str] = row.get("phrases", [])
            if not all(p.strip() for p in phrases):
                raise self.fail(f"{key}.phrases", "must be a list of non-empty phrases")
            pattern = self.text(row, "pattern", f"{key}.pattern", required=False)
            if not phrases and not pattern:
                raise self.fail(key, "needs phrases or a pattern")
            if pattern:
                try:
                    user_pattern(pattern)
                except PatternError as exc:
                    raise self.fail(f"{key}.pattern", f"is not a regular expression RE2 can run ({exc})") from None
            verdict = self.text(row, "verdict", f"{key}.verdict")
            spec = verdicts.get(verdict)
            if spec is None or spec.item_only:
                raise self.fail(f"{key}.verdict", f"{verdict!r} is not one of the verdicts "
                                                  f"({', '.join(v for v, s in verdicts.items() if not s.item_only)})")
            if spec.passes:
                raise self.fail(f"{key}.verdict", "a check fails a summary: give a verdict that does not pass")
            mode = self.text(row, "failure_mode", f"{key}.failure_mode")
            if mode not in modes:
                raise self.fail(f"{key}.failure_mode", f"{mode!r} is not one of the failure_modes")
            out.append(Check(verdict, mode, tuple(p.strip() for p in phrases), pattern,
                             self.text(row, "why", f"{key}.why", required=False)))
        return tuple(out)


def _check_builtin(definition: JudgeDefinition, reader: _Reader) -> None:
    """A built-in rubric's verdicts, passing set, failure modes and unit are fixed: the cheap tiers, the
    stored scores and the corpus use them. Its words (question, meanings, criteria, examples) are free."""
    shipped = BUILTIN.get(definition.name)
    if shipped is None:
        return
    fixed = (("verdicts", [(v.name, v.passes, v.item_only) for v in definition.verdicts],
              [(v.name, v.passes, v.item_only) for v in shipped.verdicts]),
             ("failure_modes", list(definition.mode_names), list(shipped.mode_names)),
             ("unit", definition.unit, shipped.unit), ("roll_up", definition.roll_up, shipped.roll_up))
    for key, mine, theirs in fixed:
        if mine != theirs:
            raise reader.fail(key, f"differs from the built-in {definition.name} ({theirs}); a built-in rubric's "
                                   f"verdicts, failure modes, unit and roll-up are fixed because the cheap tiers and "
                                   f"stored scores use them: edit its words, or define a rubric of your own")


def _load_builtin() -> dict[str, JudgeDefinition]:
    out: dict[str, JudgeDefinition] = {}
    for name in BUILTIN_NAMES:
        definition = load_definition(DEFINITIONS_DIR / f"{name}.toml")
        if definition.name != name:
            raise DefinitionError(definition.origin, "name", f"must be {name}")
        out[name] = definition
    return out


BUILTIN: dict[str, JudgeDefinition] = {}
BUILTIN.update(_load_builtin())
