"""JSONPath-mode states in the data-flow check, and what the walker's state handlers share
(a mixin of the walker in :mod:`cfnops.asl._flowcheck`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cfnops.asl._choice import evaluate_rule
from cfnops.asl._dataflow import StateError, apply_result_path
from cfnops.asl._flowcheck_choice import Undecidable, deciding, duplicate_of, feasible
from cfnops.asl._flowcheck_model import Unknown, merge_shape
from cfnops.asl._flowcheck_refs import Env, Fields, Sink
from cfnops.asl._jsonpath import PathNotFound

__all__ = ["ERROR_OUTPUT", "JsonPathStates", "Outcome", "Seen", "next_of"]

ERROR_OUTPUT = {"Error": "States.TaskFailed", "Cause": "sample cause"}
Outcome = tuple[str | None, Any, dict[str, Any]]  # next state, output, variables


@dataclass
class Seen:
    name: str
    type: str
    inputs: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    payloads: list[Any] = field(default_factory=list)
    source: str | None = None


def next_of(state: Mapping[str, Any]) -> str | None:
    return None if state.get("End") is True else state.get("Next")


class JsonPathStates:
    """The JSONPath-mode half of the walker; ``run_results`` is the walker's."""

    f: Fields
    sink: Sink
    choices: dict[str, set[bool | None]]
    untaken: set[int]

    if TYPE_CHECKING:

        def run_results(
            self, stype: str, state: Mapping[str, Any], ptr: str, path: str, payload: Any,
            eff: Any, var: dict[str, Any], ql: str, seen: Seen,
        ) -> list[Any]: ...  # fmt: skip

    # --- JSONPath states ----------------------------------------------------------------
    def jsonpath_state(
        self, stype: str, state: Mapping[str, Any], ptr: str, path: str, raw: Any,
        ctx: dict[str, Any], var: dict[str, Any], seen: Seen,
    ) -> list[Outcome]:  # fmt: skip
        env0 = Env(raw, ctx, var)
        eff = self.io_path(state, "InputPath", raw, env0, ptr)
        env = Env(eff, ctx, var)
        if stype == "Choice":
            return self.choice_jsonpath(state, ptr, eff, env)
        if stype == "Fail":
            for key in ("ErrorPath", "CausePath"):
                if isinstance(state.get(key), str):
                    self.f.dollar(state[key], f"{ptr}/{key}", env)
            return []
        if stype == "Succeed":
            return [(None, self.io_path(state, "OutputPath", eff, env, ptr), var)]
        if stype == "Wait":
            for key in ("SecondsPath", "TimestampPath"):
                if isinstance(state.get(key), str):
                    self.f.path(state[key], f"{ptr}/{key}", env)
            return [(next_of(state), self.io_path(state, "OutputPath", eff, env, ptr), var)]
        if "Parameters" in state:
            payload = self.f.template(state["Parameters"], f"{ptr}/Parameters", env)
        elif stype == "Pass" and "Result" in state:
            payload = state["Result"]
        else:
            payload = eff
        if stype == "Pass":
            return [self.after_result(state, ptr, raw, payload, ctx, var)]
        merge_shape(seen.payloads, payload)
        outs = [
            self.after_result(state, ptr, raw, result, ctx, var)
            for result in self.run_results(
                stype, state, ptr, path, payload, eff, var, "JSONPath", seen
            )
        ]
        return outs + self.caught(state, ptr, raw, ctx, var)

    def caught(
        self, state: Mapping[str, Any], ptr: str, raw: Any, ctx: dict[str, Any],
        var: dict[str, Any],
    ) -> list[Outcome]:  # fmt: skip
        """Where each Catch goes, with the error output placed by its ResultPath."""
        outs: list[Outcome] = []
        for i, catcher in enumerate(state.get("Catch") or []):
            if isinstance(catcher, Mapping) and isinstance(catcher.get("Next"), str):
                cptr = f"{ptr}/Catch/{i}"
                err = dict(ERROR_OUTPUT)
                nvar = var
                if isinstance(catcher.get("Assign"), Mapping):
                    assigned = self.f.template(
                        catcher["Assign"], f"{cptr}/Assign", Env(err, ctx, var)
                    )
                    nvar = {**var, **assigned}
                out = self.result_path(catcher, cptr, raw, err)
                outs.append((catcher["Next"], out, nvar))
        return outs

    def after_result(
        self, state: Mapping[str, Any], ptr: str, raw: Any, result: Any,
        ctx: dict[str, Any], var: dict[str, Any],
    ) -> Outcome:  # fmt: skip
        if "ResultSelector" in state:
            result = self.f.template(
                state["ResultSelector"], f"{ptr}/ResultSelector", Env(result, ctx, var)
            )
        nvar = var
        if isinstance(state.get("Assign"), Mapping):
            nvar = {
                **var,
                **self.f.template(state["Assign"], f"{ptr}/Assign", Env(result, ctx, var)),
            }
        out = self.result_path(state, ptr, raw, result)
        return next_of(state), self.io_path(state, "OutputPath", out, Env(out, ctx, var), ptr), nvar

    def result_path(self, state: Mapping[str, Any], ptr: str, raw: Any, result: Any) -> Any:
        if "ResultPath" not in state:
            return result
        text = state["ResultPath"]
        if isinstance(text, str) and self.f.parse(text, f"{ptr}/ResultPath") is None:
            return Unknown(f"the invalid ResultPath at {ptr}")
        if isinstance(raw, Unknown) and text not in (None, "$"):
            # Step Functions fails the state with States.ResultPathMatchFailure when it
            # cannot apply ResultPath to the input the state received (error names,
            # https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html):
            # an input this check cannot know may be a number, a string or an array.
            self.sink.warn(
                f"{ptr}/ResultPath",
                "RESULT_PATH_UNKNOWN_INPUT",
                f"ResultPath '{text}' is applied to {raw.origin}, which the check does not"
                " know: if it is not a JSON object (a number, a string, an array), the run"
                " fails with States.ResultPathMatchFailure",
                "declare that result under Task results (or the items in the sample"
                " input), or set ResultPath to null or '$' when the input may be a scalar",
            )
            return raw
        try:
            return apply_result_path(raw, result, text, present=True)
        except StateError as exc:
            self.sink.error(f"{ptr}/ResultPath", "RESULT_PATH_FAILS", exc.detail)
            return Unknown(f"the failed ResultPath at {ptr}")

    def io_path(self, state: Mapping[str, Any], key: str, value: Any, env: Env, ptr: str) -> Any:
        if key not in state or state[key] == "$":
            return value
        if state[key] is None:
            return {}
        return self.f.path(str(state[key]), f"{ptr}/{key}", Env(value, env.context, env.variables))

    def choice_jsonpath(
        self, state: Mapping[str, Any], ptr: str, eff: Any, env: Env
    ) -> list[Outcome]:
        def res(text: str) -> Any:
            parsed = self.f.parse(text, f"{rptr}/Variable")
            if parsed is None:
                raise Undecidable(text)
            return self.f.path(text, f"{rptr}/Variable", env)

        outs: list[Outcome] = []
        decisions: list[bool | None] = []
        rules = [r for r in state.get("Choices") or [] if isinstance(r, Mapping)]
        out = self.io_path(state, "OutputPath", eff, env, ptr)
        for i, rule in enumerate(rules):
            rptr = f"{ptr}/Choices/{i}"
            try:
                matched: bool | None = evaluate_rule(rule, deciding(res))
            except Undecidable:
                matched = None
            except (PathNotFound, ValueError, KeyError, TypeError):
                matched = False
            self.choices.setdefault(rptr, set()).add(matched)
            if matched is False and not feasible(rule, deciding(res)):
                self.never(rptr, "the types of the values it tests rule it out on every path")
            self.duplicate(rules, i, rptr)
            nvar = env.variables
            if isinstance(rule.get("Assign"), Mapping):
                nvar = {**nvar, **self.f.template(rule["Assign"], f"{rptr}/Assign", env)}
            outs.append((rule.get("Next"), out, nvar))
            decisions.append(matched)
        if "Default" in state:
            nvar = env.variables
            if isinstance(state.get("Assign"), Mapping):
                nvar = {**nvar, **self.f.template(state["Assign"], f"{ptr}/Assign", env)}
            outs.append((state["Default"], out, nvar))
        self.mark_untaken(decisions)
        return outs

    # --- shared -------------------------------------------------------------------------
    def mark_untaken(self, decisions: list[bool | None]) -> None:
        """Outcome indexes (rules, then Default) the samples cannot select."""
        decided = False
        for i, d in enumerate(decisions):
            if decided or d is False:
                self.untaken.add(i)
            decided = decided or d is True
        if decided:
            self.untaken.add(len(decisions))

    def never(self, rptr: str, why: str) -> None:
        self.sink.error(rptr, "CHOICE_NEVER_MATCHES", f"this Choice branch can never match: {why}")

    def duplicate(self, rules: list[Any], i: int, rptr: str) -> None:
        j = duplicate_of(rules, i)
        if j is not None:
            self.never(rptr, f"it repeats the condition of Choices/{j}, which is tested first")
