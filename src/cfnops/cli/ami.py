"""``cfnops ami``: drift-free AMI rotation (rotate, rollback, check) and ``cfnops demo ami``.

Exit codes: 0 rotated, nothing to do, or skipped (with the reason); 1 the rotation
failed (image not available, stack busy past the wait, update rolled back,
refused stack-owned parameter), a stack rotation's update ran but drift detection
did not find the stack in sync (``DRIFTED`` / ``DRIFT_UNKNOWN``), or ``check``
found a drift-prone pattern;
2 bad input (malformed event, bad flags, unreadable template).
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._progress import watch_run
from cfnops.cli._state import CliState, state
from cfnops.errors import UsageError

ami_app = typer.Typer(help="Drift-free AMI rotation for auto-healing Auto Scaling groups.")

_Output = Annotated[str | None, typer.Option("--output", "-o", help="text | json.")]
_Roll = Annotated[
    bool | None,
    typer.Option(
        "--roll/--no-roll",
        help="Pattern 3 (--stack): roll the group's instances now through CloudFormation's "
        "instance refresh (the group's UpdatePolicy needs an instance refresh) and report its "
        "progress. Default: the \\[ami] roll setting (false).",
    ),
]
_Parameter = Annotated[str | None, typer.Option("--parameter", help="SSM parameter.")]
_ParameterKey = Annotated[
    str | None, typer.Option("--parameter-key", help="Stack parameter (default ImageId).")
]
_Force = Annotated[
    bool, typer.Option("--force", help="Write a parameter even if a stack owns it (drifts it).")
]
# One flag, not a --x/--no-x pair: the pair's names were cut at 80 columns in --help.
_NoCompat = Annotated[
    bool,
    typer.Option(
        "--no-check-compatibility",
        help="Accept an AMI whose architecture or virtualisation type differs from the one "
        "in use (refused by default).",
    ),
]


@dataclass(frozen=True)
class _RotationFlags:
    """The options ``rotate`` and ``rollback`` share: how the rotator acts, how results print."""

    parameter_key: str | None
    force: bool
    check_compatibility: bool
    roll: bool | None
    output: str | None


def _rotation_command(command: Callable[..., None]) -> Callable[..., None]:
    """``command(..., flags)`` as a Typer command whose signature ends with the shared options
    (``--parameter-key``, ``--force``, ``--no-check-compatibility``, ``--roll``, ``--output``),
    collected into one :class:`_RotationFlags`: the options are written once, not per command."""
    own = inspect.signature(command, eval_str=True)
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default)
        for name, kind, default in (
            ("parameter_key", _ParameterKey, None),
            ("force", _Force, False),
            ("no_check_compatibility", _NoCompat, False),
            ("roll", _Roll, None),
            ("output", _Output, None),
        )
    ]

    @functools.wraps(command)
    def parsed(
        *args: Any,
        parameter_key: str | None,
        force: bool,
        no_check_compatibility: bool,
        roll: bool | None,
        output: str | None,
        **kwargs: Any,
    ) -> None:
        flags = _RotationFlags(parameter_key, force, not no_check_compatibility, roll, output)
        command(*args, flags=flags, **kwargs)

    kept = [p for p in own.parameters.values() if p.name != "flags"]
    parsed.__signature__ = own.replace(parameters=[*kept, *shared])  # type: ignore[attr-defined]
    return parsed


def _rotator(st: CliState, flags: _RotationFlags) -> Any:
    """The rotation service on the command's runtime (its clients and its one database)."""
    from cfnops.ami import Rotator

    return Rotator(
        st.runtime,
        force=flags.force,
        check_compatibility=flags.check_compatibility,
        parameter_key=flags.parameter_key,
        roll=flags.roll,
    )


def _fmt(st: CliState, output: str | None) -> str:
    fmt = output or st.output_format
    if fmt not in ("text", "json", "markdown"):
        raise UsageError(f"--output {fmt!r}: expected text or json")
    return fmt


def _render(st: CliState, fmt: str, results: list[Any]) -> None:
    data = [r.to_json() for r in results]
    if fmt == "json":
        st.emit_json(data if len(data) != 1 else data[0])
        return
    for item in data:
        outcome = item.get("outcome")
        if outcome == "SKIPPED":
            st.console.print(f"skipped: {item['reason']}")
        elif item.get("pattern") == "ssm-parameter":
            st.console.print(
                f"{outcome}: parameter {item['Parameter']} = {item['ImageId']} "
                f"(previous {item.get('PreviousImageId') or '-'})"
            )
        else:
            drift = f", drift {item['Drift']}" if item.get("Drift") else ""
            st.console.print(
                f"{outcome}: stack {item['StackName']} {item['ParameterKey']} = {item['ImageId']} "
                f"(previous {item.get('PreviousImageId') or '-'}, {item.get('StackStatus')}"
                f"{drift}, run {item.get('RunId')})",
                markup=False,
            )
            _render_roll(st, item.get("Roll"))
            _render_drift(st, item)


def _render_drift(st: CliState, item: dict[str, Any]) -> None:
    """What drift detection still finds after a stack rotation (DRIFTED / DRIFT_UNKNOWN)."""
    detection = item.get("DriftDetection")
    if detection:
        st.console.print(
            f"  drift detection {detection.get('Status')}: {detection.get('Reason')}",
            markup=False,
        )
    for resource in item.get("StillDrifted") or []:
        head = f"  still drifted: {resource['LogicalResourceId']} ({resource['ResourceType']})"
        props = resource.get("Properties") or []
        if resource.get("Status") == "DELETED" or not props:
            st.console.print(f"{head} {resource.get('Status')}", markup=False)
        for prop in props:
            st.console.print(
                f"{head} {prop['Path']}: expected {prop.get('Expected')!r}, "
                f"actual {prop.get('Actual')!r} ({prop.get('DifferenceType')})",
                markup=False,
            )


# A stack rotation whose update ran but left the stack drifted (or unverified): exit 1.
_NOT_IN_SYNC = ("DRIFTED", "DRIFT_UNKNOWN")


def _exit_for(results: list[Any]) -> None:
    if any(getattr(r, "outcome", None) in _NOT_IN_SYNC for r in results):
        raise typer.Exit(1)


def _render_roll(st: CliState, roll: Any) -> None:
    if not roll:
        return
    for step in roll.get("Progress", []):
        reason = f" - {step['StatusReason']}" if step.get("StatusReason") else ""
        st.console.print(
            f"  {step.get('At', '')} {step['GroupName']}: {step['Status']} "
            f"{step.get('PercentageComplete') or 0} %, "
            f"{step.get('InstancesToUpdate') or 0} to update{reason}",
            markup=False,
        )
    for refresh in roll.get("Refreshes", []):
        if refresh.get("Status") == "NotStarted":
            st.console.print(
                f"  warning: no instance refresh started for {refresh['GroupName']} "
                "(the launch template did not change?)",
                markup=False,
            )


def _read_event(path: str) -> tuple[Any, str]:
    from cfnops.ami import load_event

    if path == "-":
        return load_event(sys.stdin.read(), "<stdin>"), "<stdin>"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read event file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError:
        raise UsageError(
            f"event file {path} is not UTF-8 text (a binary file?)",
            hint="pass the EventBridge event as JSON",
        ) from None
    return load_event(text, path), path


@ami_app.command("rotate")
@_rotation_command
def rotate_command(
    ctx: typer.Context,
    event: Annotated[
        str | None, typer.Option("--event", help="EventBridge event file or -.")
    ] = None,
    image_id: Annotated[str | None, typer.Option("--image-id", help="The new AMI.")] = None,
    parameter: _Parameter = None,
    stack: Annotated[str | None, typer.Option("--stack", help="Stack to update.")] = None,
    *,
    flags: _RotationFlags,
) -> None:
    """Rotate from an event (AMI tags name the target) or from explicit ids.

    Patterns: --parameter writes the SSM parameter the launch template resolves at launch (1); --stack updates the stack's image parameter (2); --stack --roll does 2 and waits while CloudFormation's instance refresh replaces the instances (3).
    """  # noqa: E501 - one paragraph: Typer keeps a docstring's line breaks in --help
    st = state(ctx)
    fmt = _fmt(st, flags.output)
    if event is None and (image_id is None or (parameter is None) == (stack is None)):
        raise UsageError("give --event FILE|-, or --image-id with --parameter or --stack")
    if event is not None and (image_id or parameter or stack):
        raise UsageError("--event cannot be combined with --image-id/--parameter/--stack")
    if flags.roll and parameter is not None:
        raise UsageError(
            "--roll applies to stack rotations (--stack): a parameter rotation (pattern 1) "
            "reaches instances as they launch"
        )
    st.register_workflows()
    with _rotator(st, flags) as rotator:
        if event is None:
            rotator.check_target(str(image_id), stack=stack)
        if event is not None:
            data, source = _read_event(event)
            results: list[Any] = rotator.event(data, source)
        elif parameter is not None:
            results = [rotator.parameter(parameter, str(image_id))]
        else:
            run_id = f"ami-rotate-{stack}-{uuid.uuid4().hex[:10]}"
            with watch_run(
                st.runtime.database, run_id
            ):  # a line per phase on a non-terminal stderr
                results = [rotator.stack(str(stack), str(image_id), run_id=run_id)]
    _render(st, fmt, results)
    _exit_for(results)


@ami_app.command("rollback")
@_rotation_command
def rollback_command(
    ctx: typer.Context,
    parameter: _Parameter = None,
    stack: Annotated[str | None, typer.Option("--stack", help="Stack.")] = None,
    *,
    flags: _RotationFlags,
) -> None:
    """Restore the AMI the last rotation replaced (parameter tag / run record)."""
    st = state(ctx)
    fmt = _fmt(st, flags.output)
    if (parameter is None) == (stack is None):
        raise UsageError("give exactly one of --parameter or --stack")
    st.register_workflows()
    with _rotator(st, flags) as rotator:
        result: Any = (
            rotator.rollback_parameter(parameter)
            if parameter is not None
            else rotator.rollback_stack(str(stack))
        )
    _render(st, fmt, [result])
    _exit_for([result])


@ami_app.command("check")
def check_command(
    ctx: typer.Context,
    template: Annotated[Path, typer.Argument(help="CloudFormation template (JSON or YAML).")],
    output: _Output = None,
) -> None:
    """Flag launch templates whose AMI rotation would drift the stack; show the edit."""
    from cfnops.ami import check_template, load_template

    st = state(ctx)
    fmt = _fmt(st, output)
    report = check_template(load_template(template), str(template))
    if fmt == "json":
        st.emit_json(report.to_json())
    else:
        _render_check(st, report)
    if report.drift_prone:
        raise typer.Exit(1)


def _render_check(st: CliState, report: Any) -> None:
    console = st.console
    for use in report.launch_templates:
        groups = ", ".join(use.groups) or "no group"
        console.print(f"{use.launch_template}: {use.pattern} (ImageId {use.image}; {groups})")
    for f in report.findings:
        where = f"{report.path}:{f.line}" if f.line else report.path
        console.print(f"\n[bold]{f.severity} {f.code}[/bold] {where} {f.pointer}\n  {f.message}")
        for name, edits in f.fixes.items():
            console.print(f"  fix ({name.replace('pattern', 'pattern ')}):")
            for e in edits:
                at = f" (line {e.line})" if e.line else ""
                console.print(
                    f"    at {e.pointer}{at}: {e.note}" if e.note else f"    at {e.pointer}{at}:"
                )
                if e.before:
                    console.print(f"      - {e.before}", markup=False)
                for line in e.after.splitlines():
                    console.print(f"      + {line}", markup=False)
    if not report.findings:
        console.print("no drift-prone AMI pattern found")


def demo_ami_command(
    ctx: typer.Context,
    output: _Output = None,
) -> None:
    """On the local sandbox: both drift-free patterns driven by AWS Backup events, then the
    naive approach drifting."""
    from cfnops.demo.ami import run_demo

    st = state(ctx)
    fmt = _fmt(st, output)
    report = run_demo(st.settings, log=None if fmt == "json" else st.console.print)
    if fmt == "json":
        st.emit_json(report)
    else:
        st.console.print(json.dumps(report["summary"]))
    if not report["ok"]:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    from cfnops.cli.demo import demo_app

    app.add_typer(ami_app, name="ami")
    demo_app.command("ami")(demo_ami_command)
