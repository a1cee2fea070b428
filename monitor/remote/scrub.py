"""Secrets out of whatever a remote sends back, before it reaches an error, a log line or a stored export.

    scrub = Scrubber(["sk-key", "https://hooks.slack.com/services/T0/B0/XyZ"], basic=[("me@example.com", "tok")])
    scrub("401 for Authorization: Basic bWVAZXhhbXBsZS5jb206dG9r")   # '401 for Authorization: Basic [secret]'

Configured secrets go in every form a remote may echo them: as they are, percent-encoded, a URL's path and
query alone (a webhook URL's secret part), and ``user:password`` in base64 (HTTP Basic, as Jira echoes it).
Shapes that are secrets whoever configured them go too: Basic and Bearer credentials, Slack hook paths,
a password in a URL, token-like query parameters and provider key prefixes.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import quote, urlsplit

HIDDEN = "[secret]"
_MIN_SECRET = 4  # shorter values would blank out ordinary words

_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    # a credential, not a word: "Basic realm" and "Bearer authentication" stay
    (re.compile(r"(?i)\b(basic|bearer)(\s+)(?=[A-Za-z._~\-]*[0-9+/=])[A-Za-z0-9+/=._~\-]{8,}"), rf"\1\2{HIDDEN}"),
    (re.compile(r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/)[^\s\"'<>]+"), rf"\1{HIDDEN}"),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/:@\"'<>]*:[^\s/@\"'<>]+@"), rf"\1{HIDDEN}@"),
    (re.compile(r"(?i)([?&;](?:password|passwd|pwd|token|access_token|api_key|apikey|key|secret|sig|signature)=)"
                r"[^&;\s\"'<>#]+"), rf"\1{HIDDEN}"),
    (re.compile(r"\b(sk-|sk-ant-|ghp_|gho_|ghs_|github_pat_|lin_api_|xox[abprs]-)[A-Za-z0-9_\-]{6,}"),
     rf"\1{HIDDEN}"),
    (re.compile(r"(?i)(\bapi[_-]?key[\"'=:\s]+)[A-Za-z0-9._\-]{6,}"), rf"\1{HIDDEN}"),
)


class Scrubber:
    """Replaces configured secrets (in the forms a remote echoes them) and secret-shaped text with
    ``[secret]``; see the module docstring."""

    def __init__(self, secrets: Iterable[str | None] = (), *, basic: Iterable[tuple[str, str]] = ()) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if secret:
                forms.update(_forms(secret))
        for user, password in basic:
            if user and password:
                forms.add(base64.b64encode(f"{user}:{password}".encode()).decode())
                forms.update(_forms(password))
        self._forms = sorted((f for f in forms if len(f) >= _MIN_SECRET), key=len, reverse=True)

    def add(self, *secrets: str | None) -> None:
        """More secrets to take out from now on."""
        merged = set(self._forms)
        for secret in secrets:
            if secret:
                merged.update(f for f in _forms(secret) if len(f) >= _MIN_SECRET)
        self._forms = sorted(merged, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` without secrets."""
        for form in self._forms:
            if form in text:
                text = text.replace(form, HIDDEN)
        for pattern, replacement in _SHAPES:
            text = pattern.sub(replacement, text)
        return text

    def __repr__(self) -> str:
        return f"Scrubber({len(self._forms)} forms)"  # never the secrets themselves


def _forms(secret: str) -> set[str]:
    forms = {secret, quote(secret, safe=""), quote(secret, safe="/:")}
    try:
        parts = urlsplit(secret)
    except ValueError:
        return forms
    if parts.scheme in ("http", "https") and parts.netloc:
        # the part a server echoes when it names the request it refused: for a webhook, the secret part
        tail = parts.path + (f"?{parts.query}" if parts.query else "")
        if len(tail.strip("/")) >= 8:
            forms.update({tail, tail.lstrip("/")})
    return forms
