"""The exports concern of the one settings object: the trackers tickets go to, what leaves sumwatch, the worker's
exports and alerts, pacing, and the targets verdicts are sent back out to.

    settings.exports.github_repo                       # "acme/summarizer"
    settings.exports.pace()                            # {"github": 80.0} from SUMWATCH_EXPORT_PACE=github=80
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import SecretStr, field_validator

from sumwatch.tracer.vocabulary import Severity

from .alert_rules import parse_alert_rules
from .concern import _Concern, _setting, reveal
from .values import (
    Check,
    _assignees,
    _at_least_one,
    _headers,
    _http_url,
    _issue_statuses,
    _pace,
    _public_url,
    _score_services,
    _score_verdicts,
    _user_regex,
    _wait_s,
    _window,
    parse_assignees,
    parse_headers,
    parse_pace,
)

_alert_rules = Check("rules separated by ;, each RUBRIC<RATE/WINDOW[/minN][/service=NAME][/model=NAME]@TARGET",
                     parse_alert_rules)


def _assigned(tracker: str, account: str) -> str:
    return (f"Whom an assignment in sumwatch assigns on {tracker}: name=account, comma-separated ({account}); a name "
            f"not listed is named in a comment only.")


class ExportSettings(_Concern):
    """Where issues, alerts and verdicts go, and how; empty means "not configured".

    ``sumwatch.monitor.exports`` calls it ``ExportConfig``."""

    AFFECTS: ClassVar[tuple[str, ...]] = ("export",)

    # the trackers
    github_token: SecretStr | None = _setting(None, description="A GitHub token with issues write, for tickets.")
    github_repo: str = _setting("", description="The GitHub repository tickets go to, as owner/name.")
    github_api_url: str = _setting("https://api.github.com",
                                   description="GitHub's API base; another for GitHub Enterprise.")
    linear_api_key: SecretStr | None = _setting(None, description="A Linear personal API key, for tickets.")
    linear_team: str = _setting("", description="The id of the Linear team tickets go to.")
    linear_api_url: str = _setting("https://api.linear.app/graphql", description="Linear's GraphQL API.")
    jira_url: str = _setting("", description="The Jira site tickets go to, like https://your-site.atlassian.net.")
    jira_email: str = _setting("", description="The email of the Jira account that files tickets.")
    jira_token: SecretStr | None = _setting(None, description="The Jira account's API token.")
    jira_project: str = _setting("", description="The key of the Jira project tickets go to, like OPS.")
    jira_issue_type: str = _setting("Bug", description="The Jira issue type of a ticket.")
    github_assignees: str = _setting("", check=_assignees, description=_assigned("GitHub", "GitHub logins"))
    linear_assignees: str = _setting("", check=_assignees, description=_assigned("Linear", "Linear user ids"))
    jira_assignees: str = _setting("", check=_assignees, description=_assigned("Jira", "Jira accountIds"))
    slack_webhook_url: SecretStr | None = _setting(
        None, description="The Slack incoming webhook alerts go to (the URL is the secret).")
    webhook_url: SecretStr | None = _setting(None, description="The URL the webhook target posts issues to, as JSON.")
    webhook_secret: SecretStr | None = _setting(
        None, description="The key that signs each webhook post (HMAC-SHA256 over the timestamp and the body).")
    markdown_dir: str = _setting("", description="The folder the markdown target writes a file per issue to.")
    public_url: str | None = _setting(
        None, check=_public_url,
        description="The dashboard's address, for back-links in tickets and alerts (the receiver's setting too).")
    # what leaves sumwatch
    export_source_text: bool = _setting(
        True, description="Put source excerpts in exports; false: no source text at all (summaries and evidence "
                          "only).")
    export_redact: str = _setting(
        "", check=_user_regex,
        description="A regular expression (RE2); every match in exported text becomes [redacted].")
    export_excerpt_chars: int = _setting(600, check=_at_least_one,
                                         description="The most characters of each source or summary excerpt.")
    export_representatives: int = _setting(3, check=_at_least_one,
                                           description="Representative failures shown per exported issue.")
    # the worker's exports and alerts after each clustering run
    export_targets: str = _setting(
        "", description="Where the worker exports issues after each clustering run, comma-separated: github, "
                        "linear, jira, markdown.")
    export_statuses: str = _setting("new,regressed", check=_issue_statuses,
                                    description="The issue statuses the worker exports, comma-separated.")
    export_min_severity: Severity = _setting(Severity.HIGH,
                                             description="The lowest severity the worker exports.")
    export_min_traces: int = _setting(1, description="The fewest traces an issue needs for the worker to export it.")
    export_close_resolved: bool = _setting(
        False, description="Close the ticket when its issue resolves (a comment is added either way).")
    export_close_ignored: bool = _setting(
        False, description="Close the ticket when its issue is ignored (a comment is added either way).")
    export_sync_closed: str = _setting(
        "", description="A ticket closed in the tracker resolves its issue: true for every target, or the targets "
                        "that may, like github,jira; empty or false: none.")

    def sync_closed(self, target: str) -> bool:
        """Whether closing a ticket in ``target`` resolves its issue (``SUMWATCH_EXPORT_SYNC_CLOSED``)."""
        names = {n.strip().lower() for n in self.export_sync_closed.split(",") if n.strip()}
        return bool(names & {"true", "1", "yes", "all"}) or target.lower() in names
    alert_targets: str = _setting(
        "", description="Where alerts about new and regressed issues go after each clustering run, "
                        "comma-separated: slack, webhook.")
    alert_min_severity: Severity = _setting(Severity.HIGH, description="The lowest severity that alerts.")
    alert_rules: str = _setting(
        "", check=_alert_rules,
        description="Threshold alerts on pass rates, checked after each sampler pass, like "
                    "groundedness<90%/1h/min50@slack.")
    # pacing and faults
    export_pace: str = _setting(
        "", check=_pace,
        description="Content-creating requests per minute per target, like github=40,jira=200; a target not listed "
                    "keeps its own (github 80, linear 60, jira 100, slack 60).")
    export_timeout_s: float = _setting(10.0, check=_wait_s, description="How long one request to a target may take.")
    export_max_attempts: int = _setting(
        5, check=_at_least_one, description="Attempts at a request (429 and 5xx are retried) before it fails.")
    export_backoff_s: float = _setting(
        1.0, check=_wait_s,
        description="The first retry's wait, doubled each time (a longer Retry-After wins).")
    export_max_wait_s: float = _setting(
        120.0, check=_wait_s,
        description="A longer Retry-After fails the export for this run; it is tried again on the next.")
    # verdicts back out (sumwatch.monitor.exports.score_sends)
    scores_targets: str = _setting(
        "", description="Where verdicts go after each sampler pass, comma-separated: otlp, langfuse, phoenix; empty: "
                        "nowhere.")
    scores_verdicts: str = _setting(
        "all", check=_score_verdicts,
        description="Which verdicts are sent: all or failing, or per target like failing,phoenix=all.")
    scores_services: str = _setting(
        "", check=_score_services,
        description="Whose verdicts each target gets: services, comma-separated, for every target (checkout,search), "
                    "or per target, entries separated by ; (phoenix=checkout,search;langfuse=*; * is every service, "
                    "a target not named gets the entry without a target, else every service); empty: every "
                    "service's verdicts go to every target.")
    scores_window: str = _setting("24h", check=_window,
                                  description="How far back the worker's pass looks for verdicts not sent yet.")
    scores_otlp_endpoint: str = _setting(
        "", check=_http_url,
        description="Where verdicts go as OTel gen_ai.evaluation.result log records: an OTLP/HTTP base URL "
                    "(/v1/logs is added) or the full /v1/logs URL.")
    scores_otlp_headers: SecretStr | None = _setting(
        None, check=_headers,
        description="Headers sent to the OTLP endpoint, like authorization=Bearer abc,x-team=ml (values may be "
                    "secrets).")
    langfuse_host: str = _setting(
        "", check=_http_url,
        description="The Langfuse verdicts go to as scores: https://cloud.langfuse.com or a self-hosted one.")
    langfuse_public_key: str = _setting("", description="The Langfuse project's public key.")
    langfuse_secret_key: SecretStr | None = _setting(None, description="The Langfuse project's secret key.")
    phoenix_endpoint: str = _setting(
        "", check=_http_url,
        description="The Phoenix verdicts go to as span annotations, like http://localhost:6006 or "
                    "https://app.phoenix.arize.com/s/your-space.")
    phoenix_api_key: SecretStr | None = _setting(None, description="Phoenix's API key, where it asks for one.")

    @field_validator("scores_otlp_endpoint", "langfuse_host", "phoenix_endpoint")
    @classmethod
    def _without_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    def statuses(self) -> list[str]:
        return [s.strip() for s in self.export_statuses.split(",") if s.strip()]

    def pace(self) -> dict[str, float]:
        """Requests per minute per target from ``export_pace`` ("github=80,jira=100")."""
        return parse_pace(self.export_pace)

    def assignees(self, target: str) -> dict[str, str]:
        """``target``'s accounts by sumwatch name (``SUMWATCH_GITHUB_ASSIGNEES`` ...); {} when none is set."""
        return parse_assignees(getattr(self, f"{target}_assignees", ""))

    def secrets(self) -> list[str]:
        """Every secret value set, for scrubbing from messages (longest first)."""
        values = [reveal(getattr(self, name)) for name in type(self).model_fields if self.secret(name)]
        # a server may echo one header; short values ("ml") are names, not secrets, and would garble every message
        values += [v for v in parse_headers(reveal(self.scores_otlp_headers)).values() if len(v) >= 8]
        return sorted({v for v in values if v}, key=len, reverse=True)

    def dashboard_link(self, path: str) -> str:
        """A link to a dashboard path (``/issues/SW-3``), or "" without ``SUMWATCH_PUBLIC_URL``."""
        return self.public_url.rstrip("/") + path if self.public_url else ""
