"""The sandbox: moto's threaded server, in this process, with cfnops' extensions.

Example::

    from cfnops.sandbox import Sandbox

    with Sandbox(delays=0) as sandbox:
        cfn = sandbox.client("cloudformation")
        cfn.create_stack(StackName="demo", TemplateBody=...)
"""

from __future__ import annotations

import importlib.util
import socket
import threading
from typing import TYPE_CHECKING, Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import Delays, SandboxState, current_state
from cfnops.sandbox.errors import SandboxError, SandboxNotInstalled, SandboxPortUnavailable

if TYPE_CHECKING:
    from cfnops.aws import AwsClients
    from cfnops.durable import LocalLambda
    from cfnops.sandbox._server import SandboxServer

__all__ = ["DUMMY_ACCESS_KEY_ID", "DUMMY_SECRET_ACCESS_KEY", "Sandbox", "reset_all"]

DUMMY_ACCESS_KEY_ID = "testing"
DUMMY_SECRET_ACCESS_KEY = "testing"
DEFAULT_REGION = "us-east-1"


def reset_all() -> None:
    """Forget every moto resource and every extension store (delays are kept)."""
    from moto.moto_api._internal.models import moto_api_backend

    moto_api_backend.reset()
    current_state().reset()


def _config_route(request: dict[str, Any]) -> dict[str, Any]:
    state = current_state()
    if "delays" in request:
        given = request["delays"]
        if isinstance(given, int | float):
            state.set_delays(Delays.uniform(float(given)))
        elif isinstance(given, dict):
            state.set_delays(**{str(k): float(v) for k, v in given.items()})
        else:
            raise ValueError("'delays' must be a number of seconds or an object of delays")
    return {"delays": state.delays.as_dict()}


def _reset_route(request: dict[str, Any]) -> dict[str, Any]:
    reset_all()
    return {"reset": True}


def _check_bindable(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


_TICK_SECONDS = 0.2


class Sandbox:
    """Run the sandbox while the ``with`` block lasts (or between start/stop).

    ``port=0`` picks a free port; ``log_requests`` prints one line per request.
    ``delays`` sets every emulated delay to that many seconds (``0`` for tests);
    ``None`` keeps the current (default 1-3 s) delays.
    moto's backends are process-global: two sandboxes in one process share resources.
    The Lambda durable-execution backend (:meth:`serve_lambda`) is each sandbox's own.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        delays: float | Delays | None = None,
        region: str = DEFAULT_REGION,
        log_requests: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.region = region
        self._delays = delays
        self._log_requests = log_requests
        self._server: SandboxServer | None = None
        self._clients: AwsClients | None = None
        self._ticking = threading.Event()
        self._ticker: threading.Thread | None = None
        self._lambda: LocalLambda | None = None

    # lifecycle --------------------------------------------------------------
    def start(self, wait: bool = True) -> Sandbox:
        """Listen, and load moto and the extensions on a background thread.

        ``wait`` (default) returns once they are loaded. With ``wait=False`` it
        returns as soon as the socket listens: ``/_cfnops/health`` answers at
        once and every other request waits until the load is done (see
        :meth:`wait_loaded`).
        """
        if self._server is not None:
            return self
        # moto and Flask load on the server's loader thread, not at import: the
        # pytest plugin imports this module. A missing one is named here already.
        for package in ("moto", "flask", "werkzeug"):
            if importlib.util.find_spec(package) is None:
                raise SandboxNotInstalled(package)
        from cfnops.sandbox._server import SandboxServer

        register_control("config", _config_route)
        register_control("reset", _reset_route)
        if isinstance(self._delays, Delays):
            self.state.set_delays(self._delays)
        elif self._delays is not None:
            self.state.set_delays(Delays.uniform(float(self._delays)))
        port = self.port or _free_port(self.host)
        server = SandboxServer(ip_address=self.host, port=port, verbose=self._log_requests)
        self._hand_lambda_to(server)
        try:
            _check_bindable(self.host, port)
            server.start()
        except (OSError, SystemExit) as exc:  # werkzeug exits on "address in use"
            reason = exc.strerror if isinstance(exc, OSError) else "address in use"
            raise SandboxPortUnavailable(self.host, port, str(reason or exc)) from exc
        self._server = server
        self.port = server.get_host_and_port()[1]
        # Timers also run before every request; this thread makes delayed work
        # (a Backup job, its event) finish when nobody is polling, too.
        self._ticking.clear()
        self._ticker = threading.Thread(target=self._tick, name="sandbox-timers", daemon=True)
        self._ticker.start()
        if wait:
            try:
                self.wait_loaded()
            except BaseException:
                self.stop()
                raise
        return self

    def serve_lambda(self, backend: LocalLambda | None) -> None:
        """Answer the Lambda durable-execution API from ``backend`` (``None``: stop).

        ``backend`` is a :class:`cfnops.durable.LocalLambda` (``engine.local_lambda()``);
        ``Invoke`` of its registered functions, ``GetDurableExecution`` and the rest are
        answered from its run database (see the ``lambda_durable`` extension). Only this
        sandbox serves it: another sandbox in the same process serves its own or none.
        """
        self._lambda = backend
        if self._server is not None:
            self._hand_lambda_to(self._server)

    def _hand_lambda_to(self, server: SandboxServer) -> None:
        from cfnops.sandbox.extensions.lambda_durable import ENVIRON_KEY

        if self._lambda is None:
            server.environ.pop(ENVIRON_KEY, None)
        else:
            server.environ[ENVIRON_KEY] = self._lambda

    def wait_loaded(self, timeout: float | None = None) -> float:
        """Block until moto and the extensions are loaded; the seconds loading took.

        Raises :class:`SandboxNotInstalled` or :class:`SandboxError` when the load
        failed, ``TimeoutError`` when ``timeout`` passes first.
        """
        if self._server is None:
            raise SandboxError("the sandbox is not started", hint="call start() first")
        try:
            return self._server.wait_loaded(timeout)
        except TimeoutError:
            raise
        except ModuleNotFoundError as exc:
            package = (exc.name or "moto").partition(".")[0]
            if package != "cfnops":  # moto or one of its server dependencies
                raise SandboxNotInstalled(package) from exc
            raise SandboxError(
                f"the sandbox could not load its extension module {exc.name}",
                hint="reinstall cfnops; check cfnops.sandbox.extensions.EXTENSIONS",
            ) from exc
        except Exception as exc:
            raise SandboxError(
                f"the sandbox could not load moto and its extensions: {exc}",
                hint="reinstall the sandbox extra: pip install 'cfnops[sandbox]'",
            ) from exc

    @property
    def loaded(self) -> bool:
        """moto and the extensions are loaded (requests are answered without waiting)."""
        return self._server is not None and self._server.loaded

    def _tick(self) -> None:
        while not self._ticking.wait(_TICK_SECONDS):
            if self.loaded:  # timers are registered by requests moto answers
                self.state.run_due()

    def stop(self) -> None:
        self._ticking.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
            self._ticker = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:  # stops whether or not it raised
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    # access -----------------------------------------------------------------
    @property
    def endpoint_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def state(self) -> SandboxState:
        return current_state()

    def environment(self) -> dict[str, str]:
        """The variables that point plain boto3 / the AWS CLI at this sandbox."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": DUMMY_ACCESS_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": DUMMY_SECRET_ACCESS_KEY,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_REGION": self.region,
            # host prefixes (TestState's "sync-") cannot resolve on the sandbox's host
            "AWS_DISABLE_HOST_PREFIX_INJECTION": "true",
        }

    def export_lines(self) -> list[str]:
        """``export NAME=value`` lines for a POSIX shell."""
        return [f"export {k}={v}" for k, v in self.environment().items()]

    @property
    def clients(self) -> AwsClients:
        """Clients aimed at this sandbox with dummy credentials (built by AwsClients)."""
        if self._clients is None:
            import boto3

            from cfnops.aws import AwsClients
            from cfnops.config import AwsSettings

            session = boto3.session.Session(
                aws_access_key_id=DUMMY_ACCESS_KEY_ID,
                aws_secret_access_key=DUMMY_SECRET_ACCESS_KEY,
                region_name=self.region,
            )
            settings = AwsSettings(
                region=self.region, endpoint_url=self.endpoint_url, max_attempts=3
            )
            self._clients = AwsClients(settings, session=session)
        return self._clients

    def client(self, service: str) -> Any:
        """A boto3 client for ``service`` talking to this sandbox over HTTP."""
        return self.clients.client(service)

    def reset(self) -> None:
        """Forget every resource, event, timer and fault (delays are kept)."""
        reset_all()

    def run_due(self) -> int:
        """Settle every transition whose delay has passed (requests do this too)."""
        return self.state.run_due()
