"""``cfnops drift accept``'s --until and PATH, read before anything is written (pure)."""

from __future__ import annotations

import datetime as dt

import pytest

from cfnops.cli.drift_accept import check_path, parse_until
from cfnops.heal.errors import BadAcceptance

NOW = dt.datetime(2026, 11, 24, 12, 0, tzinfo=dt.UTC)


def test_until_accepts_a_date_or_a_time_and_refuses_the_rest() -> None:
    assert parse_until("2026-12-31", NOW) == dt.datetime(2027, 1, 1, tzinfo=dt.UTC)
    assert parse_until("2026-12-01T18:30Z", NOW) == dt.datetime(2026, 12, 1, 18, 30, tzinfo=dt.UTC)
    with pytest.raises(BadAcceptance, match=r"--until: '31/12/2026' is not a date: use YYYY-MM-DD"):
        parse_until("31/12/2026", NOW)
    with pytest.raises(BadAcceptance, match="--until: 2026-01-01 is in the past"):
        parse_until("2026-01-01", NOW)
    assert check_path("/Properties/Tags") == "/Tags" and check_path(None) == ""
    with pytest.raises(BadAcceptance, match="'Value' is not a property path"):
        check_path("Value")
