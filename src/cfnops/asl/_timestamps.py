"""RFC 3339 timestamps as Step Functions accepts them (Wait, Timestamp* choice rules)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

__all__ = ["format_timestamp", "parse_timestamp"]

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def parse_timestamp(text: object) -> datetime | None:
    """Return an aware datetime for an RFC 3339 date-time string, else None."""
    if not isinstance(text, str):
        return None
    m = _RFC3339.match(text)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    frac = m.group(7)
    micro = int((frac[1:] + "000000")[:6]) if frac else 0
    zone = m.group(8)
    if zone in ("Z", "z"):
        tz = UTC
    else:
        sign = 1 if zone[0] == "+" else -1
        hh, mm = int(zone[1:3]), int(zone[4:6])
        if hh > 23 or mm > 59:
            return None
        tz = timezone(sign * timedelta(hours=hh, minutes=mm))
    try:
        return datetime(year, month, day, hour, minute, min(second, 59), micro, tzinfo=tz)
    except ValueError:
        return None


def format_timestamp(moment: datetime) -> str:
    """Step Functions' context-object timestamp format: ``2024-01-01T00:00:00.000Z``."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
