"""STS AssumeRole refuses roles that do not exist, as AWS does.

moto issues credentials for any role ARN. AWS answers ``AccessDenied`` ("User:
… is not authorized to perform: sts:AssumeRole on resource: …") when the role
does not exist in the target account or does not trust the caller
(https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html). Here a
role must exist in the target account's IAM; trust policies are not evaluated.
"""

from __future__ import annotations

import functools
import uuid
from typing import Any
from xml.sax.saxutils import escape

from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = ["install"]


def _role_exists(account: str, name: str) -> bool:
    iam_backends = moto_module("moto.iam.models").iam_backends
    try:
        roles = iam_backends[account]["aws"].roles.values()
    except KeyError:
        return False
    return any(getattr(r, "name", None) == name for r in roles)


def _wrap(original: Any) -> Any:
    @functools.wraps(original)
    def assume_role(self: Any) -> Any:
        arn = str(self._get_param("RoleArn") or "")
        parts = arn.split(":")
        if len(parts) == 6 and parts[2] == "iam" and parts[5].startswith("role/"):
            account, name = parts[4], parts[5].split("/")[-1]
            if not _role_exists(account, name):
                message = escape(
                    f"User: arn:aws:iam::{self.current_account}:root is not authorized to "
                    f"perform: sts:AssumeRole on resource: {arn}"
                )
                # STS has no modelled AccessDenied shape: answer the query-protocol body.
                body = (
                    '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
                    "<Error><Type>Sender</Type><Code>AccessDenied</Code>"
                    f"<Message>{message}</Message></Error>"
                    f"<RequestId>{uuid.uuid4()}</RequestId></ErrorResponse>"
                )
                return 403, {"status": 403, "Content-Type": "text/xml"}, body
        return original(self)

    return assume_role


@install_once
def install() -> None:
    """Wrap moto's AssumeRole (idempotent)."""
    cls = moto_module("moto.sts.responses").TokenResponse
    cls.assume_role = _wrap(cls.assume_role)
