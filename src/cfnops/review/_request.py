"""What to review: the options of ``cfnops diff``, given once, and their checks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cfnops.errors import UsageError

if TYPE_CHECKING:
    from cfnops.aws import AwsClients
    from cfnops.config import Settings

__all__ = ["USAGE_HINT", "ReviewRequest", "ReviewRuntime", "check_request"]

USAGE_HINT = (
    "cfnops diff old.yaml new.yaml | cfnops diff old/cdk.out new/cdk.out | "
    "cfnops diff --stack web new.yaml | cfnops diff --git-ref origin/main a.yaml b.yaml"
)


@dataclass(frozen=True)
class ReviewRequest:
    """What to compare, and what to check beside the diff.

    ``templates``: OLD NEW (templates or cdk.out directories), NEW with ``stack``, or
    TEMPLATE... with ``git_ref``. ``parameter_files`` are parameter files (or
    ``KEY=VALUE``), ``parameters`` ``KEY=VALUE`` values for NEW (the later wins).
    ``region`` selects the update-behaviour table (default: the runtime's region, then
    us-east-1). ``fail_on`` (replace, destroy, any) and ``strict`` set the gate;
    ``change_set``, ``drift`` (with ``stack``) and ``validate`` add what AWS and cfn-lint
    know; ``code`` is custom-resource handler code for the guard's findings.
    """

    templates: tuple[Path, ...]
    stack: str | None = None
    git_ref: str | None = None
    parameter_files: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
    region: str | None = None
    fail_on: str | None = None
    strict: bool = False
    change_set: bool = False
    drift: bool = False
    validate: bool = False
    code: Path | None = None


class ReviewRuntime(Protocol):
    """What a review reads from its caller's runtime, each built on first use (an
    offline review builds no AWS session): ``cfnops.cli``'s state is one."""

    @property
    def aws_region(self) -> str | None: ...

    @property
    def clients(self) -> AwsClients: ...

    @property
    def settings(self) -> Settings: ...


def check_request(request: ReviewRequest) -> None:
    """:class:`UsageError` for a gate level or a combination of options that means nothing."""
    from cfnops.diff import FailOn

    if request.fail_on is not None and request.fail_on not in {f.value for f in FailOn}:
        raise UsageError(
            f"--fail-on {request.fail_on!r}: expected replace, destroy or any",
            hint="replace: exit 1 on a replacement; destroy: also on a deletion; any: any change",
        )
    stack, git_ref, count = request.stack, request.git_ref, len(request.templates)
    wanted = (1,) if stack else (1, 2, 3, 4, 5, 6, 7, 8, 9) if git_ref else (2,)
    if (
        (count not in wanted and not (git_ref and request.templates))
        or ((request.change_set or request.drift) and not stack)
        or (git_ref and stack)
    ):
        raise UsageError(
            "expected OLD NEW, --stack NAME NEW or --git-ref REF TEMPLATE... "
            "(--change-set and --drift need --stack)",
            hint=USAGE_HINT,
        )
