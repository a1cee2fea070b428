"""One concern's settings (store, receiver, judge ...): how a field is declared, read from its variable, parsed,
checked and named in errors. The concerns themselves and the one settings object are in the package module
(the exports concern in export_settings.py).

    class StoreSettings(_Concern):
        database: str = _setting("otel", check=_database, description="The database holding sumwatch's tables.")

    register_concerns({"store": StoreSettings, ...})    # the package module, once, as it defines Settings
    known_variables()                                    # every SUMWATCH_* variable the registered concerns read
    warn_unknown(os.environ)                             # a typo is warned about, with the closest known name

The package module registers its concerns here rather than this module asking it for them, so the imports run
one way: ``__init__`` -> ``concern``. The registration happens before any concern can be read, since importing
this module runs the package module first.
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, ClassVar, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo

from .selectors import entries_of
from .values import Check, _parse, type_rule
from .vocabulary import ENV_PREFIX, SettingsError

_log = logging.getLogger("sumwatch.monitor.settings")  # the warnings keep the package's name


def reveal(secret: SecretStr | None) -> str:
    """A secret's text where it is used (a header, a client), "" when not set:
    ``reveal(settings.receiver.api_token)``."""
    return secret.get_secret_value() if secret is not None else ""


def _setting(default: Any = None, *, flag: str | None = None, env: str | None = None, check: Check | None = None,
             description: str, affects: tuple[str, ...] = (), travels: Mapping[str, str] | None = None,
             **kw: Any) -> Any:
    """A field with what it does, the flag that sets it, its variable's name where it differs from the field's,
    and the check its value must pass (run once the value has the field's type; its rule is kept in words).

    ``affects`` names the commands whose work the value changes, beyond its concern's :attr:`_Concern.AFFECTS`;
    ``travels`` the ones that carry it to a running server, with the request field that holds it
    (``travels={"sample": "rate"}``). A command going through a server sends what travels and refuses a value
    of its own that affects it and cannot travel (``settings/travel.py``)."""
    extra: dict[str, Any] = {k: v for k, v in (("flag", flag), ("env", env)) if v}
    if affects or travels:
        extra["affects"] = sorted(set(affects) | set(travels or ()))
    if travels:
        extra["travels"] = dict(travels)
    if check is not None:
        extra["rule"] = check.rule
    field = Field(default, description=description, json_schema_extra=extra or None, **kw)
    if check is not None:
        field.metadata.append(AfterValidator(_checked(check)))
    return field


def _checked(check: Check) -> Callable[[Any], Any]:
    """``check`` as a validator: None (not set) passes, a secret is checked as its text and a choice as its word."""
    def validate(value: Any) -> Any:
        if value is not None:
            plain = value.get_secret_value() if isinstance(value, SecretStr) else value
            check(plain.value if isinstance(plain, Enum) else plain)
        return value
    return validate


def _extra(info: FieldInfo) -> Mapping[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, Mapping) else {}


_Concern_T = TypeVar("_Concern_T", bound="_Concern")


class _Concern(BaseModel):
    """One concern's settings: text from the environment is parsed to each field's type, then checked by the
    field's own check."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    # the commands whose work every field of this concern changes (a field's own ``affects`` adds to them)
    AFFECTS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(_one_line(exc)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _parse_text(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str) or info.field_name is None:
            return value
        return _parse(value, cls.model_fields[info.field_name].annotation)

    @classmethod
    def env_var(cls, name: str) -> str:
        """The environment variable of a field: ``SUMWATCH_`` + its name, or the one its metadata names."""
        return ENV_PREFIX + str(_extra(cls.model_fields[name]).get("env", name.upper()))

    @classmethod
    def label(cls, name: str) -> str:
        """How errors name a field: its variable, and its flag where one sets it."""
        flag = _extra(cls.model_fields[name]).get("flag")
        return cls.env_var(name) + (f" ({flag})" if flag else "")

    @classmethod
    def rule(cls, name: str) -> str:
        """What a field's value may be, in words: its check's rule, else what its type reads ("" for any text)."""
        info = cls.model_fields[name]
        return str(_extra(info).get("rule") or type_rule(info.annotation))

    @classmethod
    def affects(cls, name: str) -> tuple[str, ...]:
        """The commands whose work a field's value changes: its concern's and its own."""
        return tuple(dict.fromkeys((*cls.AFFECTS, *_extra(cls.model_fields[name]).get("affects", ()))))

    @classmethod
    def travels(cls, name: str) -> Mapping[str, str]:
        """{command: request field} for the commands that carry a field's value to a server."""
        return dict(_extra(cls.model_fields[name]).get("travels", {}))

    @classmethod
    def secret(cls, name: str) -> bool:
        """Whether a field holds a secret (shown only as set or not)."""
        info = cls.model_fields[name]
        return not info.repr or SecretStr in (info.annotation, *get_args(info.annotation))

    @classmethod
    def from_env(cls: type[_Concern_T], env: Mapping[str, str] | None = None, **overrides: Any) -> _Concern_T:
        """This concern alone from ``SUMWATCH_*`` variables, then ``overrides`` (None means not given)."""
        env = os.environ if env is None else env
        warn_unknown(env)
        values = {name: raw for name in cls.model_fields if (raw := _raw(env, cls.env_var(name))) is not None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def explicit(cls, env: Mapping[str, str] | None = None) -> set[str]:
        """The fields given a value in the environment (not left at their defaults)."""
        env = os.environ if env is None else env
        return {name for name in cls.model_fields if _raw(env, cls.env_var(name)) is not None}

    def with_(self: _Concern_T, **changes: Any) -> _Concern_T:
        """A copy with ``changes`` (None means unchanged), checked like the original."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        values.update({k: v for k, v in changes.items() if v is not None})
        return type(self)(**values)


def _raw(env: Mapping[str, str], var: str) -> Any:
    """A variable's text, stripped; None when unset or empty (empty means "not configured"). A name ending in
    ``*`` is a family: {suffix: text} of every variable that starts with it (None when there is none)."""
    if var.endswith("*"):
        family = entries_of([(k, v) for k, v in env.items() if k.startswith(var[:-1])])
        return family or None
    raw = env.get(var)
    return raw.strip() if raw else None


# the concerns of the one settings object by their attribute there (store, receiver, ...), and the concerns that
# hold each flat name (public_url: the receiver's and the exports'); filled by register_concerns
_MODELS: dict[str, type[_Concern]] = {}
_FLAT: dict[str, tuple[str, ...]] = {}


def register_concerns(concerns: Mapping[str, type[_Concern]]) -> None:
    """Make ``concerns`` (attribute -> class, in the settings' order) the ones every variable is looked up in."""
    _MODELS.clear()
    _FLAT.clear()
    for concern, model in concerns.items():
        _MODELS[concern] = model
        for name in model.model_fields:
            _FLAT[name] = _FLAT.get(name, ()) + (concern,)


def _model_of(name: str) -> type[_Concern]:
    """The concern class that declares a flat name first (its variable, flag and secrecy are the same in each)."""
    try:
        return _MODELS[_FLAT[name][0]]
    except KeyError:
        raise TypeError(f"unknown settings: {name}") from None


def known_variables() -> frozenset[str]:
    """Every ``SUMWATCH_*`` variable sumwatch reads."""
    return frozenset(_model_of(name).env_var(name) for name in _FLAT)


_warned: set[str] = set()


def warn_unknown(env: Mapping[str, str]) -> list[str]:
    """Warn once per variable about a ``SUMWATCH_*`` name sumwatch does not read (a typo would otherwise be
    silently ignored), naming the closest known one; returns the lines warned this time."""
    known = known_variables()
    lines = []
    families = tuple(k[:-1] for k in known if k.endswith("*"))
    for var in sorted(v for v in env if v.startswith(ENV_PREFIX) and v not in known and v not in _warned
                      and not v.startswith(families)):
        _warned.add(var)
        # compared without the shared prefix, which would make every name look alike
        close = difflib.get_close_matches(var.removeprefix(ENV_PREFIX), [k.removeprefix(ENV_PREFIX) for k in known],
                                          n=1, cutoff=0.6)
        line = f"{var} is not a sumwatch setting" + (f" (did you mean {ENV_PREFIX}{close[0]}?)" if close else "")
        _log.warning("%s", line)
        lines.append(line)
    return lines


def _one_line(exc: ValidationError) -> str:
    """The first error of a validation as one line naming the variable (and flag): never the secret's value."""
    error = exc.errors()[0]
    name = next((str(p) for p in reversed(error["loc"]) if isinstance(p, str) and p in _FLAT), None)
    if error["type"] == "value_error":
        message = str(error.get("ctx", {}).get("error", error["msg"]))
    else:
        message = error["msg"][:1].lower() + error["msg"][1:]
    message = " ".join(message.split())
    if name is None:
        return message
    return f"{_model_of(name).label(name)} {message}"
