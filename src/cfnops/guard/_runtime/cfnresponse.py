"""The ``cfnresponse`` module Lambda provides to inline (``ZipFile``) Python code.

Written for cfnops from its documented behaviour (AWS docs, "cfn-response
module": https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cfn-lambda-function-code-cfnresponsemodule.html):
``send(event, context, responseStatus, responseData, physicalResourceId=None,
noEcho=False, reason=None)`` PUTs the response to ``event["ResponseURL"]``; the
physical id defaults to the log stream name.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

SUCCESS = "SUCCESS"
FAILED = "FAILED"


def send(
    event: dict[str, Any],
    context: Any,
    responseStatus: str,
    responseData: dict[str, Any] | None,
    physicalResourceId: str | None = None,
    noEcho: bool = False,
    reason: str | None = None,
) -> None:
    body = {
        "Status": responseStatus,
        "Reason": reason or f"See the details in CloudWatch Log Stream: {context.log_stream_name}",
        "PhysicalResourceId": physicalResourceId or context.log_stream_name,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "NoEcho": noEcho,
        "Data": responseData,
    }
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(
        event["ResponseURL"], data=data, method="PUT", headers={"Content-Type": ""}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            print("Status code:", answer.status)
    except Exception as exc:  # as documented: the module logs a failed PUT, never raises
        print("send(..) failed executing request: " + str(exc))
