"""Entry point: global options, command registration, error → exit code mapping.

Exit codes (documented in ``docs/cli.md``): 0 success, 1 operation failed,
2 usage or input error, 3 held by policy / needs approval.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from cfnops._version import __version__

try:  # Typer >= 0.2x vendors Click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older Typer on real Click
    from click import ClickException  # type: ignore[assignment]

from cfnops.cli._exit import LeaveThreads
from cfnops.cli._globals import hoist
from cfnops.cli._logging import configure_logging
from cfnops.cli._on_demand import build_group
from cfnops.cli._root_help import ROOT_HELP, SUMMARIES
from cfnops.cli._state import CliState
from cfnops.errors import CfnopsError, ExitCode

# The command list, kept once: each top-level command → the modules whose
# ``register(app)`` define it (``demo`` gathers sub-commands from several). Running
# a command imports only its modules, so ``cfnops diff`` starts without DBOS,
# SQLAlchemy or boto3; tests/cli check that the list matches what the modules define.
COMMANDS: dict[str, tuple[str, ...]] = {
    "runs": ("cfnops.cli.runs",),
    "worker": ("cfnops.cli.worker",),
    "sandbox": ("cfnops.cli.sandbox",),
    "guard": ("cfnops.cli.guard",),
    "diff": ("cfnops.cli.diff",),
    "ami": ("cfnops.cli.ami",),
    "job": ("cfnops.cli.job",),
    "events": ("cfnops.cli.events",),
    "drift": ("cfnops.cli.drift",),
    "heal": ("cfnops.cli.heal",),
    "approve": ("cfnops.cli.heal",),
    "reject": ("cfnops.cli.heal",),
    "audit": ("cfnops.cli.audit",),
    "console": ("cfnops.cli.console",),
    "completion": ("cfnops.cli.completion",),
    "demo": (
        "cfnops.cli.demo",
        "cfnops.cli.demo_heal",
        "cfnops.cli.jobnet_demo",
        "cfnops.cli.ami",
    ),
}

# Installed by the ``sandbox`` extra only: a command that needs them says so (exit 2).
_SANDBOX_ONLY = frozenset({"moto", "flask", "flask_cors", "werkzeug"})

MODULES: tuple[str, ...] = tuple(dict.fromkeys(m for ms in COMMANDS.values() for m in ms))


class _LazyGroup(TyperGroup):
    """Imports a command's modules only when that command runs.

    The root ``--help`` lists the commands from :data:`SUMMARIES` and imports none (a
    real ``cfnops --help`` does not even import Typer: :mod:`cfnops.cli._root_help`);
    ``cfnops CMD --help`` imports CMD's modules only.

    It also accepts the global options after the command (see :mod:`cfnops.cli._globals`).
    """

    _loaded: dict[str, Any] = {}
    summaries_only = True  # root help from SUMMARIES (tests turn it off to compare)
    _listing = False

    def _load(self, modules: tuple[str, ...]) -> Any:
        key = ",".join(modules)
        if key not in self._loaded:
            holder = typer.Typer()
            for module in modules:
                importlib.import_module(module).register(holder)
            self._loaded[key] = build_group(holder)
        return self._loaded[key]

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        modules = COMMANDS.get(cmd_name)
        if modules is None:
            return None
        if self._listing:  # a stand-in that carries the summary, for the root help only
            return TyperCommand(name=cmd_name, help=SUMMARIES[cmd_name])
        return self._load(modules).get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = self.summaries_only
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
        """``cfnops <Tab>``: the command names with their summaries, like the root help,
        from the stand-ins (importing every command's modules took 3-12 s here)."""
        self._listing = True
        try:
            found: list[Any] = super().shell_complete(ctx, incomplete)
        finally:
            self._listing = False
        return found

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        result: list[str] = super().parse_args(ctx, hoist(self, ctx, list(args)))
        return result


app = typer.Typer(
    cls=_LazyGroup,
    name="cfnops",
    help=ROOT_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cfnops {__version__}")
        raise typer.Exit()


def _choices(*values: str) -> Callable[[str], list[str]]:
    """Shell completion of an option's values (``cfnops --output <TAB>``)."""

    def complete(incomplete: str) -> list[str]:
        return [value for value in values if value.startswith(incomplete)]

    return complete


@app.callback()
def _global_options(
    ctx: typer.Context,
    region: Annotated[
        str | None, typer.Option("--region", help="AWS region (default: profile/AWS_REGION).")
    ] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Named profile from ~/.aws/config.")
    ] = None,
    endpoint_url: Annotated[
        str | None,
        typer.Option(
            "--endpoint-url",
            help="Send AWS calls here (the sandbox: http://127.0.0.1:5000). "
            "AWS_ENDPOINT_URL is honoured when unset.",
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="text | json | markdown (where the command has it).",
            autocompletion=_choices("text", "json", "markdown"),
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="Settings file (default: ./cfnops.toml when present)."),
    ] = None,
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="More logging (-vv for debug).")
    ] = 0,
    log_format: Annotated[
        str | None,
        typer.Option(
            "--log-format",
            help="text | json: logs on stderr as text or one JSON object per line "
            "(default: CFNOPS_LOG_FORMAT, else text).",
            autocompletion=_choices("text", "json"),
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    if output is not None and output not in ("text", "json", "markdown"):
        raise typer.BadParameter("must be text, json or markdown", param_hint="--output")
    ctx.obj = CliState(
        region=region,
        profile=profile,
        endpoint_url=endpoint_url,
        output=output,
        config=config,
        verbose=verbose,
    )
    configure_logging(verbose, _log_format(log_format))
    if "OTEL_TRACES_EXPORTER" in os.environ or "OTEL_EXPORTER_OTLP_ENDPOINT" in os.environ:
        from cfnops import tracing

        tracing.setup()


def _log_format(given: str | None) -> str:
    """Flag > CFNOPS_LOG_FORMAT > text (resolved here, at the entry point)."""
    import os

    from cfnops.cli._logging import LOG_FORMATS

    value = given if given is not None else os.environ.get("CFNOPS_LOG_FORMAT") or "text"
    if value not in LOG_FORMATS:
        where = "--log-format" if given is not None else "CFNOPS_LOG_FORMAT"
        raise typer.BadParameter(f"{value!r}: must be text or json", param_hint=where)
    return value


def _report(err: CfnopsError) -> int:
    from cfnops.cli import _json_stderr

    if _json_stderr.installed():  # --log-format json: one record, the hint a field
        _json_stderr.write_record(
            "ERROR",
            "cfnops.cli",
            err.message,
            hint=err.hint or None,
            error=type(err).__name__,
            run_id=getattr(err, "run_id", None),
            exit_code=int(err.exit_code),
        )
        return int(err.exit_code)
    from rich.console import Console  # only to report an error: not on every command's path
    from rich.markup import escape

    console = Console(stderr=True, highlight=False)
    # escaped: a message may name a settings table ("[notify]"), which is not markup
    console.print(f"[bold red]error:[/] {escape(err.message)}", markup=True, soft_wrap=True)
    if err.hint:
        console.print(f"  hint: {err.hint}", markup=False, soft_wrap=True)
    return int(err.exit_code)


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; return (and, as a script, exit with) the documented exit code."""
    if argv is None:  # a real process (not a test calling run([...])): own Ctrl-C/SIGTERM
        from cfnops.cli import _interrupt

        _interrupt.install()
    try:
        result = app(args=argv, standalone_mode=False)
    except CfnopsError as err:
        code = _report(err)
        if err.abandons_threads and argv is None:
            from cfnops.cli._exit import hard_exit

            hard_exit(code)
        return _exit(code, argv)
    except typer.Exit as exc:
        return _exit(int(exc.exit_code or 0), argv)
    except LeaveThreads as left:
        if argv is None:
            from cfnops.cli._exit import leave_threads

            leave_threads(left.code)
        return left.code
    except typer.Abort:
        return _exit(130, argv)
    except ClickException as exc:
        from cfnops.cli._suggest import suggest_command

        suggest_command(exc)
        _show_usage_error(exc)
        return _exit(ExitCode.USAGE, argv)
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in _SANDBOX_ONLY:
            raise
        from cfnops.sandbox.errors import SandboxNotInstalled

        return _exit(_report(SandboxNotInstalled((exc.name or "moto").partition(".")[0])), argv)
    except Exception as exc:
        return _exit(_unexpected(exc, argv), argv)
    return _exit(result if isinstance(result, int) else ExitCode.OK, argv)


def _unexpected(exc: Exception, argv: list[str] | None) -> int:
    """Every other exception, through the one mapping of :mod:`cfnops.cli._errors`."""
    import os
    import sys

    from cfnops.cli._errors import as_cfnops, internal_error, wants_traceback

    mapped = as_cfnops(exc)
    if mapped is not None:
        return _report(mapped)
    text, code = internal_error(
        exc, wants_traceback(sys.argv[1:] if argv is None else argv, dict(os.environ))
    )
    from cfnops.cli import _json_stderr

    if _json_stderr.installed():
        _json_stderr.write_record("CRITICAL", "cfnops.cli", text, exit_code=code)
    else:
        sys.stderr.write(text + "\n")
    return code


def _show_usage_error(exc: ClickException) -> None:
    """Click's message (usage line and error), or with ``--log-format json`` one record."""
    from cfnops.cli import _json_stderr

    if not _json_stderr.installed():
        exc.show()
        return
    _json_stderr.write_record(
        "ERROR", "cfnops.cli", exc.format_message(), error="UsageError", exit_code=exc.exit_code
    )


def _exit(code: int, argv: list[str] | None) -> int:
    if argv is None:
        from cfnops.cli._exit import exit_process  # skips the interpreter's final sweep

        exit_process(code)
    return code
