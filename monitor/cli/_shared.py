"""What every command shares: options, settings and store opening, readers, JSON, tables and progress."""

from __future__ import annotations

import functools
import inspect
import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..contract.limits import MAX_LIST_LIMIT

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..contract.actions import ActionProgress
    from ..contract.actions import Progress as StageProgress
    from ..settings import Settings
    from ..views.client import ApiClient, ClientError

IN_PROCESS = "this process"

out = Console(width=None if sys.stdout.isatty() else 220)


err = Console(stderr=True, soft_wrap=True)

# the ClickHouse driver logs a warning of its own beside the error it raises; commands report that error in one
# line, and `up` and `worker` (which configure logging) still log it
logging.getLogger("clickhouse_connect").addHandler(logging.NullHandler())


DbOption = typer.Option(None, "--db", help="ClickHouse URL: http(s)://user:pass@host:8123 for a server or "
                                           "chdb:///absolute/dir (default: embedded chDB under SUMWATCH_HOME, "
                                           "env SUMWATCH_CLICKHOUSE_URL).")


HomeOption = typer.Option(None, "--home", help="Data directory (default ./.sumwatch, env SUMWATCH_HOME).")


def flag(default: bool | None, *names: str, help: str) -> Any:
    """A flag (``--json``, ``--worker/--no-worker``): it takes no value, so help shows no ``<bool>`` type."""
    return typer.Option(default, *names, metavar="", help=help)


JsonOption = flag(False, "--json", help="Print one JSON document on stdout, for scripts.")


def limit_option(default: int, help: str) -> Any:
    return typer.Option(default, "--limit", "-n", min=1, max=MAX_LIST_LIMIT,
                        help=f"{help} (at most {MAX_LIST_LIMIT:,}).")


Command = TypeVar("Command", bound=Callable[..., Any])


def option_name(model: type[BaseModel], name: str) -> str:
    """The CLI flag of a model's field: its ``flag`` where it has one, else ``--`` and the name with dashes."""
    extra = model.model_fields[name].json_schema_extra
    flag = extra.get("flag") if isinstance(extra, dict) else None
    return str(flag) if flag else "--" + name.replace("_", "-")


def model_options(model: type[BaseModel], into: str, *, help_of: Callable[[str, str], str] | None = None
                  ) -> Callable[[Command], Command]:
    """A command's options made from the fields of ``model`` (flag, short flag and help from each field), handed
    to the command as one dict ``into`` of the values given: a field added to the model is an option here, with
    nothing to write. ``help_of(name, description)`` rewords a field's help where the CLI reads it otherwise."""

    def wrap(command: Command) -> Command:
        signature = inspect.signature(command, eval_str=True)
        made = []
        for name, field in model.model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            flags = [option_name(model, name)] + ([str(extra["short"])] if extra.get("short") else [])
            text = (field.description or name).rstrip(".") + "."
            made.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=str | None,
                                          default=typer.Option(None, *flags, help=help_of(name, text) if help_of
                                                               else text)))
        kept = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
                and p.name != "ctx" else p for p in signature.parameters.values() if p.name != into]
        first = [p for p in kept if p.name == "ctx"]
        parameters = first + made + [p for p in kept if p.name != "ctx"]

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in model.model_fields if name in kwargs}
            return command(*args, **{into: values}, **kwargs)

        run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        return run  # type: ignore[return-value]

    return wrap


ModelT = TypeVar("ModelT", bound="BaseModel")


def build_model(model: type[ModelT], values: dict[str, Any]) -> ModelT:
    """``model`` from option values; a value it refuses exits 2 with the line the API would answer, naming the
    option (``--verdict must be one of 'pass' or 'fail', got 'maybe'``)."""
    from pydantic import ValidationError  # noqa: PLC0415 - start-up: a command imports what it runs

    from ..contract.values import validation_message  # noqa: PLC0415 - start-up: as above

    try:
        return model.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e, loc=tuple(option_name(model, str(p)) if p in model.model_fields else p for p in e["loc"]))
                  for e in exc.errors()]
        fail(validation_message(errors))


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` as one line on stderr and exit with ``code``."""
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def check_writable(path: Path) -> None:
    """Exit with one line when ``path`` cannot be written (checked before the work that produces it)."""
    folder = path.parent
    if path.is_dir():
        fail(f"cannot write {path}: it is a folder")
    if not folder.exists():
        fail(f"cannot write {path}: the folder {folder} does not exist")
    if not folder.is_dir():
        fail(f"cannot write {path}: {folder} is a file, not a folder")


def write_text(path: Path, text: str) -> None:
    check_writable(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")


def readable_file(path: Path) -> Path:
    """Exit with one line when ``path`` is not a file this process can read."""
    if not path.exists():
        fail(f"no such file: {path}")
    if not path.is_file():
        fail(f"not a file: {path}" + (" (a folder)" if path.is_dir() else ""))
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    return path


# the global --token option (`sumwatch --token T issues`), set before any command runs
api_token_flag: list[str | None] = [None]


def load_settings(db: str | None, home: Path | None, **more: Any) -> Settings:
    from ..settings import Settings  # noqa: PLC0415 - start-up: `--help` reads no settings

    more.setdefault("api_token", api_token_flag[0])
    try:
        return Settings.from_env(clickhouse_url=db, home=home, **more)
    except ValueError as exc:
        fail(str(exc), 2)


@contextmanager
def engine_errors() -> Iterator[None]:
    """Around a command that runs the engine in this process (`up`, `worker`, `db`, `demo`, a check): what it
    refuses (:class:`..engine.EngineError`) exits with its one line and status."""
    from ..engine import EngineError  # noqa: PLC0415 - start-up: a module of no imports, read when needed

    try:
        yield
    except EngineError as exc:
        fail(str(exc), exc.code)


@contextmanager
def open_client(settings: Settings, note: str = "reading through it", *, command: str | None = None
                ) -> Iterator[ApiClient]:
    """The API, through one client: the running `sumwatch up` that holds the database, or the same app in this
    process on the store opened here. What the server answers instead of records exits with one line: 2 for a
    request it refused as bad (its reason), 3 for anything else (401, 5xx, no answer).

    A server holding the embedded database is found from its lock file alone (:mod:`..contract.server`), so a
    command that reads through it loads neither the store nor the app."""
    from ..contract.server import serving_api  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..settings import reveal  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.client import ApiClient, ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    token = reveal(settings.receiver.api_token) or None
    with ExitStack() as stack:
        api = serving_api(settings.embedded_path) if settings.is_embedded else None
        if api is None:  # no server: the app in this process, unless one took the database meanwhile
            from ..engine.local import local_app  # noqa: PLC0415 - start-up: only a command without a server runs the app

            with engine_errors():
                api, app = local_app(stack, settings)
        if api is not None:
            err.print(f"(the database is held by the sumwatch server at {api}; {note})")
            client = stack.enter_context(ApiClient.remote(api, token))
        else:
            client = stack.enter_context(ApiClient.in_process(app, token))
        try:
            yield client
        except ClientError as exc:
            fail(client_problem(exc, client.where, token_set=bool(settings.receiver.api_token)),
                 2 if _refused(exc) else 3)


def check_rubric_name(rubric: str | None) -> None:
    """Exits 2 for a ``--rubric`` that cannot name a rubric. Which rubrics exist is for the server to say (its
    database holds the promoted definitions), so it refuses a well-formed unknown one; see :func:`rubric_read`."""
    from ..contract.values import RUBRIC_NAME  # noqa: PLC0415 - start-up: a command imports what it runs

    if rubric is not None and not RUBRIC_NAME.fullmatch(rubric):
        fail(f"rubric must be a rubric name (lower-case letters, digits and _), got {rubric[:40]!r}")


@contextmanager
def rubric_read() -> Iterator[None]:
    """Around a read filtered by ``--rubric``, inside :func:`open_client`: the server's 404 for a rubric its
    database does not know (400 for a name of the wrong form) is the command's argument at fault, so it exits 2
    with the server's line."""
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        yield
    except ClientError as exc:
        if exc.refused and exc.reason.startswith("rubric "):
            exc.what = "the rubric filter"
        raise


_COMMAND_REQUESTS = {"sample": "the scoring", "cluster": "the clustering run", "calibrate": "the calibration",
                     "export": "the export"}


def own_settings_for(client: ApiClient, settings: Settings, command: str) -> dict[str, Any]:
    """The request fields that carry this command's own settings to a server (nothing in process: the app there
    runs on these settings); exits 2 with one line for a setting of its own the server would not apply."""
    from ..settings import ExportSettings, Settings  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..settings.travel import SettingsRefused, own_settings, travel  # noqa: PLC0415 - start-up: as above
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    if not client.is_remote:
        return {}
    explicit = Settings.explicit() | ExportSettings.explicit()
    own = own_settings(settings, settings.exports, explicit)
    try:
        server = client.status().settings
    except ClientError as exc:  # the command's request as it is refused, not the status read before it
        exc.what = _COMMAND_REQUESTS.get(command, exc.what)
        raise
    try:
        carried, notes = travel(command, own, server, client.where)
    except SettingsRefused as exc:
        fail(str(exc))
    for note in notes:
        err.print(f"({note})", highlight=False)
    return carried


def _refused(exc: ClientError) -> bool:
    """A request this command made that the server refused for what it holds (:attr:`ClientError.refused`),
    with its reason."""
    return bool(exc.reason) and exc.what != "the read" and exc.refused


def client_problem(exc: ClientError, where: str, *, token_set: bool) -> str:
    """One line for an error of the sumwatch API: what happened to the request (the read, the export, the
    label, ...) and what to do."""
    what, status = exc.what, exc.status
    if status is None:  # no answer at all: refused, reset, timed out
        return f"{exc}; the server may be starting or stopping: try again, or stop it to read the database directly"
    if status == 200:  # an answer that was not the API's
        return str(exc)
    if _refused(exc):  # a request this command made, refused
        return exc.reason
    if status == 401:
        fix = ("SUMWATCH_API_TOKEN (or --token) here is not the token it was started with" if token_set else
               "its API wants a token: set SUMWATCH_API_TOKEN (or --token) to the one it was started with")
        return f"the sumwatch server at {where} refused {what} (401 unauthorized): {fix}"
    if status == 403:
        return f"the sumwatch server at {where} refused {what} (403 forbidden): check its token and access rules"
    if status >= 500:
        if where == IN_PROCESS:
            return f"{what} failed: {exc.reason or exc}"
        return f"the sumwatch server at {where} failed {what} ({status}): see its log, then try again"
    detail = exc.reason or str(exc)
    return f"the sumwatch server at {where} answered {status}: {' '.join(detail.split())[:200]}"


OutputOption = typer.Option(None, "--output", "-o", help="Write every matching row (no --limit) to this file: "
                                                      "Parquet for a .parquet name, else JSON lines; - for stdout.")
FormatOption = typer.Option(None, "--format", help="jsonl or parquet (default: from the --output name).")


def download(client: ApiClient, what: str, output: Path, fmt: str | None, **filters: Any) -> None:
    """Every matching row of ``what`` (traces or scores) into ``output`` as the server streams it: written beside
    it and moved into place at the end, so a broken-off download leaves no file that looks whole."""
    fmt = fmt or ("parquet" if output.suffix == ".parquet" else "jsonl")
    if fmt not in ("jsonl", "parquet"):
        fail(f"--format must be jsonl or parquet, got {fmt!r}")
    if str(output) == "-":
        client.download(what, fmt, sys.stdout.buffer, **filters)
        sys.stdout.buffer.flush()
        return
    check_writable(output)
    part = output.with_name(output.name + ".part")
    try:
        with part.open("wb") as out_file, progress_bars() as progress:
            task = progress.add_task(f"downloading {what}", total=None)
            written = client.download(what, fmt, out_file, **filters,
                                      on_progress=lambda n: progress.update(task, completed=n))
        part.replace(output)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    finally:
        part.unlink(missing_ok=True)
    err.print(f"wrote {written:,} bytes of {what} ({fmt}) to {output}", markup=False, highlight=False)


@contextmanager
def action_progress(description: str) -> Iterator[Callable[[ActionProgress], None]]:
    """A progress bar fed by an action's reported progress (one bar per stage it reports)."""
    with stage_bars() as bar:
        yield lambda p: bar(f"{description}: {p.stage}" if p.stage != description else description, p.done, p.total)


@contextmanager
def stage_bars() -> Iterator[StageProgress]:
    """A :data:`..contract.actions.Progress` shown as progress bars, one per stage it reports, labelled by it."""
    with progress_bars() as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        yield update


def print_json(data: Any) -> None:
    """One JSON document on stdout: records (dataclasses, pydantic models) as the API serves them."""
    from pydantic_core import to_jsonable_python  # noqa: PLC0415 - start-up: a command imports what it runs

    sys.stdout.write(json.dumps(to_jsonable_python(data), ensure_ascii=False, indent=None, default=str) + "\n")


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str = "",
          text_width: int = 24) -> Table:
    """A table readable at 80 columns: the last column (a title, summary or evidence) keeps at least
    ``text_width`` characters and wraps between words; the others keep their width when the terminal has room
    and wrap (ids fold) when it has not, so no value is cut short with an ellipsis."""
    table = Table(title=title, caption=caption or None, show_lines=False, header_style="bold")
    for i, col in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(col, overflow="fold", no_wrap=False, min_width=text_width if last else None)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    return table


def progress_bars() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=False, disable=not err.is_terminal)
