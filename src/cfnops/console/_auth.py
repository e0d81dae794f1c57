"""Who may use the console: tokens, signed session cookies and CSRF tokens.

Every page needs a session; a session is earned by presenting a token once
(``/login``, or ``?token=`` in the link ``cfnops console`` prints). The cookie
holds the token's *name* signed with a per-process secret (HMAC-SHA256), so it
is useless to another console and after a restart. Each state-changing request
(POST) must also carry a CSRF token (form field ``csrf`` or header
``X-CSRF-Token``): an HMAC of the session cookie, which a page of another origin
cannot read. ``Authorization: Bearer <token>`` works for scripts (no cookie, no
CSRF needed: a browser never sends it on its own).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cfnops.console.errors import BadTokenFile, TokenRequired

COOKIE = "cfnops_console"
_MIN_TOKEN = 16


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token_file(path: Path) -> dict[str, str]:
    """``name → token`` from a file of ``TOKEN`` or ``NAME:TOKEN`` lines (``#`` comments)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadTokenFile(str(path), exc.strerror or "cannot be read") from exc
    tokens: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, token = line.rpartition(":")
        name = name.strip() if sep else f"token{number}"
        token = token.strip()
        if len(token) < _MIN_TOKEN:
            raise BadTokenFile(str(path), f"line {number}: the token is shorter than 16 characters")
        tokens[name or f"token{number}"] = token
    if not tokens:
        raise BadTokenFile(str(path), "no token in the file")
    return tokens


@dataclass(frozen=True)
class Auth:
    """The tokens the console accepts (``name → token``) and its signing secret."""

    tokens: Mapping[str, str]
    generated: bool = False
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    @classmethod
    def for_bind(cls, host: str, *, token: str | None, token_file: Path | None, user: str) -> Auth:
        """Tokens for a bind: required off loopback; generated on loopback when none given."""
        tokens: dict[str, str] = {}
        if token_file is not None:
            tokens.update(read_token_file(token_file))
        if token:
            if len(token) < _MIN_TOKEN:
                raise BadTokenFile("CFNOPS_CONSOLE_TOKEN", "shorter than 16 characters")
            tokens[user] = token
        if tokens:
            return cls(tokens)
        if not is_loopback(host):
            raise TokenRequired(host)
        return cls({user: secrets.token_urlsafe(24)}, generated=True)

    def name_for(self, token: str) -> str | None:
        """The token's name, comparing in constant time."""
        found = None
        for name, known in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    def _mac(self, purpose: str, value: str) -> str:
        msg = f"{purpose}:{value}".encode()
        return hmac.new(self.secret, msg, hashlib.sha256).hexdigest()

    def session_cookie(self, name: str) -> str:
        return f"{name}.{self._mac('session', name)}"

    def session_name(self, cookie: str | None) -> str | None:
        if not cookie or "." not in cookie:
            return None
        name, mac = cookie.rsplit(".", 1)
        ok = hmac.compare_digest(mac, self._mac("session", name)) and name in self.tokens
        return name if ok else None

    def csrf_token(self, cookie: str) -> str:
        return self._mac("csrf", cookie)

    def csrf_ok(self, cookie: str | None, given: str | None) -> bool:
        if not cookie or not given:
            return False
        return hmac.compare_digest(self.csrf_token(cookie), given)
