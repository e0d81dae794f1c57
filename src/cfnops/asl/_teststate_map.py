"""TestState's Map stages: the items a mocked Map would hand its iterations.

A mocked Map runs no iteration, but TestState still evaluates its input side and
reports it at ``inspectionLevel`` DEBUG/TRACE (``InspectionData`` in the API reference,
https://docs.aws.amazon.com/step-functions/latest/apireference/API_InspectionData.html):

- ``afterItemsPath``: the items after ``ItemsPath`` (JSONPath; not populated for JSONata),
  or ``stateConfiguration.mapItemReaderData`` for a Distributed Map with an ``ItemReader``
  (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestStateConfiguration.html);
- ``afterItemSelector``: the input of each iteration after ``ItemSelector`` (or the older
  ``Parameters``), ``$$.Map.Item.Index``/``Value`` bound per item
  (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemselector.html);
- ``afterItemBatcher``: the batches after ``ItemBatcher`` (``{"BatchInput"?, "Items"}``,
  at most ``MaxItemsPerBatch`` items and ``MaxInputBytesPerBatch`` bytes each;
  https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itembatcher.html);
- ``maxConcurrency`` (0 when unset: no limit), ``toleratedFailureCount`` and
  ``toleratedFailurePercentage`` (when the state sets them).

The items and per-item inputs come from the interpreter itself: the Map runs with its
``ItemProcessor`` replaced by one Pass state that hands back its input, and with its
output fields taken out, so its raw result is the list of iteration inputs. A failure
there (``ItemsPath`` not an array …) is the state's failure, as AWS reports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cfnops.asl._interpreter import Interpreter, StartPoint

__all__ = ["MapStages", "map_stages"]

_OUTPUT_FIELDS = ("ResultPath", "ResultSelector", "OutputPath", "Output", "Assign", "Retry",
                  "Catch", "ItemBatcher", "ResultWriter", "ItemReader", "Label")  # fmt: skip
_ECHO = {"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}}


@dataclass
class MapStages:
    """What the Map's input side gives; ``error``/``cause`` when it fails."""

    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    cause: str | None = None
    items: int = 0


_READER = "cfnopsReaderItems"  # the variable that holds mapItemReaderData in the harness


def _harness(state: dict[str, Any], language: str, keep_selector: bool, reader: bool) -> Any:
    drop = set(_OUTPUT_FIELDS) | {"Iterator", "End", "Next", "MaxConcurrency",
                                  "MaxConcurrencyPath", "ToleratedFailureCount",
                                  "ToleratedFailureCountPath", "ToleratedFailurePercentage",
                                  "ToleratedFailurePercentagePath"}  # fmt: skip
    if not keep_selector:
        drop |= {"ItemSelector", "Parameters"}
    harness = {k: v for k, v in state.items() if k not in drop}
    harness["ItemProcessor"] = {"ProcessorConfig": {"Mode": "INLINE"}, **_ECHO}
    if reader:  # the reader's items stand where ItemsPath / Items would read
        harness.pop("ItemsPath", None)
        harness.pop("Items", None)
        if language == "JSONata":
            harness["Items"] = "{% $" + _READER + " %}"
        else:
            harness["ItemsPath"] = "$" + _READER
    harness["End"] = True
    return harness


def _run(
    name: str,
    harness: dict[str, Any],
    language: str,
    value: Any,
    variables: dict[str, Any],
    context: dict[str, Any] | None,
) -> tuple[str, Any, str | None, str | None]:
    from cfnops.asl._teststate import instant_clock

    machine = {"QueryLanguage": language, "StartAt": name, "States": {name: harness}}
    start = StartPoint(name, value, variables, context)
    result = Interpreter(machine, clock=instant_clock(), validate=False).run(value, start=start)
    return result.status, result.output, result.error, result.cause


def _number(state: dict[str, Any], name: str, value: Any, language: str) -> Any:
    """A field's static value, or its ``…Path`` read from the effective input."""
    if name in state:
        return state[name]
    path = state.get(name + "Path")
    if path is None or language == "JSONata":
        return None
    machine = {"StartAt": "P", "States": {"P": {"Type": "Pass", "InputPath": path, "End": True}}}
    from cfnops.asl._teststate import instant_clock

    result = Interpreter(machine, clock=instant_clock(), validate=False).run(value)
    return result.output if result.status == "SUCCEEDED" else None


def _batches(batcher: dict[str, Any], items: list[Any], value: Any) -> list[dict[str, Any]]:
    most = _number(batcher, "MaxItemsPerBatch", value, "JSONPath")
    size = _number(batcher, "MaxInputBytesPerBatch", value, "JSONPath")
    batches: list[dict[str, Any]] = []
    current: list[Any] = []

    def close() -> None:
        batch: dict[str, Any] = {}
        if "BatchInput" in batcher:
            batch["BatchInput"] = batcher["BatchInput"]
        batch["Items"] = list(current)
        batches.append(batch)
        current.clear()

    for item in items:
        over_count = isinstance(most, int) and most > 0 and len(current) >= most
        grown = len(json.dumps([*current, item], separators=(",", ":")).encode())
        over_size = isinstance(size, int) and size > 0 and current and grown > size
        if over_count or over_size:
            close()
        current.append(item)
    if current:
        close()
    return batches


def map_stages(
    name: str,
    state: dict[str, Any],
    language: str,
    raw_input: Any,
    after_input: Any,
    variables: dict[str, Any],
    context: dict[str, Any] | None,
    reader_data: Any,
) -> MapStages:
    """The Map's input-side stages for ``inspectionData`` (compact JSON texts and numbers).

    ``after_input`` is the input after ``InputPath`` (JSONPath) or the raw input (JSONata);
    ``reader_data`` the parsed ``mapItemReaderData`` (None: not given).
    """
    stages = MapStages()
    reader = reader_data is not None
    scope = {**variables, _READER: reader_data} if reader else variables
    runs = [False] + ([True] if "ItemSelector" in state or "Parameters" in state else [])
    outputs: list[Any] = []
    for keep in runs:
        harness = _harness(state, language, keep, reader)
        status, out, error, cause = _run(name, harness, language, raw_input, scope, context)
        if status != "SUCCEEDED":
            stages.error, stages.cause = error, cause
            return stages
        outputs.append(out)
    items = outputs[0]
    stages.items = len(items) if isinstance(items, list) else 0
    if language != "JSONata":
        stages.data["afterItemsPath"] = _compact(items)
    if len(outputs) > 1:
        stages.data["afterItemSelector"] = _compact(outputs[1])
    if isinstance(state.get("ItemBatcher"), dict):
        batches = _batches(state["ItemBatcher"], list(outputs[-1]), after_input)
        stages.data["afterItemBatcher"] = _compact(batches)
    concurrency = _number(state, "MaxConcurrency", after_input, language)
    stages.data["maxConcurrency"] = int(concurrency) if _is_number(concurrency) else 0
    count = _number(state, "ToleratedFailureCount", after_input, language)
    if _is_number(count):
        stages.data["toleratedFailureCount"] = int(count)
    percent = _number(state, "ToleratedFailurePercentage", after_input, language)
    if _is_number(percent):
        stages.data["toleratedFailurePercentage"] = float(percent)
    return stages


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
