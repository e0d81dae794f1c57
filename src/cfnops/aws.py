"""The only place that builds boto3 sessions and clients.

Everything that talks to AWS asks an :class:`AwsClients` for a client. It applies
region, profile and endpoint (``--endpoint-url`` or, when unset, botocore's own
``AWS_ENDPOINT_URL`` / ``AWS_ENDPOINT_URL_<SERVICE>``), the ``adaptive`` retry
mode, a ``cfnops/<version>`` user-agent suffix, and caches the account id.

Errors from botocore that mean "your setup is wrong" are translated in exactly
one function, :func:`translate_error`, into :class:`AwsSetupError` (exit 2).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from cfnops._version import __version__
from cfnops.config import AwsSettings
from cfnops.errors import CfnopsError, UsageError

if TYPE_CHECKING:  # boto3 and botocore load on first use (see _nothing_configured)
    import boto3
    from botocore.client import BaseClient
    from botocore.config import Config

    # Types only (the test extra's boto3-stubs): never imported when cfnops runs.
    from mypy_boto3_autoscaling import AutoScalingClient
    from mypy_boto3_backup import BackupClient
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_cloudtrail import CloudTrailClient
    from mypy_boto3_ec2 import EC2Client
    from mypy_boto3_elbv2 import ElasticLoadBalancingv2Client
    from mypy_boto3_events import EventBridgeClient
    from mypy_boto3_iam import IAMClient
    from mypy_boto3_imagebuilder import ImagebuilderClient
    from mypy_boto3_organizations import OrganizationsClient
    from mypy_boto3_rds import RDSClient
    from mypy_boto3_secretsmanager import SecretsManagerClient
    from mypy_boto3_sns import SNSClient
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_ssm import SSMClient
    from mypy_boto3_stepfunctions import SFNClient
    from mypy_boto3_sts import STSClient

_Client = TypeVar("_Client", bound="BaseClient")
_RENEW_BEFORE = dt.timedelta(minutes=5)  # re-assume a role this long before it expires
_REGION_SHAPE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")
_ACCESS_DENIED = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "AuthorizationError",
        "UnrecognizedClientException",
        "InvalidClientTokenId",
        "ExpiredToken",
        "ExpiredTokenException",
    }
)


class AwsSetupError(UsageError):
    """Credentials, region, endpoint or permissions stop cfnops from calling AWS."""


@functools.cache
def known_regions() -> frozenset[str]:
    """Every region botocore's endpoint data knows, across partitions (read once).

    From the endpoint resolver alone: a session's ``get_available_regions`` also
    loads the service's whole model (EC2's is 4 MB of JSON) to find its endpoint
    prefix, which for CloudFormation and EC2 is the service name.
    """
    import botocore.session

    resolver = botocore.session.get_session().get_component("endpoint_resolver")
    regions: set[str] = set()
    for partition in resolver.get_available_partitions():
        for service in ("cloudformation", "ec2"):
            regions.update(resolver.get_available_endpoints(service, partition))
    return frozenset(regions)


def check_region(region: str) -> str:
    """Return ``region`` or raise :class:`AwsSetupError` naming it."""
    if not _REGION_SHAPE.match(region) or region not in known_regions():
        raise AwsSetupError(
            f"unknown region {region!r}",
            hint="use a region code such as us-east-1 or eu-west-1 (--region or AWS_REGION)",
        )
    return region


def _error_field(exc: BaseException, field: str) -> str | None:
    response = getattr(exc, "response", None)
    error = response.get("Error") if isinstance(response, dict) else None
    value = error.get(field) if isinstance(error, dict) else None
    return str(value) if value else None


def error_code(exc: BaseException, default: str = "") -> str:
    """The AWS error code of a botocore ``ClientError`` (``default`` for anything else).

    The one place that reads ``response["Error"]["Code"]``; callers compare codes
    (``error_code(exc) == "ValidationError"``) instead of digging in the response.
    """
    return _error_field(exc, "Code") or default


def error_message(exc: BaseException, default: str = "") -> str:
    """The AWS error message of a botocore ``ClientError`` (``default`` when it has none)."""
    return _error_field(exc, "Message") or default


def translate_error(exc: Exception) -> CfnopsError | None:
    """Map a botocore setup failure to a one-line :class:`AwsSetupError`.

    Returns ``None`` for errors that are not about setup (a stack that does not
    exist, a throttle): those belong to the caller, which knows the domain.
    """
    import botocore.exceptions as bex

    if isinstance(exc, bex.NoCredentialsError | bex.PartialCredentialsError):
        return AwsSetupError(
            "no AWS credentials found",
            hint="set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run "
            "'aws configure'; for the local sandbox run 'cfnops sandbox up' and its exports",
        )
    if isinstance(exc, bex.ProfileNotFound):
        return AwsSetupError(str(exc), hint="check --profile and ~/.aws/config")
    if isinstance(exc, bex.NoRegionError):
        return AwsSetupError("no AWS region configured", hint="pass --region or set AWS_REGION")
    if isinstance(exc, bex.EndpointConnectionError | bex.ConnectTimeoutError):
        url = getattr(exc, "kwargs", {}).get("endpoint_url", "the endpoint")
        return AwsSetupError(
            f"cannot reach {url}",
            hint="check --endpoint-url / AWS_ENDPOINT_URL, the network, or start the "
            "sandbox with 'cfnops sandbox up'",
        )
    if isinstance(exc, bex.ClientError):
        code = error_code(exc)
        if code in _ACCESS_DENIED:
            action = exc.operation_name
            service = exc.response.get("ResponseMetadata", {}).get("ServiceName", "")
            prefix = f"{service}:" if service else ""
            return AwsSetupError(
                f"access denied calling {prefix}{action} ({code})",
                hint=f"grant the caller permission for the {action} action",
            )
    return None


def _nothing_configured(settings: AwsSettings) -> bool:
    """Whether botocore could find no region at all, told without importing it.

    botocore's region comes from ``AWS_DEFAULT_REGION`` or the profile in the config or
    credentials file (``region_name`` = the ``region`` configuration variable); cfnops
    reads ``AWS_REGION`` first. With none of them and no profile named, there is
    nothing to find: a job-net that calls no AWS service runs without importing boto3
    (~0.1 s). Anything configured goes to botocore, which reads it as always.
    """
    env = os.environ
    if settings.profile or any(
        env.get(name)
        for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE")
    ):
        return False
    files = (
        env.get("AWS_CONFIG_FILE") or "~/.aws/config",
        env.get("AWS_SHARED_CREDENTIALS_FILE") or "~/.aws/credentials",
    )
    return not any(os.path.exists(os.path.expanduser(f)) for f in files)


def _configured_region(settings: AwsSettings) -> str | None:
    """``--region`` / settings, else ``AWS_REGION``, else botocore's chain.

    botocore reads only ``AWS_DEFAULT_REGION`` and the profile; the AWS SDKs and the
    AWS CLI v2 read ``AWS_REGION`` first ("AWS Region", AWS SDKs and Tools Reference
    Guide, https://docs.aws.amazon.com/sdkref/latest/guide/feature-region.html), and
    so does cfnops.
    """
    if settings.region is not None:
        return settings.region
    found = os.environ.get("AWS_REGION", "").strip()
    return check_region(found) if found else None


def stack_resource_drifts(cfn: Any, stack: str) -> list[dict[str, Any]]:
    """Every ``StackResourceDrift`` of the stack's last drift detection (all pages of
    DescribeStackResourceDrifts)."""
    out: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"StackName": stack}
    while True:
        page = cfn.describe_stack_resource_drifts(**kwargs)
        out.extend(page.get("StackResourceDrifts", []))
        token = page.get("NextToken")
        if not token:
            return out
        kwargs["NextToken"] = token


def parse_timestamp(value: Any) -> dt.datetime:
    """botocore's response timestamp parser, with ISO 8601 text read by the standard library.

    botocore hands every timestamp of an XML (query protocol) answer, such as
    CloudFormation's, to ``dateutil``, about half a millisecond each; ISO 8601
    text with a zone (``2026-11-24T21:57:21.123Z``) is read by
    ``datetime.fromisoformat`` in a microsecond, to the same instant. Anything else
    (epoch numbers, RFC 822 dates, text without a zone) goes to botocore's.
    """
    if isinstance(value, str):
        try:
            found = dt.datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if found.tzinfo is not None:  # naive text: botocore's rules (local time)
                return found
    import botocore.utils

    parsed: dt.datetime = botocore.utils.parse_timestamp(value)
    return parsed


def _unreachable(exc: BaseException | None) -> bool:
    """A refused connection or a name that does not resolve: retrying will not help."""
    import socket

    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ConnectionRefusedError | socket.gaierror):
            return True
        text = str(exc)
        if "Connection refused" in text or "Name or service not known" in text:
            return True
        inner = getattr(exc, "kwargs", {}).get("error") if hasattr(exc, "kwargs") else None
        exc = inner or exc.__cause__ or exc.__context__
        seen += 1
    return False


def _stop_retrying(caught_exception: BaseException | None = None, **_: Any) -> None:
    if caught_exception is not None and _unreachable(caught_exception):
        raise caught_exception  # out of botocore's retry loop: no backoff, no more attempts


def fail_fast_when_unreachable(client: _Client) -> _Client:
    """``client`` giving up at once on a refused connection or an unknown host name.

    botocore's standard and adaptive retry modes retry every connection error with
    backoff (23.8 s to tell that nothing listens on a port). Throttling, 5xx answers,
    timeouts and dropped connections keep their retries.
    https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html
    """
    client.meta.events.register_first("needs-retry", _stop_retrying)
    return client


def tuned(session: boto3.session.Session) -> boto3.session.Session:
    """``session`` with :func:`parse_timestamp` for the clients it makes from now on."""
    factory = session._session.get_component("response_parser_factory")
    factory.set_parser_defaults(timestamp_parser=parse_timestamp)
    return session


class AwsClients:
    """Builds and caches boto3 clients for one set of :class:`AwsSettings`.

    Inject ``session=`` (a ``boto3.Session``) or ``clients={"cloudformation": c}``
    in tests; everything else goes through :meth:`client`.
    """

    def __init__(
        self,
        settings: AwsSettings | None = None,
        *,
        session: boto3.session.Session | None = None,
        clients: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings or AwsSettings()
        if self.settings.region is not None:
            check_region(self.settings.region)
        self._session = session
        self._clients: dict[str, Any] = dict(clients or {})
        self._account_id: str | None = None
        self._lock = threading.Lock()
        # One cache per account, shared by its regional clients: region → clients, and
        # (account, role, session name) → (credentials' expiry, that account's clients).
        self._regions: dict[str, AwsClients] = {}
        self._offline_until = 0.0
        self._variants: dict[str, AwsClients] = {}  # other endpoint/profile (configured)
        self._roles: dict[tuple[str, str, str], tuple[dt.datetime, AwsClients]] = {}

    @property
    def session(self) -> boto3.session.Session:
        if self._session is None:
            import boto3
            import botocore.exceptions as bex

            try:
                self._session = boto3.session.Session(
                    profile_name=self.settings.profile,
                    region_name=_configured_region(self.settings),
                )
            except bex.ProfileNotFound as exc:
                raise translate_error(exc) from exc  # type: ignore[misc]
        return self._session

    @property
    def region(self) -> str:
        region = self.settings.region or None
        if region is None and (self._session is not None or not _nothing_configured(self.settings)):
            region = self.session.region_name
        if not region:
            raise AwsSetupError("no AWS region configured", hint="pass --region or set AWS_REGION")
        return region

    def context(self) -> dict[str, str | None]:
        """Where these clients work, as a run records it so that another process
        continues the run in the same place: region, endpoint, profile. Read without
        importing botocore: a region only the profile's configuration file names is
        not recorded (the continuing process then uses its own)."""
        region = _configured_region(self.settings)
        if region is None and self._session is not None:
            region = self._session.region_name or None
        if region is None:
            region = os.environ.get("AWS_DEFAULT_REGION", "").strip() or None
        return {
            "region": region,
            "endpoint_url": self.settings.endpoint_url
            or os.environ.get("AWS_ENDPOINT_URL", "").strip()
            or None,
            "profile": self.settings.profile or os.environ.get("AWS_PROFILE", "").strip() or None,
        }

    def botocore_config(self) -> Config:
        region = self.region  # first: no region, no botocore import
        from botocore.config import Config

        # A host prefix (TestState's "sync-") cannot resolve on an endpoint URL's host; without
        # one, botocore's AWS_DISABLE_HOST_PREFIX_INJECTION decides (the sandbox sets it).
        config = Config(
            region_name=region,
            retries={
                "mode": self.settings.retry_mode,
                "total_max_attempts": self.settings.max_attempts,
            },
            user_agent_extra=f"cfnops/{__version__}",
            connect_timeout=self.settings.connect_timeout,
            read_timeout=self.settings.read_timeout,
            max_pool_connections=self.settings.max_pool_connections,
        )
        if self.settings.endpoint_url:
            return config.merge(Config(inject_host_prefix=False))
        return config

    @overload
    def client(self, service: Literal["autoscaling"]) -> AutoScalingClient: ...
    @overload
    def client(self, service: Literal["backup"]) -> BackupClient: ...
    @overload
    def client(self, service: Literal["cloudformation"]) -> CloudFormationClient: ...
    @overload
    def client(self, service: Literal["cloudtrail"]) -> CloudTrailClient: ...
    @overload
    def client(self, service: Literal["ec2"]) -> EC2Client: ...
    @overload
    def client(self, service: Literal["elbv2"]) -> ElasticLoadBalancingv2Client: ...
    @overload
    def client(self, service: Literal["events"]) -> EventBridgeClient: ...
    @overload
    def client(self, service: Literal["iam"]) -> IAMClient: ...
    @overload
    def client(self, service: Literal["imagebuilder"]) -> ImagebuilderClient: ...
    @overload
    def client(self, service: Literal["organizations"]) -> OrganizationsClient: ...
    @overload
    def client(self, service: Literal["rds"]) -> RDSClient: ...
    @overload
    def client(self, service: Literal["secretsmanager"]) -> SecretsManagerClient: ...
    @overload
    def client(self, service: Literal["sns"]) -> SNSClient: ...
    @overload
    def client(self, service: Literal["sqs"]) -> SQSClient: ...
    @overload
    def client(self, service: Literal["ssm"]) -> SSMClient: ...
    @overload
    def client(self, service: Literal["stepfunctions"]) -> SFNClient: ...
    @overload
    def client(self, service: Literal["sts"]) -> STSClient: ...
    @overload
    def client(self, service: str) -> BaseClient: ...
    def client(self, service: str) -> Any:
        """A cached client for ``service`` (thread-safe; boto3 clients are).

        Typed per service for mypy (``client("cloudformation")`` is a
        ``CloudFormationClient``); any other service is a plain ``BaseClient``.
        """
        with self._lock:
            found = self._clients.get(service)
            if found is None:
                kwargs: dict[str, Any] = {"config": self.botocore_config()}
                if self.settings.endpoint_url:
                    kwargs["endpoint_url"] = self.settings.endpoint_url
                session = tuned(self.session)  # injected sessions too
                found = session.client(service, **kwargs)  # type: ignore[call-overload]
                fail_fast_when_unreachable(found)
                self._clients[service] = found
            return found

    def account_id(self, *, quick: bool = False) -> str:
        """The caller's account id, asked of STS once.

        ``quick``: one attempt with short timeouts (no retries with backoff), for callers
        that can do without the answer (an offline job run names a placeholder account).
        """
        if self._account_id is None:
            if quick:
                config = self.botocore_config()
                from botocore.config import Config

                kwargs: dict[str, Any] = {
                    "config": config.merge(
                        Config(connect_timeout=3, read_timeout=5, retries={"total_max_attempts": 1})
                    )
                }
                if self.settings.endpoint_url:
                    kwargs["endpoint_url"] = self.settings.endpoint_url
                sts = self.session.client("sts", **kwargs)
            else:
                sts = self.client("sts")
            self._account_id = str(sts.get_caller_identity()["Account"])
        return self._account_id

    def account_or(self, fallback: str, *, retry_after: float = 60.0) -> str:
        """:meth:`account_id` in one quick attempt, else ``fallback`` (no credentials, no
        endpoint): a caller that can do without the answer asks again ``retry_after``
        seconds later, not on every call."""
        if self._account_id is not None:
            return self._account_id
        if time.monotonic() < self._offline_until:
            return fallback
        try:
            return self.account_id(quick=True)
        except Exception:  # no credentials, region or endpoint: an offline caller
            self._offline_until = time.monotonic() + retry_after
            return fallback

    def with_settings(self, settings: AwsSettings) -> AwsClients:
        """Clients for other AWS settings (region, endpoint …) with the same credentials.

        The same settings: ``self``. Another profile names other credentials: a fresh
        set. Otherwise the session (an injected ``boto3.Session`` too) is kept, so that
        a worker's or a test's own session survives a settings change.
        """
        if settings == self.settings:
            return self
        if settings.profile != self.settings.profile:
            return AwsClients(settings)
        return AwsClients(settings, session=self._session)

    def in_region(self, region: str | None) -> AwsClients:
        """The same account in ``region`` (same session and credentials), cached.

        ``None`` or this client set's own region: ``self``. Regional clients share
        one cache, so ``c.in_region("a").in_region("b") is c.in_region("b")``.
        """
        if region is None or region == self.settings.region:
            return self
        with self._lock:
            found = self._regions.get(region)
            if found is None:
                aws = self.settings.replace(region=region)
                found = AwsClients(aws, session=self.session)
                found._regions = self._regions
                found._roles = self._roles
                found._variants = self._variants
                found._account_id = self._account_id
                self._regions[region] = found
                if self.settings.region is not None:
                    self._regions.setdefault(self.settings.region, self)
            return found

    def configured(self, **changes: Any) -> AwsClients:
        """These clients with other AWS settings (``endpoint_url``, ``profile``, ``region``
        …; ``None`` keeps a value), cached in the same cache as :meth:`in_region`.

        A run whose input names its AWS settings (an AMI rotation request) gets clients
        for exactly those, built once per process and settings.
        """
        wanted = {
            k: v for k, v in changes.items() if v is not None and getattr(self.settings, k) != v
        }
        if set(wanted) <= {"region"}:
            return self.in_region(wanted.get("region"))
        key = repr((self.settings.region, sorted(wanted.items())))
        with self._lock:
            found = self._variants.get(key)
            if found is None:
                # The same credentials unless another profile is named.
                session = None if "profile" in wanted else self._session
                found = AwsClients(self.settings.replace(**wanted), session=session)
                found._variants = self._variants
                self._variants[key] = found
            return found

    def assume(self, account: str, role_name: str, *, session_name: str = "cfnops") -> AwsClients:
        """``account``'s clients through STS AssumeRole of ``role_name``, cached.

        Credentials are renewed five minutes before they expire (a held run may wait
        for hours). A refusal raises botocore's ``ClientError``: the caller knows which
        command and option to name. The caller's own account answers ``self``.
        """
        if account == self.account_id():
            return self
        key = (account, role_name, session_name)
        now = dt.datetime.now(dt.UTC)
        with self._lock:
            cached = self._roles.get(key)
        if cached is not None and cached[0] - now > _RENEW_BEFORE:
            return cached[1].in_region(self.settings.region)
        arn = f"arn:aws:iam::{account}:role/{role_name}"
        creds = self.client("sts").assume_role(RoleArn=arn, RoleSessionName=session_name)
        credentials = creds["Credentials"]
        expires = credentials.get("Expiration")
        if not isinstance(expires, dt.datetime):
            expires = now + dt.timedelta(hours=1)
        found = self.assumed(credentials)
        found._account_id = account
        with self._lock:
            self._roles[key] = (expires, found)
        return found

    def assumed(self, credentials: Mapping[str, Any], region: str | None = None) -> AwsClients:
        """Clients with STS ``Credentials`` (AssumeRole's answer), same settings otherwise."""
        import boto3

        aws = self.settings.replace(region=region or self.settings.region)
        session = boto3.session.Session(
            aws_access_key_id=credentials["AccessKeyId"],
            aws_secret_access_key=credentials["SecretAccessKey"],
            aws_session_token=credentials.get("SessionToken"),
            region_name=aws.region or self.session.region_name,
        )
        return AwsClients(aws, session=session)
