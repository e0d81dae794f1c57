"""The findings of ``--exercise``: what running a handler showed, judged like the rules.

EX001 and EX002 are CR001/CR002 observed: a different PhysicalResourceId on
Update is a replacement, and CloudFormation sends Delete for the old id (AWS docs,
"Update requests": .../crpg-ref-requesttypes-update.html). EX003 is CR004
observed: asked to Delete an id it never issued, the handler changed something
that request never named (AWS docs, "Delete requests": .../crpg-ref-requesttypes-delete.html).
"""

from __future__ import annotations

from cfnops.guard._model import RuleInfo, Severity
from cfnops.guard.rules._context import DELETE_DOC, UPDATE_DOC

UPDATE_NEW_ID = RuleInfo(
    id="EX001",
    name="exercised-update-new-id",
    summary="run with an Update, the handler answered a new physical id",
    severity=Severity.ERROR,
    help_uri=UPDATE_DOC,
    detail=(
        "cfnops ran the handler with a Create, then an Update carrying the id Create "
        "answered: the Update answered another id, which CloudFormation treats as a "
        "replacement before it sends Delete for the old id (a warning when only the Update "
        "that changed the properties moved the id)."
    ),
)
FAILED_UPDATE_NEW_ID = RuleInfo(
    id="EX002",
    name="exercised-failed-update-new-id",
    summary="run with a failing Update, the handler answered FAILED with a new physical id",
    severity=Severity.WARNING,
    help_uri=UPDATE_DOC,
    detail=(
        "cfnops ran an Update whose AWS calls were denied: the handler answered FAILED with "
        "an id other than the incoming one, and rollback and later Delete requests then "
        "carry an id that names nothing."
    ),
)
DELETE_IGNORES_ID = RuleInfo(
    id="EX003",
    name="exercised-delete-ignores-id",
    summary="run with a Delete of an id it never issued, the handler changed something else",
    severity=Severity.WARNING,
    help_uri=DELETE_DOC,
    detail=(
        "cfnops asked the handler to Delete an id it never issued (as for the old id after a "
        "replacement, or after a failed Create): it made changing AWS calls that never named "
        "that id, so it acts on what its properties name."
    ),
)
EXERCISE_RULES: tuple[RuleInfo, ...] = (UPDATE_NEW_ID, FAILED_UPDATE_NEW_ID, DELETE_IGNORES_ID)
