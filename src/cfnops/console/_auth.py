"""Who may use the console: tokens with roles, sessions that expire, CSRF tokens.

Every page needs a session; a session is earned by presenting a token once
(``/login``, or ``?token=`` in the link ``cfnops console`` prints). The cookie
holds a random session id known only to this console process: it ends on
sign-out, after ``idle_seconds`` without a request, after ``max_seconds`` in all,
and when the console restarts. Each state-changing request (POST) must also
carry a CSRF token (form field ``csrf`` or header ``X-CSRF-Token``): an HMAC of
the session id, which a page of another origin cannot read.
``Authorization: Bearer <token>`` works for scripts (no cookie, no CSRF needed:
a browser never sends it on its own).

Roles, given per token: ``viewer`` reads, ``operator`` acts on jobs and runs
(stop, redrive, hold, rerun, skip, force, schedules), ``approver`` approves or
rejects held heal change sets. A token file line is ``TOKEN``, ``NAME:TOKEN``
(every role, as before roles existed) or ``NAME:ROLE[,ROLE]:TOKEN``.

``metrics`` is a role of its own, for a Prometheus scraper: its token reads
``GET /metrics`` (as ``Authorization: Bearer``) and nothing else: every other page,
stream and action refuses it (403), and it cannot sign in for a session. It is never
combined with another role, and a line without roles does not grant it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from cfnops.console.errors import BadTokenFile, TokenRequired

COOKIE = "cfnops_console"
_MIN_TOKEN = 16

Role = Literal["viewer", "operator", "approver", "metrics"]
# The roles of a person's token (what a line without roles grants); "metrics" stands alone.
ROLES: tuple[Role, ...] = get_args(Role)[:3]
ALL_ROLES: frozenset[Role] = frozenset(ROLES)
METRICS_ONLY: frozenset[Role] = frozenset({"metrics"})
METRICS_PATH = "/metrics"


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_roles(text: str, where: str) -> frozenset[Role]:
    """``"operator,approver"`` as roles; :class:`BadTokenFile` naming ``where`` otherwise."""
    found: set[Role] = set()
    for raw in text.split(","):
        name = raw.strip()
        for role in get_args(Role):
            if name == role:
                found.add(role)
                break
        else:
            raise BadTokenFile(
                where, f"{name!r} is not a role (use {', '.join(ROLES)}; or metrics alone)"
            )
    if "metrics" in found and len(found) > 1:
        raise BadTokenFile(where, "metrics is a role of its own (a scraper's token): give it alone")
    return frozenset(found)


def read_token_file(path: Path) -> tuple[dict[str, str], dict[str, frozenset[Role]]]:
    """``(name → token, name → roles)`` from ``TOKEN``, ``NAME:TOKEN`` or ``NAME:ROLES:TOKEN``.

    ``#`` starts a comment line; a line without roles grants every role.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadTokenFile(str(path), exc.strerror or "cannot be read") from exc
    tokens: dict[str, str] = {}
    roles: dict[str, frozenset[Role]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(":")]
        if len(parts) > 3:
            raise BadTokenFile(str(path), f"line {number}: more than NAME:ROLE[,ROLE]:TOKEN")
        token = parts[-1]
        name = (parts[0] if len(parts) > 1 else "") or f"token{number}"
        granted = parse_roles(parts[1], f"{path} line {number}") if len(parts) == 3 else ALL_ROLES
        if len(token) < _MIN_TOKEN:
            raise BadTokenFile(str(path), f"line {number}: the token is shorter than 16 characters")
        if name in tokens:
            raise BadTokenFile(str(path), f"line {number}: the name {name!r} is used twice")
        tokens[name], roles[name] = token, granted
    if not tokens:
        raise BadTokenFile(str(path), "no token in the file")
    return tokens, roles


@dataclass(frozen=True)
class Principal:
    """Who a request comes from: the token's name and its roles."""

    name: str
    roles: frozenset[Role]

    def has(self, role: Role) -> bool:
        return role in self.roles

    @property
    def metrics_only(self) -> bool:
        """A scraper's token: ``GET /metrics`` and nothing else."""
        return self.roles == METRICS_ONLY

    def actor(self, role: Role) -> str:
        """The audit log's actor: ``console:NAME (ROLE)``, the role that allowed the action."""
        return f"console:{self.name} ({role})"


@dataclass
class Session:
    name: str
    started: float
    seen: float


@dataclass
class _Sessions:
    """Live sessions of this process, by id (a restart ends them all)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    by_id: dict[str, Session] = field(default_factory=dict)
    # Ended by a limit (id → when), so that the sign-in page can say it expired.
    expired: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Auth:
    """The tokens the console accepts (``name → token``), their roles and the sessions.

    A name missing from ``roles`` has every role. ``clock`` is wall time in
    seconds (tests pass their own to move it).
    """

    tokens: Mapping[str, str]
    roles: Mapping[str, frozenset[Role]] = field(default_factory=dict)
    generated: bool = False
    idle_seconds: float = 1800.0
    max_seconds: float = 43200.0
    clock: Callable[[], float] = time.time
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    _sessions: _Sessions = field(default_factory=_Sessions, repr=False)

    @classmethod
    def for_bind(
        cls,
        host: str,
        *,
        token: str | None,
        token_file: Path | None,
        user: str,
        token_roles: str | Iterable[Role] = ROLES,
        idle_seconds: float = 1800.0,
        max_seconds: float = 43200.0,
        metrics_token: str | None = None,
    ) -> Auth:
        """Tokens for a bind: required off loopback; generated on loopback when none given.

        ``token`` (``CFNOPS_CONSOLE_TOKEN``) is named ``user`` and has ``token_roles``;
        ``metrics_token`` (``CFNOPS_METRICS_TOKEN``) is named ``metrics`` and reads
        ``/metrics`` only (it does not count as a console token: without one, one is
        still generated on loopback, and required elsewhere).
        """
        tokens: dict[str, str] = {}
        roles: dict[str, frozenset[Role]] = {}
        if token_file is not None:
            tokens, roles = read_token_file(token_file)
        env_roles = (
            parse_roles(token_roles, "[console] token_roles")
            if isinstance(token_roles, str)
            else frozenset(token_roles)
        )
        if token:
            if len(token) < _MIN_TOKEN:
                raise BadTokenFile("CFNOPS_CONSOLE_TOKEN", "shorter than 16 characters")
            tokens[user], roles[user] = token, env_roles
        generated = not any(roles.get(n, ALL_ROLES) != METRICS_ONLY for n in tokens)
        if generated:
            if not is_loopback(host):
                raise TokenRequired(host)
            # first: `cfnops console` prints the first token's sign-in link
            tokens = {user: secrets.token_urlsafe(24), **tokens}
            roles[user] = env_roles
        if metrics_token:
            _add_metrics_token(tokens, roles, metrics_token)
        return cls(
            tokens, roles, generated=generated, idle_seconds=idle_seconds, max_seconds=max_seconds
        )

    def name_for(self, token: str) -> str | None:
        """The token's name, comparing in constant time."""
        found = None
        for name, known in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    def principal(self, name: str) -> Principal:
        return Principal(name, self.roles.get(name, ALL_ROLES))

    def _mac(self, purpose: str, value: str) -> str:
        msg = f"{purpose}:{value}".encode()
        return hmac.new(self.secret, msg, hashlib.sha256).hexdigest()

    def start_session(self, name: str) -> str:
        """A new session for the token ``name``: the cookie value (a random id)."""
        now = self.clock()
        sid = secrets.token_urlsafe(32)
        with self._sessions.lock:
            for old, s in list(self._sessions.by_id.items()):
                if self._expired(s, now):
                    del self._sessions.by_id[old]
                    self._sessions.expired[old] = now
            for old, when in list(self._sessions.expired.items()):  # forget them later
                if now - when > self.max_seconds:
                    del self._sessions.expired[old]
            self._sessions.by_id[sid] = Session(name, now, now)
        return sid

    def _expired(self, s: Session, now: float) -> bool:
        return now - s.seen > self.idle_seconds or now - s.started > self.max_seconds

    def session(self, cookie: str | None, *, touch: bool = True) -> tuple[str | None, bool]:
        """``(token name, expired)`` for a cookie; ``touch`` counts it as activity."""
        if not cookie:
            return None, False
        now = self.clock()
        with self._sessions.lock:
            found = self._sessions.by_id.get(cookie)
            if found is None:
                return None, cookie in self._sessions.expired
            if self._expired(found, now) or found.name not in self.tokens:
                del self._sessions.by_id[cookie]
                self._sessions.expired[cookie] = now
                return None, True
            if touch:
                found.seen = now
            return found.name, False

    def end_session(self, cookie: str | None) -> None:
        if cookie:
            with self._sessions.lock:
                self._sessions.by_id.pop(cookie, None)

    def csrf_token(self, cookie: str) -> str:
        return self._mac("csrf", cookie)

    def csrf_ok(self, cookie: str | None, given: str | None) -> bool:
        if not cookie or not given:
            return False
        return hmac.compare_digest(self.csrf_token(cookie), given)


def _add_metrics_token(
    tokens: dict[str, str], roles: dict[str, frozenset[Role]], token: str
) -> None:
    where = "CFNOPS_METRICS_TOKEN"
    if len(token) < _MIN_TOKEN:
        raise BadTokenFile(where, "shorter than 16 characters")
    if "metrics" in tokens:
        raise BadTokenFile(where, "the token file already names a token 'metrics': rename it")
    if any(hmac.compare_digest(token.encode(), known.encode()) for known in tokens.values()):
        raise BadTokenFile(where, "it is another token of this console: give the scraper its own")
    tokens["metrics"], roles["metrics"] = token, METRICS_ONLY
