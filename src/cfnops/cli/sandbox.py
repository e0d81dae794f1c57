"""``cfnops sandbox up``: the local AWS sandbox in the foreground."""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cfnops.cli._state import state
from cfnops.sandbox import allow_remote_control

if TYPE_CHECKING:
    from cfnops.sandbox import Sandbox

sandbox_app = typer.Typer(help="The local AWS sandbox (moto's server plus cfnops extensions).")


@sandbox_app.command("up")
def up(
    ctx: typer.Context,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=0, max=65535, help="Port to listen on (0: any free; default 5000)."
        ),
    ] = None,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            help="Address to bind (default 127.0.0.1). Anything but loopback needs "
            "--allow-remote: the sandbox has no authentication.",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a non-loopback --host, and control routes (/_cfnops/) from other "
            "machines. Anyone who can reach the port can then read and change everything.",
        ),
    ] = False,
    delay: Annotated[
        float | None,
        typer.Option("--delay", min=0, help="Every emulated delay in seconds (default 1-3 s)."),
    ] = None,
    log_requests: Annotated[
        bool, typer.Option("--log-requests", help="Print one line per request.")
    ] = False,
    functions: Annotated[
        list[str] | None,
        typer.Option(
            "--functions",
            help="Import MODULE (its Lambda functions register with the lambda_function "
            "decorator of cfnops.durable) and serve the Lambda durable-execution API "
            "for them on the run database. Repeatable.",
        ),
    ] = None,
) -> None:
    """Run the sandbox until Ctrl-C or SIGTERM; print the shell exports to use it."""
    from cfnops.sandbox import Sandbox

    cli = state(ctx)
    settings = cli.settings.sandbox  # [sandbox] in cfnops.toml or CFNOPS_SANDBOX__*
    region = cli.region or "us-east-1"
    host = host if host is not None else settings.host
    port = port if port is not None else settings.port
    delay = delay if delay is not None else settings.delay_seconds
    _check_host(host, allow_remote)
    stop = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _on_signal)
    allow_remote_control(allow_remote)
    sandbox = Sandbox(host=host, port=port, delays=delay, region=region, log_requests=log_requests)
    engine = _serve_durable_functions(cli, sandbox, functions or [])
    try:
        # Listening comes first: moto loads behind it and requests wait for it.
        sandbox.start(wait=False)
        if cli.output_format == "json":
            cli.emit_json({"endpoint_url": sandbox.endpoint_url, "env": sandbox.environment()})
        else:
            for line in sandbox.export_lines():
                typer.echo(line)
            typer.echo(
                f"# cfnops sandbox listening on {_listening(host, sandbox.port)}; Ctrl-C stops it",
                err=True,
            )
        with contextlib.suppress(KeyboardInterrupt):
            _serve(sandbox, stop)
    finally:
        sandbox.stop()
        if engine is not None:
            engine.shutdown(grace_seconds=2)
        signal.signal(signal.SIGTERM, previous)
    typer.echo("# cfnops sandbox stopped", err=True)


def _serve_durable_functions(cli: Any, sandbox: Sandbox, modules: list[str]) -> Any:
    """Import the function modules and let ``sandbox`` serve their durable executions;
    the engine that runs them (None: none asked)."""
    if not modules:
        return None
    import importlib

    from cfnops.errors import UsageError

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise UsageError(
                f"--functions {module}: cannot import it ({exc})",
                hint="give an importable module (on PYTHONPATH) that registers functions",
            ) from exc
    engine = cli.engine()
    sandbox.serve_lambda(engine.local_lambda())
    return engine


def _serve(sandbox: Sandbox, stop: threading.Event) -> None:
    """Wait for the load (a failed one raises), then until SIGTERM or Ctrl-C."""
    while not stop.is_set():
        try:
            seconds = sandbox.wait_loaded(timeout=0.1)
        except TimeoutError:
            continue
        typer.echo(f"# AWS services loaded in {seconds:.2f} s", err=True)
        break
    while not stop.wait(0.5):
        pass


def _check_host(host: str, allow_remote: bool) -> None:
    """A bad address is a usage error; a non-loopback one needs ``--allow-remote``."""
    import ipaddress

    from cfnops.errors import UsageError
    from cfnops.sandbox import is_loopback

    if host.lower() != "localhost":
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            raise UsageError(
                f"--host {host!r} is not an IP address",
                hint="use 127.0.0.1 (default), ::1, or with --allow-remote 0.0.0.0",
            ) from None
    if is_loopback(host):
        return
    if not allow_remote:
        raise UsageError(
            f"--host {host} would expose the sandbox beyond this machine, and it has no "
            "authentication (anyone reaching the port can read and change every resource "
            "and reset it)",
            hint="keep the default 127.0.0.1, or pass --allow-remote if you mean it",
        )
    typer.echo(
        f"# WARNING: the sandbox listens on {host} with no authentication and accepts "
        "control routes from other machines (--allow-remote)",
        err=True,
    )


def _listening(host: str, port: int) -> str:
    if host in ("0.0.0.0", "::"):
        return f"http://{host}:{port} (every interface; this machine: http://127.0.0.1:{port})"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
