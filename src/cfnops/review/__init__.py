"""Review a deploy: the template diff with what the guard, the stack (change set, live
drift, taken names), cfn-lint and the ``fail_on`` gate add, from one request to one
result the caller renders. ``cfnops diff`` is this package behind a command line.

    from pathlib import Path
    from cfnops.review import ReviewRequest, review

    found = review(ReviewRequest(templates=(Path("old.yaml"), Path("new.yaml"))))
    replaced = [r.logical_id for d in found.diffs for r in d.resources if r.impact.replaces]

A composition over :mod:`cfnops.diff`, :mod:`cfnops.guard` and :mod:`cfnops.heal`'s
drift report (docs/architecture.md, "The layers").
"""

from __future__ import annotations

from cfnops.review._request import ReviewRequest, ReviewRuntime
from cfnops.review._result import ReviewResult
from cfnops.review._review import review

__all__ = ["ReviewRequest", "ReviewResult", "ReviewRuntime", "review"]
