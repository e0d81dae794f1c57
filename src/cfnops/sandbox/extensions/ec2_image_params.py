"""EC2 resolves ``resolve:ssm:<parameter>`` image ids when an instance launches.

moto launches instances with whatever string the launch template holds. AWS
resolves a Systems Manager parameter named in ``ImageId`` at launch time (EC2
User Guide, "Use a Systems Manager parameter instead of an AMI ID" —
``resolve:ssm:parameter-name``, ``:version`` or ``:label`` suffixes allowed), so a
launch template can stay unchanged while the AMI it launches moves on. Here
``RunInstances`` — called directly or by an Auto Scaling group — resolves it
from moto's SSM in the same account and region; a missing parameter answers
``InvalidParameterValue``. The launch template itself keeps the
``resolve:ssm:`` text, as AWS does (DescribeLaunchTemplateVersions without
``ResolveAlias``).
"""

from __future__ import annotations

import functools
from typing import Any

from cfnops.sandbox.extensions._moto import install_once, moto_module
from cfnops.sandbox.extensions._patching import replace

__all__ = ["PREFIX", "install", "resolve_image_id"]

PREFIX = "resolve:ssm:"


def resolve_image_id(account: str, region: str, image_id: str) -> str:
    """The AMI a ``resolve:ssm:`` image id stands for (other ids unchanged)."""
    if not isinstance(image_id, str) or not image_id.startswith(PREFIX):
        return image_id
    name = image_id[len(PREFIX) :]
    backend = moto_module("moto.ssm.models").ssm_backends[account][region]
    try:
        parameter = backend.get_parameter(name)
    except Exception:  # moto raises several not-found classes
        parameter = None
    if parameter is None:
        EC2ClientError = moto_module("moto.ec2.exceptions").EC2ClientError
        raise EC2ClientError(
            "InvalidParameterValue",
            f"Unable to resolve the Systems Manager parameter {name} named in ImageId",
        )
    return str(parameter.value)


def _wrap_run_instances(original: Any) -> Any:
    @functools.wraps(original)
    def run_instances(self: Any, image_id: str, *args: Any, **kwargs: Any) -> Any:
        if not image_id and kwargs.get("launch_template"):
            # RunInstances with only a LaunchTemplate launches the template's ImageId
            template = self._get_template_from_args(kwargs["launch_template"])
            image_id = template.data.get("ImageId") or image_id
        resolved = resolve_image_id(self.account_id, self.region_name, image_id)
        return original(self, resolved, *args, **kwargs)

    return run_instances


@install_once
def install() -> None:
    """Patch moto's RunInstances (idempotent)."""
    backend = moto_module("moto.ec2.models.instances").InstanceBackend
    replace(backend, "run_instances", _wrap_run_instances(backend.run_instances))
