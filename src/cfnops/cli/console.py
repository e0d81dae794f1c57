"""``cfnops console``: the operations web console over the run database."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

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
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def register(app: typer.Typer) -> None:
    app.command("console")(console)
