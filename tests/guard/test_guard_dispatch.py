"""Hard cases: dispatch tables, namespaces, instances, promise chains, callbacks, handler names.

Handlers answer CloudFormation as the custom-resource documentation describes
("Custom resource response objects", crpg-ref-responses.html: on Update and Delete
the PhysicalResourceId must be the one CloudFormation sent, or the resource is
replaced; "cfn-response module", cfn-lambda-function-code-cfnresponsemodule.html).
Each case routes the three request types differently; the analysis must see, per
request type, only the code that runs for it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cfnops.cli.main import run
from cfnops.guard import check_template
from cfnops.guard._facts import INCOMING_ID, RANDOM, TIME, HandlerFacts
from cfnops.guard._javascript import analyze_javascript
from cfnops.guard._python import analyze_python


def _ids(result: HandlerFacts) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for sink in result.sinks:
        out.setdefault(sink.request_type, set()).update(sink.value.labels)
    return out


def py(code: str) -> dict[str, set[str]]:
    return _ids(analyze_python(textwrap.dedent(code), "handler"))


def js(code: str) -> dict[str, set[str]]:
    return _ids(analyze_javascript(textwrap.dedent(code), "handler"))


PY_CASES = {
    "table-get-with-fallback": """
        import cfnresponse, uuid
        def create(event, context): return str(uuid.uuid4())
        def modify(event, context): return str(uuid.uuid4())
        def remove(event, context): return event["PhysicalResourceId"]
        HANDLERS = {"Create": create, "Update": modify}
        def handler(event, context):
            fn = HANDLERS.get(event["RequestType"], remove)
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, fn(event, context))
        """,
    "globals-by-derived-name": """
        import cfnresponse, time
        def on_create(event, context): return "r-%d" % time.time()
        def on_update(event, context): return "r-%d" % time.time()
        def on_delete(event, context): return event["PhysicalResourceId"]
        def handler(event, context):
            kind = event["RequestType"]
            fn = globals()["on_" + kind.lower()]
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, fn(event, context))
        """,
    "instance-routes-and-call": """
        import cfnresponse, uuid
        class Provider:
            def __init__(self):
                self.routes = {"Create": self.make, "Update": self.make, "Delete": self.drop}
            def make(self, event): return str(uuid.uuid4())
            def drop(self, event): return event["PhysicalResourceId"]
            def __call__(self, event, context):
                pid = self.routes[event["RequestType"]](event)
                cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
        provider = Provider()
        def handler(event, context):
            provider(event, context)
        """,
}


@pytest.mark.parametrize("case", sorted(PY_CASES))
def test_python_dispatch_runs_only_the_routed_function(case: str) -> None:
    found = py(PY_CASES[case])
    assert found["Delete"] == {INCOMING_ID}, found
    volatile = RANDOM if "uuid" in PY_CASES[case] else TIME
    assert volatile in found["Update"] and volatile in found["Create"]


def test_table_entry_named_after_another_request_type_is_still_routed() -> None:
    # the table, not the function's name, says what runs on Update
    found = py(
        """
        import cfnresponse, uuid
        def on_create(event, context): return event.get("PhysicalResourceId") or str(uuid.uuid4())
        def on_delete(event, context): return event["PhysicalResourceId"]
        ROUTES = {"Create": on_create, "Update": on_create, "Delete": on_delete}
        def handler(event, context):
            pid = ROUTES[event["RequestType"]](event, context)
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
        """
    )
    assert found["Update"] == {INCOMING_ID}
    assert RANDOM in found["Create"]


JS_CASES = {
    "handler-map": """
        const response = require('cfn-response');
        const handlers = {
          Create: (e, c) => response.send(e, c, response.SUCCESS, {}, 'id-' + Date.now()),
          Update: (e, c) => response.send(e, c, response.SUCCESS, {}, 'id-' + Date.now()),
          Delete: (e, c) => response.send(e, c, response.SUCCESS, {}, e.PhysicalResourceId),
        };
        exports.handler = (event, context) => handlers[event.RequestType](event, context);
        """,
    "promise-chain": """
        const response = require('cfn-response');
        const AWS = require('aws-sdk');
        const s3 = new AWS.S3();
        exports.handler = (event, context) => {
          if (event.RequestType === 'Delete') {
            return response.send(event, context, response.SUCCESS, {}, event.PhysicalResourceId);
          }
          s3.createBucket({ Bucket: 'b' }).promise()
            .then((data) => data.Location)
            .then((where) =>
              response.send(event, context, response.SUCCESS, {}, where + Date.now()));
        };
        """,
    "sdk-callback": """
        const response = require('cfn-response');
        const AWS = require('aws-sdk');
        const iam = new AWS.IAM();
        exports.handler = function (event, context) {
          if (event.RequestType == 'Delete') {
            return response.send(event, context, response.SUCCESS, {}, event.PhysicalResourceId);
          }
          iam.createRole({ RoleName: 'r' }, function (err, data) {
            if (err) {
              const id = event.PhysicalResourceId;
              return response.send(event, context, response.FAILED, {}, id);
            }
            response.send(event, context, response.SUCCESS, {}, 'role-' + Date.now());
          });
        };
        """,
    "async-await-helper": """
        const https = require('https');
        async function respond(event, status, id) {
          const body = JSON.stringify({
            Status: status, PhysicalResourceId: id, StackId: event.StackId,
            RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId });
          await new Promise((resolve) => {
            const req = https.request(event.ResponseURL, { method: 'PUT' }, resolve);
            req.end(body);
          });
        }
        exports.handler = async (event) => {
          if (event.RequestType === 'Delete') {
            return respond(event, 'SUCCESS', event.PhysicalResourceId);
          }
          await respond(event, 'SUCCESS', `res-${Date.now()}`);
        };
        """,
}


@pytest.mark.parametrize("case", sorted(JS_CASES))
def test_nodejs_responses_through_maps_chains_callbacks_and_async(case: str) -> None:
    found = js(JS_CASES[case])
    assert found["Delete"] == {INCOMING_ID}, found
    assert TIME in found["Update"] and TIME in found["Create"], found


TEMPLATE = """\
Parameters:
  Entry: {Type: String}
  Module: {Type: String, AllowedValues: [app]}
Resources:
  Named:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: !Join [".", [!Ref Module, !Select [1, !Split [",", "first,main"]]]]
      Role: arn:aws:iam::123456789012:role/x
      Code:
        ZipFile: |
          import cfnresponse, uuid
          def main(event, context):
              cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, str(uuid.uuid4()))
  Unknown:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: !Ref Entry
      Role: arn:aws:iam::123456789012:role/x
      Code:
        ZipFile: |
          import cfnresponse
          def on_event(event, context):
              pid = event.get("PhysicalResourceId")
              cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
  ByName:
    Type: Custom::Thing
    Properties: {ServiceToken: !GetAtt Named.Arn}
  ByParameter:
    Type: Custom::Thing
    Properties: {ServiceToken: !GetAtt Unknown.Arn}
"""


def test_handler_names_from_parameters_join_select_split(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    report = check_template(path)
    assert {f.resource for f in report.findings} == {"ByName"}  # main() found by its name
    (partial,) = report.not_checked
    assert (partial.resource, partial.handler, partial.partial) == ("ByParameter", "Unknown", True)
    assert "cannot be resolved" in partial.reason
    assert report.not_analysed == ()


def test_partly_checked_handlers_are_listed_in_text_json_and_sarif(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    assert run(["guard", str(path), "--fail-on-unchecked"]) == 1  # ByName's CR002 error
    text = capsys.readouterr().out
    assert "1 checked in part" in text and "ByParameter" in text
    run(["guard", str(path), "-o", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["notChecked"] == [
        {
            "resource": "ByParameter",
            "handler": "Unknown",
            "reason": doc["notChecked"][0]["reason"],
            "partial": True,
        }
    ]
    run(["guard", str(path), "-o", "sarif"])
    log = json.loads(capsys.readouterr().out)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    flagged = [n for n in notes if n.get("descriptor") == {"id": "not-checked"}]
    assert [n["properties"]["resource"] for n in flagged] == ["ByParameter"]
    assert flagged[0]["level"] == "note"
