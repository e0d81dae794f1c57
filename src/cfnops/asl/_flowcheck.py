"""``cfnops job check``: walk every path of a definition with sample data.

Each state is evaluated with the sample input and the Task results of a
:class:`~cfnops.asl.DeclaredResults` (declared, or unknown); every Choice branch, Catch and Default
is followed (not only the one the samples select), each state at most a few times. The
report lists, with JSON pointers, each reference that cannot resolve, each Choice branch
that can never match, what could not be checked, and each state's input and output shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from cfnops.asl._flowcheck_jsonpath import ERROR_OUTPUT, JsonPathStates, Outcome, Seen, next_of
from cfnops.asl._flowcheck_model import CheckReport, StateShape, Unknown, merge_shape, pointer
from cfnops.asl._flowcheck_refs import Env, Fields, Sink
from cfnops.asl._flowcheck_results import DeclaredResults
from cfnops.asl._validate import validate

__all__ = ["check_dataflow"]

_MAX_VISITS = 4


def check_dataflow(
    definition: Mapping[str, Any],
    sample_input: Any,
    task_results: DeclaredResults | Mapping[str, Any] | None = None,
) -> CheckReport:
    """Walk ``definition`` with ``sample_input``; see the module docstring."""
    sink = Sink()
    results = (
        task_results if isinstance(task_results, DeclaredResults) else DeclaredResults(task_results)
    )
    walker = _Walker(sink, results, sample_input)
    ql = str(definition.get("QueryLanguage", "JSONPath"))
    walker.machine(definition, "", "", sample_input, {}, ql)
    sink.finish()
    ours = {ptr for ptr, _ in sink.findings}
    for f in validate(dict(definition)):
        if f.pointer not in ours and not any(p.startswith(f.pointer + "/") for p in ours):
            sink.error(f.pointer or "/", f.code, f.message)
    for key in walker.results.unused():
        sink.warn("/", "UNUSED_TASK_RESULT", f"--task-results names '{key}', which no Task has")
    shapes = tuple(
        StateShape(
            ptr, s.name, s.type, tuple(s.inputs), tuple(s.outputs), tuple(s.payloads), s.source
        )
        for ptr, s in walker.seen.items()
    )
    return CheckReport(
        tuple(sink.findings.values()),
        shapes,
        tuple(sink.unchecked.values()),
        tuple(p for p in walker.all_states if p not in walker.seen),
    )


class _Walker(JsonPathStates):
    def __init__(self, sink: Sink, results: DeclaredResults, execution_input: Any) -> None:
        self.sink = sink
        self.f = Fields(sink)
        self.results = results
        self.execution = {
            "Id": "arn:aws:states:us-east-1:123456789012:execution:check:sample",
            "Input": execution_input, "Name": "sample", "StartTime": "2024-01-01T00:00:00Z",
            "RoleArn": "arn:aws:iam::123456789012:role/check", "RedriveCount": 0,
        }  # fmt: skip
        self.seen: dict[str, Seen] = {}
        self.all_states: list[str] = []
        self.choices: dict[str, set[bool | None]] = {}
        self.untaken: set[int] = set()  # outcomes of the last Choice the samples do not take

    def context(self, name: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        ctx: dict[str, Any] = {
            "Execution": self.execution,
            "StateMachine": {"Id": "arn:aws:states:us-east-1:123456789012:stateMachine:check",
                             "Name": "check"},
            "State": {"Name": name, "EnteredTime": "2024-01-01T00:00:00Z", "RetryCount": 0},
            "Task": {"Token": "sample-task-token"},
        }  # fmt: skip
        ctx.update(extra or {})
        return ctx

    # --- machines -----------------------------------------------------------------------
    def machine(
        self, program: Mapping[str, Any], ptr: str, path: str, value: Any,
        variables: dict[str, Any], ql: str, extra: Mapping[str, Any] | None = None,
    ) -> list[Any]:  # fmt: skip
        """Walk one machine or branch; return the outputs of its terminal states."""
        states = program.get("States")
        if not isinstance(states, Mapping):
            return []
        ql = str(program.get("QueryLanguage", ql))
        self.all_states.extend(pointer(*_split(ptr), "States", n) for n in states)
        visits: dict[str, int] = {}
        done: set[str] = set()
        outputs: list[Any] = []
        todo: list[tuple[Any, Any, dict[str, Any], bool]] = [
            (program.get("StartAt"), value, variables, self.sink.speculative)
        ]
        while todo:
            name, val, var, spec = todo.pop(0)
            state = states.get(name) if isinstance(name, str) else None
            if not isinstance(state, Mapping):
                continue
            key = f"{name}\0{_dump(val)}\0{_dump(var)}\0{spec}"
            if key in done or visits.get(name, 0) >= _MAX_VISITS:
                continue
            done.add(key)
            visits[name] = visits.get(name, 0) + 1
            sptr = f"{ptr}/States/{_esc(name)}"
            spath = f"{path}/{name}" if path else name
            outer, self.sink.speculative = self.sink.speculative, spec
            self.untaken.clear()
            outs = self.state(name, state, sptr, spath, val, var, ql, extra)
            untaken = set(self.untaken)
            for i, (nxt, out, nvar) in enumerate(outs):
                if nxt is None:
                    outputs.append(out)
                else:
                    todo.append((nxt, out, nvar, spec or i in untaken))
            self.sink.speculative = outer
        return outputs

    def state(
        self, name: str, state: Mapping[str, Any], ptr: str, path: str, raw: Any,
        variables: dict[str, Any], parent_ql: str, extra: Mapping[str, Any] | None,
    ) -> list[Outcome]:  # fmt: skip
        stype = str(state.get("Type"))
        seen = self.seen.setdefault(ptr, Seen(name, stype))
        merge_shape(seen.inputs, raw)
        ql = str(state.get("QueryLanguage", parent_ql))
        ctx = self.context(name, extra)
        if ql == "JSONata":
            outs = self.jsonata_state(stype, state, ptr, path, raw, ctx, variables, seen)
        else:
            outs = self.jsonpath_state(stype, state, ptr, path, raw, ctx, variables, seen)
        for nxt, out, _ in outs:
            if nxt is None or nxt == next_of(state) or stype == "Choice":
                merge_shape(seen.outputs, out)
        return outs

    # --- JSONata states -----------------------------------------------------------------
    def jsonata_state(
        self, stype: str, state: Mapping[str, Any], ptr: str, path: str, raw: Any,
        ctx: dict[str, Any], var: dict[str, Any], seen: Seen,
    ) -> list[Outcome]:  # fmt: skip
        def bind(**states: Any) -> dict[str, Any]:
            return {**var, "states": {"input": raw, "context": ctx, **states}}

        def finish(
            source: Mapping[str, Any], b: dict[str, Any], default: Any
        ) -> tuple[Any, dict[str, Any]]:
            sptr = ptr if source is state else f"{ptr}{_rule_ptr(state, source)}"
            assigned = self.f.jsonata(source.get("Assign", {}), f"{sptr}/Assign", b)
            out = (
                self.f.jsonata(source["Output"], f"{sptr}/Output", b)
                if "Output" in source
                else default
            )
            return out, {**var, **(assigned if isinstance(assigned, dict) else {})}

        b0 = bind()
        if stype == "Choice":
            return self.choice_jsonata(state, ptr, b0, finish)
        if stype == "Fail":
            self.jsonata_fields(state, ptr, b0, ("Error", "Cause"))
            return []
        if stype == "Wait":
            self.jsonata_fields(state, ptr, b0, ("Seconds", "Timestamp"))
        if stype in ("Pass", "Wait", "Succeed"):
            out, nvar = finish(state, b0, raw)
            return [(next_of(state), out, nvar)]
        if stype == "Task":
            self.jsonata_fields(
                state, ptr, b0, ("TimeoutSeconds", "HeartbeatSeconds", "Credentials")
            )
        if stype == "Map":
            payload = (
                self.f.jsonata(state["Items"], f"{ptr}/Items", b0) if "Items" in state else raw
            )
        elif "Arguments" in state:
            payload = self.f.jsonata(state["Arguments"], f"{ptr}/Arguments", b0)
        else:
            payload = raw
        merge_shape(seen.payloads, payload)
        outs: list[Outcome] = []
        for result in self.run_results(stype, state, ptr, path, payload, raw, var, "JSONata", seen):
            out, nvar = finish(state, bind(result=result), result)
            outs.append((next_of(state), out, nvar))
        return outs + self.caught_jsonata(state, ptr, bind, var)

    def jsonata_fields(
        self, state: Mapping[str, Any], ptr: str, b: dict[str, Any], keys: tuple[str, ...]
    ) -> None:
        """Check the JSONata expressions of those of ``keys`` the state has."""
        for key in keys:
            if key in state:
                self.f.jsonata(state[key], f"{ptr}/{key}", b)

    def caught_jsonata(
        self,
        state: Mapping[str, Any],
        ptr: str,
        bind: Callable[..., dict[str, Any]],
        var: dict[str, Any],
    ) -> list[Outcome]:
        """Where each Catch goes, with its Output (default: the error output) and Assign
        evaluated with ``$states.errorOutput`` bound."""
        outs: list[Outcome] = []
        for i, catcher in enumerate(state.get("Catch") or []):
            if isinstance(catcher, Mapping) and isinstance(catcher.get("Next"), str):
                b = bind(errorOutput=dict(ERROR_OUTPUT))
                cptr = f"{ptr}/Catch/{i}"
                assigned = self.f.jsonata(catcher.get("Assign", {}), f"{cptr}/Assign", b)
                out = (
                    self.f.jsonata(catcher["Output"], f"{cptr}/Output", b)
                    if "Output" in catcher
                    else dict(ERROR_OUTPUT)
                )
                outs.append(
                    (
                        catcher["Next"],
                        out,
                        {**var, **(assigned if isinstance(assigned, dict) else {})},
                    )
                )
        return outs

    def choice_jsonata(
        self, state: Mapping[str, Any], ptr: str, b: dict[str, Any], finish: Any
    ) -> list[Outcome]:
        outs: list[Outcome] = []
        decisions: list[bool | None] = []
        rules = [r for r in state.get("Choices") or [] if isinstance(r, Mapping)]
        for i, rule in enumerate(rules):
            rptr = f"{ptr}/Choices/{i}"
            value = self.f.jsonata(rule.get("Condition"), f"{rptr}/Condition", b)
            if isinstance(value, Unknown):
                self.choices.setdefault(rptr, set()).add(None)
            elif not isinstance(value, bool):
                self.sink.value_error(
                    f"{rptr}/Condition",
                    "CONDITION_NOT_BOOLEAN",
                    f"the condition returns {json.dumps(value)[:60]}, not a boolean",
                )
            else:
                self.choices.setdefault(rptr, set()).add(value)
                cond = rule.get("Condition")
                if value is False and isinstance(cond, str) and "$" not in cond:
                    self.never(rptr, "its condition reads no data and is always false")
            self.duplicate(rules, i, rptr)
            out, nvar = finish(rule, b, b["states"]["input"])
            outs.append((rule.get("Next"), out, nvar))
            decisions.append(value if isinstance(value, bool) else None)
        if "Default" in state:
            out, nvar = finish(state, b, b["states"]["input"])
            outs.append((state["Default"], out, nvar))
        self.mark_untaken(decisions)
        return outs

    def run_results(
        self, stype: str, state: Mapping[str, Any], ptr: str, path: str, payload: Any,
        eff: Any, var: dict[str, Any], ql: str, seen: Seen,
    ) -> list[Any]:  # fmt: skip
        """The sample results of a Task, Map or Parallel state."""
        if stype == "Task":
            source, results = self.results.results(
                path, path.rsplit("/", 1)[-1], state.get("Resource")
            )
            seen.source = source
            return results
        if stype == "Parallel":
            seen.source = "the outputs of its branches"
            outputs = [
                self.machine(b, f"{ptr}/Branches/{i}", path, payload, dict(var), ql)
                for i, b in enumerate(state.get("Branches") or [])
                if isinstance(b, Mapping)
            ]
            return [
                [
                    o[0] if o else Unknown(f"the output of branch {i} of {path}")
                    for i, o in enumerate(outputs)
                ]
            ]
        if stype == "Map":
            return [self.map_result(state, ptr, path, payload, eff, var, ql, seen)]
        return [payload]

    def map_result(
        self, state: Mapping[str, Any], ptr: str, path: str, items_source: Any, eff: Any,
        var: dict[str, Any], ql: str, seen: Seen,
    ) -> Any:  # fmt: skip
        seen.source = "the outputs of its iterations"
        ctx = self.context(path.rsplit("/", 1)[-1])
        if ql == "JSONata":
            items = items_source
        elif "ItemsPath" in state:
            items = self.f.path(str(state["ItemsPath"]), f"{ptr}/ItemsPath", Env(eff, ctx, var))
        else:
            items = eff
        if "ItemReader" in state or isinstance(items, Unknown):
            item: Any = Unknown(f"an item of Map {path}")
        elif not isinstance(items, list):
            self.sink.value_error(
                f"{ptr}/{'Items' if ql == 'JSONata' else 'ItemsPath'}",
                "MAP_ITEMS_NOT_ARRAY",
                f"the Map's items are {json.dumps(items)[:60]}, not an array",
            )
            return Unknown(f"the result of Map {path}")
        elif not items:
            why = "the sample data gives this Map no items: its iterations were not checked"
            self.sink.warn(ptr, "MAP_NO_ITEMS", why)
            return []
        else:
            item = items[0]
        mctx = {"Map": {"Item": {"Index": 0, "Value": item}}}
        selector = state.get("ItemSelector", state.get("Parameters"))
        if selector is None:
            item_input = item
        elif ql == "JSONata":
            b = {**var, "states": {"input": eff, "context": {**ctx, **mctx}}}
            item_input = self.f.jsonata(selector, f"{ptr}/ItemSelector", b)
        else:
            key = "ItemSelector" if "ItemSelector" in state else "Parameters"
            item_input = self.f.template(selector, f"{ptr}/{key}", Env(eff, {**ctx, **mctx}, var))
        processor = state.get("ItemProcessor", state.get("Iterator"))
        key = "ItemProcessor" if "ItemProcessor" in state else "Iterator"
        if not isinstance(processor, Mapping):
            return Unknown(f"the result of Map {path}")
        outs = self.machine(processor, f"{ptr}/{key}", path, item_input, dict(var), ql, mctx)
        return [outs[0]] if outs else Unknown(f"the result of Map {path}")


def _esc(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _split(ptr: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]] if ptr else []


def _rule_ptr(state: Mapping[str, Any], rule: Mapping[str, Any]) -> str:
    for i, r in enumerate(state.get("Choices") or []):
        if r is rule:
            return f"/Choices/{i}"
    return ""


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=lambda u: f"<{getattr(u, 'origin', u)}>")
