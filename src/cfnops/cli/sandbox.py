"""``cfnops sandbox up``: the local AWS sandbox in the foreground."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Annotated

import typer

from cfnops.cli._state import state

sandbox_app = typer.Typer(help="The local AWS sandbox (moto's server plus cfnops extensions).")


@sandbox_app.command("up")
def up(
    ctx: typer.Context,
    port: Annotated[
        int | None,
        typer.Option("--port", help="Port to listen on (0: any free; default 5000)."),
    ] = None,
    host: Annotated[
        str | None, typer.Option("--host", help="Address to bind (default 127.0.0.1).")
    ] = None,
    delay: Annotated[
        float | None,
        typer.Option("--delay", min=0, help="Every emulated delay in seconds (default 1-3 s)."),
    ] = None,
    log_requests: Annotated[
        bool, typer.Option("--log-requests", help="Print one line per request.")
    ] = False,
) -> None:
    """Run the sandbox until Ctrl-C or SIGTERM; print the shell exports to use it."""
    from cfnops.sandbox import Sandbox

    cli = state(ctx)
    settings = cli.settings.sandbox  # [sandbox] in cfnops.toml or CFNOPS_SANDBOX__*
    region = cli.region or "us-east-1"
    host = host if host is not None else settings.host
    port = port if port is not None else settings.port
    delay = delay if delay is not None else settings.delay_seconds
    stop = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _on_signal)
    try:
        with Sandbox(
            host=host, port=port, delays=delay, region=region, log_requests=log_requests
        ) as sandbox:
            if cli.output_format == "json":
                cli.emit_json({"endpoint_url": sandbox.endpoint_url, "env": sandbox.environment()})
            else:
                for line in sandbox.export_lines():
                    typer.echo(line)
                typer.echo(
                    f"# cfnops sandbox listening on {sandbox.endpoint_url}; Ctrl-C stops it",
                    err=True,
                )
            try:
                while not stop.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    typer.echo("# cfnops sandbox stopped", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
