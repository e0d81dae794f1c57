"""``--fail-on``: which differences make CI fail (exit code 1)."""

from __future__ import annotations

from enum import StrEnum

from cfnops.diff._model import Impact, ResourceDiff, TemplateDiff


class FailOn(StrEnum):
    """Gate levels.

    * ``replace``: a resource is WILL_REPLACE, MAY_REPLACE or WILL_DESTROY
      (every case where a physical resource may be deleted);
    * ``destroy``: a resource is WILL_DESTROY (orphaned resources are kept);
    * ``any``: any difference at all.
    """

    REPLACE = "replace"
    DESTROY = "destroy"
    ANY = "any"


_TRIPS = {
    FailOn.REPLACE: (Impact.WILL_REPLACE, Impact.MAY_REPLACE, Impact.WILL_DESTROY),
    FailOn.DESTROY: (Impact.WILL_DESTROY,),
}


def gate(
    diff: TemplateDiff, level: FailOn, *, strict: bool = False
) -> tuple[ResourceDiff, ...] | None:
    """``None`` when the gate passes; otherwise the resources that trip it
    (empty for ``any`` tripped by a non-resource difference).

    A diff that is only mangled non-ASCII text (``mangled_equivalent``: the
    deployed template is the same one after GetTemplate's lossy round trip)
    passes unless ``strict``.
    """
    if diff.mangled_equivalent and not strict:
        return None
    if level is FailOn.ANY:
        return None if diff.is_empty else tuple(diff.resources)
    tripping = tuple(r for r in diff.resources if r.impact in _TRIPS[level])
    return tripping or None
