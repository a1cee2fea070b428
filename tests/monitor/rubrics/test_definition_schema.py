"""The shape of a judge definition file: a pydantic model reads it before the definition's own checks, with the
reader's one-line words, and the JSON Schema written from it is shipped beside the built-in files for editors."""

from __future__ import annotations

import tomllib
from pathlib import Path

import jsonschema
import pytest
from tone_rubric import TONE

from sumwatch.monitor.rubrics.definition import DEFINITIONS_DIR, DefinitionError, parse_definition
from sumwatch.monitor.rubrics.definition_schema import COMMAND, SCHEMA_PATH, json_schema, schema_text

ROOT = Path(__file__).resolve().parents[3]
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def _readme_definition() -> str:
    guide = (ROOT / "docs" / "guides" / "judges.md").read_text()  # the docs' worked definition
    return next(b.split("```")[0] for b in guide.split("```toml\n")[1:] if 'name = "tone"' in b.split("```")[0])


def test_the_shipped_schema_is_the_one_the_models_write():
    assert SCHEMA_PATH.parent == DEFINITIONS_DIR
    assert SCHEMA_PATH.read_text() == schema_text(), f"{SCHEMA_PATH.name} differs from the models; run {COMMAND}"
    jsonschema.Draft202012Validator.check_schema(json_schema())


@pytest.mark.parametrize("path", sorted(DEFINITIONS_DIR.glob("*.toml")), ids=lambda p: p.name)
def test_every_builtin_definition_validates_and_names_the_schema(path):
    text = path.read_text()
    VALIDATOR.validate(tomllib.loads(text))
    assert text.startswith("#:schema ./judge-definition.schema.json\n\n")  # taplo's (and tombi's) directive


def test_the_definitions_the_docs_and_tests_show_validate_too():
    for text in (_readme_definition(), TONE):
        VALIDATOR.validate(tomllib.loads(text))


@pytest.mark.parametrize(("change", "where"), [
    (('unit = "summary"', 'unit = "paragraph"'), ["unit"]),
    (("[verdicts.neutral]", "[verdicts.5]"), ["verdicts"]),
    (("[verdicts.loaded]", "[verdicts.loaded]\nwhat = 1"), ["verdicts", "loaded"]),
    (("passes = true", "passes = 1"), ["verdicts", "neutral", "passes"]),
    (('version = "v1"', 'version = "v 1"'), ["version"]),
    (('phrases = ["guaranteed returns", "risk-free"]', 'why = "no phrase, no pattern"'), ["checks", 0]),
    (('source = "Sales fell 3% in March."', ""), ["examples", 0]),
])
def test_the_schema_flags_what_the_reader_refuses(change, where):
    text = _readme_definition()
    old, new = change
    assert old in text
    broken = text.replace(old, new, 1)
    errors = list(VALIDATOR.iter_errors(tomllib.loads(broken)))
    assert errors and list(errors[0].absolute_path)[:len(where)] == where, [e.message for e in errors]
    with pytest.raises(DefinitionError):
        parse_definition(broken, origin="tone.toml")


@pytest.mark.parametrize(("change", "message"), [
    (("passes = true", "passes = 1"), "tone.toml: verdicts.neutral: passes and item_only are true or false"),
    (("passes = true", "passes = true\nscore = true"),
     "tone.toml: verdicts.neutral.score: must be a number from 0 to 1 (derived from the verdict, never asked of the "
     "judge)"),
    (('version = "v1"', "version = 1"), "tone.toml: version: must be text, not int"),
    (('version = "v1"', ""), "tone.toml: version: is missing"),
    (('phrases = ["guaranteed returns", "risk-free"]', 'phrases = ["a", 3]'),
     "tone.toml: checks[1].phrases: must be a list of non-empty phrases"),
    (('why = "a 3% fall reported as a disaster"', 'whyy = "x"'),
     "tone.toml: examples[1].whyy: is not a definition key (keys: corpus_item, failure_mode, source, summary, "
     "verdict, why)"),
    (('name = "tone"', 'zeta = 1\nalpha = 2\nname = "tone"'),
     "tone.toml: alpha: is not a definition key (keys: checks, criteria, description, evidence, examples, "
     "failure_modes, length_note, model, name, question, reference, roll_up, unit, verdicts, version)"),
])
def test_a_file_of_the_wrong_shape_is_the_readers_one_line(change, message):
    old, new = change
    with pytest.raises(DefinitionError) as caught:
        parse_definition(_readme_definition().replace(old, new, 1), origin="tone.toml")
    assert str(caught.value) == message


def test_a_top_level_table_of_the_wrong_kind_is_named():
    head = 'name = "t"\nversion = "1"\nquestion = "Q?"\nunit = "summary"\ncriteria = "c"\n'
    tables = '[failure_modes]\nbad = "bad"\n[verdicts.ok]\npasses = true\nmeans = "ok"\n[verdicts.no]\nmeans = "no"\n'
    for line, message in (("examples = 5", "examples: must be an array of tables ([[examples]])"),
                          ("checks = [1]", "checks[1]: must be a table"),
                          ("evidence = [1]", "evidence: must be a table (required_for, unquoted, quote_from)"),
                          ("length_note = 1", "length_note: must be true or false")):
        with pytest.raises(DefinitionError) as caught:
            parse_definition(head + line + "\n" + tables, origin="t.toml")
        assert str(caught.value) == f"t.toml: {message}"
    with pytest.raises(DefinitionError, match=r"^t.toml: verdicts: needs at least two verdicts"):
        parse_definition(head + "verdicts = []\n[failure_modes]\nbad = 'bad'\n", origin="t.toml")
