"""The pure data-flow check: without AWS models, undeclared results are unknown."""

from __future__ import annotations

from cfnops import asl, jobs

DEFINITION = {
    "QueryLanguage": "JSONata",
    "StartAt": "D",
    "States": {
        "D": {
            "Type": "Task",
            "Resource": "arn:aws:states:::aws-sdk:ec2:describeInstances",
            "Arguments": {},
            "Output": "{% $states.result.Reservation[0] %}",
            "End": True,
        }
    },
}


def test_pure_check_leaves_undeclared_results_unknown_and_jobs_samples_them() -> None:
    pure = asl.check_dataflow(DEFINITION, {})
    assert pure.ok and pure.findings == ()
    assert [n.pointer for n in pure.not_checked] == ["/States/D/Output"]
    assert pure.states[0].result_source == "unknown (declare it with --task-results)"
    sampled = jobs.check_dataflow(DEFINITION, {})
    assert [f.code for f in sampled.errors] == ["UNRESOLVED_REFERENCE"]


def test_declared_results_and_several_samples() -> None:
    declared = asl.DeclaredResults({"D": {"cfnops:samples": [{"Reservation": [1]}, {}]}})
    report = asl.check_dataflow(DEFINITION, {}, declared)
    assert declared.unused() == []
    # one sample has the key, the other not: an error (the Task's own output is not a branch)
    assert [f.code for f in report.errors] == ["UNRESOLVED_REFERENCE"]
    assert report.states[0].result_source == "declared"
    shape = {"a": ["number", "string"], "b": "null"}
    assert asl.shape_text(shape) == "{a: [number | string], b: null}"
