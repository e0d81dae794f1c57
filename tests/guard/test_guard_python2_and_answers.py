"""Python 2 handlers are analysed; FAILED-only answers and the response PUT are judged right.

Every handler here is written for these tests.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cfnops.guard import Severity, check_template
from cfnops.guard._javascript import analyze_javascript
from cfnops.guard._python import analyze_python

TEMPLATE = """\
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: {runtime}
      Handler: index.handler
      Role: arn:aws:iam::123456789012:role/r
      Code: {{S3Bucket: b, S3Key: k}}
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
"""


def _report(tmp_path: Path, name: str, code: str, runtime: str):  # type: ignore[no-untyped-def]
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / name).write_text(textwrap.dedent(code))
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE.format(runtime=runtime))
    return check_template(template, tmp_path / "code")


PY2_HANDLER = """\
    import json, uuid, urllib2
    import cfnresponse

    def handler(event, context):
        print "request", json.dumps(event)
        try:
            if event['RequestType'] == 'Delete':
                pid = event['PhysicalResourceId']
                cfnresponse.send(event, context, cfnresponse.SUCCESS, {{}}, pid)
                return
            for key, value in event['ResourceProperties'].iteritems():
                print key, value
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {{}}, {pid})
        except Exception, exc:
            print exc
            pid = event.get('PhysicalResourceId', 'none')
            cfnresponse.send(event, context, cfnresponse.FAILED, {{}}, pid)
"""


@pytest.mark.parametrize(
    ("pid", "rule"),
    [
        ("str(uuid.uuid4())", "CR002"),
        ("context.log_stream_name", "CR002"),
        ("event.get('PhysicalResourceId') or str(uuid.uuid4())", None),
    ],
    ids=["uuid", "log-stream", "stable"],
)
def test_python2_handler_is_analysed_not_skipped(
    tmp_path: Path, pid: str, rule: str | None
) -> None:
    report = _report(tmp_path, "index.py", PY2_HANDLER.format(pid=pid), "python2.7")
    assert report.not_checked == ()
    assert report.notes == ()
    got = [(f.rule, f.line, f.severity) for f in report.findings]
    # the finding points at the Python 2 source's own line (line 13: the send)
    assert got == ([(rule, 13, Severity.ERROR)] if rule else [])


def test_code_that_is_neither_python_3_nor_2_names_the_python_3_error(tmp_path: Path) -> None:
    report = _report(
        tmp_path, "index.py", "def handler(event, context):\n    return (\n", "python2.7"
    )
    (item,) = report.not_checked
    assert "cannot parse the handler" in item.reason
    assert "index.py:" in item.reason


def test_python2_project_local_helper_is_followed(tmp_path: Path) -> None:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "util.py").write_text(
        "def reply(event, context, status, pid=None):\n"
        "    print 'replying'\n"
        "    import cfnresponse\n"
        "    cfnresponse.send(event, context, status, {}, pid or context.log_stream_name)\n"
    )
    (tmp_path / "code" / "index.py").write_text(
        "import util\ndef handler(event, context):\n    print 'x'\n"
        "    util.reply(event, context, 'SUCCESS')\n"
    )
    template = tmp_path / "template.yaml"
    template.write_text(TEMPLATE.format(runtime="python2.7"))
    report = check_template(template, tmp_path / "code")
    assert [(f.rule, f.line) for f in report.findings] == [("CR002", 4)]


FAILED_ONLY = """\
    import uuid, cfnresponse

    def handler(event, context):
        try:
            pid = event.get('PhysicalResourceId') or 'thing-1'
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
        except Exception:
            cfnresponse.send(event, context, cfnresponse.FAILED, {}, str(uuid.uuid4()))
"""


def test_cr002_on_a_failed_only_answer_is_a_warning_like_cr001(tmp_path: Path) -> None:
    report = _report(tmp_path, "index.py", FAILED_ONLY, "python3.12")
    ((rule, line, severity, message),) = [
        (f.rule, f.line, f.severity, f.message) for f in report.findings
    ]
    assert (rule, line, severity) == ("CR002", 8, Severity.WARNING)
    assert "reports FAILED" in message
    assert not report.has_errors


def test_cr002_on_a_success_answer_stays_an_error(tmp_path: Path) -> None:
    code = FAILED_ONLY.replace("cfnresponse.FAILED", "cfnresponse.SUCCESS")
    report = _report(tmp_path, "index.py", code, "python3.12")
    assert [(f.rule, f.severity) for f in report.findings] == [("CR002", Severity.ERROR)]


BOTOCORE_PUT = """\
    import json
    import boto3
    from botocore.awsrequest import AWSRequest
    from botocore.httpsession import URLLib3Session

    def respond(event, status, pid):
        body = json.dumps({"Status": status, "PhysicalResourceId": pid})
        request = AWSRequest(method="PUT", url=event["ResponseURL"], data=body)
        session = URLLib3Session()
        session.send(request.prepare())

    def handler(event, context):
        %s
        respond(event, "SUCCESS", "thing-1")
"""
VENDORED_PUT = """\
    import json
    import boto3
    from botocore.vendored import requests

    def handler(event, context):
        %s
        body = {"Status": "SUCCESS", "PhysicalResourceId": "thing-1"}
        requests.put(event['ResponseURL'], data=json.dumps(body))
"""
URLLIB_PUT = """\
    import json, boto3
    from urllib.request import Request, urlopen

    def handler(event, context):
        responseUrl = event['ResponseURL']
        %s
        urlopen(Request(responseUrl, data=b"{}", method='PUT'))
"""


@pytest.mark.parametrize(
    "code", [BOTOCORE_PUT, VENDORED_PUT, URLLIB_PUT], ids=["botocore", "vendored", "urllib"]
)
def test_the_response_put_is_never_a_delete_action(code: str) -> None:
    quiet = analyze_python(textwrap.dedent(code % "pass"), "handler")
    assert quiet.delete_actions == ()
    # the same handler deleting something on Delete: that call is seen, and only that one
    deleting = "boto3.client('ssm').delete_parameter(Name='p')"
    acting = analyze_python(textwrap.dedent(code % deleting), "handler")
    assert [a.what for a in acting.delete_actions] == ["delete_parameter()"]


def test_cr004_does_not_fire_on_the_response_put(tmp_path: Path) -> None:
    report = _report(tmp_path, "index.py", BOTOCORE_PUT % "pass", "python3.12")
    assert report.findings == ()


NODE_SDK_PUT = """\
    const AWS = require('aws-sdk');
    const url = require('url');
    exports.handler = async (event, context) => {
      const parsed = url.parse(event.ResponseURL);
      const req = new AWS.HttpRequest(new AWS.Endpoint(event.ResponseURL));
      req.method = 'PUT';
      const client = new AWS.NodeHttpClient();
      client.handleRequest(req, {}, () => {});
      %s
    };
"""


def test_node_response_put_through_the_sdk_is_not_an_action() -> None:
    quiet = analyze_javascript(textwrap.dedent(NODE_SDK_PUT % ""), "handler")
    assert quiet.delete_actions == ()
    acting = analyze_javascript(
        textwrap.dedent(
            NODE_SDK_PUT % "await new AWS.SSM().deleteParameter({Name: 'p'}).promise();"
        ),
        "handler",
    )
    assert [a.what for a in acting.delete_actions] == ["deleteParameter()"]
