"""One concern's settings (store, receiver, judge ...): how a field is declared, read from its variable, parsed,
checked and named in errors. The concerns themselves and the one settings object are in the package module.

    class StoreSettings(_Concern):
        database: str = _setting("otel", flag="--database")
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo

from .selectors import entries_of
from .values import _CHECKS, _parse
from .vocabulary import ENV_PREFIX, SettingsError


def reveal(secret: SecretStr | None) -> str:
    """A secret's text where it is used (a header, a client), "" when not set:
    ``reveal(settings.receiver.api_token)``."""
    return secret.get_secret_value() if secret is not None else ""


def _setting(default: Any = None, *, flag: str | None = None, env: str | None = None, **kw: Any) -> Any:
    """A field with the flag that sets it and, where it differs from the field's name, its variable's name."""
    extra: dict[str, Any] = {k: v for k, v in (("flag", flag), ("env", env)) if v}
    return Field(default, json_schema_extra=extra or None, **kw)


def _extra(info: FieldInfo) -> Mapping[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, Mapping) else {}


_Concern_T = TypeVar("_Concern_T", bound="_Concern")


class _Concern(BaseModel):
    """One concern's settings: text from the environment is parsed to each field's type, then checked."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            from . import _one_line  # noqa: PLC0415 - the package module knows every concern's names

            raise SettingsError(_one_line(exc)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _parse_text(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str) or info.field_name is None:
            return value
        return _parse(value, cls.model_fields[info.field_name].annotation)

    @field_validator("*", mode="after")
    @classmethod
    def _check(cls, value: Any, info: ValidationInfo) -> Any:
        check = _CHECKS.get(info.field_name or "")
        if check is not None and value is not None:
            plain = value.get_secret_value() if isinstance(value, SecretStr) else value
            check(plain.value if isinstance(plain, Enum) else plain)
        return value

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
    def secret(cls, name: str) -> bool:
        """Whether a field holds a secret (shown only as set or not)."""
        info = cls.model_fields[name]
        return not info.repr or SecretStr in (info.annotation, *get_args(info.annotation))

    @classmethod
    def from_env(cls: type[_Concern_T], env: Mapping[str, str] | None = None, **overrides: Any) -> _Concern_T:
        """This concern alone from ``SUMWATCH_*`` variables, then ``overrides`` (None means not given)."""
        from . import warn_unknown  # noqa: PLC0415 - the package module knows every variable

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
