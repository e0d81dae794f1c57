"""The operations console: a local web UI over the run database (``cfnops console``).

Runs (every durable run, live), job runs (graph by state status, Map
iterations, state panels with SSM RunCommand output, history, stop/redrive),
heal fleets and held change sets (approve/reject with a reason), job-net
definitions (findings at their JSON pointers, graph, re-validated on change),
schedules (enable/disable) and the audit log. See ``docs/console.md``::

    from cfnops.console import Auth, create_app
    app = create_app(settings, Auth.for_bind("127.0.0.1", token=None, token_file=None,
                                             user="ops"))
"""

from cfnops.console._app import create_app
from cfnops.console._auth import ROLES, Auth, Principal, Role, is_loopback, read_token_file
from cfnops.console._web import require_role
from cfnops.console.errors import (
    BadFilter,
    BadTokenFile,
    ConsoleError,
    Forbidden,
    NotFound,
    RunFinished,
    TokenRequired,
)

__all__ = [
    "ROLES",
    "Auth",
    "BadFilter",
    "BadTokenFile",
    "ConsoleError",
    "Forbidden",
    "NotFound",
    "Principal",
    "Role",
    "RunFinished",
    "TokenRequired",
    "create_app",
    "is_loopback",
    "read_token_file",
    "require_role",
]
