"""EventBridge event patterns: validation and matching, as pure functions.

Used by the sandbox's event bus and by job-net event triggers alike, so neither
depends on the other::

    >>> from cfnops.eventpatterns import matches
    >>> matches({"source": ["aws.backup"]}, {"source": "aws.backup"})
    True
"""

from cfnops.eventpatterns._matcher import (
    InvalidEventPattern,
    matches,
    parse_pattern,
    validate_pattern,
)

__all__ = ["InvalidEventPattern", "matches", "parse_pattern", "validate_pattern"]
