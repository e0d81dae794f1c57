"""SSM Run Command outcomes: per-instance invocations that progress and can fail.

moto's ``SendCommand`` reports every command as an immediate success and has no
``ListCommandInvocations``. Here each invocation (one per managed node, as in the
AWS Systems Manager API reference, "ListCommandInvocations",
https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_ListCommandInvocations.html)
goes Pending -> InProgress (after the ``ssm_command`` delay) -> Success | Failed |
TimedOut (after the outcome's ``duration``, default the same delay), following
"Understanding command statuses"
(https://docs.aws.amazon.com/systems-manager/latest/userguide/monitor-commands.html).

The outcome of an invocation comes from the most recent :class:`Outcome` rule
whose instance id and command regex match (the command text is the document's
``commands`` parameter joined by newlines); without a rule it succeeds with
exit code 0. ``GetCommandInvocation``, ``ListCommandInvocations`` (with
``Details=True``: ``CommandPlugins[].ResponseCode``/``Output``) and
``ListCommands`` (status and counts) read the same records. Instances that do
not exist in moto's EC2 (or are terminated) are refused with ``InvalidInstanceId``.

Python API: :func:`set_outcome` / :func:`clear_outcomes`. Control route
``/_cfnops/ssm-commands``: ``{"outcomes": [{"instance_id": "i-..", "command":
"regex", "exit_code": 2, "stdout": "..", "stderr": "..", "duration": 1.5}]}``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions import _ssm_records as records
from cfnops.sandbox.extensions._patching import replace

__all__ = ["Outcome", "clear_outcomes", "install", "outcomes", "set_outcome"]

_STORE = "ssm_commands"


@dataclass(frozen=True)
class Outcome:
    """How a matching invocation ends. ``instance_id``/``command`` ``None`` match all."""

    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    duration: float | None = None  # seconds in InProgress; None: the ssm_command delay
    timed_out: bool = False
    instance_id: str | None = None
    command: str | None = None  # regular expression searched in the command text

    def __post_init__(self) -> None:
        if self.duration is not None and self.duration < 0:
            raise ValueError("duration cannot be negative")
        if self.command is not None:
            re.compile(self.command)

    def applies_to(self, instance_id: str, command_text: str) -> bool:
        if self.instance_id not in (None, "*", instance_id):
            return False
        return self.command is None or re.search(self.command, command_text) is not None


def _store() -> dict[str, Any]:
    store: dict[str, Any] = current_state().extras.setdefault(
        _STORE, {"outcomes": [], "invocations": {}}
    )
    return store


def set_outcome(
    *,
    instance_id: str | None = None,
    command: str | None = None,
    exit_code: int = 0,
    stdout: str = "",
    stderr: str = "",
    duration: float | None = None,
    timed_out: bool = False,
) -> Outcome:
    """Make matching future invocations end this way (newest rule wins)."""
    outcome = Outcome(exit_code, stdout, stderr, duration, timed_out, instance_id, command)
    with current_state().lock:
        _store()["outcomes"].append(outcome)
    return outcome


def clear_outcomes() -> None:
    with current_state().lock:
        _store()["outcomes"].clear()


def outcomes() -> list[Outcome]:
    with current_state().lock:
        return list(_store()["outcomes"])


def _outcome_for(instance_id: str, command_text: str) -> Outcome:
    for outcome in reversed(_store()["outcomes"]):
        if isinstance(outcome, Outcome) and outcome.applies_to(instance_id, command_text):
            return outcome
    return Outcome()


# -- lifecycle ---------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _start(inv: records.Invocation, outcome: Outcome, execution_timeout: float) -> None:
    state = current_state()
    inv.status = inv.status_details = "InProgress"
    inv.started = _now()
    run_for = state.delay("ssm_command") if outcome.duration is None else outcome.duration
    if outcome.timed_out or run_for > execution_timeout:
        run_for = min(run_for, execution_timeout)
        state.schedule(run_for, lambda: _finish(inv, outcome, timed_out=True))
    else:
        state.schedule(run_for, lambda: _finish(inv, outcome, timed_out=False))


def _starter(inv: records.Invocation, outcome: Outcome, timeout: float) -> Callable[[], None]:
    return lambda: _start(inv, outcome, timeout)


def _finish(inv: records.Invocation, outcome: Outcome, *, timed_out: bool) -> None:
    inv.ended = _now()
    inv.stdout, inv.stderr = outcome.stdout, outcome.stderr
    if timed_out:
        inv.status, inv.status_details = "TimedOut", "ExecutionTimedOut"
        inv.response_code = outcome.exit_code if outcome.exit_code else -1
    else:
        inv.response_code = outcome.exit_code
        inv.status = inv.status_details = "Success" if outcome.exit_code == 0 else "Failed"


def _command_text(parameters: dict[str, Any]) -> str:
    commands = parameters.get("commands") or parameters.get("Commands") or []
    if isinstance(commands, str):
        return commands
    return "\n".join(str(c) for c in commands)


def _execution_timeout(parameters: dict[str, Any]) -> float:
    raw = parameters.get("executionTimeout") or ["3600"]
    try:
        return float(raw[0] if isinstance(raw, list) else raw)
    except (TypeError, ValueError):
        return 3600.0


def _check_instances(account_id: str, region: str, instance_ids: list[str]) -> None:
    """SendCommand's ``InvalidInstanceId`` (SSM API reference, SendCommand errors)."""
    from moto.ec2.models import ec2_backends
    from moto.ssm.exceptions import SSMException

    ec2 = ec2_backends[account_id][region]
    known = {
        instance.id: instance.state
        for reservation in ec2.all_reservations()
        for instance in reservation.instances
    }
    bad = [i for i in instance_ids if known.get(i) in (None, "terminated", "shutting-down")]
    if bad:
        raise SSMException(
            "InvalidInstanceId",
            f"Instances [[{', '.join(bad)}]] not in a valid state for account {account_id}",
        )


def _patched_send_command(original: Any) -> Any:
    def send_command(self: Any, **kwargs: Any) -> Any:
        requested = list(kwargs.get("instance_ids") or [])
        _check_instances(self.account_id, self.region_name, requested)
        command = original(self, **kwargs)
        if not kwargs.get("targets"):
            # moto adds every instance of the region when Targets is empty
            command.instance_ids = list(dict.fromkeys(requested))
        parameters = dict(kwargs.get("parameters") or {})
        text = _command_text(parameters)
        timeout = _execution_timeout(parameters)
        plugin = records.plugin_name(command.document_name)
        state = current_state()
        with state.lock:
            invocations = []
            for instance_id in command.instance_ids:
                inv = records.Invocation(
                    command_id=command.command_id,
                    instance_id=instance_id,
                    plugin=plugin,
                    requested=command.requested_date_time,
                )
                invocations.append(inv)
                outcome = _outcome_for(instance_id, text)
                state.schedule(state.delay("ssm_command"), _starter(inv, outcome, timeout))
            _store()["invocations"][command.command_id] = invocations
        return command

    send_command._cfnops_patched = True  # type: ignore[attr-defined]
    return send_command


def invocations_of(command_id: str) -> list[records.Invocation] | None:
    with current_state().lock:
        found = _store()["invocations"].get(command_id)
        return None if found is None else list(found)


def _control(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("clear"):
        clear_outcomes()
    for spec in request.get("outcomes", []):
        if not isinstance(spec, dict):
            raise ValueError("each outcome must be an object")
        try:
            set_outcome(**spec)
        except TypeError as exc:
            raise ValueError(f"bad outcome {spec}: {exc}") from exc
    return {"outcomes": [asdict(o) for o in outcomes()], "delay": _delay_info()}


def _delay_info() -> dict[str, float]:
    return {"ssm_command": current_state().delay("ssm_command")}


_install_lock = threading.Lock()


def install() -> None:
    """Patch moto's SSM backend and responses (once per process)."""
    from moto.ssm.models import Command, SimpleSystemManagerBackend
    from moto.ssm.responses import SimpleSystemManagerResponse

    with _install_lock:
        backend = SimpleSystemManagerBackend
        if not getattr(backend.send_command, "_cfnops_patched", False):
            replace(backend, "send_command", _patched_send_command(backend.send_command))
        records.patch(Command, SimpleSystemManagerResponse, invocations_of)
        register_control("ssm-commands", _control)
