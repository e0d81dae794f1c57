"""``cfnops console``: the operations web console over the run database."""

from __future__ import annotations

import logging
import sys
import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._state import state


def console(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8765,
    token_file: Annotated[
        Path | None,
        typer.Option(
            help="Tokens, one per line (NAME:ROLE[,ROLE]:TOKEN; roles viewer, operator, "
            "approver, or metrics alone: /metrics only); or CFNOPS_CONSOLE_TOKEN."
        ),
    ] = None,
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in a browser.")] = False,
) -> None:
    """Serve the console: runs, job runs, heal approvals, definitions, schedules, audit.

    Listening on anything but loopback needs a token (CFNOPS_CONSOLE_TOKEN or
    --token-file); on loopback without one, a token is generated and printed.
    CFNOPS_METRICS_TOKEN is a scraper's token: it reads /metrics and nothing else.
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from cfnops.console import Auth, create_app
    from cfnops.durable import AuditLog

    st = state(ctx)
    settings = st.settings
    secret = settings.console_token.get_secret_value() if settings.console_token else None
    scraper = settings.metrics_token.get_secret_value() if settings.metrics_token else None
    auth = Auth.for_bind(
        host,
        token=secret,
        token_file=token_file,
        user=AuditLog.default_actor(),
        token_roles=settings.console.token_roles,
        idle_seconds=settings.console.session_idle_seconds,
        max_seconds=settings.console.session_max_seconds,
        metrics_token=scraper,
    )
    app = create_app(settings, auth)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if auth.generated:
        token = next(iter(auth.tokens.values()))
        link = f"{url}login?token={token}"
        st.console.print(f"cfnops console on {url} — open {link}", soft_wrap=True, markup=False)
    else:
        st.console.print(f"cfnops console on {url} — sign in with your token", markup=False)
    if open_browser:
        webbrowser.open(link if auth.generated else url)
    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    )
    quiet = _ShutdownCut(server)
    logging.getLogger("uvicorn.error").addFilter(quiet)
    try:  # as uvicorn.run(app, …) does, with the server at hand for the filter
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    if not server.started:
        sys.exit(STARTUP_FAILURE)


class _ShutdownCut(logging.Filter):
    """Drops uvicorn's "ASGI callable returned without completing response." once the
    server is stopping: a live page's stream cut by Ctrl-C is the expected end, not an
    error (before the stop the line still shows, as it would for a real fault)."""

    def __init__(self, server: Any) -> None:
        super().__init__()
        self.server = server

    def filter(self, record: logging.LogRecord) -> bool:
        cut = "ASGI callable returned without completing response" in record.getMessage()
        return not (cut and self.server.should_exit)


def register(app: typer.Typer) -> None:
    app.command("console")(console)
