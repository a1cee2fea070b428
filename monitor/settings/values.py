"""What each setting's text may be: parsers (durations, crontabs, URLs, host lists, rates) and the checks a field
declares (``_setting(..., check=_between(0, 65535, "a port number"))``), each with its rule in words.

    parse_duration("24h")        # 86400.0
    redact_url("http://u:pw@ch:8123/?password=pw")   # the password as ***
    _between(0, 1, "a share").rule                   # "0 to 1"
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union, get_args, get_origin
from urllib.parse import urlsplit, urlunsplit

from sumwatch.tracer.vocabulary import Choice

from ..contract.exports import SCORE_TARGET_NAMES
from .patterns import PatternError, user_pattern
from .vocabulary import ISSUE_STATUSES


def _parse(raw: str, hint: Any) -> Any:
    """A variable's text as the field's type (``int | None`` reads as int; a secret stays text)."""
    if get_origin(hint) is Union or (get_origin(hint) is not None and type(None) in get_args(hint)):
        hint = next(a for a in get_args(hint) if a is not type(None))
    if isinstance(hint, type) and issubclass(hint, Choice):
        value = raw.strip()
        if value not in hint.values():
            raise ValueError(f"must be one of {', '.join(hint.values())}, got {raw!r}")
        return hint(value)
    if hint is bool:
        value = raw.strip().lower()
        if value in ("1", "true", "yes", "on"):
            return True
        if value in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"must be true or false, got {raw!r}")
    if hint is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"must be an integer, got {raw!r}") from None
    if hint is float:
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"must be a number, got {raw!r}") from None
    if hint is Path:
        return Path(raw)
    return raw



def type_rule(hint: Any) -> str:
    """What :func:`_parse` reads as a field of type ``hint``, in words: the rule of a field without a check."""
    if get_origin(hint) is not None and type(None) in get_args(hint):
        hint = next(a for a in get_args(hint) if a is not type(None))
    if isinstance(hint, type) and issubclass(hint, Choice):
        return f"one of {', '.join(hint.values())}"
    return {bool: "true or false", int: "an integer", float: "a number"}.get(hint, "")

# -- checks: what a field's value may be, with that rule in words ------------------------------------------

class Check:
    """A field's check (``_setting(..., check=...)``): called with the value once it has the field's type (never
    None; a secret's text and a choice's word), it raises ValueError with the words that follow the variable's name
    in the error. ``rule`` says what it lets through, for the settings table and ``sumwatch config``."""

    __slots__ = ("rule", "_test")

    def __init__(self, rule: str, test: Callable[[Any], object]) -> None:
        self.rule = rule
        self._test = test

    def __call__(self, value: Any) -> None:
        self._test(value)

    def __repr__(self) -> str:
        return f"Check({self.rule!r})"


def _rule(rule: str) -> Callable[[Callable[[Any], object]], Check]:
    """A function as a :class:`Check` with ``rule`` as its words: ``@_rule("not empty")``."""
    def wrap(test: Callable[[Any], object]) -> Check:
        return Check(rule, test)
    return wrap


def _between(low: float, high: float, what: str = "") -> Check:
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            top = "" if high == math.inf else f" and {high:g}"
            raise ValueError(f"must be {what or 'a number'} between {low:g}{top}, got {value!r}"
                             if top else f"must be {what or 'a number'} of at least {low:g}, got {value!r}")
    return Check(f"at least {low:g}" if high == math.inf else f"{low:g} to {high:g}", check)


def _positive(what: str) -> Check:
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"must be a positive {what}, got {value!r}")
    return Check(f"a positive {what}", check)


def _seconds(*, zero: bool = False) -> Check:
    """A wait or timeout: positive (or zero) and at most 100 years, which every timer can hold."""
    def check(value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0 or (value == 0 and not zero) or value > MAX_DURATION_S:
            raise ValueError(f"must be a {'' if zero else 'positive '}number of seconds of at most 100 years "
                             f"({MAX_DURATION_S}), got {value!r}")
    return Check(("0 or more" if zero else "a positive number of") + " seconds, at most 100 years", check)


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(value: Any) -> None:
        if value is not None and value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {value!r}")
    return Check(f"one of {', '.join(choices)}", check)


@_rule("not empty")
def _text(value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must not be empty, got {value!r}")


_SYSTEM_DATABASES = ("system", "information_schema")


@_rule("8 to 512 visible ASCII characters without spaces")
def _token(value: Any) -> None:
    # sent in an Authorization header and a form: visible ASCII without spaces, so it survives both
    if value is not None and (not isinstance(value, str) or not re.fullmatch(r"[\x21-\x7e]{8,512}", value)):
        raise ValueError("must be 8 to 512 visible ASCII characters without spaces (like the output of "
                         "`openssl rand -hex 24`), got a value that is not")


@_rule("an http(s) URL naming a host, without a user or password")
def _public_url(value: Any) -> None:
    if value is None:
        return
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or out of range
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise ValueError(f"must be an http(s) URL naming a host, like https://sumwatch.example.com, "
                         f"got {redact_url(value)!r}")


@_rule("an http(s):// URL, or empty")
def _http_url(value: Any) -> None:
    parts = urlsplit(value)
    if value and (parts.scheme not in ("http", "https") or not parts.hostname):
        raise ValueError(f"must be an http(s):// URL, got {value!r}")


@_rule("host names or addresses without a port, comma-separated (* for any)")
def _allowed_hosts(value: Any) -> None:
    parse_allowed_hosts(value)


@_rule("letters, digits and _, not ClickHouse's own system or information_schema")
def _database(value: Any) -> None:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", value):
        raise ValueError(f"must be a database name of letters, digits and _ (like otel), got {value!r}")
    if value.lower() in _SYSTEM_DATABASES:
        raise ValueError(f"{value!r} is ClickHouse's own database; name one for sumwatch's tables (like otel)")


@_rule("a duration with a unit s, m, h, d or w (like 24h or 7d), at most 100 years")
def _duration(value: Any) -> None:
    try:
        parse_duration(value)
    except ValueError:
        raise ValueError(f"must be a positive duration of at most 100 years with a unit s, m, h, d or w "
                         f"(like 24h or 7d), got {value!r}") from None


@_rule("http(s)://[user:pass@]host[:port] or chdb:///absolute/dir")
def _clickhouse_url(value: Any) -> None:
    if value:
        check_clickhouse_url(value)


@_rule("span_name=V, service=V or attr:KEY=V, comma-separated")
def _span_filter(value: Any) -> None:
    try:
        parse_span_filter(value)
    except ValueError as exc:
        raise ValueError(f"has a bad {exc}") from None


@_rule(f"issue statuses, comma-separated: {', '.join(ISSUE_STATUSES)}")
def _issue_statuses(value: Any) -> None:
    bad = [s.strip() for s in str(value).split(",") if s.strip() and s.strip() not in ISSUE_STATUSES]
    if bad:
        raise ValueError(f"must list {', '.join(ISSUE_STATUSES)}, got {bad[0]!r}")


@_rule("0 to 86400 seconds")
def _wait_s(value: Any) -> None:
    if not 0 <= value <= 86400:
        raise ValueError("must be a number of seconds from 0 to 86400")


@_rule("a positive integer")
def _at_least_one(value: Any) -> None:
    if value < 1:
        raise ValueError(f"must be a positive integer, got {value}")


@_rule("a regular expression RE2 can run, or empty")
def _user_regex(value: Any) -> None:
    if value:
        try:
            user_pattern(value)
        except PatternError as exc:
            raise ValueError(f"is not a regular expression RE2 (the database's engine) can run: {exc}") from None


@_rule("a 5-field crontab: minute hour day month weekday (Sunday is 0)")
def _cron(value: Any) -> None:
    try:
        crontab_fields(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a 5-field crontab: {exc}") from None

# -- value grammars, shared with the code that uses the values --------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# a window reaching further back than ClickHouse's DateTime64 (1900) cannot be queried or stored
MAX_DURATION_S = 100 * 365 * 86400
CLICKHOUSE_SCHEMES = ("chdb", "http", "https")


def parse_duration(text: str) -> float:
    """Seconds in a duration like ``90s``, ``15m``, ``24h``, ``7d`` or ``2w``, at most 100 years."""
    match = _DURATION.match(str(text).lower())
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"a duration is a positive number with a unit s, m, h, d or w (like 24h or 7d), "
                         f"got {text!r}")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds > MAX_DURATION_S:
        raise ValueError(f"a duration is at most 100 years (36500d), got {text!r}")
    return seconds


def check_clickhouse_url(url: str) -> None:
    """A ClickHouse URL sumwatch can open: ``http(s)://[user:pass@]host[:port]`` or ``chdb:///absolute/dir``.

        check_clickhouse_url("postgres://db")   # ValueError: must start with chdb://, http:// or https:// ...
    """
    scheme, sep, _ = url.partition("://")
    if not sep or scheme not in CLICKHOUSE_SCHEMES:
        raise ValueError(f"must start with chdb://, http:// or https://, got {redact_url(url)!r}")
    parts = urlsplit(url)
    if scheme == "chdb":
        if parts.netloc or not parts.path.startswith("/"):
            raise ValueError(f"must name an absolute folder for the embedded database, like "
                             f"chdb:///var/lib/sumwatch, got {redact_url(url)!r}")
        return
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or out of range
    except ValueError:
        raise ValueError(f"has a bad port: {redact_url(url)!r}") from None
    if not parts.hostname:
        raise ValueError(f"names no host, like {scheme}://localhost:8123, got {redact_url(url)!r}")


def parse_service_rates(text: str | None) -> dict[str, float]:
    """``"checkout=0.1,support=1"`` -> ``{"checkout": 0.1, "support": 1.0}``."""
    rates: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        service, sep, value = part.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if not sep or not service.strip() or not 0.0 <= rate <= 1.0:
            raise ValueError(f"entry {part!r} must be service=rate with 0 <= rate <= 1")
        rates[service.strip()] = rate
    return rates


_HOST_NAME = re.compile(r"[a-z0-9_][a-z0-9_-]{0,62}(\.[a-z0-9_][a-z0-9_-]{0,62})*\.?|\[[0-9a-f:.]+\]")


def parse_allowed_hosts(text: str | None) -> tuple[str, ...]:
    """``"dash.example.com, 10.0.0.5"`` -> ``("dash.example.com", "10.0.0.5")``: host names without ports,
    lower case (``*`` alone allows any)."""
    hosts = tuple(h.strip().lower() for h in (text or "").split(",") if h.strip())
    for host in hosts:
        if host != "*" and not _HOST_NAME.fullmatch(host):
            raise ValueError(f"entry {host!r} must be a host name or address without a port or scheme, "
                             f"like dash.example.com or [::1] (or * for any)")
    return hosts


def parse_trusted_proxies(text: str | None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``"10.0.0.0/8, 127.0.0.1"`` -> the networks whose forwarded headers are believed (an address: /32 or /128)."""
    networks = []
    for entry in (e.strip() for e in (text or "").split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            raise ValueError(f"entry {entry[:60]!r} must be an IP address or network, like 127.0.0.1, 10.0.0.0/8 "
                             f"or ::1") from None
    return tuple(networks)


def parse_pace(text: str | None) -> dict[str, float]:
    """Requests per minute per target: ``"github=80,jira=100"`` -> ``{"github": 80.0, "jira": 100.0}``."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, value = part.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if not sep or not name.strip() or rate <= 0:
            raise ValueError(f"entry {part!r} must be target=requests_per_minute, like github=80")
        out[name.strip()] = rate
    return out


def parse_assignees(text: str | None) -> dict[str, str]:
    """A tracker's accounts by sumwatch name: ``"ben=ben-gh, ana=ana-dev"`` -> ``{"ben": "ben-gh", "ana": ...}``."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, account = part.partition("=")
        if not sep or not name.strip() or not account.strip():
            raise ValueError(f"entry {part!r} must be name=account, like ben=ben-gh")
        out[name.strip()] = account.strip()
    return out


SCORE_VERDICTS = ("all", "failing")  # which verdicts go back out to a score target


def parse_score_verdicts(text: str | None) -> dict[str, str]:
    """Which verdicts each score target gets: ``"failing,phoenix=all"`` -> ``{"": "failing", "phoenix": "all"}``
    ("" is every other target's)."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, value = part.rpartition("=")
        if value.strip() not in SCORE_VERDICTS or (sep and not name.strip()):
            raise ValueError(f"entry {part!r} must be all or failing, or target=all|failing, like phoenix=failing")
        out[name.strip()] = value.strip()
    return out


def parse_score_services(text: str | None) -> dict[str, list[str] | None]:
    """Which services' verdicts each score target gets: ``"checkout,search"`` -> ``{"": ["checkout", "search"]}``;
    ``"phoenix=checkout;langfuse=*"`` -> ``{"phoenix": ["checkout"], "langfuse": None}`` (None: every service's;
    "" is every target not named)."""
    out: dict[str, list[str] | None] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(";"))):
        name, sep, value = part.rpartition("=")  # no "=": services for every target not named
        name = name.strip()
        if sep and name not in SCORE_TARGET_NAMES:
            raise ValueError(f"entry {part!r} names {name!r}, not a score target ({', '.join(SCORE_TARGET_NAMES)})")
        if name in out:
            raise ValueError(f"names {name or 'the services of every target'!r} twice")
        services = [s.strip() for s in value.split(",") if s.strip()]
        if not services:
            raise ValueError(f"entry {part!r} names no service: use target=service,service or *")
        out[name] = None if "*" in services else services
    return out


def parse_headers(text: str | None) -> dict[str, str]:
    """HTTP headers as OTEL_EXPORTER_OTLP_HEADERS writes them: ``"authorization=Bearer abc,x-team=ml"``.
    An error names the entry's header, never its value (a value may be a token)."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", name) or not value.strip():
            shown = repr(name) if sep and name else "an entry"
            raise ValueError(f"{shown} must be name=value, like authorization=Bearer <token>")
        out[name.lower()] = value.strip()
    return out


def parse_span_filter(spec: str | None) -> tuple[tuple[str, str], ...]:
    """``"span_name=ChatCompletion,attr:gen_ai.operation.name=chat"`` -> (key, value) pairs."""
    filters = []
    for part in filter(None, (p.strip() for p in (spec or "").split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not (key in ("span_name", "service") or (key.startswith("attr:") and len(key) > 5)):
            raise ValueError(f"span filter {part!r}: use span_name=V, service=V or attr:KEY=V")
        filters.append((key, value.strip()))
    return tuple(filters)


_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # crontab numbering: 0 (and 7) is Sunday
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CRON_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day", 1, 31, ()), ("month", 1, 12, _MONTHS))


def crontab_fields(expr: str) -> tuple[str, str, str, str, str]:
    """The five fields of a crontab, checked, with the weekday field written as names.

    APScheduler 3 reads the weekday numbers 0-6 as Monday-Sunday and crontab as Sunday-Saturday, so "1-5"
    would silently mean Tuesday to Saturday; names mean the same to both.
        crontab_fields("0 9 * * 1-5")   # ("0", "9", "*", "*", "mon,tue,wed,thu,fri")
    """
    parts = str(expr).split()
    if len(parts) != 5:
        raise ValueError(f"got {len(parts)} field(s), expected minute hour day month weekday")
    for value, (name, low, high, names) in zip(parts[:4], _CRON_FIELDS):
        _cron_values(value, name, low, high, names)
    days = {d % 7 for d in _cron_values(parts[4], "weekday", 0, 7, _WEEKDAYS)}
    weekday = parts[4] if parts[4] in ("*", "?") else ",".join(_WEEKDAYS[d] for d in sorted(days))
    return parts[0], parts[1], parts[2], parts[3], weekday


def _cron_values(value: str, name: str, low: int, high: int, names: tuple[str, ...]) -> set[int]:
    def number(token: str) -> int:
        if token.isdigit() and low <= int(token) <= high:
            return int(token)
        if token in names:
            return names.index(token) + (1 if name == "month" else 0)
        raise ValueError(f"{name} {token!r} in {value!r} is not {low}-{high}"
                         + (f" or {names[0]}-{names[-1]}" if names else ""))

    if value == "?" and name in ("day", "weekday"):
        return set(range(low, high + 1))
    chosen: set[int] = set()
    for part in value.lower().split(","):
        base, slash, step = part.partition("/")
        if slash and (not step.isdigit() or int(step) == 0):
            raise ValueError(f"{name} step {step!r} in {value!r} is not a positive number")
        first_text, dash, last_text = base.partition("-")
        if base == "*":
            first, last = low, (6 if name == "weekday" else high)
        else:
            first = number(first_text)
            last = number(last_text) if dash else (high if slash else first)
        if last < first:
            raise ValueError(f"{name} range {base!r} in {value!r} runs backwards")
        chosen.update(range(first, last + 1, int(step or 1)))
    return chosen


def redact_url(url: str) -> str:
    """The URL with any password replaced, for logs and error messages: in the user part
    (``http://u:***@host``) and in the query, where ClickHouse also takes one (``?user=u&password=***``)."""
    parts = urlsplit(url)
    netloc, query = parts.netloc, _QUERY_SECRET.sub(r"\1***", parts.query)
    if parts.password is not None:
        netloc = (parts.username or "") + ":***@" + netloc.rpartition("@")[2]
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_QUERY_SECRET = re.compile(r"(?i)((?:^|[&;])(?:password|passwd|pwd|access_token|token)=)[^&;#]*")


MAX_WORKERS = 256  # model processes in one pass: far beyond any box, short of a typo's thousands


def parse_workers(value: str) -> int:
    """A number of model processes: ``"2"``, or ``"auto"``/``"0"`` for one per usable CPU (0)."""
    text = value.strip().lower()
    if text == "auto":
        return 0
    if not text.isdigit() or int(text) > MAX_WORKERS:
        raise ValueError(f"workers must be a number of processes from 1 to {MAX_WORKERS}, or auto (0), "
                         f"got {value!r}")
    return int(text)


# the parsers above as checks, for the fields whose text they read
_service_rates = Check("service=rate, comma-separated, each rate 0 to 1", parse_service_rates)
_trusted_proxies = Check("IP addresses or networks, comma-separated", parse_trusted_proxies)
_pace = Check("target=requests per minute, comma-separated (like github=80)", parse_pace)
_assignees = Check("name=account, comma-separated", parse_assignees)
_score_verdicts = Check("all or failing, or target=all|failing, comma-separated", parse_score_verdicts)
_score_services = Check("services, comma-separated, or per target like phoenix=svc-a,svc-b;langfuse=*",
                        parse_score_services)
_headers = Check("name=value HTTP headers, comma-separated", parse_headers)
_window = Check("a duration with a unit s, m, h, d or w (like 24h or 7d), at most 100 years", parse_duration)
