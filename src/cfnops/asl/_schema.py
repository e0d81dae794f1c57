"""Which fields each state type accepts, per query language (the validator's tables).

From the States Language specification and
https://docs.aws.amazon.com/step-functions/latest/dg/statemachine-structure.html
"""

from __future__ import annotations

__all__ = ["FIELDS", "JSONATA_ONLY", "JSONPATH_ONLY", "STATE_TYPES", "TOP_LEVEL_FIELDS"]

TOP_LEVEL_FIELDS = frozenset({"Comment", "StartAt", "States", "Version", "TimeoutSeconds",
                              "QueryLanguage"})  # fmt: skip

_COMMON = {"Type", "Comment", "QueryLanguage"}
_FLOW = {"Next", "End"}
_JSONPATH_IO = {"InputPath", "OutputPath"}

FIELDS: dict[str, frozenset[str]] = {
    "Pass": frozenset(
        _COMMON | _FLOW | _JSONPATH_IO | {"Parameters", "Result", "ResultPath", "Assign", "Output"}
    ),
    "Task": frozenset(
        _COMMON
        | _FLOW
        | _JSONPATH_IO
        | {
            "Resource",
            "Parameters",
            "ResultSelector",
            "ResultPath",
            "Retry",
            "Catch",
            "TimeoutSeconds",
            "TimeoutSecondsPath",
            "HeartbeatSeconds",
            "HeartbeatSecondsPath",
            "Credentials",
            "Arguments",
            "Output",
            "Assign",
        }
    ),
    "Choice": frozenset(_COMMON | _JSONPATH_IO | {"Choices", "Default", "Assign", "Output"}),
    "Wait": frozenset(
        _COMMON
        | _FLOW
        | _JSONPATH_IO
        | {"Seconds", "Timestamp", "SecondsPath", "TimestampPath", "Assign", "Output"}
    ),
    "Succeed": frozenset(_COMMON | _JSONPATH_IO | {"Output"}),
    "Fail": frozenset(_COMMON | {"Error", "Cause", "ErrorPath", "CausePath"}),
    "Parallel": frozenset(
        _COMMON
        | _FLOW
        | _JSONPATH_IO
        | {
            "Branches",
            "Parameters",
            "ResultSelector",
            "ResultPath",
            "Retry",
            "Catch",
            "Arguments",
            "Output",
            "Assign",
        }
    ),
    "Map": frozenset(
        _COMMON
        | _FLOW
        | _JSONPATH_IO
        | {
            "Iterator",
            "ItemProcessor",
            "ItemsPath",
            "Items",
            "ItemSelector",
            "Parameters",
            "ItemReader",
            "ItemBatcher",
            "ResultWriter",
            "ResultSelector",
            "ResultPath",
            "MaxConcurrency",
            "MaxConcurrencyPath",
            "ToleratedFailureCount",
            "ToleratedFailureCountPath",
            "ToleratedFailurePercentage",
            "ToleratedFailurePercentagePath",
            "Label",
            "Retry",
            "Catch",
            "Output",
            "Assign",
        }
    ),
}

STATE_TYPES = frozenset(FIELDS)

JSONPATH_ONLY = frozenset({"InputPath", "OutputPath", "Parameters", "ResultSelector",
                           "ResultPath", "ItemsPath", "SecondsPath", "TimestampPath",
                           "ErrorPath", "CausePath", "TimeoutSecondsPath",
                           "HeartbeatSecondsPath", "MaxConcurrencyPath",
                           "ToleratedFailureCountPath", "ToleratedFailurePercentagePath",
                           "Iterator", "Result"})  # fmt: skip
JSONATA_ONLY = frozenset({"Arguments", "Output", "Items"})

RETRIER_FIELDS = frozenset({"ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate",
                            "MaxDelaySeconds", "JitterStrategy", "Comment"})  # fmt: skip
CATCHER_FIELDS = frozenset({"ErrorEquals", "Next", "ResultPath", "Comment", "Assign", "Output"})
