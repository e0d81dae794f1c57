"""Runs AWS's durable-execution conformance requirements on cfnops's local Lambda backend.

Reads every ``requirements/<suite>/<N-M>.yaml`` of ``../shared/conformance/durable``,
runs the handler written for it (Lambda function ``conf-<N-M>``, registered by the
modules of this package), drives its callback actions, and compares the result, the
history and the logs with the suite's matching rules:

- ``'*'`` matches any value (the key must be present);
- ``${NAME}`` of ``Variables`` (``${GEN_STR:n}``) is generated once per run;
- any other ``${NAME}`` is bound to the first value seen at that place in the actual
  history and must be equal wherever it recurs; ``${/regex/}`` must match;
- the whole history is compared: every event between ``ExecutionStarted`` and the
  execution's end event must be listed, in order (an extra or duplicate event fails);
  an expected event is compared with the actual event of the same ``EventId``; keys
  the expectation does not list are not compared.
"""

from __future__ import annotations

import json
import logging
import random
import re
import string
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SHARED = Path(__file__).resolve().parents[4] / "shared" / "conformance" / "durable"
REQUIREMENTS = SHARED / "requirements"
SUITES = [
    "step",
    "wait",
    "child",
    "callback",
    "invoke",
    "parallel",
    "map",
    "wait_for_callback",
    "wait_for_condition",
    "plugin",
]

# Requirements judged impossible on a local backend, with why (listed, never skipped silently).
IMPOSSIBLE: dict[str, str] = {}

_VAR = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")
_GEN = re.compile(r"\$\{GEN_STR:(\d+)\}")
_REGEX = re.compile(r"^\$\{/(.*)/\}$", re.S)
_BIND = re.compile(r"^\$\{([A-Z][A-Z0-9_]*)\}$")


@dataclass
class Requirement:
    rid: str
    suite: str
    doc: dict[str, Any]

    @property
    def function(self) -> str:
        return f"conf-{self.rid}"


@dataclass
class Outcome:
    requirement: Requirement
    passed: bool
    difference: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)


def _key(path: Path) -> tuple[int, int]:
    major, minor = path.stem.split("-")
    return int(major), int(minor)


def load_requirements() -> list[Requirement]:
    found: list[Requirement] = []
    for suite in SUITES:
        for path in sorted((REQUIREMENTS / suite).glob("*.yaml"), key=_key):
            found.append(Requirement(path.stem, suite, yaml.safe_load(path.read_text())))
    return found


def substitute(value: Any, variables: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def generate(spec: dict[str, str] | None, rng: random.Random) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, gen in (spec or {}).items():
        m = _GEN.fullmatch(str(gen))
        size = int(m.group(1)) if m else 8
        out[name] = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))
    return out


def match(expected: Any, actual: Any, binds: dict[str, Any], where: str) -> str | None:
    """The first difference between ``expected`` and ``actual``, or None."""
    if expected == "*":
        return None
    if isinstance(expected, str):
        rx = _REGEX.match(expected)
        if rx:
            if actual is None or not re.search(rx.group(1), str(actual)):
                return f"{where}: {actual!r} does not match /{rx.group(1)}/"
            return None
        bound = _BIND.match(expected)
        if bound:
            name = bound.group(1)
            if name not in binds:
                binds[name] = actual
                return None
            if binds[name] != actual:
                return f"{where}: {actual!r} != ${{{name}}} = {binds[name]!r}"
            return None
        if isinstance(actual, int | float) and not isinstance(actual, bool):
            return None if str(actual) == expected else f"{where}: {actual!r} != {expected!r}"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}.{key}: missing (expected {value!r})"
            diff = match(value, actual[key], binds, f"{where}.{key}")
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {expected!r}, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            diff = match(e, a, binds, f"{where}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(expected, float | int) and isinstance(actual, float | int):
        return None if expected == actual else f"{where}: {actual!r} != {expected!r}"
    if expected != actual:
        return f"{where}: {actual!r} != {expected!r}"
    return None


# The frame of every history: the requirements list what happens between them.
_FRAME = frozenset(
    {"ExecutionStarted", "ExecutionSucceeded", "ExecutionFailed", "ExecutionTimedOut",
     "ExecutionStopped"}
)  # fmt: skip


def compare_history(
    expected: list[dict[str, Any]],
    actual: list[dict[str, Any]],
    binds: dict[str, Any],
    *,
    complete: bool = True,
    unlisted_ignored: bool = False,
) -> str | None:
    """The whole history: every event between the frame, the count and the order.

    The actual events between ``ExecutionStarted`` and the execution's end (the end
    too when the requirement lists it) must be numbered 2 … the last listed id, with
    nothing after it: an extra or duplicate event fails. An id the requirement's own
    numbering skips (an event it leaves out, as some requirements do) must exist but is
    not compared. ``complete=False`` (a run stopped on purpose after the listed
    events): events after the last listed id are not judged. ``unlisted_ignored``: a
    requirement whose text says its matcher ignores unlisted events (their ids depend
    on completion order) is compared on its listed events only.
    """
    listed = {int(e["EventId"]) for e in expected}
    body = [e for e in actual if int(e["EventId"]) in listed or e.get("EventType") not in _FRAME]
    last = max(listed, default=1)
    if not complete:
        body = [e for e in body if int(e["EventId"]) <= last]
    got = [int(e["EventId"]) for e in body]
    if not unlisted_ignored and got != list(range(2, last + 1)):
        extra = [f"{e['EventId']} {e.get('EventType')}" for e in body if e["EventId"] > last]
        missing = [f"{e['EventId']} {e['EventType']}" for e in expected if e["EventId"] not in got]
        return (
            f"history has {len(body)} events, the requirement numbers {last - 1}"
            f" (extra: {', '.join(extra) or 'none'}; missing: {', '.join(missing) or 'none'})"
            f"{_first_difference(expected, actual)}"
        )
    by_id = {e["EventId"]: e for e in actual}
    for event in expected:
        got = by_id.get(event["EventId"])
        if got is None:
            return f"event {event['EventId']} ({event['EventType']}): missing"
        diff = match(event, got, binds, f"event {event['EventId']}")
        if diff:
            return f"{diff} (actual {got.get('EventType')})"
    return None


def _first_difference(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> str:
    """The first listed event whose actual event has another type or name (where an
    inserted or duplicated event shifted the rest), as ``; first difference: …``."""
    by_id = {int(e["EventId"]): e for e in actual}
    for event in sorted(expected, key=lambda e: int(e["EventId"])):
        got = by_id.get(int(event["EventId"]))
        if got is None:
            continue
        if got.get("EventType") != event.get("EventType") or (
            "Name" in event and got.get("Name") != event.get("Name")
        ):
            name = f" {got.get('Name')!r}" if got.get("Name") else ""
            return (
                f"; first difference: event {event['EventId']} is {got.get('EventType')}{name}"
                f" where the requirement has {event.get('EventType')}"
            )
    return ""


class LogSink(logging.Handler):
    """Log records of the SDK's durable logger (and of conformance plugins), by execution."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: dict[str, list[dict[str, Any]]] = {}
        self._lock2 = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        arn = getattr(record, "executionArn", None)
        if not arn:
            return
        entry: dict[str, Any] = {"message": f"[{record.levelname}] {record.getMessage()}"}
        entry.update(getattr(record, "conformance", {}) or {})
        with self._lock2:
            self.records.setdefault(str(arn), []).append(entry)


def check_logs(
    expected: list[dict[str, Any]], logs: list[dict[str, Any]], binds: dict[str, Any]
) -> str | None:
    """``count`` records match each rule; each of them comes ``after`` the listed ones."""

    def matches(pattern: dict[str, Any], entry: dict[str, Any]) -> bool:
        return all(_log_field(v, entry.get(k), binds) for k, v in pattern.items())

    for i, rule in enumerate(expected):
        pattern = rule.get("match") or {}
        hits = [k for k, entry in enumerate(logs) if matches(pattern, entry)]
        if "count" in rule and len(hits) != rule["count"]:
            return f"log rule {i} {pattern}: {len(hits)} matching records, expected {rule['count']}"
        for before in rule.get("after") or []:
            for k in hits:
                if not any(matches(before, entry) for entry in logs[:k]):
                    return f"log rule {i} {pattern}: record {k} does not come after {before}"
    return None


def _log_field(expected: Any, actual: Any, binds: dict[str, Any]) -> bool:
    if actual is None:
        return False
    if isinstance(expected, str) and len(expected) > 1 and expected[0] == expected[-1] == "/":
        return re.search(expected[1:-1], str(actual)) is not None
    return match(expected, actual, dict(binds), "log") is None


class Driver:
    """Runs requirements on a :class:`cfnops.durable.LocalLambda`."""

    def __init__(self, backend: Any, sink: LogSink, *, timeout: float = 90.0) -> None:
        self.backend = backend
        self.sink = sink
        self.timeout = timeout

    def run(self, req: Requirement, known: set[str]) -> Outcome:
        if req.rid in IMPOSSIBLE:
            return Outcome(req, False, f"impossible locally: {IMPOSSIBLE[req.rid]}")
        if req.function not in known:
            return Outcome(req, False, "no handler written")
        try:
            return self._run(req)
        except Exception as exc:  # one broken requirement must not stop the others
            return Outcome(req, False, f"runner error: {type(exc).__name__}: {exc}")

    def _run(self, req: Requirement) -> Outcome:
        doc = req.doc
        variables = generate(doc.get("Variables"), random.Random())
        doc = substitute({k: v for k, v in doc.items() if k != "Variables"}, variables)
        raw = json.dumps(doc.get("Input"))
        arn = self.backend.start_execution(req.function, raw_payload=raw)
        # Each action waits for its callback, then for its delay: concurrently, as the
        # suite's external callers do (a later action may fire first). A terminal action
        # claims its callback, so the next '*' action answers the next callback.
        claims: dict[str, int] = {}
        claim_lock = threading.Lock()
        listed = doc.get("CallbackActions") or []

        def earlier(i: int) -> set[int]:
            """Terminal actions before ``i`` on the same callback name: they claim first."""
            name = listed[i].get("CallbackName", "*")
            return {
                j
                for j in range(i)
                if listed[j].get("CallbackName", "*") == name
                and listed[j]["Operation"] != "heartbeat"
            }

        actors = [
            threading.Thread(
                target=self._act, args=(arn, action, claims, claim_lock, i, earlier(i))
            )
            for i, action in enumerate(doc.get("CallbackActions") or [])
        ]
        for i, actor in enumerate(actors):
            actor.start()
            if i + 1 < len(actors):
                time.sleep(0.05)  # same-delay actions keep their listed order
        expected_result = doc.get("ExpectedResult")
        history = doc["ExpectedExecutionHistory"]
        if expected_result is None:  # runs on (e.g. a long wait): read what it wrote first
            last = max(e["EventId"] for e in history)
            record = self._until(arn, lambda r: len(r["events"]) >= last + 1)
            self.backend.stop(arn)
        else:
            record = self.backend.wait(arn, self.timeout)
        for actor in actors:
            actor.join(self.timeout)
        events = [e for e in record["events"]]
        binds: dict[str, Any] = {}
        outcome = Outcome(req, False, history=events)
        if expected_result is not None:
            diff = self._compare_result(expected_result, record, binds)
            if diff:
                outcome.difference = diff
                return outcome
        diff = compare_history(
            history,
            events,
            binds,
            complete=expected_result is not None,
            unlisted_ignored="ignores unlisted events" in json.dumps(req.doc),
        )
        if diff:
            outcome.difference = diff
            return outcome
        if doc.get("ExpectedLogs"):
            diff = check_logs(doc["ExpectedLogs"], self.sink.records.get(arn, []), binds)
            if diff:
                outcome.difference = diff
                return outcome
        outcome.passed = True
        return outcome

    @staticmethod
    def _compare_result(
        expected: dict[str, Any], record: dict[str, Any], binds: dict[str, Any]
    ) -> str | None:
        status = expected.get("ExecutionStatus")
        if status and record["status"] != status:
            err = record.get("error") or {}
            return f"status {record['status']} != {status} ({err.get('ErrorMessage', '')[:120]})"
        if "Result" in expected:
            raw = record.get("result")
            actual = json.loads(raw) if raw else None
            diff = match(expected["Result"], actual, binds, "Result")
            if diff:
                return diff
        if "Error" in expected:
            diff = match(expected["Error"], record.get("error") or {}, binds, "Error")
            if diff:
                return diff
        return None

    def _until(self, arn: str, ready: Any) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            record = self.backend.record(arn)
            if ready(record) or record["status"] != "RUNNING" or time.monotonic() > deadline:
                return dict(record)
            time.sleep(0.05)

    def _act(
        self,
        arn: str,
        action: dict[str, Any],
        claims: dict[str, int],
        lock: threading.Lock,
        index: int,
        before: set[int],
    ) -> None:
        name = action.get("CallbackName", "*")
        kind = action["Operation"]

        def open_callback(record: dict[str, Any]) -> str | None:
            ops = record["ops"]
            with lock:
                if not before <= set(claims.values()):
                    return None
                for key, op in ops.items():
                    if op["Type"] != "CALLBACK" or op["Status"] != "STARTED":
                        continue
                    if kind != "heartbeat" and not _suspended_after(record, op.get("Id", key)):
                        continue
                    parent = ops.get(op.get("ParentId") or "", {})
                    if name not in ("*", op.get("Name"), parent.get("Name")):
                        continue
                    callback = str(op["CallbackDetails"]["CallbackId"])
                    owner = claims.get(callback)
                    if owner is not None and owner != index:
                        continue
                    if kind != "heartbeat":
                        claims[callback] = index
                    return callback
            return None

        record = self._until(arn, lambda r: open_callback(r) is not None)
        callback = open_callback(record)
        if callback is None:
            return
        time.sleep(float(action.get("Delay", 0) or 0))
        if kind != "heartbeat":
            # Past its delay, an answer still waits for the execution to be suspended:
            # every answer in the suite's histories is received by a suspended execution
            # and starts an invocation of its own (4-18: "Replay 1: Received callback A
            # … the invocation completes. Replay 2: Received callback B"). Sent while
            # the replay of the previous answer still runs (slower than the 1 s between
            # the two delays on a loaded machine), it lands before that replay's
            # InvocationCompleted, an order no requirement describes; Lambda would record
            # it there too (it records an answer when it arrives).
            self._until(arn, _suspended)
        payload = action.get("Payload")
        try:
            if kind == "success":
                result = json.dumps(payload) if "Payload" in action else None
                self.backend.send_callback(callback, "success", result=result)
            elif kind == "failure":
                self.backend.send_callback(callback, "failure", error=payload or {})
            else:
                self.backend.send_callback(callback, "heartbeat")
        except Exception:  # refused (e.g. timed out already): the history shows it
            return


def _suspended(record: dict[str, Any]) -> bool:
    """No invocation of the execution runs, and none is due (nothing woke it yet)."""
    events = record.get("events") or []
    completed = sum(1 for e in events if e.get("EventType") == "InvocationCompleted")
    return not record.get("wake") and int(record.get("invocations", 0)) == completed


def _suspended_after(record: dict[str, Any], op_id: str) -> bool:
    """Whether the invocation that started callback ``op_id`` has completed (suspended).

    Every requirement's history answers a callback after the InvocationCompleted that
    follows its CallbackStarted (29 answers in the suite, none before): the suite's
    external caller answers a waiting execution. Answering earlier records the answer
    before InvocationCompleted, an order the requirement does not describe (it showed
    as wait_for_callback failures under load, more often on PostgreSQL).
    """
    events = record.get("events") or []
    started = next(
        (
            i
            for i, e in enumerate(events)
            if e.get("EventType") == "CallbackStarted" and e.get("Id") == op_id
        ),
        None,
    )
    return started is not None and any(
        e.get("EventType") == "InvocationCompleted" for e in events[started + 1 :]
    )


def run_all(
    backend: Any, sink: LogSink, known: set[str], *, only: str | None = None, workers: int = 24
) -> list[Outcome]:
    requirements = [
        r for r in load_requirements() if only is None or r.suite == only or r.rid == only
    ]
    driver = Driver(backend, sink)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda r: driver.run(r, known), requirements))


def summary(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    per: dict[str, tuple[int, int]] = {}
    for o in outcomes:
        ok, total = per.get(o.requirement.suite, (0, 0))
        per[o.requirement.suite] = (ok + int(o.passed), total + 1)
    return per
