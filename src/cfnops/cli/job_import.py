"""``cfnops job import``: Control-M / JP1/AJS3 exports → job-nets, calendars, report."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._state import CliState, state


def import_cmd(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The export: Control-M JSON/XML, JP1 ajsprint.")],
    source: Annotated[str, typer.Option("--from", help="controlm | jp1.")],
    out: Annotated[Path, typer.Option(help="Folder for the files.")] = Path("imported"),
    hosts: Annotated[
        Path | None, typer.Option(help="Host → instance ids, {tag: K=V} or {function: NAME}.")
    ] = None,
    calendars: Annotated[
        Path | None,
        typer.Option(help="Control-M calendar export (DEFCAL XML) for CONFCAL/DAYSCAL."),
    ] = None,
    timezone: Annotated[str, typer.Option(help="Time zone of the source's times.")] = "UTC",
    poll_seconds: Annotated[
        int,
        typer.Option(min=0, help="Seconds between RunCommand status polls (input pollSeconds)."),
    ] = 30,
    apply: Annotated[
        bool, typer.Option(help="Register schedules, calendars, dependencies and pools.")
    ] = False,
    today: Annotated[
        str | None, typer.Option(help="YYYY-MM-DD the listed calendar days start from.")
    ] = None,
    forecast: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=1100,
            help="Also list each job's run dates for DAYS days from --today: source rules "
            "vs imported schedules, and the differences.",
        ),
    ] = None,
    forecast_reference: Annotated[
        Path | None,
        typer.Option(
            help="The vendor's own forecast to compare the imported dates with: JP1 "
            "ajsschedule output, or a Control-M forecast exported as CSV (needs --forecast).",
        ),
    ] = None,
) -> None:
    """Import job definitions: one ASL job-net per folder / root jobnet, and a report."""
    from cfnops.jobimport import load_hosts, plan_import, read_export, write_plan

    st = state(ctx)
    _check_source_and_zone(source, timezone)
    data, cal_data, day = _read_export_files(file, calendars, today)
    ref = _read_forecast_reference(forecast_reference, forecast, source)
    targets = load_hosts(hosts) if hosts else {}
    model = read_export(data, str(file), source, timezone=timezone, today=day, calendars=cal_data)
    plan = plan_import(model, str(file), targets, poll_seconds=poll_seconds)
    written = write_plan(plan, out)
    result = dict(plan.report)
    result["files"] = written
    start = day or date.today()
    rows = _forecast(model, start, forecast) if forecast else None
    cmp = None
    if rows is not None:
        result["forecast"] = {"from": start.isoformat(), "days": forecast, "jobs": rows}
        if ref is not None and forecast:
            from cfnops.jobimport import compare_reference

            cmp = compare_reference(model, rows, ref, start, forecast)
            result["forecast"]["reference"] = cmp
    if apply:
        from cfnops.jobimport import apply_plan
        from cfnops.jobs import JobService

        st.register_workflows()
        result["applied"] = apply_plan(plan, out, JobService(st.runtime))
    if st.output_format == "json":
        st.emit_json(result)
        return
    if st.output_format == "markdown":  # the review view (also written as report.md)
        st.console.print(
            plan.files["report.md"], markup=False, highlight=False, end="", soft_wrap=True
        )
        return
    _print_text(st, plan.text(), rows, cmp, start, forecast)
    st.console.print(f"{len(written)} files under {out}" + (" (applied)" if apply else ""))


def _check_source_and_zone(source: str, timezone: str) -> None:
    from cfnops.errors import UsageError

    if source not in ("controlm", "jp1"):
        raise UsageError(f"--from {source!r}: use controlm or jp1")
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(
            f"--timezone {timezone!r} is not an IANA time zone",
            hint="give a zone from the IANA database, e.g. Asia/Tokyo, Europe/Berlin or UTC",
        ) from None


def _read_export_files(
    file: Path, calendars: Path | None, today: str | None
) -> tuple[bytes, bytes | None, date | None]:
    """The export, the calendar export and ``--today``, each refused with a usage error."""
    from cfnops.errors import UsageError

    try:
        data = file.read_bytes()
        cal_data = calendars.read_bytes() if calendars else None
        day = date.fromisoformat(today) if today else None
    except OSError as exc:
        raise UsageError(f"{file}: {exc.strerror or exc}") from None
    except ValueError:
        raise UsageError(
            f"--today {today!r} is not a date", hint="give a day as YYYY-MM-DD, e.g. 2026-12-01"
        ) from None
    return data, cal_data, day


def _read_forecast_reference(path: Path | None, forecast: int | None, source: str) -> Any:
    """The vendor's forecast, read (and refused) before anything is written."""
    from cfnops.errors import UsageError

    if path is not None and not forecast:
        raise UsageError(
            "--forecast-reference needs --forecast DAYS",
            hint="add --forecast 365 (the days compared with the vendor's forecast)",
        )
    try:
        ref_data = path.read_bytes() if path else None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if ref_data is None:
        return None
    from cfnops.jobimport import read_reference

    return read_reference(ref_data, str(path), source)


def _print_text(
    st: CliState, text: str, rows: Any, cmp: Any, start: date, forecast: int | None
) -> None:
    st.console.print(text, markup=False, highlight=False, end="", soft_wrap=True)
    if rows is not None and forecast:
        from cfnops.jobimport import render_forecast

        text = render_forecast(rows, start, forecast)
        st.console.print(text, markup=False, highlight=False, end="", soft_wrap=True)
    if cmp is not None:
        from cfnops.jobimport import render_reference

        text = render_reference(cmp)
        st.console.print(text, markup=False, highlight=False, end="", soft_wrap=True)


def _forecast(model: Any, start: date, days: int) -> list[dict[str, Any]]:
    from cfnops.jobimport import forecast

    return forecast(model, start, days)


def register_import(job_app: typer.Typer) -> None:
    job_app.command("import")(import_cmd)
