"""The designer's server side: page, parse/render, data-flow check, SDK catalogue, save, run."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient
from tests._runtime import runtime_for
from tests.console.conftest import csrf_of

from cfnops.console._designer_flow import design_check, edges_of, input_paths
from cfnops.console._pages_designer import TEMPLATES, TEMPLATES_DIR

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "jobnets"
TYPO_FILE = ROOT / "tests" / "jobs" / "data" / "webapp-start-typo.asl.json"
TYPO_POINTER = "/States/ReadTargetGroup/Parameters/targetGroupArn.$"


def _post(client: TestClient, url: str, body: dict[str, Any]) -> Any:
    token = csrf_of(client, "/designer")
    headers = {"X-CSRF-Token": token, "Accept": "application/json"}
    return client.post(url, json=body, headers=headers)


def _boot(html: str) -> Any:
    start = html.index('id="designer-boot">') + len('id="designer-boot">')
    return json.loads(html[start : html.index("</script>", start)])


def test_page_opens_a_file_and_a_template_and_escapes_the_data(
    client: TestClient, tmp_path: Path
) -> None:
    opened = tmp_path / "defs" / "webapp-stop.asl.json"  # under the configured root
    opened.write_text((EXAMPLES / "webapp-stop.asl.json").read_text())
    page = client.get(f"/designer?path={opened}")
    assert page.status_code == 200
    boot = _boot(page.text)
    assert boot["doc"]["format"] == "json"
    assert boot["doc"]["text"] == opened.read_text()
    assert boot["doc"]["sample"] is None
    beside = tmp_path / "defs" / "webapp-stop.input.json"  # the examples' sample beside it
    beside.write_text((EXAMPLES / "webapp-stop.input.json").read_text())
    sample = _boot(client.get(f"/designer?path={opened}").text)["doc"]["sample"]
    assert sample == json.loads(beside.read_text())
    outside = client.get(f"/designer?path={EXAMPLES / 'webapp-stop.asl.json'}")
    assert outside.status_code == 403
    body = page.text.split("</head>", 1)[1]
    assert "<script>" not in body  # no inline script (CSP): data only in the JSON block
    assert "<html><body><h1>" not in page.text  # the definition's HTML is escaped in the JSON block
    assert _boot(client.get("/designer?template=nightly-batch").text)["doc"]["sample"]["date"]
    # "Start from" names what was opened, selected, not "an empty canvas"
    start_from = page.text.split('id="d-template">', 1)[1].split("</select>", 1)[0]
    first = start_from.split("<option", 2)[1]
    assert first.startswith(' value="@opened" selected>') and f"the file {opened}" in first
    assert "@opened" not in client.get("/designer").text.split('id="d-template">', 1)[1][:200]
    assert client.get("/designer?template=nope").status_code == 400


def test_the_page_carries_its_first_check(client: TestClient, tmp_path: Path) -> None:
    """Opening draws without a second request: the check the page would ask for is in it."""
    opened = tmp_path / "defs" / "typo.asl.json"
    opened.write_text(TYPO_FILE.read_text())
    beside = tmp_path / "defs" / "typo.input.json"
    beside.write_text((EXAMPLES / "webapp-start.input.json").read_text())
    doc = _boot(client.get(f"/designer?path={opened}").text)["doc"]
    asked = {"definition": doc["data"], "input": doc["sample"], "taskResults": {}}
    assert doc["check"] == _post(client, "/designer/api/check", asked).json()
    (bad,) = [e for e in doc["check"]["edges"] if e["findings"]]
    assert bad["findings"][0]["pointer"] == TYPO_POINTER
    assert "check" not in _boot(client.get("/designer").text)["doc"]  # empty canvas: nothing


def test_post_needs_the_csrf_token(client: TestClient) -> None:
    answer = client.post("/designer/api/check", json={"definition": {}})
    assert answer.status_code == 403


def test_the_trailing_dot_is_flagged_on_the_field_and_the_arrow(client: TestClient) -> None:
    definition = json.loads(TYPO_FILE.read_text())
    sample = json.loads((EXAMPLES / "webapp-start.input.json").read_text())
    found = _post(client, "/designer/api/check", {"definition": definition, "input": sample}).json()
    (error,) = [f for f in found["findings"] if f["severity"] == "error"]
    assert (error["pointer"], error["state"]) == (TYPO_POINTER, "/States/ReadTargetGroup")
    assert error["field"] == "/Parameters/targetGroupArn.$"
    assert "trailing dot" in error["suggestion"]
    (bad,) = [e for e in found["edges"] if e["findings"]]
    assert (bad["source"], bad["target"]) == ("/StartAt", "/States/ReadTargetGroup")
    assert bad["findings"][0]["pointer"] == TYPO_POINTER
    assert any("SCHEMA_VALIDATION_FAILED" in p for p in found["strict"])
    after = found["states"]["/States/ReadTargetGroup"]
    assert "$.targetGroupArn" in after["paths"]
    assert "$states.input.targetGroupArn" in after["jsonata"]


def test_edges_carry_the_shape_of_the_data_passed() -> None:
    definition = {
        "StartAt": "A",
        "States": {
            "A": {"Type": "Pass", "Result": {"n": 1}, "ResultPath": "$.a", "Next": "B"},
            "B": {"Type": "Choice", "Default": "D",
                  "Choices": [{"Variable": "$.a.n", "NumericEquals": 1, "Next": "C"}]},
            "C": {"Type": "Succeed"},
            "D": {"Type": "Fail", "Error": "E"},
        },
    }  # fmt: skip
    found = design_check(definition, {"x": "y"}, {})
    by_id = {e["id"]: e for e in found["edges"]}
    assert by_id["/States/A/Next->/States/B"]["shape"] == ["{x: string, a: {n: number}}"]
    assert by_id["/States/B/Choices/0/Next->/States/C"]["kind"] == "choice"
    assert by_id["/States/B/Default->/States/D"]["kind"] == "default"
    assert found["ok"] and found["strict"] == []
    assert next(e["id"] for e in edges_of(definition)) == "/StartAt->/States/A"
    paths = input_paths({"a": {"b": [{"c": "string"}]}})
    assert paths == ["$", "$.a", "$.a.b", "$.a.b[0]", "$.a.b[0].c"]


def test_parse_reports_the_line_and_render_keeps_yaml_comments(client: TestClient) -> None:
    bad = _post(client, "/designer/api/parse", {"text": '{\n "StartAt": "A",\n}', "format": "json"})
    assert bad.status_code == 422 and bad.json()["error"]["line"] == 3
    text = "# keep me\nStartAt: A\nStates:\n  A: {Type: Succeed}  # end\n"
    parsed = _post(client, "/designer/api/parse", {"text": text, "format": "yaml"}).json()
    data = parsed["definition"]
    data["Comment"] = "added"
    body = {"definition": data, "format": "yaml", "base": {"format": "yaml", "text": text}}
    out = _post(client, "/designer/api/render", body).json()["text"]
    assert out.startswith("# keep me\n") and "# end" in out
    assert yaml.safe_load(out) == data


def test_save_writes_under_the_roots_only_and_audits(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths start in the console's folder (both pages)
    tmp_path = tmp_path / "defs"  # the settings fixture's definition root
    boot = _boot(client.get("/designer").text)
    assert boot["placeholder"] == "defs/my-jobnet.asl.json"
    definition = json.loads((TEMPLATES_DIR / "websystem-stop.asl.json").read_text())
    body = {"path": "defs/stop.asl.yaml", "definition": definition, "format": "yaml"}
    saved = _post(client, "/designer/api/save", body)
    assert saved.status_code == 200, saved.text
    assert yaml.safe_load((tmp_path / "stop.asl.yaml").read_text()) == definition
    outside = _post(client, "/designer/api/save", {**body, "path": str(tmp_path.parent / "x.yaml")})
    assert outside.status_code == 403 and "outside" in outside.json()["error"]
    wrong = _post(client, "/designer/api/save", {**body, "path": "defs/stop.asl.json"})
    assert wrong.status_code == 400
    assert not (tmp_path / "stop.asl.json").exists()
    bare = _post(client, "/designer/api/save", {**body, "path": "stop.asl.yaml"})
    assert bare.status_code == 403 and "defs/my-jobnet.asl.json" in bare.json()["hint"]
    audit = client.get("/audit").text
    assert "designer.save" in audit and "stop.asl.yaml" in audit


def test_sdk_catalogue_comes_from_botocore(client: TestClient) -> None:
    services = client.get("/designer/api/sdk", headers={"Accept": "application/json"}).json()
    assert {"ec2", "ssm", "elasticloadbalancingv2", "sfn"} <= set(services["services"])
    actions = client.get("/designer/api/sdk?service=ssm").json()["actions"]
    assert "sendCommand" in actions and "listCommands" in actions
    query = "service=elasticloadbalancingv2&action=deregisterTargets"
    op = client.get(f"/designer/api/sdk?{query}").json()
    assert op["resource"] == "arn:aws:states:::aws-sdk:elasticloadbalancingv2:deregisterTargets"
    required = {p["name"] for p in op["parameters"] if p["required"]}
    assert required == {"TargetGroupArn", "Targets"}
    assert client.get("/designer/api/sdk?service=nosuch").status_code == 400


def test_run_needs_a_sandbox_endpoint(client: TestClient) -> None:
    definition = {"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}
    answer = _post(client, "/designer/api/run", {"definition": definition, "input": {}})
    assert answer.status_code == 403 and "sandbox" in answer.json()["error"]


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_templates_are_strictly_valid_and_check_clean_with_their_sample(name: str) -> None:
    definition = json.loads((TEMPLATES_DIR / f"{name}.asl.json").read_text())
    sample = json.loads((TEMPLATES_DIR / f"{name}.input.json").read_text())
    found = design_check(definition, sample, {})
    assert found["strict"] == []
    assert [f for f in found["findings"] if f["severity"] == "error"] == []


def test_a_job_runs_definition_opens_in_the_designer(client: TestClient, settings: Any) -> None:
    from cfnops.jobs import JobService

    definition = json.loads((TEMPLATES_DIR / "websystem-start.asl.json").read_text())
    JobService(runtime_for(settings)).store.create_run(
        "run-1", "start", definition, {"clusterId": "db"}
    )
    boot = _boot(client.get("/designer?run=run-1").text)
    assert boot["doc"]["data"] == definition and boot["doc"]["sample"] == {"clusterId": "db"}
    assert boot["path"] == ""  # saved as a new file; the run keeps its own copy
    assert 'href="/designer?run=run-1"' in client.get("/jobs/run-1").text
    assert client.get("/designer?run=nope").status_code == 404


def test_run_on_the_sandbox_queues_the_job_net_for_a_worker(settings: Any) -> None:
    from tests.console.conftest import TOKEN

    from cfnops.console import Auth, create_app
    from cfnops.jobs import JobService

    sandboxed = settings.replace(aws=settings.aws.replace(endpoint_url="http://127.0.0.1:9"))
    definition = {"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}
    with TestClient(
        create_app(sandboxed, Auth({"alice": TOKEN})), headers={"Accept": "text/html"}
    ) as c:
        c.get(f"/login?token={TOKEN}")
        assert _boot(c.get("/designer").text)["sandbox"] is True
        body = {"definition": definition, "input": {"n": 1}, "machineName": "small"}
        answer = _post(c, "/designer/api/run", body)
        assert answer.status_code == 200, answer.text
        run_id = answer.json()["runId"]
        assert answer.json()["url"] == f"/jobs/{run_id}" and run_id.startswith("small-")
        row = JobService(runtime_for(sandboxed)).store.get_run(run_id)
        assert (row.definition, row.input, row.machine_name) == (definition, {"n": 1}, "small")
        assert "designer.run" in c.get("/audit").text


def test_save_keeps_the_files_mode_and_new_files_get_the_umasks(
    client: TestClient, tmp_path: Path
) -> None:
    target = tmp_path / "defs" / "kept.asl.json"
    target.write_text('{"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}\n')
    target.chmod(0o640)
    definition = {"StartAt": "A", "States": {"A": {"Type": "Succeed", "Comment": "x"}}}
    base = {"format": "json", "text": target.read_text()}
    body = {"path": str(target), "definition": definition, "format": "json", "base": base}
    assert _post(client, "/designer/api/save", body).status_code == 200
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert json.loads(target.read_text()) == definition
    mask = os.umask(0o027)
    try:
        fresh = tmp_path / "defs" / "new.asl.json"
        assert _post(client, "/designer/api/save", {**body, "path": str(fresh)}).status_code == 200
    finally:
        os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640  # 0666 less the umask 027


def _lambda_part(end: dict[str, Any]) -> dict[str, Any]:
    """The designer's Lambda part as the palette adds it (default ResultPath $.result)."""
    return {
        "Type": "Task",
        "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": "my-function", "Payload.$": "$"},
        "ResultSelector": {"Payload.$": "$.Payload"},
        "ResultPath": "$.result",
        **end,
    }


def test_a_lambda_part_inside_a_map_over_numbers_is_flagged() -> None:
    """Lambda → Choice (on the Lambda's unknown result) → Map over numbers whose item step
    is a Lambda part: its ResultPath cannot be applied to an item such as 2 (the run would
    fail with States.ResultPathMatchFailure), and the check says so with the sample's items."""
    definition = {
        "StartAt": "Lambda",
        "States": {
            "Lambda": _lambda_part({"Next": "Choice"}),
            "Choice": {
                "Type": "Choice",
                "Choices": [
                    {"Variable": "$.result.Payload.ok", "BooleanEquals": True, "Next": "Map"}
                ],
                "Default": "Done",
            },
            "Map": {
                "Type": "Map",
                "ItemsPath": "$.numbers",
                "ItemProcessor": {
                    "ProcessorConfig": {"Mode": "INLINE"},
                    "StartAt": "Each",
                    "States": {"Each": _lambda_part({"End": True})},
                },
                "ResultPath": "$.mapped",
                "Next": "Done",
            },
            "Done": {"Type": "Succeed"},
        },
    }
    found = design_check(definition, {"numbers": [1, 2, 3]}, {})
    assert found["ok"] is False
    errors = [f for f in found["findings"] if f["severity"] == "error"]
    assert [f["pointer"] for f in errors] == ["/States/Map/ItemProcessor/States/Each/ResultPath"]
    assert "Unable to apply ResultPath '$.result'" in errors[0]["message"]
    assert found["states"]["/States/Map/ItemProcessor/States/Each"]["input"] == ["number"]
    assert found["notChecked"]  # the Lambda's result is unknown: the page must not say "No errors"


def test_a_result_path_on_an_unknown_input_is_warned() -> None:
    """A Map over the items of a Lambda's undeclared result: each item is unknown, so the
    item step's ResultPath (the Lambda part's default ``$.result``) may meet a number and
    fail the run; the check warns there, and nowhere the input is a known object."""
    definition = {
        "StartAt": "List",
        "States": {
            "List": _lambda_part({"Next": "Map"}),
            "Map": {
                "Type": "Map",
                "ItemsPath": "$.result.Payload.items",
                "ItemProcessor": {
                    "ProcessorConfig": {"Mode": "INLINE"},
                    "StartAt": "Each",
                    "States": {
                        "Each": _lambda_part({"Next": "Keep"}),
                        "Keep": {"Type": "Pass", "ResultPath": None, "End": True},
                    },
                },
                "ResultPath": "$.mapped",
                "End": True,
            },
        },
    }
    found = design_check(definition, {"job": "x"}, {})
    warned = [f for f in found["findings"] if f["code"] == "RESULT_PATH_UNKNOWN_INPUT"]
    assert [f["pointer"] for f in warned] == ["/States/Map/ItemProcessor/States/Each/ResultPath"]
    assert warned[0]["severity"] == "warning"
    assert "States.ResultPathMatchFailure" in warned[0]["message"]
    assert "Task results" in warned[0]["suggestion"]
    assert found["ok"] is True  # a warning, not an error: the items may well be objects
    # Declared items that are objects: nothing to warn about.
    declared = {"List": {"Payload": {"items": [{"n": 1}]}}}
    again = design_check(definition, {"job": "x"}, declared)
    assert not [f for f in again["findings"] if f["code"] == "RESULT_PATH_UNKNOWN_INPUT"]
