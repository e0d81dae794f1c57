"""Hypothesis: handlers assembled from typical statements never crash the analysers, and
what they report stays within the model (request types, lines, statuses)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cfnops.guard._facts import REQUEST_TYPES, UNKNOWN_STATUS, HandlerFacts
from cfnops.guard._javascript import analyze_javascript
from cfnops.guard._python import analyze_python

PY_STATEMENTS = [
    "pid = event.get('PhysicalResourceId')",
    "pid = event['PhysicalResourceId'] if 'PhysicalResourceId' in event else str(uuid.uuid4())",
    "pid = context.log_stream_name",
    "pid = f\"{props['Name']}-{time.time()}\"",
    "kind = event['RequestType']",
    "if kind == 'Delete': s3.delete_bucket(Bucket=props['Name'])",
    "if kind == 'Delete': return",
    "if event['RequestType'] in ('Create', 'Update'): s3.create_bucket(Bucket=props['Name'])",
    "cfnresponse.send(event, context, cfnresponse.SUCCESS, {})",
    "cfnresponse.send(event, context, cfnresponse.FAILED, {}, pid)",
    "cfnresponse.send(event, context, status, {}, physicalResourceId=pid)",
    "status = cfnresponse.SUCCESS if pid else cfnresponse.FAILED",
    "body = {'Status': 'SUCCESS', 'PhysicalResourceId': pid}",
    "helper_fn(event, pid)",
    "for key in props: s3.delete_object(Bucket=pid, Key=key)",
    "while pid: pid = None",
    "try: s3.put_object(Bucket=pid, Key='k')\nexcept Exception as exc: raise",
    "return pid",
]

JS_STATEMENTS = [
    "pid = event.PhysicalResourceId;",
    "pid = event.PhysicalResourceId || crypto.randomUUID();",
    "pid = context.logStreamName;",
    "pid = `${props.Name}-${Date.now()}`;",
    "if (event.RequestType === 'Delete') { await s3.send(new DeleteBucketCommand({ pid })); }",
    "if (event.RequestType === 'Delete') return;",
    "switch (event.RequestType) { case 'Create': pid = props.Name; break; default: }",
    "response.send(event, context, response.SUCCESS, {});",
    "response.send(event, context, response.FAILED, {}, pid);",
    "status = pid ? response.SUCCESS : response.FAILED;",
    "body = { Status: 'SUCCESS', PhysicalResourceId: pid };",
    "helperFn(event, pid, () => response.send(event, context, status, {}));",
    "for (const key of Object.keys(props)) { s3.deleteObject({Bucket: pid, Key: key}); }",
    "try { await s3.putObject({Bucket: pid}).promise(); } catch (err) { throw err; }",
    "return { PhysicalResourceId: pid };",
]


def _check(facts: HandlerFacts, lines: int) -> None:
    for sink in facts.sinks:
        assert sink.request_type in REQUEST_TYPES
        assert 1 <= sink.line <= lines
        assert sink.status <= {"SUCCESS", "FAILED", UNKNOWN_STATUS}
        assert sink.status
    assert all(1 <= a.line <= lines for a in facts.delete_actions)
    assert list(facts.delete_id_reads) == sorted(set(facts.delete_id_reads))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PY_STATEMENTS), max_size=10))
def test_python_handlers_never_crash(statements: list[str]) -> None:
    header = "import time, uuid, boto3, cfnresponse\ns3 = boto3.client('s3')\n"
    header += "def helper_fn(event, pid):\n    s3.delete_bucket(Bucket=pid)\n"
    header += "def handler(event, context):\n    props = event['ResourceProperties']\n"
    header += "    pid = status = None\n"
    body = "".join(
        "".join(f"    {line}\n" for line in statement.splitlines()) for statement in statements
    )
    code = header + body
    _check(analyze_python(code, "handler"), code.count("\n"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(JS_STATEMENTS), max_size=10))
def test_javascript_handlers_never_crash(statements: list[str]) -> None:
    header = (
        "const response = require('cfn-response');\n"
        "const crypto = require('crypto');\n"
        "const { S3Client, DeleteBucketCommand } = require('@aws-sdk/client-s3');\n"
        "const s3 = new S3Client({});\n"
        "function helperFn(event, pid, done) { done(); }\n"
        "exports.handler = async (event, context) => {\n"
        "  const props = event.ResourceProperties;\n"
        "  let pid, status, body;\n"
    )
    code = header + "".join(f"  {s}\n" for s in statements) + "};\n"
    _check(analyze_javascript(code, "handler"), code.count("\n"))
