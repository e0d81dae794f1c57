"""The handler shapes the guard follows: each class with an unstable and a stable case.

Every template and handler here is written for these tests.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cfnops.cli.main import run
from cfnops.guard import check_template

TEMPLATE = """\
Parameters:
  Module: {{Type: String, Default: app}}
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: {runtime}
      Handler: {handler}
      Role: arn:aws:iam::123456789012:role/r
      Code: {{S3Bucket: b, S3Key: k}}
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Size: 3
"""


def _check(
    tmp_path: Path,
    files: dict[str, str],
    *,
    runtime: str = "python3.12",
    handler: str = "index.handler",
) -> tuple[set[str], list[str]]:
    (tmp_path / "code").mkdir()
    for name, text in files.items():
        (tmp_path / "code" / name).write_text(textwrap.dedent(text))
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE.format(runtime=runtime, handler=handler))
    report = check_template(template, tmp_path / "code")
    return {f.rule for f in report.findings}, [n.reason for n in report.not_checked]


PY_GETATTR = """\
    import cfnresponse

    class Provider:
        def on_create(self, event, context):
            return "thing-1"
        def on_update(self, event, context):
            {update}
        def on_delete(self, event, context):
            return event["PhysicalResourceId"]

    def handler(event, context):
        provider = Provider()
        method = getattr(provider, "on_" + event["RequestType"].lower())
        pid = method(event, context)
        cfnresponse.send(event, context, cfnresponse.SUCCESS, {{}}, pid)
"""


@pytest.mark.parametrize(
    ("update", "unstable"),
    [
        ("return context.log_stream_name", True),
        ("return event['PhysicalResourceId']", False),
    ],
)
def test_getattr_dispatch_on_request_type(tmp_path: Path, update: str, unstable: bool) -> None:
    rules, _ = _check(tmp_path, {"index.py": PY_GETATTR.format(update=update)})
    assert ("CR002" in rules) is unstable


PY_CLASS = """\
    import cfnresponse

    class Resource:
        def __init__(self, event, context):
            self.event = event
            self.context = context
        def run(self):
            if self.event["RequestType"] == "Update":
                self.update()
        def update(self):
            cfnresponse.send(self.event, self.context, cfnresponse.SUCCESS, {{}}{pid})

    def handler(event, context):
        Resource(event, context).run()
"""


@pytest.mark.parametrize(
    ("pid", "unstable"),
    [("", True), (", None", True), (", ''", True), (", self.event['PhysicalResourceId']", False)],
    ids=["missing", "none", "empty", "incoming"],
)
def test_class_method_dispatch_and_default_ids(tmp_path: Path, pid: str, unstable: bool) -> None:
    rules, _ = _check(tmp_path, {"index.py": PY_CLASS.format(pid=pid)})
    assert ("CR001" in rules) is unstable


HELPER = """\
    import json
    import urllib.request

    def send_response(event, context, status, physical_id=None):
        body = {{
            "Status": status,
            "PhysicalResourceId": {expr},
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
        }}
        request = urllib.request.Request(
            event["ResponseURL"], data=json.dumps(body).encode(), method="PUT"
        )
        urllib.request.urlopen(request)
"""
USES_HELPER = """\
    from cfn_util import send_response

    def handler(event, context):
        if event["RequestType"] == "Create":
            send_response(event, context, "SUCCESS", "thing-1")
        else:
            send_response(event, context, "SUCCESS", event.get("PhysicalResourceId"){extra})
"""


@pytest.mark.parametrize(
    ("expr", "extra", "unstable"),
    [
        ("physical_id or context.log_stream_name", "", False),
        ("physical_id or context.log_stream_name", " if False else None", True),
        ("context.log_stream_name", "", True),
        ("physical_id", "", False),
    ],
    ids=["passes-incoming", "drops-incoming", "always-log-stream", "plain"],
)
def test_sends_through_a_project_local_helper(
    tmp_path: Path, expr: str, extra: str, unstable: bool
) -> None:
    files = {
        "cfn_util.py": HELPER.format(expr=expr),
        "index.py": USES_HELPER.format(extra=extra),
    }
    rules, _ = _check(tmp_path, files)
    assert ("CR002" in rules) is unstable


NODE_CALLBACK = """\
    const response = require('cfn-response');
    const { IAM } = require('@aws-sdk/client-iam');
    const iam = new IAM({});

    exports.handler = function (event, context) {
      function done(err) {
        const status = err ? response.FAILED : response.SUCCESS;
        response.send(event, context, status, {}%s);
      }
      if (event.RequestType === 'Delete') {
        iam.deleteAccountPasswordPolicy({}, done);
        return;
      }
      iam.updateAccountPasswordPolicy({ MinimumPasswordLength: 14 }, done);
    };
"""


@pytest.mark.parametrize(
    ("pid", "unstable"),
    [("", True), (", ''", True), (", 'password-policy'", False)],
    ids=["missing", "empty", "fixed"],
)
def test_callback_handed_to_an_sdk_call_is_assumed_called(
    tmp_path: Path, pid: str, unstable: bool
) -> None:
    rules, _ = _check(tmp_path, {"index.js": NODE_CALLBACK % pid}, runtime="nodejs20.x")
    assert ("CR001" in rules) is unstable


@pytest.mark.parametrize(
    ("handler", "parameters"),
    [
        ("!Join ['.', [!Ref Module, handler]]", "Join of a parameter default"),
        ('!Sub "${Module}.handler"', "Sub of a parameter default"),
    ],
)
def test_handler_path_resolved_through_parameters(
    tmp_path: Path, handler: str, parameters: str
) -> None:
    code = "import cfnresponse\ndef handler(event, context):\n"
    code += "    cfnresponse.send(event, context, cfnresponse.SUCCESS, {})\n"
    rules, unchecked = _check(tmp_path, {"app.py": code}, handler=handler)
    assert rules == {"CR001"}, parameters
    assert unchecked == []


@pytest.mark.parametrize(
    ("runtime", "handler", "language"),
    [
        ("go1.x", "main", "Go"),
        ("java21", "com.example.Handler::handleRequest", "Java"),
        ("provided.al2023", "bootstrap", "custom-runtime"),
    ],
)
def test_go_and_java_handlers_are_reported_not_checked(
    tmp_path: Path, runtime: str, handler: str, language: str
) -> None:
    rules, unchecked = _check(
        tmp_path, {"main.go": "package main\n"}, runtime=runtime, handler=handler
    )
    assert rules == set()
    assert len(unchecked) == 1 and language in unchecked[0]


def test_cli_json_not_checked_and_fail_on_unchecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "code").mkdir()
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE.format(runtime="go1.x", handler="main"))
    args = ["guard", str(template), "--code", str(tmp_path / "code")]
    assert run([*args, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == []
    (item,) = data["notChecked"]
    assert item["resource"] == "Thing" and item["handler"] == "Fn"
    assert "Go" in item["reason"]
    assert run([*args, "--fail-on-unchecked"]) == 1
    assert "1 handler not checked" in capsys.readouterr().out
    assert run([*args, "--output", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("Go" in n["message"]["text"] for n in notes)


JS_HELPER = """\
    const https = require('https');

    function respond(event, context, status, physicalId) {
      const body = JSON.stringify({
        Status: status,
        PhysicalResourceId: %s,
        StackId: event.StackId,
        RequestId: event.RequestId,
        LogicalResourceId: event.LogicalResourceId,
      });
      const req = https.request(event.ResponseURL, { method: 'PUT' });
      req.end(body);
    }

    module.exports = { respond };
"""
JS_USES_HELPER = """\
    const { respond } = require('./respond');

    exports.handler = async (event, context) => {
      if (event.RequestType === 'Create') {
        return respond(event, context, 'SUCCESS', 'queue-config');
      }
      return respond(event, context, 'SUCCESS'%s);
    };
"""


@pytest.mark.parametrize(
    ("expr", "extra", "unstable"),
    [
        ("physicalId || context.logStreamName", "", True),
        ("physicalId || context.logStreamName", ", event.PhysicalResourceId", False),
        ("physicalId", ", event.PhysicalResourceId", False),
    ],
    ids=["default-log-stream", "passes-incoming", "plain"],
)
def test_node_sends_through_a_project_local_module(
    tmp_path: Path, expr: str, extra: str, unstable: bool
) -> None:
    files = {"respond.js": JS_HELPER % expr, "index.js": JS_USES_HELPER % extra}
    rules, _ = _check(tmp_path, files, runtime="nodejs20.x")
    assert ("CR002" in rules) is unstable


@pytest.mark.parametrize(
    ("module", "runtime", "code"),
    [
        (
            "cfn-response-promise",
            "nodejs20.x",
            "const response = require('cfn-response-promise');\n"
            "exports.handler = async (event, context) => {\n"
            "  await response.send(event, context, response.SUCCESS, {});\n};\n",
        ),
        (
            "cfn_response",
            "python3.12",
            "import cfn_response\n\ndef handler(event, context):\n"
            "    cfn_response.send(event, context, cfn_response.SUCCESS, {}, None)\n",
        ),
    ],
)
def test_cfn_response_ports_are_recognised(
    tmp_path: Path, module: str, runtime: str, code: str
) -> None:
    name = "index.js" if runtime.startswith("node") else "index.py"
    rules, _ = _check(tmp_path, {name: code}, runtime=runtime)
    assert rules == {"CR001"}, module


PY_EXECUTOR = """\
    from concurrent.futures import ThreadPoolExecutor
    import cfnresponse

    def process(event, context):
        cfnresponse.send(event, context, cfnresponse.SUCCESS, {{}}{pid})

    def handler(event, context):
        with ThreadPoolExecutor() as pool:
            pool.submit(process, event, context)
"""


@pytest.mark.parametrize(
    ("pid", "unstable"), [("", True), (", event.get('PhysicalResourceId', 'x')", False)]
)
def test_python_function_handed_to_unseen_code_is_assumed_called(
    tmp_path: Path, pid: str, unstable: bool
) -> None:
    rules, _ = _check(tmp_path, {"index.py": PY_EXECUTOR.format(pid=pid)})
    assert ("CR001" in rules) is unstable
