"""The reference pages, written from the code at each build (``hooks:`` in mkdocs.yml), so they cannot drift:

- ``reference/cli.md``: every command of ``sumwatch``, walked from the typer app, with its help, arguments and
  options;
- ``reference/settings.md``: every setting from the fields of ``Settings`` (variable, flag, default, rule, what it
  does), the table ``sumwatch config`` reads too;
- ``reference/api.md``: every path and method of the OpenAPI document of the app ``sumwatch up`` serves (built on an
  embedded database in a temporary folder), with its summary, parameters, body and answers;
- ``reference/judge-definition.md``: the judge definition file's tables and keys, from its JSON Schema.

    .venv/bin/mkdocs build --strict      # the pages below are generated on the way
    cli_markdown(), settings_reference(), api_markdown(document), judge_schema_markdown()   # each a page's text
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any

PAGES = ("reference/cli.md", "reference/settings.md", "reference/api.md", "reference/judge-definition.md")


def _cell(text: Any) -> str:
    """Free text in a table cell: one line, its pipes and angle brackets escaped (Markdown would end the cell
    or read a tag)."""
    return " ".join(str(text if text is not None else "").split()).replace("|", "\\|").replace("<", "&lt;")


# --- the command line --------------------------------------------------------------------------------------------

def commands() -> Iterator[tuple[str, Any]]:
    """``("sumwatch traces show", command)`` for the root and every command and group under it, in the app's
    order; hidden ones left out."""
    import typer  # noqa: PLC0415 - the build imports what it documents

    from sumwatch.monitor.cli import app  # noqa: PLC0415

    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        if getattr(command, "hidden", False):
            return
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    yield from walk(typer.main.get_command(app), "sumwatch")


def _usage(path: str, command: Any) -> str:
    args = [p.name.upper() if p.required else f"[{p.name.upper()}]"
            for p in command.params if p.param_type_name == "argument"]
    more = " COMMAND" if getattr(command, "commands", None) else ""
    return " ".join([path, "[OPTIONS]", *args]) + more


def _kind(param: Any) -> str:
    """What an option takes, in a word, from the annotation typer read (``int | None`` is a number)."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    text = getattr(annotation, "__name__", None) or str(annotation)
    for word, shown in (("int", "NUMBER"), ("float", "NUMBER"), ("Path", "PATH"), ("list", "TEXT"),
                        ("str", "TEXT")):
        if word in text:
            return shown
    return "VALUE"


def _option_row(param: Any) -> str:
    names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
    kind = "flag" if getattr(param, "is_flag", False) else _cell(param.metavar or _kind(param))
    if getattr(param, "multiple", False):
        kind += ", repeatable"
    default = param.default
    shown = "" if default is None or callable(default) or default == () else f"`{default}`"
    return f"| {names} | {kind} | {shown} | {_cell(getattr(param, 'help', '') or '')} |"


def cli_markdown() -> str:
    lines = ["# Command line", "",
             "Generated from the `sumwatch` command itself at each build of this site; `sumwatch COMMAND --help`",
             "prints the same. Every listing command takes `--json`; an error is one line on stderr and exit",
             "status 2 (a bad value, flag or file), 3 (the database) or 1 (a failed check, skipped input).", ""]
    for path, command in commands():
        level = "##" if path.count(" ") <= 1 else "###"
        lines += [f"{level} `{path}`", "", "```text", _usage(path, command), "```", ""]
        text = (command.help or "").strip()
        if text:
            lines += [" ".join(text.split()).replace("<", "&lt;"), ""]
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        if arguments:
            lines += ["| argument | required |", "|---|---|"]
            lines += [f"| `{p.name.upper()}` | {'yes' if p.required else 'no'} |" for p in arguments]
            lines.append("")
        options = [p for p in command.params if p.param_type_name == "option" and not getattr(p, "hidden", False)]
        if options:
            lines += ["| option | takes | default | what it does |", "|---|---|---|---|"]
            lines += [_option_row(p) for p in options]
            lines.append("")
        subs = [name for name, sub in getattr(command, "commands", {}).items() if not getattr(sub, "hidden", False)]
        if subs:
            lines += ["Commands: " + ", ".join(f"`{name}`" for name in subs) + ".", ""]
    return "\n".join(lines)


# --- settings ----------------------------------------------------------------------------------------------------

def settings_reference() -> str:
    from sumwatch.monitor.settings.describe import settings_markdown  # noqa: PLC0415

    return "\n".join([
        "# Settings", "",
        "Generated from the fields that declare the settings (`monitor/settings/`) at each build of this site: "
        "each field carries its description, its check and its flag.", "",
        "Each setting is read from its `SUMWATCH_*` variable once (the variable is `SUMWATCH_` and the setting's "
        "name), a flag (where one sets it) wins, and every value is checked against its rule before a command "
        "starts: a bad one is one line naming the variable and its flag, and exit status 2. A `SUMWATCH_*` "
        "variable that is not a setting is warned about on stderr with the closest name (`SUMWATCH_JUDGE_MOED is "
        "not a sumwatch setting (did you mean SUMWATCH_JUDGE_MODE?)`), never silently ignored. "
        "`sumwatch config` prints the value in force of each and where it came from (`--set` only those given, "
        "`--concern C` one concern, `--json` with each rule and default); a secret shows only as set. In code "
        "the settings are one object nested per concern (`settings.receiver.port`, `settings.judge.llm_model`, "
        "`settings.exports.github_repo`), with secrets as `SecretStr`.", "",
        settings_markdown(), ""])


# --- the HTTP API ------------------------------------------------------------------------------------------------

def openapi_document() -> dict[str, Any]:
    """The document of the app ``sumwatch up`` serves, built on an embedded database in a temporary folder with
    default settings (the environment's ``SUMWATCH_*`` variables are not read)."""
    from sumwatch.monitor.engine.local import build_runtime, open_store  # noqa: PLC0415
    from sumwatch.monitor.settings import Settings  # noqa: PLC0415
    from sumwatch.monitor.views.app import create_app  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="sumwatch-docs-") as home:
        settings = Settings.from_env(env={"SUMWATCH_HOME": home})
        with open_store(settings) as store:
            return create_app(build_runtime(settings, store)).openapi()


def _schema_name(schema: Mapping[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(_schema_name(s) for s in schema.get("anyOf", schema.get("oneOf", [])))
    if schema.get("type") == "array":
        return f"array of {_schema_name(schema.get('items', {}))}"
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    return str(schema.get("type", "any"))


def api_markdown(document: Mapping[str, Any]) -> str:
    lines = ["# HTTP API", "",
             f"Generated at each build of this site from the OpenAPI {document.get('openapi', '')} document of the "
             "app `sumwatch up` serves (`/api/openapi.json` on a running server, browsable at `/api/docs`).", "",
             _cell(document.get("info", {}).get("description", "")), ""]
    for path, operations in document.get("paths", {}).items():
        for method, op in operations.items():
            if method not in {"get", "post", "put", "patch", "delete", "head"}:
                continue
            lines += [f"## `{method.upper()} {path}`", "", _cell(op.get("summary", "")), ""]
            if op.get("description"):
                lines += [" ".join(op["description"].split()).replace("<", "&lt;"), ""]
            params = op.get("parameters", [])
            if params:
                lines += ["| parameter | in | required | type | what it is |", "|---|---|---|---|---|"]
                lines += [f"| `{p['name']}` | {p.get('in', '')} | {'yes' if p.get('required') else 'no'} | "
                          f"{_cell(_schema_name(p.get('schema', {})))} | {_cell(p.get('description', ''))} |"
                          for p in params]
                lines.append("")
            body = op.get("requestBody", {}).get("content", {})
            for kind, content in body.items():
                lines += [f"Body (`{kind}`): {_cell(_schema_name(content.get('schema', {})))}", ""]
            answers = op.get("responses", {})
            if answers:
                lines += ["| status | answer |", "|---|---|"]
                for status, answer in answers.items():
                    schemas = [_schema_name(c.get("schema", {})) for c in answer.get("content", {}).values()]
                    shape = f" ({_cell(', '.join(schemas))})" if schemas and schemas != ["any"] else ""
                    lines.append(f"| {status} | {_cell(answer.get('description', ''))}{shape} |")
                lines.append("")
    return "\n".join(lines)


# --- the judge definition file -----------------------------------------------------------------------------------

def _type(node: Mapping[str, Any]) -> str:
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if node.get("type") == "array":
        return f"array of {_type(node.get('items', {}))}"
    if node.get("type") == "object" and "additionalProperties" in node:
        extra = node["additionalProperties"]
        return f"table of {_type(extra)}" if isinstance(extra, Mapping) else "table"
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "anyOf" in node or "oneOf" in node:
        return " or ".join(_type(n) for n in node.get("anyOf", node.get("oneOf", [])))
    return str(node.get("type", "any"))


def _keys_table(node: Mapping[str, Any]) -> list[str]:
    required = set(node.get("required", []))
    rows = ["| key | type | required | what it is |", "|---|---|---|---|"]
    for key, sub in node.get("properties", {}).items():
        rule = f" Pattern: `{sub['pattern']}`." if "pattern" in sub else ""
        rows.append(f"| `{key}` | {_type(sub).replace('|', chr(92) + '|')} | {'yes' if key in required else 'no'} "
                    f"| {_cell(sub.get('description', ''))}{rule.replace('|', chr(92) + '|')} |")
    return rows


def judge_schema_markdown() -> str:
    from sumwatch.monitor.rubrics.definition_schema import COMMAND, json_schema  # noqa: PLC0415

    schema = json_schema()
    lines = ["# Judge definition file", "",
             "Generated at each build of this site from the pydantic models that read a definition "
             "(`monitor/rubrics/definition_schema.py`). The same JSON Schema ships beside the built-in "
             "definitions as `monitor/rubrics/definitions/judge-definition.schema.json` for editors (written by "
             f"`{COMMAND}`); start a file with `#:schema ./judge-definition.schema.json` to use it. "
             "See [Judges](../guides/judges.md) for a worked definition.", "",
             _cell(schema.get("description", "")), "", "## The file", "", *_keys_table(schema), ""]
    for name, node in schema.get("$defs", {}).items():
        lines += [f"## {name}", "", _cell(node.get("description", "")), ""]
        if node.get("properties"):
            lines += [*_keys_table(node), ""]
        elif "enum" in node:
            lines += ["One of " + ", ".join(f"`{v}`" for v in node["enum"]) + ".", ""]
    lines += ["## The whole schema", "", "```json", json.dumps(schema, indent=2), "```", ""]
    return "\n".join(lines)


# --- the hook ----------------------------------------------------------------------------------------------------

def on_files(files: Any, config: Any) -> Any:
    """Adds the generated pages to the build, as if they were files under docs/."""
    from mkdocs.structure.files import File  # noqa: PLC0415

    texts = {"reference/cli.md": cli_markdown(), "reference/settings.md": settings_reference(),
             "reference/api.md": api_markdown(openapi_document()),
             "reference/judge-definition.md": judge_schema_markdown()}
    for path, text in texts.items():
        files.append(File.generated(config, path, content=text))
    return files
