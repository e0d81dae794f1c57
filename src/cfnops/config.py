"""Settings: resolved once (argument > environment > file > default), then passed down.

Sources, highest first:

1. keyword arguments to :func:`load_settings` (the CLI's flags);
2. ``CFNOPS_*`` environment variables; nested keys use ``__``
   (``CFNOPS_HEAL__DRIFT_POLL_SECONDS=5``);
3. ``cfnops.toml`` in the current directory, or the file given with ``--config``
   (nested keys are TOML tables: ``[heal]`` ``drift_poll_seconds = 5``);
4. the defaults below.

The models are frozen :class:`msgspec.Struct` types, checked when :func:`load_settings`
converts the sources (a model built directly in code is not checked; use
:func:`validated`). Field checks live in ``__post_init__`` and raise
``ValueError("field_name: reason")`` (see :mod:`cfnops._config_check`).
Nothing else in cfnops reads ``os.environ`` for its own settings.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urlsplit

import msgspec
from msgspec import Meta, field

from cfnops._config_check import Secret as Secret
from cfnops._config_check import convert, explain
from cfnops._config_check import to_data as to_data
from cfnops._config_env import env_settings, merged
from cfnops._config_file import CONFIG_FILE_NAME as CONFIG_FILE_NAME
from cfnops._config_file import ConfigError as ConfigError
from cfnops._config_file import find_config, read_toml

_S = TypeVar("_S", bound="_Section")
MIN_POLL_SECONDS = 0.1  # heal poll intervals below a second are for the local sandbox
Positive = Annotated[float, Meta(gt=0)]
NotNegative = Annotated[float, Meta(ge=0)]
AtLeastOne = Annotated[int, Meta(ge=1)]
Poll = Annotated[float, Meta(ge=MIN_POLL_SECONDS)]
Name = Annotated[str, Meta(min_length=1)]


def default_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/cfnops``, falling back to ``~/.local/state/cfnops``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "cfnops"


def _default_database_url() -> str:
    return f"sqlite:///{default_state_dir() / 'cfnops.sqlite'}"


class _Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    def replace(self: _S, **changes: Any) -> _S:
        """A copy with ``changes`` (not checked again, like pydantic's ``model_copy``)."""
        return msgspec.structs.replace(self, **changes)


class InvalidSettings(ValueError):
    """Section data that is not valid (an event's ``Settings``): ``key`` and ``reason``."""

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"{key}: {reason}")


def validated(kind: type[_S], data: Mapping[str, Any]) -> _S:
    """``data`` (as :func:`to_data` gives it) as a checked ``kind``.

    Raises :class:`InvalidSettings` naming the setting (dotted) and what is allowed.
    """
    try:
        return convert(data, kind)
    except msgspec.ValidationError as exc:
        loc, reason = explain(exc, kind, data)
        raise InvalidSettings(".".join(str(p) for p in loc) or "(root)", reason) from None


class AwsSettings(_Section, frozen=True):
    """How boto3 clients are built (see :mod:`cfnops.aws`)."""

    region: str | None = None
    profile: str | None = None
    endpoint_url: str | None = None
    max_attempts: Annotated[int, Meta(ge=1, le=100)] = 10
    retry_mode: Literal["adaptive", "standard", "legacy"] = "adaptive"
    connect_timeout: Positive = 5.0
    read_timeout: Positive = 60.0
    # Connections each client keeps open (botocore's default is 10). Fleet scans and
    # heals call one client from up to --concurrency threads; past the pool, every
    # call opens (and TLS-negotiates) a connection of its own and drops it.
    max_pool_connections: Annotated[int, Meta(ge=1, le=1000)] = 64


DEFAULT_PROTECTED_TYPES: tuple[str, ...] = (
    # stateful: a replacement or revert can lose data
    "AWS::RDS::DBInstance",
    "AWS::RDS::DBCluster",
    "AWS::DynamoDB::Table",
    "AWS::DynamoDB::GlobalTable",
    "AWS::S3::Bucket",
    "AWS::EFS::FileSystem",
    # attached from other stacks: REVERT_DRIFT can silently undo them
    "AWS::IAM::Policy",
    "AWS::IAM::ManagedPolicy",
    "AWS::EC2::SecurityGroupIngress",
    "AWS::EC2::SecurityGroupEgress",
    "AWS::Lambda::Permission",
)


def drift_path(path: str) -> str:
    """Drift paths are ``/Value``; change-set paths ``/Properties/Value``: compare the former."""
    if path.startswith("/Properties/"):
        path = path[len("/Properties") :]
    return path if path.startswith("/") else "/" + path


class IgnoreRule(_Section, frozen=True):
    """Drift to ignore: a resource type and property path (JSON pointer, ``*`` globs)."""

    resource_type: str
    property_path: str
    stack: str = "*"
    logical_id: str = "*"

    def covers(self, stack: str, logical_id: str, resource_type: str, path: str) -> bool:
        """True when this rule covers the property (globs on every field; a path rule
        also covers everything below it: ``/Tags`` ignores ``/Tags/0/Value``). Heal's
        reports and change sets and ``ami rotate``'s drift check read the rules alike."""
        from fnmatch import fnmatchcase

        if not fnmatchcase(resource_type, self.resource_type):
            return False
        if not fnmatchcase(stack, self.stack) or not fnmatchcase(logical_id, self.logical_id):
            return False
        path = drift_path(path)
        wanted = drift_path(self.property_path)
        return fnmatchcase(path, wanted) or path.startswith(wanted.rstrip("/") + "/")


class HealSettings(_Section, frozen=True):
    """Poll intervals and attempt limits of the heal workflow, and its safety policy."""

    protected_types: tuple[str, ...] = DEFAULT_PROTECTED_TYPES
    ignore: tuple[IgnoreRule, ...] = ()
    # Poll intervals: whole seconds from 1 s up (AWS Lambda durable functions wait
    # whole seconds), or a fraction from MIN_POLL_SECONDS to 1 s for the local
    # sandbox (cfnops's engine waits the fraction; Lambda's SDK waits 1 s instead).
    busy_poll_seconds: Poll = 30
    busy_max_attempts: AtLeastOne = 20

    drift_poll_seconds: Poll = 30
    drift_max_attempts: AtLeastOne = 10
    changeset_poll_seconds: Poll = 30
    changeset_max_attempts: AtLeastOne = 10
    execute_poll_seconds: Poll = 60
    execute_max_attempts: AtLeastOne = 10
    fleet_concurrency: Annotated[int, Meta(ge=1, le=256)] = 4
    approval_expiry_hours: Positive = 72.0
    # CloudTrail LookupEvents for each drifted resource (who changed it): one call
    # per drifted resource; CloudTrail allows 2 per second per account and region.
    attribution: bool = True

    def __post_init__(self) -> None:
        for name in ("busy_poll_seconds", "drift_poll_seconds", "changeset_poll_seconds"):
            _whole_seconds_from_one(name, getattr(self, name))
        _whole_seconds_from_one("execute_poll_seconds", self.execute_poll_seconds)


def _whole_seconds_from_one(name: str, value: float) -> None:
    if value > 1 and value != int(value):
        raise ValueError(
            f"{name}: {value:g} s: from 1 s up a poll interval is whole seconds (AWS Lambda "
            f"durable functions wait whole seconds); use {int(value)} or {int(value) + 1}, "
            f"or a fraction between {MIN_POLL_SECONDS:g} and 1 for the local sandbox"
        )


class SlackSettings(_Section, frozen=True):
    """How Slack messages are rendered (``[notify.slack]``)."""

    # The message text is cut here (code fences kept balanced); 2,000 as the reference
    # design, at most a Block Kit section's 3,000.
    max_chars: Annotated[int, Meta(ge=40, le=3000)] = 2000
    # Slack member ids (U…/W…), user-group ids (S…), or "here" / "channel".
    mention: tuple[str, ...] = ()
    # When to mention: "failure" (severity error), "warning", "always", or outcome names
    # (SUCCEEDED, HEALED, …), compared without case.
    mention_on: tuple[str, ...] = ("failure",)

    def __post_init__(self) -> None:
        for item in self.mention:
            if item not in ("here", "channel") and not re.fullmatch(r"[UWS][A-Z0-9]{2,}", item):
                raise ValueError(
                    f"mention: {item!r} is not a Slack member id (U…/W…), user-group id (S…), "
                    "'here' or 'channel'"
                )


def _https(name: str, url: str, reason: str) -> None:
    # A webhook URL is a bearer secret: never sent in clear text. Plain http is
    # accepted only to a loopback host (a local test receiver).
    parts = urlsplit(url)
    loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise ValueError(f"{name}: {reason}")


class NotifySettings(_Section, frozen=True):
    """Where notifications go. Secrets never reach logs (:class:`Secret`)."""

    sns_topic_arn: str | None = None
    slack_webhook_url: Secret | None = None
    # "ssm:/path/to/SecureString" or "secretsmanager:<name or ARN>"
    slack_webhook_ref: str | None = None
    console: bool = True
    slack: SlackSettings = field(default_factory=SlackSettings)
    # Amazon EventBridge: PutEvents to this bus (name or ARN), in the caller's account.
    eventbridge_bus: str | None = None
    # PagerDuty Events API v2: the integration's routing key (a secret); the URL for tests.
    pagerduty_routing_key: Secret | None = None
    pagerduty_url: str = "https://events.pagerduty.com/v2/enqueue"
    # Microsoft Teams: a workflow's "webhook request received" URL (a secret).
    teams_webhook_url: Secret | None = None

    def __post_init__(self) -> None:
        for name in ("slack_webhook_url", "teams_webhook_url"):
            secret: Secret | None = getattr(self, name)
            if secret is None:
                continue
            _https(
                name,
                secret.get_secret_value(),
                "must be an https:// URL (Slack incoming webhooks are https://hooks.slack.com/"
                "services/..., Teams workflow URLs https://...logic.azure.com/... or "
                "https://...powerplatform.com/...); plain http is accepted only for a "
                "loopback test receiver",
            )
            if not urlsplit(secret.get_secret_value()).hostname:
                raise ValueError(f"{name}: must be a full URL with a host")
        _https(
            "pagerduty_url",
            self.pagerduty_url,
            "must be an https:// URL (http only for a loopback test receiver)",
        )
        ref = self.slack_webhook_ref
        if ref is not None and not ref.startswith(("ssm:", "secretsmanager:")):
            raise ValueError("slack_webhook_ref: must start with 'ssm:' or 'secretsmanager:'")
        if self.sns_topic_arn is not None and not self.sns_topic_arn.startswith("arn:"):
            raise ValueError(
                "sns_topic_arn: must be an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)"
            )


class WorkerSettings(_Section, frozen=True):
    """The durable engine and ``cfnops worker``."""

    # Runs a worker executes at once (each a thread). 16: one worker's ceiling is
    # concurrency / queue_poll_seconds runs a second; at 8 one SQLite worker made 129 runs/s
    # on a quiet machine, at 16 204 (benchmarks/fleet_throughput.py, docs/durable.md).
    concurrency: Annotated[int, Meta(ge=1, le=1024)] = 16
    # Limit across every worker sharing the database (PostgreSQL); None: no limit.
    global_concurrency: AtLeastOne | None = None
    # Modules imported at start so their workflows can be recovered.
    workflow_modules: tuple[str, ...] = ()
    heartbeat_seconds: Positive = 2.0
    lease_seconds: Positive = 30.0
    recovery_interval_seconds: Positive = 5.0
    # How often a worker looks for queued runs; it takes up to `concurrency` per look,
    # so concurrency / this is its ceiling in runs a second (16 / 0.05 s = 320; at 0.2 s
    # one worker stopped at ~28 runs/s under load, 0.05 s gave 54-67: docs/durable.md).
    queue_poll_seconds: Annotated[float, Meta(ge=0.01, le=60)] = 0.05
    # A command waiting for a run stopped by a storage fault gives up (exit 2, naming the
    # fix) after this long; the run stays RUNNING and continues once the database works.
    stranded_after_seconds: Positive = 20.0
    # A worker's name across restarts (``cfnops worker --id``); unset: a new one per
    # process. Restarted under its name, a worker takes back its runs at once.
    executor_id: (
        Annotated[str, Meta(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._:@-]+$")] | None
    ) = None
    # The machine a process runs on, for liveness: processes of one host identity are
    # judged by their pids (alive or not), others by their leases. Unset: hostname, boot
    # id and PID namespace (containers that share a hostname stay apart).
    host_id: Annotated[str, Meta(min_length=1, max_length=200)] | None = None


class SandboxSettings(_Section, frozen=True):
    """The local sandbox (``cfnops sandbox up``); ``delay_seconds`` unset = realistic 1-3 s."""

    host: str = "127.0.0.1"
    port: Annotated[int, Meta(ge=0, le=65535)] = 5000
    delay_seconds: NotNegative | None = None


class AmiSettings(_Section, frozen=True):
    """AMI rotation (``cfnops ami``): tag names and bounded waits."""

    parameter_tag: Name = "ImageIdParameterName"
    stack_tag: Name = "StackName"
    parameter_key: Name = "ImageId"
    image_wait_seconds: NotNegative = 600.0
    stack_busy_wait_seconds: NotNegative = 900.0
    update_wait_seconds: Positive = 3600.0
    drift_wait_seconds: Positive = 300.0  # drift detection after a stack rotation
    poll_seconds: Positive = 15.0
    check_compatibility: bool = True
    # Pattern 3: event-driven stack rotations wait through the instance refresh that
    # the group's AutoScalingInstanceRefresh update policy starts (and require it).
    roll: bool = False


ConsoleRole = Literal["viewer", "operator", "approver"]
CONSOLE_ROLES: tuple[ConsoleRole, ...] = ("viewer", "operator", "approver")


class ConsoleSettings(_Section, frozen=True):
    """The operations console (``cfnops console``): definition roots, sessions, token roles.

    ``definition_roots`` are the folders the Definitions page may open files under
    (relative ones from the console's working directory); unset: ``jobnets`` and
    ``examples/jobnets`` there. ``token_roles`` are the roles of the environment token
    (``CFNOPS_CONSOLE_TOKEN``), comma-separated: ``CFNOPS_CONSOLE__TOKEN_ROLES=viewer``.
    """

    definition_roots: tuple[Path, ...] = ()
    session_idle_seconds: Positive = 1800.0
    session_max_seconds: Positive = 43200.0
    token_roles: str = "viewer,operator,approver"

    def __post_init__(self) -> None:
        roles = [r.strip() for r in self.token_roles.split(",") if r.strip()]
        bad = [r for r in roles if r not in CONSOLE_ROLES]
        if bad or not roles:
            raise ValueError(
                f"token_roles: {', '.join(bad) or 'no role'}: give roles from "
                f"{', '.join(CONSOLE_ROLES)}"
            )
        # normalised (" viewer, operator" is "viewer,operator"); the struct is frozen
        msgspec.structs.force_setattr(self, "token_roles", ",".join(roles))


_SCHEDULE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"


class DriftSchedule(_Section, frozen=True):
    """One scheduled fleet drift scan (``[drift_scan.schedules.NAME]``), run by the worker.

    ``schedule`` is an EventBridge Scheduler expression (``cron(...)``/``rate(...)``),
    checked when ``cfnops worker`` starts (the parser lives in :mod:`cfnops.jobs`).
    """

    schedule: Name
    timezone: str = "UTC"
    accounts: tuple[str, ...] = ()  # default: the caller's account
    organization: bool = False  # every ACTIVE account of the organization
    role_name: str | None = None  # assumed in each other account
    regions: tuple[str, ...] = ()  # default: aws.region
    concurrency: Annotated[int, Meta(ge=1, le=256)] = 8
    # A folder per run (<output_dir>/<run id>/drift-scan.md|json|html); unset: none kept.
    output_dir: Path | None = None
    # Channels of [notify] that get the appeared/cleared message; unset: every one enabled.
    notify: tuple[Literal["console", "sns", "slack"], ...] | None = None
    enabled: bool = True

    def __post_init__(self) -> None:
        bad = [a for a in self.accounts if not re.fullmatch(r"\d{12}", a)]
        if bad:
            raise ValueError(f"accounts: {', '.join(bad)}: an account id is 12 digits")
        out = self.output_dir
        if out is not None and out.exists() and not out.is_dir():
            raise ValueError(f"output_dir: {out} exists and is not a folder")


class DriftScanSettings(_Section, frozen=True):
    """Scheduled drift scans: ``[drift_scan.schedules.NIGHTLY]`` tables, keyed by name."""

    schedules: dict[str, DriftSchedule] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, entry in self.schedules.items():
            if not re.fullmatch(_SCHEDULE_NAME, name):
                raise ValueError(
                    f"schedules: {name!r} is not a schedule name (letters, digits, '-', '_'; "
                    "at most 40)"
                )
            if entry.accounts and entry.organization:
                raise ValueError(
                    f"schedules: {name}: give accounts or organization = true, not both"
                )


class Settings(_Section, frozen=True):
    """Every setting cfnops has, frozen once resolved (see :func:`load_settings`)."""

    database_url: str = field(default_factory=_default_database_url)
    # What Ctrl-C / SIGTERM does to a run a command started and still waits on:
    # "leave" it RUNNING (a worker resumes it) or "cancel" it. See docs/cli.md.
    on_interrupt: Literal["leave", "cancel"] = "leave"
    # The operations console's token (CFNOPS_CONSOLE_TOKEN); see docs/console.md.
    console_token: Secret | None = None
    # A Prometheus scraper's token for the console's /metrics and nothing else
    # (CFNOPS_METRICS_TOKEN); see docs/observability.md.
    metrics_token: Secret | None = None
    output: Literal["text", "json", "markdown"] = "text"
    # How often long waits poll (CFNOPS_POLL_PROFILE): "aws" keeps the [heal] and [ami]
    # intervals sized for AWS, "fast" polls every second, "auto" is "fast" when the
    # endpoint is on loopback (the local sandbox). Intervals set explicitly still win.
    poll_profile: Literal["auto", "aws", "fast"] = "auto"
    aws: AwsSettings = field(default_factory=AwsSettings)
    heal: HealSettings = field(default_factory=HealSettings)
    notify: NotifySettings = field(default_factory=NotifySettings)
    worker: WorkerSettings = field(default_factory=WorkerSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    ami: AmiSettings = field(default_factory=AmiSettings)
    drift_scan: DriftScanSettings = field(default_factory=DriftScanSettings)
    console: ConsoleSettings = field(default_factory=ConsoleSettings)

    def __post_init__(self) -> None:
        if not self.database_url.startswith(
            ("sqlite:///", "postgresql://", "postgresql+psycopg://")
        ):
            raise ValueError(
                "database_url: must be sqlite:///PATH or postgresql://USER@HOST:PORT/DB"
            )


def _in_mapping(data: Mapping[str, Any], loc: tuple[int | str, ...]) -> bool:
    node: Any = data
    for part in loc:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]  # an item of a TOML array (notify = ["pagerduty"])
            continue
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


FAST_POLL_SECONDS = 1
_HEAL_POLLS = (
    "busy_poll_seconds",
    "drift_poll_seconds",
    "changeset_poll_seconds",
    "execute_poll_seconds",
)


def is_loopback_endpoint(url: str | None) -> bool:
    """Whether ``url`` names this machine (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if not url:
        return False
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _aws_config_endpoints(profile: str | None, environ: Mapping[str, str]) -> list[str]:
    """``endpoint_url`` values of ``profile`` in the shared AWS config file.

    Both the profile's own ``endpoint_url`` and those of the ``[services NAME]`` section
    it names count. Read with configparser (botocore stays unimported at start-up).
    https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
    """
    import configparser

    path = Path(environ.get("AWS_CONFIG_FILE") or Path.home() / ".aws" / "config").expanduser()
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return []  # botocore reports a broken file when a client is built
    name = profile or environ.get("AWS_PROFILE") or environ.get("AWS_DEFAULT_PROFILE")
    name = name or "default"
    section = "default" if name == "default" else f"profile {name}"
    if not parser.has_section(section):
        return []
    found = (
        [parser.get(section, "endpoint_url")] if parser.has_option(section, "endpoint_url") else []
    )
    services = parser.get(section, "services", fallback=None)
    if services and parser.has_section(f"services {services}"):
        # Nested "cloudformation =\n  endpoint_url = ..." lines: every URL-looking value.
        for _key, raw in parser.items(f"services {services}"):
            found += [m for m in raw.split() if "://" in m]
    return [url.strip() for url in found if url.strip()]


def configured_endpoints(
    settings: Settings, environ: Mapping[str, str] | None = None
) -> tuple[str | None, tuple[str, ...]]:
    """The endpoint every client uses, and service-specific ones, as botocore resolves them.

    ``--endpoint-url`` (or ``CFNOPS_AWS__ENDPOINT_URL``) first, then ``AWS_ENDPOINT_URL``,
    ``AWS_ENDPOINT_URL_<SERVICE>`` and the shared config file, unless
    ``AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`` is true.
    https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
    """
    env = os.environ if environ is None else environ
    if settings.aws.endpoint_url:
        return settings.aws.endpoint_url, ()
    if env.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "").strip().lower() == "true":
        return None, ()
    services = tuple(v for k, v in env.items() if k.startswith("AWS_ENDPOINT_URL_") and v)
    if env.get("AWS_ENDPOINT_URL"):
        return env["AWS_ENDPOINT_URL"], services
    from_file = _aws_config_endpoints(settings.aws.profile, env)
    return None, services + tuple(from_file)


def uses_loopback_endpoint(settings: Settings, environ: Mapping[str, str] | None = None) -> bool:
    """Whether AWS calls go to this machine (the local sandbox), however it was named.

    True when the endpoint every client uses is on loopback, or when there is none and
    every service-specific endpoint configured is.
    """
    general, services = configured_endpoints(settings, environ)
    if general is not None:
        return is_loopback_endpoint(general)
    return bool(services) and all(is_loopback_endpoint(url) for url in services)


def _table(given: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    found = (given or {}).get(name)
    return found if isinstance(found, Mapping) else {}


def apply_poll_profile(settings: Settings, given: Mapping[str, Any] | None = None) -> Settings:
    """``settings`` with heal and AMI poll intervals of one second under the fast profile.

    The profile is fast when ``poll_profile`` is ``"fast"``, or ``"auto"`` with a
    loopback endpoint named any way botocore accepts (``--endpoint-url``,
    ``AWS_ENDPOINT_URL``, ``AWS_ENDPOINT_URL_<SERVICE>``, the config file). An interval
    set explicitly (in ``given``: what the file, environment and arguments set) is kept.
    """
    fast = settings.poll_profile == "fast" or (
        settings.poll_profile == "auto" and uses_loopback_endpoint(settings)
    )
    if not fast:
        return settings
    heal_set = _table(given, "heal")
    ami_set = _table(given, "ami")
    heal: dict[str, Any] = {k: FAST_POLL_SECONDS for k in _HEAL_POLLS if k not in heal_set}
    ami: dict[str, Any] = {}
    if "poll_seconds" not in ami_set:
        ami["poll_seconds"] = float(FAST_POLL_SECONDS)
    return settings.replace(heal=settings.heal.replace(**heal), ami=settings.ami.replace(**ami))


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Resolve settings once. ``overrides`` are the caller's arguments (highest priority).

    Nested overrides use the section name: ``load_settings(aws={"region": "eu-west-1"})``.
    Raises :class:`ConfigError` naming the file (or environment) and key on bad input.
    """
    path = find_config(config_file)
    toml_data = read_toml(path) if path is not None else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    # file < environment < arguments, merged section by section (the environment's
    # rules: cfnops._config_env)
    data = merged(toml_data, env_settings(Settings, os.environ), given)
    try:
        return apply_poll_profile(convert(data, Settings), data)
    except msgspec.ValidationError as exc:
        loc, reason = explain(exc, Settings, data)
        key = ".".join(str(p) for p in loc) or "(root)"
        if reason.startswith("required"):  # missing: the table that lacks it is the place
            loc = loc[:-1]
        variable = "CFNOPS_" + "__".join(str(p) for p in loc[:2]).upper()
        # the same order as the sources: arguments, then environment, then the file
        if _in_mapping(given, loc):
            source = "command-line arguments"
        elif variable in os.environ:
            source = f"the environment ({variable})"
        elif _in_mapping(toml_data, loc):
            source = str(path)
        else:
            source = "environment (CFNOPS_*)" if path is None else f"{path} or environment"
        raise ConfigError(source, key, reason) from exc
