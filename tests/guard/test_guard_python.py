"""The Python front end: data flow and request-type paths on small handlers."""

from __future__ import annotations

import textwrap

import pytest

from cfnops.guard._facts import (
    INCOMING_ID,
    LOG_STREAM,
    NONE,
    RANDOM,
    REQUEST_ID,
    TIME,
    HandlerFacts,
)
from cfnops.guard._flow import HandlerSyntaxError
from cfnops.guard._python import analyze_python


def facts(code: str, entry: str = "handler") -> HandlerFacts:
    return analyze_python(textwrap.dedent(code), entry)


def ids(result: HandlerFacts, request_type: str, kind: str = "cfn_response") -> set[str]:
    """Labels of every physical id reported on ``request_type``."""
    out: set[str] = set()
    for sink in result.sinks:
        if sink.request_type == request_type and sink.kind == kind:
            out |= sink.value.labels
    return out


def test_fallback_after_the_incoming_id_is_stable_on_update() -> None:
    result = facts(
        """
        import uuid, cfnresponse
        def handler(event, context):
            pid = event.get("PhysicalResourceId") or str(uuid.uuid4())
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert RANDOM in ids(result, "Create")


def test_get_with_a_default_is_the_incoming_id_on_update() -> None:
    result = facts(
        """
        import time, cfnresponse
        def handler(event, context):
            pid = event.get("PhysicalResourceId", str(time.time()))
            cfnresponse.send(event, context, "SUCCESS", {}, physicalResourceId=pid)
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert TIME in ids(result, "Create")


def test_conditional_expression_on_request_type() -> None:
    result = facts(
        """
        import cfnresponse
        def handler(event, context):
            new = event["RequestType"] == "Create"
            rid = context.aws_request_id if new else event["PhysicalResourceId"]
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, rid)
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert ids(result, "Create") == {REQUEST_ID}


def test_early_return_removes_delete_from_the_rest() -> None:
    result = facts(
        """
        import cfnresponse
        def handler(event, context):
            if event["RequestType"] == "Delete":
                cfnresponse.send(event, context, "SUCCESS", {}, event["PhysicalResourceId"])
                return
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, context.log_stream_name)
        """
    )
    assert ids(result, "Delete") == {INCOMING_ID}
    assert ids(result, "Update") == {LOG_STREAM}


def test_wrapper_with_default_none_reports_a_missing_id() -> None:
    result = facts(
        """
        from cfnresponse import send, SUCCESS
        def reply(event, context, pid=None):
            send(event, context, SUCCESS, {}, pid)
        def handler(event, context):
            reply(event, context)
        """
    )
    (sink,) = [s for s in result.sinks if s.request_type == "Update"]
    assert sink.value.labels == {NONE}
    assert sink.status == {"SUCCESS"}
    assert sink.line == 4


def test_dispatch_table_runs_only_the_matching_handler() -> None:
    result = facts(
        """
        import cfnresponse, boto3
        s3 = boto3.client("s3")
        def on_create(event):
            return event["ResourceProperties"]["Bucket"]
        def on_delete(event):
            s3.delete_bucket(Bucket=event["ResourceProperties"]["Bucket"])
        def handler(event, context):
            handlers = {"Create": on_create, "Delete": on_delete}
            handlers[event["RequestType"]](event)
            cfnresponse.send(event, context, "SUCCESS", {}, event.get("PhysicalResourceId"))
        """
    )
    assert [a.what for a in result.delete_actions] == ["delete_bucket()"]
    assert result.delete_id_reads == ()


def test_match_statement_on_request_type() -> None:
    result = facts(
        """
        import cfnresponse, uuid
        def handler(event, context):
            match event["RequestType"]:
                case "Create":
                    pid = uuid.uuid4().hex
                case "Update" | "Delete":
                    pid = event["PhysicalResourceId"]
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert RANDOM in ids(result, "Create")


def test_membership_and_lower_case_comparisons() -> None:
    result = facts(
        """
        import cfnresponse
        def handler(event, context):
            kind = event["RequestType"].lower()
            if kind in ("create",):
                cfnresponse.send(event, context, cfnresponse.SUCCESS, {})
            else:
                cfnresponse.send(event, context, "SUCCESS", {}, event["PhysicalResourceId"])
        """
    )
    assert ids(result, "Create") == {NONE}
    assert ids(result, "Update") == {INCOMING_ID}


def test_response_body_with_a_log_stream_id() -> None:
    result = facts(
        """
        import json
        def handler(event, context):
            body = {"Status": "SUCCESS", "PhysicalResourceId": context.log_stream_name}
            return json.dumps(body)
        """
    )
    (sink,) = [s for s in result.sinks if s.request_type == "Update"]
    assert (sink.kind, sink.line, sink.status) == ("response_body", 4, {"SUCCESS"})
    assert sink.value.labels == {LOG_STREAM}


def test_crhelper_update_returns_are_recorded_per_return() -> None:
    result = facts(
        """
        from crhelper import CfnResource
        helper = CfnResource()
        @helper.update
        def update(event, context):
            if event["ResourceProperties"].get("Rename"):
                return event["ResourceProperties"]["Name"]
        def handler(event, context):
            helper(event, context)
        """
    )
    returns = {(s.line, frozenset(s.value.labels)) for s in result.sinks}
    assert result.uses_crhelper
    assert returns == {(7, frozenset({"other"})), (5, frozenset({"none"}))}
    assert all(s.request_type == "Update" for s in result.sinks)


def test_reads_of_the_id_on_delete_are_seen_through_variables() -> None:
    result = facts(
        """
        import boto3
        ssm = boto3.client("ssm")
        def handler(event, context):
            name = event["PhysicalResourceId"].split("/")[-1]
            if event["RequestType"] == "Delete":
                ssm.describe_parameters()
                ssm.delete_parameter(Name=name)
        """
    )
    assert [a.what for a in result.delete_actions] == ["delete_parameter()"]
    assert result.delete_id_reads == (8,)


def test_logging_the_id_is_not_looking_at_it() -> None:
    result = facts(
        """
        import logging, shutil
        log = logging.getLogger()
        def handler(event, context):
            log.info("deleting %s", event["PhysicalResourceId"])
            shutil.rmtree("/tmp/cache")
        """
    )
    assert [a.what for a in result.delete_actions] == ["rmtree()"]
    assert result.delete_id_reads == ()


def test_missing_entry_checks_top_level_functions() -> None:
    result = facts(
        """
        import cfnresponse
        def main(event, context):
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {})
        """,
        entry="handler",
    )
    assert not result.entry_found
    assert ids(result, "Update") == {NONE}


def test_recursion_terminates() -> None:
    result = facts(
        """
        def loop(event, n):
            return loop(event, n - 1)
        def handler(event, context):
            return loop(event, 3)
        """
    )
    assert result.sinks == ()


def test_syntax_error_is_reported_with_its_line() -> None:
    with pytest.raises(HandlerSyntaxError) as info:
        facts("def handler(event, context):\n    return (\n")
    assert info.value.line >= 2


def test_module_level_sends_and_collection_helpers_are_ignored() -> None:
    result = facts(
        """
        import boto3, cfnresponse
        try:
            s3 = boto3.resource("s3")
        except Exception:
            cfnresponse.send(event, context, cfnresponse.FAILED, {})
        def handler(event, context):
            pages = s3.meta.client.get_paginator("list_objects_v2").paginate(Bucket="b")
            for obj in s3.Bucket(event["PhysicalResourceId"]).objects.all():
                obj.delete()
            cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, event["PhysicalResourceId"])
        """
    )
    assert [s.line for s in result.sinks] == [11, 11, 11]
    assert [a.what for a in result.delete_actions] == ["delete()"]
    assert result.delete_id_reads == (9,)


@pytest.mark.parametrize(
    "body",
    [
        "pid = event.get('PhysicalResourceId')\nif not pid:\n    pid = str(uuid.uuid4())",
        "pid = event['PhysicalResourceId'] if 'PhysicalResourceId' in event else uuid.uuid4().hex",
        "if 'PhysicalResourceId' not in event:\n    pid = uuid.uuid4().hex\n"
        "else:\n    pid = event['PhysicalResourceId']",
    ],
)
def test_presence_checks_of_the_incoming_id(body: str) -> None:
    code = "import uuid, cfnresponse\ndef handler(event, context):\n"
    code += textwrap.indent(body, "    ") + "\n"
    code += "    cfnresponse.send(event, context, cfnresponse.SUCCESS, {}, pid)\n"
    result = facts(code)
    assert ids(result, "Update") == {INCOMING_ID}
    assert RANDOM in ids(result, "Create")


def test_nested_functions_see_the_enclosing_variables() -> None:
    result = facts(
        """
        import cfnresponse
        def handler(event, context):
            pid = context.log_stream_name
            def reply(status):
                cfnresponse.send(event, context, status, {}, pid)
            reply(cfnresponse.SUCCESS)
        """
    )
    (sink,) = [s for s in result.sinks if s.request_type == "Update"]
    assert sink.value.labels == {LOG_STREAM}
    assert sink.status == {"SUCCESS"}


def test_chained_comparisons_are_unknown_not_a_crash() -> None:
    result = facts(
        """
        import cfnresponse
        def handler(event, context):
            if 0 < len(event["PhysicalResourceId"]) < 10 and not event.get("Skip"):
                cfnresponse.send(event, context, cfnresponse.SUCCESS, {})
        """
    )
    assert ids(result, "Update") == {NONE}
    assert result.delete_id_reads == (4,)
