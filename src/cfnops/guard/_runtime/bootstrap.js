// Run one Lambda invocation of a Node.js handler, as `cfnops guard --exercise` does.
// A fresh child process per event (a new execution environment). CFNOPS_EXERCISE (JSON)
// names the code file, the handler, the event file and the result file. The context
// object follows the Node.js runtime's documented members (AWS docs, "Using the Lambda
// context object to retrieve Node.js function information":
// https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html).
'use strict';
const fs = require('fs');
const { pathToFileURL } = require('url');

const spec = JSON.parse(process.env.CFNOPS_EXERCISE);
const event = JSON.parse(fs.readFileSync(spec.event, 'utf8'));
let written = false;

function finish(result) {
  if (written) return;
  written = true;
  fs.writeFileSync(spec.result, JSON.stringify(result));
}

function missingModule(error) {
  const code = error && error.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return null;
  const found = /Cannot find (?:module|package) '([^']+)'/.exec(String(error.message));
  return found ? found[1] : null;
}

function failed(error) {
  const text = error && error.stack ? String(error.stack).split('\n').slice(0, 2).join(' ') : String(error);
  return { ok: false, error: text, missing: missingModule(error) };
}

function returned(value) {
  try {
    return { ok: true, returned: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
  } catch (error) {
    return { ok: true, returned: String(value) };
  }
}

const deadline = Date.now() + spec.timeout * 1000;
const context = {
  functionName: spec.function,
  functionVersion: '$LATEST',
  invokedFunctionArn: spec.function_arn,
  memoryLimitInMB: String(spec.memory),
  awsRequestId: spec.request_id,
  logGroupName: '/aws/lambda/' + spec.function,
  logStreamName: spec.log_stream,
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: (error, value) => finish(error ? failed(error) : returned(value)),
  succeed: (value) => finish(returned(value)),
  fail: (error) => finish(failed(error)),
};

process.on('uncaughtException', (error) => { finish(failed(error)); process.exit(0); });
process.on('unhandledRejection', (error) => { finish(failed(error)); process.exit(0); });
process.on('exit', () => finish({ ok: true, returned: null }));

(async () => {
  let mod;
  try {
    mod = await import(pathToFileURL(spec.file).href);
  } catch (error) {
    finish(failed(error));
    return;
  }
  const handler = mod[spec.entry] || (mod.default && mod.default[spec.entry]);
  if (typeof handler !== 'function') {
    finish({ ok: false, error: 'handler ' + spec.entry + ' is not a function of ' + spec.file });
    return;
  }
  const callback = (error, value) => finish(error ? failed(error) : returned(value));
  try {
    const out = handler(event, context, callback);
    if (out && typeof out.then === 'function') finish(returned(await out));
  } catch (error) {
    finish(failed(error));
  }
})();
