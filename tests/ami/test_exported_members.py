"""The public names of cfnops.ami (a change here is an API change).

The CLI, the console, Lambda handlers and other packages use these names only:
tests/test_import_direction.py fails on any import of a private module of cfnops.ami.
"""

from __future__ import annotations

import cfnops.ami


def test_ami_exports() -> None:
    assert sorted(cfnops.ami.__all__) == [
        "BACKUP_COMPLETED_PATTERN",
        "CheckReport",
        "Finding",
        "ImageEvent",
        "ImageFacts",
        "InstanceRefreshFailed",
        "NotRollable",
        "PREVIOUS_TAG",
        "ParameterRotation",
        "ROTATE_STACK_WORKFLOW",
        "RollPlan",
        "Rotation",
        "Rotator",
        "Skipped",
        "StackRotation",
        "build_request",
        "check_template",
        "load_event",
        "load_template",
        "parameter_owner",
        "parse_event",
        "plan_roll",
        "previous_stack_image",
        "resolve_event_images",
        "rollback_parameter",
        "rotate_event_stacks",
        "rotate_from_event",
        "rotate_one_stack",
        "rotate_parameter",
        "rotate_stack",
        "wait_until_available",
    ]
    for name in cfnops.ami.__all__:
        assert getattr(cfnops.ami, name) is not None
