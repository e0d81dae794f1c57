"""The runtime value: what every workflow and capability needs besides its input.

A :class:`Runtime` holds the resolved settings, the AWS clients (one cache for
other regions and assumed accounts), the one run-database handle, how to
notify and the HTTP transport of job-net ``http:invoke`` tasks. Each entry
point builds it once and hands it down; nothing below the entry points reads
the environment or a process global for any of these::

    import boto3
    from cfnops.config import load_settings
    from cfnops.runtime import Runtime

    runtime = Runtime.from_settings(load_settings(), session=boto3.Session(profile_name="ops"))
    runtime.aws.in_region("eu-west-1").client("cloudformation")
    runtime.aws.assume("123456789012", "cfnops-heal").client("cloudformation")
    runtime.database.engine                     # the process's one SQLAlchemy engine

In an AWS Lambda handler, :meth:`Runtime.from_environment` (``CFNOPS_*``
variables and ``cfnops.toml``), built once per execution environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cfnops.aws import AwsClients
from cfnops.config import Settings, load_settings
from cfnops.database import Database

if TYPE_CHECKING:  # notify loads botocore: only runs that notify need it
    import boto3

    from cfnops.http import HttpTransport as TaskTransport
    from cfnops.notify import Delivery, HttpTransport, Notification, Notifier
    from cfnops.telemetry import Metrics

__all__ = ["Runtime"]


@dataclass(frozen=True)
class Runtime:
    """Settings, AWS clients, the run database and notifiers, built once per process.

    Frozen: a command that needs other settings builds another runtime
    (:meth:`with_settings`) and keeps the database handle.
    """

    settings: Settings
    aws: AwsClients
    database: Database
    # Called with every notification before it goes to the channels (tests, the console).
    notify_hook: Callable[[Notification], None] | None = None
    # The console channel (a notifier: a terminal's printer, built by the CLI so that
    # notices share its live display); None: a plain one on stderr. No UI type here.
    console_channel: Notifier | None = None
    # The notifiers' webhook POSTs (Slack, Teams, PagerDuty); None: HTTPS via urllib.
    transport: HttpTransport | None = field(default=None, repr=False)
    # Job-net ``http:invoke`` tasks (any method, the answer's headers); None: urllib.
    http: TaskTransport | None = field(default=None, repr=False)
    # Prometheus instruments of a process that serves /metrics (worker, console); else None.
    metrics: Metrics | None = field(default=None, repr=False)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        session: boto3.session.Session | None = None,
        aws: AwsClients | None = None,
        database: Database | None = None,
        notify_hook: Callable[[Notification], None] | None = None,
        console_channel: Notifier | None = None,
        transport: HttpTransport | None = None,
        http: TaskTransport | None = None,
        metrics: Metrics | None = None,
    ) -> Runtime:
        """A runtime for ``settings``: clients from ``aws`` or ``session`` (a boto3
        session you built: credentials, profile…) or the default chain; the database
        at ``settings.database_url`` unless ``database`` is given."""
        return cls(
            settings=settings,
            aws=aws if aws is not None else AwsClients(settings.aws, session=session),
            database=database if database is not None else Database.open(settings.database_url),
            notify_hook=notify_hook,
            console_channel=console_channel,
            transport=transport,
            http=http,
            metrics=metrics,
        )

    @classmethod
    def from_environment(cls, **kwargs: Any) -> Runtime:
        """Settings from ``CFNOPS_*`` and ``cfnops.toml`` (a Lambda handler, a worker);
        ``kwargs`` as :meth:`from_settings`."""
        return cls.from_settings(load_settings(), **kwargs)

    def with_settings(self, settings: Settings) -> Runtime:
        """This runtime with other settings; same clients when the AWS settings agree, and
        the same boto3 session (an injected one too) unless the profile changes."""
        aws = self.aws.with_settings(settings.aws)  # keeps an injected session
        database = (
            self.database
            if settings.database_url == self.database.url
            else Database.open(settings.database_url)
        )
        return replace(self, settings=settings, aws=aws, database=database)

    def notify(self, notification: Notification, region: str | None = None) -> list[Delivery]:
        """Send ``notification`` to every channel the settings enable (never raises).

        Channels live in the caller's own account (``region``: SNS's region).
        """
        from cfnops.notify import notify_all

        if self.notify_hook is not None:
            self.notify_hook(notification)
        deliveries = notify_all(
            notification,
            self.settings,
            self.aws.in_region(region),
            transport=self.transport,
            console_channel=self.console_channel,
        )
        if self.metrics is not None:
            for delivery in deliveries:
                self.metrics.count_notification(delivery.channel, delivery.ok)
        return deliveries

    def close(self) -> None:
        """Release the database pool (an entry point's last step)."""
        self.database.dispose()
