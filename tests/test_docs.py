"""The docs site: it builds with every warning an error (a broken link or anchor among them), its reference pages
hold every command, setting and API route the code has, and README.md stays a short front page into it."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hang_guard import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = Path(sys.executable).with_name("mkdocs")


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_holds_every_command_with_each_of_its_options_and_arguments():
    hook = _hook()
    page = hook.cli_markdown()
    found = list(hook.commands())
    assert len(found) > 50  # the walk reached the groups' commands, not the top level alone
    for path, command in found:
        assert f"`{path}`" in page, f"{path} is missing from the CLI reference"
        section = page.split(f"`{path}`\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            names = param.opts if param.param_type_name == "option" else [param.name.upper()]
            assert any(f"`{name}`" in section for name in names), f"{path}: {names} missing"
    assert "`sumwatch issues resolve`" in page and "`--by`" in page


def test_the_settings_reference_holds_every_setting_with_its_variable_and_description():
    from sumwatch.monitor.settings import Settings

    page = _hook().settings_reference()
    for name in Settings.names():
        row = next((line for line in page.splitlines() if line.startswith(f"| `{Settings.env_var(name)}` |")), None)
        assert row is not None, f"{Settings.env_var(name)} is missing from the settings reference"
        assert row.rstrip(" |").endswith(".")  # its description, which ends a sentence
    assert "| `SUMWATCH_PORT` | `--port` | `4318` | 0 to 65535 | " in page


def test_the_api_reference_holds_every_path_and_method_of_the_served_document(settings, store):
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app

    document = create_app(Runtime.build(settings, store)).openapi()
    page = _hook().api_markdown(document)
    operations = [(method, path) for path, ops in document["paths"].items() for method in ops]
    assert len(operations) > 50
    for method, path in operations:
        assert f"## `{method.upper()} {path}`" in page, f"{method} {path} is missing from the API reference"
    section = page.split("## `GET /api/traces`\n", 1)[1].split("\n## ", 1)[0]
    assert "| `limit` | query | no |" in section and "| 200 |" in section


def test_the_judge_definition_reference_holds_every_key_of_the_schema():
    from sumwatch.monitor.rubrics.definition_schema import json_schema

    page = _hook().judge_schema_markdown()
    schema = json_schema()
    for key in schema["properties"]:
        assert f"| `{key}` |" in page
    for name, node in schema.get("$defs", {}).items():
        assert f"## {name}" in page
        for key in node.get("properties", {}):
            assert f"| `{key}` |" in page.split(f"## {name}\n", 1)[1], f"{name}.{key}"


def test_the_site_checks_links_and_anchors_and_lists_every_page_it_has():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["strict"] is True and config["hooks"] == ["docs/hooks/reference.py"]
    assert config["validation"]["links"] == {"not_found": "warn", "anchors": "warn", "absolute_links": "warn",
                                             "unrecognized_links": "warn"}

    def pages(nav):
        for entry in nav:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"])) | {line.strip().lstrip("/") for line in config.get("not_in_nav", "").split()}
    written = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert written <= listed, f"pages not in the nav: {sorted(written - listed)}"
    assert set(_hook().PAGES) <= listed


def test_readme_is_a_short_front_page_whose_links_reach_the_site():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 150
    links = re.findall(r"\]\(([^)#]+\.md)\)", readme)
    assert "docs/quickstart.md" in links and len(links) > 10
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert not missing, f"README links to pages that do not exist: {missing}"
    assert "Judges `/judges`" in readme and "Datasets `/datasets`" in readme and "Experiments `/experiments`" in readme
    assert ".venv/bin/mkdocs serve" in readme


@pytest.mark.integration
def test_the_site_builds_strictly_with_no_warning(tmp_path):
    """Every internal link and anchor resolves and every page is in the nav; links to other sites are not
    checked (the tests run offline)."""
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=HANG_GUARD_S,
                          env={"PATH": str(Path(sys.executable).parent), "NO_MKDOCS_2_WARNING": "1",
                               "HOME": str(tmp_path)})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "WARNING" not in output, output
    built = {p.parent.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("index.html")}
    assert {Path("reference/cli"), Path("reference/api"), Path("quickstart"), Path("guides/judges")} <= built
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "sumwatch issues resolve" in cli
