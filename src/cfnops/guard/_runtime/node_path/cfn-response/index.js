// The cfn-response module Lambda provides to inline (ZipFile) Node.js code, written for
// cfnops from its documented behaviour (AWS docs, "cfn-response module":
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cfn-lambda-function-code-cfnresponsemodule.html):
// send(event, context, responseStatus, responseData, physicalResourceId, noEcho) PUTs the
// response to event.ResponseURL (the physical id defaults to the log stream name), then
// ends the invocation with context.done().
'use strict';
const http = require('http');
const https = require('https');

exports.SUCCESS = 'SUCCESS';
exports.FAILED = 'FAILED';

exports.send = function send(event, context, responseStatus, responseData, physicalResourceId, noEcho) {
  const body = JSON.stringify({
    Status: responseStatus,
    Reason: 'See the details in CloudWatch Log Stream: ' + context.logStreamName,
    PhysicalResourceId: physicalResourceId || context.logStreamName,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    NoEcho: noEcho || false,
    Data: responseData,
  });
  const target = new URL(event.ResponseURL);
  const client = target.protocol === 'http:' ? http : https;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      { method: 'PUT', headers: { 'content-type': '', 'content-length': Buffer.byteLength(body) } },
      (answer) => {
        answer.resume();
        answer.on('end', () => { context.done(); resolve(); });
      },
    );
    request.on('error', (error) => {
      console.log('send(..) failed executing https.request(..): ' + error);
      context.done();
      resolve();
    });
    request.end(body);
  });
};
