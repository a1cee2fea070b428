"""Triage: what people do to issues (resolve, ignore, mute, merge, assign, comment), and what it means.

    event = act(store, "SW-3", "resolve", by="ana")                  # stored in sumwatch_issue_events
    act(store, "SW-5", "merge", by="ana", value="SW-3")              # SW-5's failures count as SW-3's
    act(store, "SW-5", "unmerge", by="ana")                          # SW-5 is its own issue again
    act(store, "SW-4", "mute", by="ana", value="7d")                 # hidden for a week ("" = until it regresses)
    states = fold(events_of(store))                                   # {3: Triage(resolved_at=..., ...)}

The events are the truth; the state is a fold over them in time order (pure, below). The clustering job
reads the same fold before a run, so an issue resolved by hand that comes back is ``regressed``, and a
merged issue's centroids keep matching to the issue it was merged into.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sumwatch.tracer.vocabulary import Choice, IssueStatus

from ..contract.issues import issue_label, parse_issue_id
from ..contract.values import choice_error
from ..settings import parse_duration
from ..store.connection import Store
from ..store.issue_events import IssueEvent, events_of, save_event
from ..store.issues import known_numbers
from ..store.runs import FINISHED_RUNS

MAX_TEXT = 4000  # a comment's characters; an assignee's are MAX_NAME
MAX_NAME = 100


class TriageAction(Choice):
    """What a person can do to an issue."""

    RESOLVE = "resolve"
    REOPEN = "reopen"
    IGNORE = "ignore"
    UNIGNORE = "unignore"
    MUTE = "mute"
    UNMUTE = "unmute"
    MERGE = "merge"
    UNMERGE = "unmerge"
    ASSIGN = "assign"
    COMMENT = "comment"


class TriageError(ValueError):
    """An action that cannot be taken as asked; its text is the one line to show."""


class UnknownIssue(TriageError):
    pass


@dataclass
class Triage:
    """One issue's triage state, folded from its events: ``fold(events)[3]``."""

    number: int
    resolved_at: datetime | None = None  # set while the last resolve is not followed by a reopen
    reopened_at: datetime | None = None
    ignored: bool = False
    muted_at: datetime | None = None  # set while muted
    muted_until: datetime | None = None  # None while muted: until it regresses
    merged_into: int | None = None
    assignee: str = ""
    comments: int = 0
    merged: list[int] = field(default_factory=list)  # issues merged into this one

    def muted(self, now: datetime, regressed: datetime | None) -> bool:
        """Whether a mute holds at ``now``, given when the issue was last regressed in a run."""
        if self.muted_at is None:
            return False
        if self.muted_until is not None:
            return now < self.muted_until
        return regressed is None or regressed <= self.muted_at

    def status(self, snapshot_status: str, snapshot_at: datetime | None) -> str:
        """The status people see: the run's, unless a resolve or reopen came after the run's snapshot (the next
        run starts from it)."""
        if self.resolved_at is not None and (snapshot_at is None or self.resolved_at > snapshot_at):
            return IssueStatus.RESOLVED.value
        if (self.reopened_at is not None and (snapshot_at is None or self.reopened_at > snapshot_at)
                and snapshot_status == IssueStatus.RESOLVED):
            return IssueStatus.ONGOING.value
        return snapshot_status


def fold(events: Iterable[IssueEvent]) -> dict[int, Triage]:
    """Each issue's triage state from its events, taken in time order (pure)."""
    states: dict[int, Triage] = {}
    for e in sorted(events, key=lambda e: (e.at, e.event_id)):
        t = states.setdefault(e.number, Triage(e.number))
        if e.action == TriageAction.RESOLVE:
            t.resolved_at, t.reopened_at = e.at, None
        elif e.action == TriageAction.REOPEN:
            t.resolved_at, t.reopened_at = None, e.at
        elif e.action in (TriageAction.IGNORE, TriageAction.UNIGNORE):
            t.ignored = e.action == TriageAction.IGNORE
        elif e.action == TriageAction.MUTE:
            t.muted_at = e.at
            t.muted_until = datetime.fromisoformat(e.value) if e.value else None
        elif e.action == TriageAction.UNMUTE:
            t.muted_at = t.muted_until = None
        elif e.action == TriageAction.MERGE:
            t.merged_into = int(e.value)
        elif e.action == TriageAction.UNMERGE:
            t.merged_into = None
        elif e.action == TriageAction.ASSIGN:
            t.assignee = e.value
        elif e.action == TriageAction.COMMENT:
            t.comments += 1
    for t in list(states.values()):
        if t.merged_into is not None:
            states.setdefault(t.merged_into, Triage(t.merged_into)).merged.append(t.number)
    return states


def root(states: dict[int, Triage], number: int) -> int:
    """The issue ``number`` counts as: itself, or the one it was merged into (followed to the end)."""
    seen = {number}
    while (t := states.get(number)) is not None and t.merged_into is not None and t.merged_into not in seen:
        number = t.merged_into
        seen.add(number)
    return number


def merged_numbers(states: dict[int, Triage], number: int) -> list[int]:
    """Every issue merged into ``number``, directly or through another merged one."""
    out, todo = [], list(states[number].merged) if number in states else []
    while todo:
        n = todo.pop()
        if n not in out and n != number:
            out.append(n)
            todo += states[n].merged if n in states else []
    return sorted(out)


def act(store: Store, issue_id: str, action: str, *, by: str, value: str = "", source: str = "api",
        now: datetime | None = None) -> IssueEvent:
    """Check and store one triage event; TriageError (one line) for an action that cannot be taken."""
    number, verb, known, states, into = _triageable(store, issue_id, action)
    now = now or datetime.now(timezone.utc)
    who = (by or "").strip()[:MAX_NAME] or "unknown"
    text = (value or "").strip()
    if verb == TriageAction.MUTE:
        text = _mute_until(text, now)
    elif verb == TriageAction.MERGE:
        text = str(_merge_target(text, number, known, states))
    elif verb == TriageAction.UNMERGE:
        text = str(into)  # the issue it leaves, for its history and its tickets
    elif verb == TriageAction.ASSIGN:
        if len(text) > MAX_NAME:
            raise TriageError(f"an assignee is at most {MAX_NAME} characters")
    elif verb == TriageAction.COMMENT:
        if not text:
            raise TriageError("a comment needs some text")
        if len(text) > MAX_TEXT:
            raise TriageError(f"a comment is at most {MAX_TEXT} characters, got {len(text)}")
    else:
        text = ""
    event = IssueEvent(number, verb.value, who, text, source, now)
    save_event(store, event)
    return event


def merge_target(store: Store, issue_id: str, into: str) -> tuple[int, int]:
    """A merge of ``issue_id`` into ``into`` checked as ``act`` checks it, nothing stored (a merge's confirm page):
    the issue's number and the one it would join. TriageError / UnknownIssue, one line."""
    number, _, known, states, _ = _triageable(store, issue_id, TriageAction.MERGE.value)
    return number, _merge_target(into.strip(), number, known, states)


def _triageable(store: Store, issue_id: str, action: str
                ) -> tuple[int, TriageAction, set[int], dict[int, Triage], int | None]:
    """The checks every action gets: the issue, the action, the known issues, the triage so far, and the issue it
    is merged into (only unmerge may name a merged issue)."""
    try:
        number = parse_issue_id(issue_id)
        verb = TriageAction(action)
    except ValueError as exc:
        if "issue id" in str(exc):
            raise TriageError(str(exc)) from None
        raise TriageError(choice_error("action", action, TriageAction.values())) from None
    known = known_numbers(store, FINISHED_RUNS)
    if number not in known:
        raise UnknownIssue(f"no issue {issue_label(number)} (see `sumwatch issues`)")
    states = fold(events_of(store))
    into = states[number].merged_into if number in states else None
    if verb == TriageAction.UNMERGE:
        if into is None:
            raise TriageError(f"{issue_label(number)} is not merged into another issue")
    elif into is not None:
        raise TriageError(f"{issue_label(number)} was merged into {issue_label(root(states, number))}: "
                          f"triage that issue instead")
    return number, verb, known, states, into


def _mute_until(text: str, now: datetime) -> str:
    if not text or text.lower() in ("regress", "regressed", "until-regressed"):
        return ""
    try:
        return (now + timedelta(seconds=parse_duration(text))).isoformat()
    except ValueError as exc:
        raise TriageError(f"mute: {exc} (or nothing: until it regresses)") from None


def _merge_target(text: str, number: int, known: set[int], states: dict[int, Triage]) -> int:
    if not text:
        raise TriageError(f"merge needs the issue to merge {issue_label(number)} into, like SW-3")
    try:
        target = parse_issue_id(text)
    except ValueError as exc:
        raise TriageError(f"merge into: {exc}") from None
    if target not in known:
        raise UnknownIssue(f"no issue {issue_label(target)} to merge into (see `sumwatch issues`)")
    target = root(states, target)
    if target == number:
        raise TriageError(f"cannot merge {issue_label(number)} into itself")
    return target
