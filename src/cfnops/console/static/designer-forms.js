/* cfnops job-net designer: a form per part. Built with createElement/textContent only.
   Every field that edits a definition field carries data-pointer (its JSON pointer), so the
   data-flow check's findings land on the field that caused them. */
"use strict";
window.cfnopsDesignForms = (function () {
  const M = window.cfnopsDesignModel;
  const ERRORS = ["States.ALL", "States.TaskFailed", "States.Timeout", "States.Permissions", "States.Runtime",
    "States.HeartbeatTimeout", "States.Http.StatusCode.429", "States.Http.StatusCode.503",
    "Lambda.ServiceException", "Lambda.TooManyRequestsException", "Ssm.InvalidInstanceIdException",
    "Ssm.InvocationDoesNotExistException"];
  const OPERATORS = ["StringEquals", "StringMatches", "StringLessThan", "StringGreaterThan", "NumericEquals",
    "NumericLessThan", "NumericGreaterThan", "NumericLessThanEquals", "NumericGreaterThanEquals", "BooleanEquals",
    "TimestampEquals", "TimestampLessThan", "TimestampGreaterThan", "IsPresent", "IsNull", "IsString", "IsNumeric",
    "IsBoolean", "IsTimestamp"];
  let uid = 0;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "dataset") Object.assign(node.dataset, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k in node && k !== "list") node[k] = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }
  const id = () => `df-${++uid}`;

  /* A labelled input; `path` fields offer the paths of the state's input. */
  function input(label, value, opts) {
    const fid = id();
    const attrs = {id: fid, value: value === undefined || value === null ? "" : String(value), type: opts.type || "text",
      dataset: opts.pointer ? {pointer: opts.pointer} : {}, list: opts.path ? "d-paths" : null,
      autocomplete: "off", spellcheck: false};
    const box = el("div", {className: "field"}, el("label", {htmlFor: fid}, label));
    const node = opts.multiline ? el("textarea", {...attrs, rows: 3, type: null}) : el("input", attrs);
    if (opts.multiline) node.value = attrs.value;
    node.addEventListener("input", () => opts.onInput(node.value, node));
    if (opts.onChange) node.addEventListener("change", () => opts.onChange(node.value, node));
    box.append(node);
    return box;
  }
  function select(label, value, options, onChange, pointer) {
    const fid = id();
    const node = el("select", {id: fid, dataset: pointer ? {pointer} : {}});
    for (const [v, text] of options) node.append(el("option", {value: v}, text));
    node.value = value;
    node.addEventListener("change", () => onChange(node.value));
    return el("div", {className: "field"}, el("label", {htmlFor: fid}, label), node);
  }
  const button = (text, onclick, label) => el("button", {type: "button", onclick, "aria-label": label || null}, text);
  const num = (v) => (v === "" || isNaN(Number(v)) ? v : Number(v));

  function nextOptions(ctx, self, none) {
    return [["", none], ...ctx.names.filter((n) => n !== self).map((n) => [n, n])];
  }

  /* --- Comment with the resource pool (cfnops:pool=NAME) ---------------------------- */
  function commentSection(ctx) {
    const st = ctx.state, ptr = ctx.ptr;
    const comment = String(st.Comment || ""), pool = (comment.match(/cfnops:pool=([\w.-]+)/) || [])[1] || "";
    const text = comment.replace(/\s*cfnops:pool=[\w.-]+/, "").trim();
    const write = (t, p) => ctx.update((s) => {
      const out = [t, p ? `cfnops:pool=${p}` : ""].filter(Boolean).join(" ");
      if (out) s.Comment = out; else delete s.Comment;
    }, `${ptr}/Comment`);
    let t = text, p = pool;
    return el("fieldset", {}, el("legend", {}, "Comment"),
      input("Comment", text, {pointer: `${ptr}/Comment`, onInput: (v) => { t = v; write(t, p); }}),
      input("Resource pool (cfnops:pool)", pool, {onInput: (v) => { p = v.trim(); write(t, p); }}));
  }

  /* --- Parameters as name / value / from-a-path rows --------------------------------- */
  function paramsSection(ctx, key, legend, known) {
    const ptr = ctx.ptr, params = ctx.state[key] && typeof ctx.state[key] === "object" ? ctx.state[key] : {};
    const box = el("fieldset", {}, el("legend", {}, legend));
    const rows = Object.keys(params).map((k) => ({name: k.replace(/\.\$$/, ""), path: k.endsWith(".$"), value: params[k]}));
    for (const p of known || []) if (!rows.some((r) => r.name === p.name)) rows.push({name: p.name, path: false, value: undefined, hint: p});
    const writeRow = (row, newName, newValue, isPath) => ctx.update((s) => {
      const cur = s[key] && typeof s[key] === "object" ? s[key] : {};
      const out = {};
      const oldKey = row.name + (row.path ? ".$" : "");
      const newKey = newName + (isPath ? ".$" : "");
      let placed = false;
      for (const [k, v] of Object.entries(cur)) {
        if (k === oldKey) { if (newName && newValue !== undefined && newValue !== "") out[newKey] = newValue; placed = true; }
        else out[k] = v;
      }
      if (!placed && newName && newValue !== undefined && newValue !== "") out[newKey] = newValue;
      s[key] = out;
      Object.assign(row, {name: newName, path: isPath, value: newValue});
    }, `${ptr}/${key}/${row.name}`);
    const convert = (row, text) => {
      if (row.path) return text;
      const t = row.hint ? row.hint.type : typeof row.value;
      if (/integer|long|double|float|number/.test(t)) return num(text);
      if (/boolean/.test(t)) return text === "true";
      if (/^list/.test(t) || Array.isArray(row.value)) return text.split(",").map((x) => x.trim()).filter(Boolean);
      return text;
    };
    const shown = (row) => (row.value === undefined ? "" : typeof row.value === "object" && !Array.isArray(row.value)
      ? JSON.stringify(row.value) : Array.isArray(row.value) ? row.value.join(", ") : String(row.value));
    rows.forEach((row) => {
      const label = row.name + (row.hint && row.hint.required ? " (required)" : "") + (row.hint ? ` · ${row.hint.type}` : "");
      const pointer = () => `${ptr}/${key}/${M.esc(row.name + (row.path ? ".$" : ""))}`;
      const valueBox = input(label, shown(row), {pointer: pointer(), path: true,
        onInput: (v, node) => { writeRow(row, row.name, convert(row, v), row.path); node.dataset.pointer = pointer(); }});
      const cid = id();
      const check = el("input", {type: "checkbox", id: cid, checked: row.path});
      check.addEventListener("change", () => {
        const field = valueBox.querySelector("input");
        writeRow(row, row.name, convert({...row, path: check.checked}, field.value), check.checked);
        field.dataset.pointer = pointer();
      });
      const complex = row.value !== null && typeof row.value === "object" && !Array.isArray(row.value);
      if (complex) valueBox.querySelector("input").readOnly = true;
      box.append(el("div", {className: "param"}, valueBox,
        el("div", {className: "inline"}, check, el("label", {htmlFor: cid}, `${row.name} comes from a path`))));
    });
    let newName = "";
    box.append(el("div", {className: "row"},
      input("New parameter name", "", {onInput: (v) => { newName = v.trim(); }}),
      button("Add parameter", () => {
        if (!newName) return;
        ctx.update((s) => { s[key] = {...(s[key] || {}), [newName]: ""}; }, null, true);
      })));
    return box;
  }

  /* --- Retry and Catch ---------------------------------------------------------------- */
  function errorsField(ctx, list, pointer, write) {
    const fid = id();
    const sel = el("select", {id: fid, multiple: true, size: 4, dataset: {pointer}});
    const known = new Set(ERRORS);
    for (const e of ERRORS) sel.append(el("option", {value: e, selected: list.includes(e)}, e));
    const others = list.filter((e) => !known.has(e));
    const read = (otherText) => [...[...sel.selectedOptions].map((o) => o.value),
      ...otherText.split(",").map((x) => x.trim()).filter(Boolean)];
    let otherText = others.join(", ");
    sel.addEventListener("change", () => write(read(otherText)));
    return el("div", {}, el("label", {htmlFor: fid}, "Errors (ErrorEquals)"), sel,
      input("Other error names (comma separated)", otherText, {onInput: (v) => { otherText = v; write(read(v)); }}));
  }
  function retrySection(ctx) {
    const ptr = ctx.ptr, box = el("fieldset", {}, el("legend", {}, "Retry"));
    (ctx.state.Retry || []).forEach((rule, i) => {
      const at = `${ptr}/Retry/${i}`;
      const set = (k, v) => ctx.update((s) => { if (v === "" || v === undefined) delete s.Retry[i][k]; else s.Retry[i][k] = v; }, `${at}/${k}`);
      box.append(el("fieldset", {}, el("legend", {}, `Retry rule ${i + 1}`),
        errorsField(ctx, rule.ErrorEquals || [], `${at}/ErrorEquals`, (v) => set("ErrorEquals", v)),
        el("div", {className: "row"},
          input("Interval (s)", rule.IntervalSeconds, {type: "number", pointer: `${at}/IntervalSeconds`, onInput: (v) => set("IntervalSeconds", num(v))}),
          input("Max attempts", rule.MaxAttempts, {type: "number", pointer: `${at}/MaxAttempts`, onInput: (v) => set("MaxAttempts", num(v))}),
          input("Backoff rate", rule.BackoffRate, {type: "number", pointer: `${at}/BackoffRate`, onInput: (v) => set("BackoffRate", num(v))})),
        button(`Remove retry rule ${i + 1}`, () => ctx.update((s) => { s.Retry.splice(i, 1); if (!s.Retry.length) delete s.Retry; }, null, true))));
    });
    box.append(button("Add retry rule", () => ctx.update((s) => {
      s.Retry = [...(s.Retry || []), {ErrorEquals: ["States.ALL"], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2}];
    }, null, true)));
    return box;
  }
  function catchSection(ctx) {
    const ptr = ctx.ptr, box = el("fieldset", {}, el("legend", {}, "Catch"));
    (ctx.state.Catch || []).forEach((rule, i) => {
      const at = `${ptr}/Catch/${i}`;
      const set = (k, v) => ctx.update((s) => { if (v === "") delete s.Catch[i][k]; else s.Catch[i][k] = v; }, `${at}/${k}`);
      box.append(el("fieldset", {}, el("legend", {}, `Catch rule ${i + 1}`),
        errorsField(ctx, rule.ErrorEquals || [], `${at}/ErrorEquals`, (v) => set("ErrorEquals", v)),
        select(`Catch rule ${i + 1}: go to`, rule.Next || "", nextOptions(ctx, ctx.name, "(choose a state)"),
          (v) => ctx.update((s) => { s.Catch[i].Next = v; }, `${at}/Next`), `${at}/Next`),
        input("Error output to (ResultPath)", rule.ResultPath, {path: true, pointer: `${at}/ResultPath`, onInput: (v) => set("ResultPath", v)}),
        button(`Remove catch rule ${i + 1}`, () => ctx.update((s) => { s.Catch.splice(i, 1); if (!s.Catch.length) delete s.Catch; }, null, true))));
    });
    const first = ctx.names.find((n) => n !== ctx.name && ctx.types[n] === "Fail") || "";
    box.append(button("Add catch rule", () => ctx.update((s) => {
      s.Catch = [...(s.Catch || []), {ErrorEquals: ["States.ALL"], Next: first, ResultPath: "$.error"}];
    }, null, true)));
    return box;
  }

  /* --- per type -------------------------------------------------------------------- */
  function flowSection(ctx) {
    const st = ctx.state;
    if (["Succeed", "Fail", "Choice"].includes(st.Type)) return null;
    const loop = ctx.loop;
    if (loop) {
      const done = ctx.machine.States[loop.done];
      return select("Then go to", done.Default || "", nextOptions(ctx, loop.done, "(nothing: ends here)"),
        (v) => ctx.updateMachine((m) => { if (v) m.States[loop.done].Default = v; else delete m.States[loop.done].Default; }),
        `${ctx.machinePtr}/States/${M.esc(loop.done)}/Default`);
    }
    return select("Then go to", st.Next || "", nextOptions(ctx, ctx.name, "(end: the job-net ends here)"),
      (v) => ctx.update((s) => { if (v) { s.Next = v; delete s.End; } else { delete s.Next; s.End = true; } }, `${ctx.ptr}/Next`),
      `${ctx.ptr}/Next`);
  }

  function runCommandSection(ctx) {
    const ptr = ctx.ptr, p = ctx.state.Parameters || {}, box = el("fieldset", {}, el("legend", {}, "Run a command (SSM RunCommand)"));
    const fromPath = "InstanceIds.$" in p;
    box.append(select("Instances", fromPath ? "path" : "list", [["path", "from the input (a path)"], ["list", "listed here"]],
      (v) => ctx.update((s) => {
        const q = s.Parameters;
        if (v === "path") { delete q.InstanceIds; q["InstanceIds.$"] = "$.instanceIds"; }
        else { delete q["InstanceIds.$"]; q.InstanceIds = []; }
      }, null, true)));
    if (fromPath) box.append(input("Instance IDs path", p["InstanceIds.$"], {path: true, pointer: `${ptr}/Parameters/InstanceIds.$`,
      onInput: (v) => ctx.update((s) => { s.Parameters["InstanceIds.$"] = v; }, `${ptr}/Parameters/InstanceIds.$`)}));
    else box.append(input("Instance IDs (comma separated)", (p.InstanceIds || []).join(", "), {pointer: `${ptr}/Parameters/InstanceIds`,
      onInput: (v) => ctx.update((s) => { s.Parameters.InstanceIds = v.split(",").map((x) => x.trim()).filter(Boolean); }, `${ptr}/Parameters/InstanceIds`)}));
    box.append(input("Document", p.DocumentName, {pointer: `${ptr}/Parameters/DocumentName`,
      onInput: (v) => ctx.update((s) => { s.Parameters.DocumentName = v; }, `${ptr}/Parameters/DocumentName`)}));
    const cmds = ((p.Parameters || {}).commands || []).join("\n");
    box.append(input("Commands (one per line)", cmds, {multiline: true, pointer: `${ptr}/Parameters/Parameters/commands`,
      onInput: (v) => ctx.update((s) => { s.Parameters.Parameters = {...(s.Parameters.Parameters || {}), commands: v.split("\n").filter((x) => x.trim())}; },
        `${ptr}/Parameters/Parameters/commands`)}));
    if (ctx.loop) {
      const wait = ctx.machine.States[ctx.loop.wait];
      box.append(input("Poll every (seconds)", wait.Seconds, {type: "number", pointer: `${ctx.machinePtr}/States/${M.esc(ctx.loop.wait)}/Seconds`,
        onInput: (v) => ctx.updateMachine((m) => { m.States[ctx.loop.wait].Seconds = num(v); }, "poll")}));
    }
    return box;
  }

  function sdkSection(ctx) {
    const ptr = ctx.ptr, st = ctx.state;
    const [, service = "", action = ""] = String(st.Resource).match(/aws-sdk:([^:]+):([^:.]+)/) || [];
    const box = el("fieldset", {}, el("legend", {}, "AWS API (SDK integration)"));
    const services = el("datalist", {id: "d-sdk-services"});
    ctx.sdk("").then((r) => { for (const s of r.services || []) services.append(el("option", {value: s})); });
    let svc = service;
    const params = el("div", {}, paramsSection(ctx, "Parameters", "Parameters"));
    const loadParams = (sv, ac) => ctx.sdk(sv, ac).then((op) => {
      if (op.parameters && ctx.state.Resource === op.resource)
        params.replaceChildren(paramsSection(ctx, "Parameters", `Parameters of ${op.action}`, op.parameters));
    });
    const actionSel = select("Action", action, [[action, action || "(pick a service first)"]], (v) => {
      ctx.update((s) => { s.Resource = `arn:aws:states:::aws-sdk:${svc}:${v}`; }, `${ptr}/Resource`);
      if (v) loadParams(svc, v);
    }, `${ptr}/Resource`);
    const svcBox = input("Service", service, {pointer: `${ptr}/Resource`, onChange: (v) => { svc = v.trim(); loadActions(); }, onInput: () => {}});
    svcBox.querySelector("input").setAttribute("list", "d-sdk-services");
    const loadActions = () => { const asked = svc; return ctx.sdk(asked).then((r) => {
      if (asked !== svc) return;  // a later service was typed meanwhile
      const s = actionSel.querySelector("select");
      const keep = s.value;
      s.replaceChildren(el("option", {value: ""}, "(pick an action)"), ...(r.actions || []).map((a) => el("option", {value: a}, a)));
      s.value = (r.actions || []).includes(keep) ? keep : "";
    }); };
    if (svc) loadActions();
    box.append(services, svcBox, actionSel, params);
    if (service && action) loadParams(service, action);
    return box;
  }

  function simpleFields(ctx, legend, fields) {
    const box = el("fieldset", {}, el("legend", {}, legend));
    for (const [label, key, opts = {}] of fields) {
      const where = key.split("/"), at = `${ctx.ptr}/${key.split("/").map(M.esc).join("/")}`;
      let cur = ctx.state;
      for (const k of where) cur = cur && typeof cur === "object" ? cur[k] : undefined;
      box.append(input(label, cur, {...opts, pointer: at, onInput: (v) => ctx.update((s) => {
        let o = s;
        for (const k of where.slice(0, -1)) { o[k] = o[k] && typeof o[k] === "object" ? o[k] : {}; o = o[k]; }
        const last = where[where.length - 1];
        if (v === "") delete o[last]; else o[last] = opts.type === "number" ? num(v) : v;
      }, at)}));
    }
    return box;
  }

  function choiceSection(ctx) {
    const ptr = ctx.ptr, st = ctx.state, box = el("fieldset", {}, el("legend", {}, "Choice rules"));
    (st.Choices || []).forEach((rule, i) => {
      const at = `${ptr}/Choices/${i}`;
      const op = OPERATORS.find((o) => o in rule);
      const rbox = el("fieldset", {}, el("legend", {}, `Rule ${i + 1}`));
      if (op && "Variable" in rule) {
        rbox.append(input("Variable (path)", rule.Variable, {path: true, pointer: `${at}/Variable`,
          onInput: (v) => ctx.update((s) => { s.Choices[i].Variable = v; }, `${at}/Variable`)}));
        rbox.append(select("Operator", op, OPERATORS.map((o) => [o, o]), (v) => ctx.update((s) => {
          const r = s.Choices[i], val = r[op]; delete r[op];
          r[v] = /^(Is|Boolean)/.test(v) ? val === true || val === "true" : /^Numeric/.test(v) ? num(String(val)) : String(val);
        }, null, true), `${at}/${op}`));
        rbox.append(input("Value", rule[op], {pointer: `${at}/${op}`, onInput: (v) => ctx.update((s) => {
          s.Choices[i][op] = /^(Is|Boolean)/.test(op) ? v === "true" : /^Numeric/.test(op) ? num(v) : v;
        }, `${at}/${op}`)}));
      } else {
        rbox.append(el("p", {className: "hint"}, "A compound or JSONata rule: edit it in the code view. ",
          el("code", {}, JSON.stringify({...rule, Next: undefined}).slice(0, 160))));
      }
      rbox.append(select(`Rule ${i + 1}: go to`, rule.Next || "", nextOptions(ctx, ctx.name, "(choose a state)"),
        (v) => ctx.update((s) => { s.Choices[i].Next = v; }, `${at}/Next`), `${at}/Next`));
      rbox.append(button(`Remove rule ${i + 1}`, () => ctx.update((s) => { s.Choices.splice(i, 1); }, null, true)));
      box.append(rbox);
    });
    box.append(button("Add rule", () => ctx.update((s) => {
      s.Choices = [...(s.Choices || []), {Variable: "$", StringEquals: "", Next: ctx.names.find((n) => n !== ctx.name) || ""}];
    }, null, true)));
    box.append(select("Otherwise go to (Default)", st.Default || "", nextOptions(ctx, ctx.name, "(none: fails when no rule matches)"),
      (v) => ctx.update((s) => { if (v) s.Default = v; else delete s.Default; }, `${ptr}/Default`), `${ptr}/Default`));
    return box;
  }

  function waitSection(ctx) {
    const st = ctx.state, modes = ["Seconds", "SecondsPath", "Timestamp", "TimestampPath"];
    const mode = modes.find((m) => m in st) || "Seconds";
    const box = el("fieldset", {}, el("legend", {}, "Wait"));
    box.append(select("Wait for", mode, [["Seconds", "a number of seconds"], ["SecondsPath", "seconds from a path"],
      ["Timestamp", "until a timestamp"], ["TimestampPath", "until a timestamp from a path"]], (v) => ctx.update((s) => {
      for (const m of modes) delete s[m];
      s[v] = v === "Seconds" ? 10 : v === "Timestamp" ? "2030-01-01T00:00:00Z" : "$.";
    }, null, true)));
    box.append(input(mode, st[mode], {type: mode === "Seconds" ? "number" : "text", path: mode.endsWith("Path"),
      pointer: `${ctx.ptr}/${mode}`, onInput: (v) => ctx.update((s) => { s[mode] = mode === "Seconds" ? num(v) : v; }, `${ctx.ptr}/${mode}`)}));
    return box;
  }

  function render(form, ctx) {
    const st = ctx.state, ptr = ctx.ptr, kind = M.kindOf(st);
    const parts = [el("datalist", {id: "d-paths"}, ...ctx.paths.map((p) => el("option", {value: p})))];
    parts.push(input("Name", ctx.name, {pointer: ptr, onInput: () => {}, onChange: (v) => ctx.rename(v.trim())}));
    parts.push(el("p", {className: "hint"}, `${kind}${ctx.loop ? " (with its polling loop)" : ""} · ${ptr}`));
    if (st.QueryLanguage === "JSONata" || ctx.jsonata) parts.push(el("p", {className: "hint"},
      "This state uses JSONata: its Arguments, Output and Assign are edited in the code view."));
    const jsonpath = !(st.QueryLanguage === "JSONata" || ctx.jsonata);
    if (kind === "RunCommand") parts.push(runCommandSection(ctx));
    else if (kind === "AWS API" && jsonpath) parts.push(sdkSection(ctx));
    else if (kind === "Lambda" && jsonpath) parts.push(simpleFields(ctx, "Lambda function", [["Function name", "Parameters/FunctionName"],
      ["Payload from path", "Parameters/Payload.$", {path: true}]]));
    else if (kind === "Start job-net" && jsonpath) parts.push(simpleFields(ctx, "Start another job-net", [["State machine ARN", "Parameters/StateMachineArn"],
      ["Its input from path", "Parameters/Input.$", {path: true}]]));
    else if (kind === "HTTP" && jsonpath) parts.push(simpleFields(ctx, "HTTP call", [["Endpoint (ApiEndpoint)", "Parameters/ApiEndpoint"],
      ["Method", "Parameters/Method"], ["EventBridge connection ARN", "Parameters/Authentication/ConnectionArn"]]));
    else if (kind === "Task") parts.push(simpleFields(ctx, "Task", [["Resource", "Resource"]]));
    if (st.Type === "Choice") parts.push(choiceSection(ctx));
    if (st.Type === "Wait") parts.push(waitSection(ctx));
    if (st.Type === "Map" && jsonpath) parts.push(simpleFields(ctx, "Map", [["Items from path (ItemsPath)", "ItemsPath", {path: true}],
      ["Concurrency (MaxConcurrency, 0 = no limit)", "MaxConcurrency", {type: "number"}]]));
    if (st.Type === "Parallel") parts.push(el("fieldset", {}, el("legend", {}, "Branches"),
      el("p", {className: "hint"}, `${(st.Branches || []).length} branches; select a branch's step to add parts into it.`),
      button("Add branch", () => ctx.addBranch())));
    if (st.Type === "Pass" && jsonpath) parts.push(paramsSection(ctx, "Parameters", "Parameters"));
    if (st.Type === "Fail") parts.push(simpleFields(ctx, "Fail", [["Error", "Error"], ["Cause", "Cause"]]));
    if (["Task", "Map", "Parallel", "Pass"].includes(st.Type) && jsonpath)
      parts.push(simpleFields(ctx, "Result", [["Result to (ResultPath)", "ResultPath", {path: true}]]));
    if (st.Type === "Task") parts.push(simpleFields(ctx, "Timeout", [["Timeout (seconds)", "TimeoutSeconds", {type: "number"}]]));
    if (["Task", "Map", "Parallel"].includes(st.Type)) parts.push(retrySection(ctx), catchSection(ctx));
    parts.push(flowSection(ctx), commentSection(ctx));
    form.replaceChildren(...parts.filter(Boolean));
  }

  /* Mark the fields whose pointer a finding names; the message says the pointer and the fix.
     Findings of the state that no field shows are listed at the top of the form. */
  function mark(form, findings, statePtr) {
    for (const old of form.querySelectorAll(".field-error, .form-findings")) old.remove();
    const text = (f) => `${f.pointer}: ${f.message}${f.suggestion ? ` (fix: ${f.suggestion})` : ""}`;
    const shown = new Set();
    for (const node of form.querySelectorAll("[data-pointer]")) {
      const hits = findings.filter((f) => f.pointer === node.dataset.pointer);
      node.setAttribute("aria-invalid", hits.length ? "true" : "false");
      if (!hits.length) { node.removeAttribute("aria-describedby"); continue; }
      hits.forEach((f) => shown.add(f));
      const msg = el("p", {className: "field-error", id: id(), role: "alert"}, hits.map(text).join("; "));
      node.setAttribute("aria-describedby", msg.id);
      node.after(msg);
    }
    const rest = findings.filter((f) => f.state === statePtr && !shown.has(f));
    if (rest.length) form.prepend(el("ul", {className: "form-findings"}, ...rest.map((f) => el("li", {className: `sev-${f.severity}`}, text(f)))));
  }

  return {render, mark, el};
})();
