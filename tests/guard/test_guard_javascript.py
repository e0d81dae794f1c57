"""The Node.js front end (esprima): data flow and request-type paths on small handlers."""

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
from cfnops.guard._javascript import analyze_javascript
from cfnops.guard._js_syntax import parse_javascript


def facts(code: str, entry: str = "handler") -> HandlerFacts:
    return analyze_javascript(textwrap.dedent(code), entry)


def ids(result: HandlerFacts, request_type: str) -> set[str]:
    out: set[str] = set()
    for sink in result.sinks:
        if sink.request_type == request_type:
            out |= sink.value.labels
    return out


def test_default_id_on_every_path() -> None:
    result = facts(
        """
        var response = require('cfn-response');
        exports.handler = function (event, context) {
          response.send(event, context, response.SUCCESS, {});
        };
        """
    )
    assert ids(result, "Update") == {NONE}
    assert {s.status for s in result.sinks} == {frozenset({"SUCCESS"})}


def test_incoming_id_with_fallback() -> None:
    result = facts(
        """
        const response = require('cfn-response');
        const crypto = require('crypto');
        exports.handler = (event, context) => {
          const id = event.PhysicalResourceId || crypto.randomUUID();
          response.send(event, context, response.SUCCESS, {}, id);
        };
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert RANDOM in ids(result, "Create")


def test_switch_with_fall_through_and_default() -> None:
    result = facts(
        """
        const response = require('cfn-response');
        exports.handler = function (event, context) {
          let id;
          switch (event.RequestType) {
            case 'Create':
              id = context.logStreamName;
              break;
            case 'Update':
            case 'Delete':
              id = event.PhysicalResourceId;
              break;
            default:
              id = Date.now();
          }
          response.send(event, context, response.SUCCESS, {}, id);
        };
        """
    )
    assert ids(result, "Create") == {LOG_STREAM}
    assert ids(result, "Update") == {INCOMING_ID}
    assert ids(result, "Delete") == {INCOMING_ID}


def test_includes_and_negated_comparison() -> None:
    result = facts(
        """
        const response = require('cfn-response');
        exports.handler = function (event, context) {
          if (!['Update', 'Delete'].includes(event.RequestType)) {
            return response.send(event, context, response.SUCCESS, {}, context.awsRequestId);
          }
          if (event.RequestType.toLowerCase() !== 'update') {
            return response.send(event, context, response.SUCCESS, {});
          }
          response.send(event, context, response.SUCCESS, {}, event.PhysicalResourceId);
        };
        """
    )
    assert ids(result, "Create") == {REQUEST_ID}
    assert ids(result, "Delete") == {NONE}
    assert ids(result, "Update") == {INCOMING_ID}


def test_destructured_parameters_and_module_exports_alias() -> None:
    result = facts(
        """
        async function main({ RequestType, PhysicalResourceId = `id-${Date.now()}` }) {
          return { PhysicalResourceId, Data: { RequestType } };
        }
        module.exports = { handler: main };
        """
    )
    assert result.entry_found
    assert ids(result, "Update") == {INCOMING_ID}
    assert TIME in ids(result, "Create")


def test_es_module_with_modern_syntax_and_v3_commands() -> None:
    result = facts(
        """
        import { S3Client, DeleteObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
        const s3 = new S3Client({});
        export async function handler(event) {
          const key = event?.ResourceProperties?.Key ?? 'default';
          if (event.RequestType === 'Delete') {
            await s3.send(new HeadObjectCommand({ Bucket: 'b', Key: key }));
            await s3.send(new DeleteObjectCommand({ Bucket: 'b', Key: key }));
          }
          return { PhysicalResourceId: key };
        }
        """
    )
    assert [a.what for a in result.delete_actions] == ["send(cmd:DeleteObjectCommand)"]
    assert result.delete_id_reads == ()


def test_callbacks_and_promise_executors_are_followed() -> None:
    result = facts(
        """
        const response = require('cfn-response');
        const AWS = require('aws-sdk');
        const sns = new AWS.SNS();
        exports.handler = function (event, context) {
          return new Promise(function (resolve) {
            sns.deleteTopic({ TopicArn: event.PhysicalResourceId }).promise().then(function () {
              response.send(event, context, response.SUCCESS, {}, event.PhysicalResourceId);
              resolve();
            });
          });
        };
        """
    )
    assert [a.what for a in result.delete_actions] == ["deleteTopic()"]
    assert result.delete_id_reads
    assert ids(result, "Update") == {INCOMING_ID}


def test_response_body_assembled_by_assignment() -> None:
    result = facts(
        """
        exports.handler = async (event, context) => {
          const body = { Status: 'SUCCESS' };
          body.PhysicalResourceId = context.logStreamName;
          return JSON.stringify(body);
        };
        """
    )
    (sink,) = [s for s in result.sinks if s.request_type == "Update"]
    assert (sink.kind, sink.line) == ("response_body", 4)
    assert sink.value.labels == {LOG_STREAM}


def test_missing_entry_checks_uncalled_functions() -> None:
    result = facts(
        """
        const response = require('cfn-response');
        function onEvent(event, context) {
          response.send(event, context, response.SUCCESS, {});
        }
        """
    )
    assert not result.entry_found
    assert ids(result, "Update") == {NONE}


def test_parse_error_is_a_handler_syntax_error() -> None:
    with pytest.raises(HandlerSyntaxError) as info:
        parse_javascript("exports.handler = function ( {;\nvar ok = 1;\n")
    assert info.value.line == 1
    assert not info.value.reason.startswith("Line")


@pytest.mark.parametrize(
    "choice",
    [
        "event.PhysicalResourceId ? event.PhysicalResourceId : `cr-${Date.now()}`",
        "'PhysicalResourceId' in event ? event.PhysicalResourceId : `cr-${Date.now()}`",
        "event.hasOwnProperty('PhysicalResourceId') ? event.PhysicalResourceId : Date.now()",
    ],
)
def test_presence_checks_of_the_incoming_id(choice: str) -> None:
    result = facts(
        f"""
        const response = require('cfn-response');
        exports.handler = (event, context) => {{
          const id = {choice};
          response.send(event, context, response.SUCCESS, {{}}, id);
        }};
        """
    )
    assert ids(result, "Update") == {INCOMING_ID}
    assert TIME in ids(result, "Create")


def test_callbacks_see_the_variables_of_the_function_that_defines_them() -> None:
    result = facts(
        """
        const AWS = require('aws-sdk');
        const response = require('cfn-response');
        exports.handler = function (event, context) {
          let status = response.FAILED;
          const id = event.PhysicalResourceId || 'new';
          new AWS.EC2().describeImages({}, function (err) {
            if (!err) {
              status = response.SUCCESS;
            }
            response.send(event, context, status, {}, id);
          });
        };
        """
    )
    (sink,) = [s for s in result.sinks if s.request_type == "Update"]
    assert sink.value.labels == {INCOMING_ID}
    assert sink.status == {"SUCCESS", "FAILED"}
