/* cfnops job-net designer: the model. The definition is plain ASL data; every edit below
   changes only the fields it names, so fields the designer does not model stay as they are.
   States are addressed by JSON pointer (/States/A, /States/M/ItemProcessor/States/B). */
"use strict";
window.cfnopsDesignModel = (function () {
  const PLACEHOLDER = "placeholder: add a part here";
  const TERMINAL = ["Succeed", "Fail"];
  const esc = (n) => String(n).replace(/~/g, "~0").replace(/\//g, "~1");
  const unesc = (s) => s.replace(/~1/g, "/").replace(/~0/g, "~");
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

  function get(data, ptr) {
    let node = data;
    for (const raw of ptr.split("/").slice(1)) {
      if (node === undefined || node === null) return undefined;
      node = node[unesc(raw)];
    }
    return node;
  }
  /* {machinePtr, name} of a state pointer. */
  function locate(ptr) {
    const at = ptr.lastIndexOf("/States/");
    return {machinePtr: ptr.slice(0, at), name: unesc(ptr.slice(at + 8))};
  }
  const statePtr = (machinePtr, name) => `${machinePtr}/States/${esc(name)}`;

  function machines(data, ptr = "", out = []) {
    if (!isObj(data) || !isObj(data.States)) return out;
    out.push(ptr);
    for (const [name, st] of Object.entries(data.States)) {
      if (!isObj(st)) continue;
      const sp = statePtr(ptr, name);
      for (const key of ["ItemProcessor", "Iterator"]) if (isObj(st[key])) machines(st[key], `${sp}/${key}`, out);
      (Array.isArray(st.Branches) ? st.Branches : []).forEach((b, i) => machines(b, `${sp}/Branches/${i}`, out));
    }
    return out;
  }
  function states(data) {
    const out = [];
    for (const mp of machines(data)) {
      const m = mp ? get(data, mp) : data;
      for (const [name, st] of Object.entries(m.States)) out.push({ptr: statePtr(mp, name), machinePtr: mp, name, state: st});
    }
    return out;
  }
  function allNames(data) { return new Set(states(data).map((s) => s.name)); }
  function uniqueName(data, base, taken = new Set()) {
    const used = allNames(data);
    let name = base, n = 1;
    while (used.has(name) || taken.has(name)) name = `${base}${++n}`;
    return name;
  }

  /* Every arrow, as the server's analysis names them (ids match). */
  function edges(data, ptr = "", out = []) {
    if (!isObj(data) || !isObj(data.States)) return out;
    const sts = data.States;
    const add = (src, target, kind, via) => {
      if (typeof target === "string" && target in sts) {
        const t = statePtr(ptr, target);
        out.push({id: `${via}->${t}`, source: src, target: t, kind, via});
      }
    };
    add(`${ptr}/StartAt`, data.StartAt, "start", `${ptr}/StartAt`);
    for (const [name, st] of Object.entries(sts)) {
      if (!isObj(st)) continue;
      const src = statePtr(ptr, name);
      add(src, st.Next, "next", `${src}/Next`);
      (Array.isArray(st.Choices) ? st.Choices : []).forEach((r, i) => isObj(r) && add(src, r.Next, "choice", `${src}/Choices/${i}/Next`));
      add(src, st.Default, "default", `${src}/Default`);
      (Array.isArray(st.Catch) ? st.Catch : []).forEach((c, i) => isObj(c) && add(src, c.Next, "catch", `${src}/Catch/${i}/Next`));
      for (const key of ["ItemProcessor", "Iterator"]) if (isObj(st[key])) edges(st[key], `${src}/${key}`, out);
      (Array.isArray(st.Branches) ? st.Branches : []).forEach((b, i) => edges(b, `${src}/Branches/${i}`, out));
    }
    return out;
  }

  /* The RunCommand part: sendCommand → Wait → poll → Choice looping back to the Wait. */
  function loopOf(machine, name) {
    const sts = machine.States || {};
    for (const [send, s] of Object.entries(sts)) {
      if (!isObj(s) || !/:ssm:sendCommand$/.test(String(s.Resource || ""))) continue;
      const wait = s.Next, w = sts[wait];
      if (!isObj(w) || w.Type !== "Wait") continue;
      const poll = w.Next, p = sts[poll];
      if (!isObj(p) || !/:ssm:(listCommands|getCommandInvocation|listCommandInvocations)$/.test(String(p.Resource || ""))) continue;
      const done = p.Next, d = sts[done];
      if (!isObj(d) || d.Type !== "Choice" || !(d.Choices || []).some((r) => r.Next === wait)) continue;
      const group = [send, wait, poll, done];
      if (group.includes(name)) return {send, wait, poll, done, group};
    }
    return null;
  }

  function kindOf(state) {
    if (!isObj(state)) return "?";
    const r = String(state.Resource || "");
    if (state.Type !== "Task") return state.Type;
    if (/:ssm:sendCommand$/.test(r)) return "RunCommand";
    if (r.startsWith("arn:aws:states:::aws-sdk:")) return "AWS API";
    if (r.startsWith("arn:aws:states:::states:startExecution")) return "Start job-net";
    if (r.startsWith("arn:aws:states:::http:invoke")) return "HTTP";
    if (r.startsWith("arn:aws:states:::lambda:invoke") || r.includes(":function:")) return "Lambda";
    return "Task";
  }

  function elements(data) {
    const els = [{data: {id: "/StartAt", label: "Start", kind: "end", w: 34, h: 16}, classes: "start"}];
    if (!isObj(data) || !isObj(data.States)) return els;
    const parentOf = {};
    for (const mp of machines(data)) {
      const m = mp ? get(data, mp) : data;
      const box = !mp ? null : /\/Branches\/\d+$/.test(mp) ? mp : mp.replace(/\/(ItemProcessor|Iterator)$/, "");
      if (mp && /\/Branches\/(\d+)$/.test(mp)) {
        const parallel = mp.replace(/\/Branches\/\d+$/, "");
        els.push({data: {id: mp, label: `branch ${Number(mp.match(/(\d+)$/)[1]) + 1}`, parent: parallel, box: "branch"}, classes: "branch"});
      }
      const seen = new Set();
      for (const name of Object.keys(m.States)) {
        if (seen.has(name)) continue;
        const loop = loopOf(m, name);
        if (loop) {
          const id = `part:${statePtr(mp, loop.send)}`;
          els.push({data: {id, label: `Run command ${loop.send} (polls until done)`, parent: box || undefined, box: "part"}, classes: "part"});
          for (const n of loop.group) { parentOf[statePtr(mp, n)] = id; seen.add(n); }
        }
      }
      for (const [name, st] of Object.entries(m.States)) {
        const id = statePtr(mp, name);
        const nested = isObj(st) && (isObj(st.ItemProcessor) || isObj(st.Iterator) || Array.isArray(st.Branches));
        const size = leafSize(name, st);  // the layout's size (less the 8px padding): not measured
        const d = {id, name, label: `${name}\n${kindOf(st)}`, type: isObj(st) ? st.Type : "?", w: size.w - 16, h: size.h - 16};
        const parent = parentOf[id] || box;
        if (parent) d.parent = parent;
        if (nested) d.compound = "yes";
        if (isObj(st) && st.Comment === PLACEHOLDER) d.placeholder = "yes";
        els.push({data: d, classes: `state t-${String(d.type).toLowerCase()}`});
      }
    }
    const ids = new Set(els.map((e) => e.data.id));
    for (const e of edges(data)) {
      if (!ids.has(e.source) || !ids.has(e.target)) continue;
      els.push({data: {id: e.id, source: e.source, target: e.target, kind: e.kind, via: e.via,
                       label: e.kind === "next" || e.kind === "start" ? "" : e.kind}, classes: `k-${e.kind}`});
    }
    return els;
  }


  /* A layered layout (fast: dagre took 0.5 s for 100 states with compounds): each machine's
     states ranked by their distance from StartAt, nested Map/Parallel machines laid out first
     and sized into their state's box. Positions are the centres of the leaf nodes. */
  const GAP_X = 28, GAP_Y = 46, PAD = 22, LABEL = 18;
  function leafSize(name, st) {
    const width = Math.max(String(name).length, kindOf(st).length) * 6.6 + 24;
    return {w: Math.max(80, width), h: 40};
  }
  function layoutMachine(m, mp) {
    const sts = isObj(m) && isObj(m.States) ? m.States : {};
    const names = Object.keys(sts), rank = {}, queue = [];
    if (typeof m.StartAt === "string" && m.StartAt in sts) { rank[m.StartAt] = 0; queue.push(m.StartAt); }
    while (queue.length) {
      const n = queue.shift(), st = sts[n];
      if (!isObj(st)) continue;
      const nexts = [st.Next, ...(Array.isArray(st.Choices) ? st.Choices.map((r) => r && r.Next) : []), st.Default,
                     ...(Array.isArray(st.Catch) ? st.Catch.map((c) => c && c.Next) : [])];
      for (const t of nexts) if (typeof t === "string" && t in sts && !(t in rank)) { rank[t] = rank[n] + 1; queue.push(t); }
    }
    let last = Math.max(-1, ...Object.values(rank));
    for (const n of names) if (!(n in rank)) rank[n] = ++last;
    const boxes = {};
    for (const n of names) boxes[n] = nestedBox(n, sts[n], statePtr(mp, n));
    const rows = [];
    for (const n of names) (rows[rank[n]] = rows[rank[n]] || []).push(n);
    const placed = [];  // [ptr, x, y, box]
    let y = 0, width = 0;
    for (const row of rows.filter(Boolean)) {
      const h = Math.max(...row.map((n) => boxes[n].h));
      const w = row.reduce((sum, n) => sum + boxes[n].w, 0) + GAP_X * (row.length - 1);
      let x = -w / 2;
      for (const n of row) { placed.push([n, x + boxes[n].w / 2, y + h / 2, boxes[n]]); x += boxes[n].w + GAP_X; }
      width = Math.max(width, w); y += h + GAP_Y;
    }
    return {w: width, h: Math.max(0, y - GAP_Y), placed};
  }
  /* The size of a state's node, and its children's layout when it holds machines. */
  function nestedBox(name, st, sp) {
    if (!isObj(st)) return {...leafSize(name, st), inner: []};
    const inner = [];
    for (const key of ["ItemProcessor", "Iterator"]) if (isObj(st[key])) inner.push([`${sp}/${key}`, layoutMachine(st[key], `${sp}/${key}`), false]);
    (Array.isArray(st.Branches) ? st.Branches : []).forEach((b, i) => inner.push([`${sp}/Branches/${i}`, layoutMachine(b, `${sp}/Branches/${i}`), true]));
    if (!inner.length) return {...leafSize(name, st), inner};
    const boxed = inner.map(([mp, lay, branch]) => ({mp, lay, w: lay.w + (branch ? 2 * PAD : 0), h: lay.h + (branch ? 2 * PAD + LABEL : 0), branch}));
    return {w: boxed.reduce((s, b) => s + b.w, 0) + GAP_X * (boxed.length - 1) + 2 * PAD,
            h: Math.max(...boxed.map((b) => b.h)) + 2 * PAD + LABEL, inner: boxed};
  }
  function layout(data) {
    const out = {}, top = layoutMachine(data, "");
    const put = (lay, mp, cx, cy) => {
      for (const [n, x, y, box] of lay.placed) {
        const sp = statePtr(mp, n), ax = cx + x, ay = cy - lay.h / 2 + y;
        if (!box.inner.length) { out[sp] = {x: ax, y: ay}; continue; }
        let left = ax - box.w / 2 + PAD;
        for (const b of box.inner) {
          put(b.lay, b.mp, left + b.w / 2, ay + LABEL / 2);
          left += b.w + GAP_X;
        }
      }
    };
    put(top, "", 0, top.h / 2);
    const first = typeof data.StartAt === "string" && out[statePtr("", data.StartAt)];
    out["/StartAt"] = first ? {x: first.x, y: first.y - GAP_Y - 20} : {x: 0, y: -GAP_Y};
    return out;
  }

  /* --- parts ------------------------------------------------------------------------- */
  const pass = () => ({Type: "Pass", Comment: PLACEHOLDER, End: true});
  const PARTS = [
    {kind: "runCommand", label: "Run a command on instances (SSM, polls until done)", base: "RunCommand"},
    {kind: "lambda", label: "Invoke a Lambda function", base: "InvokeLambda"},
    {kind: "sdk", label: "Call an AWS API (SDK)", base: "CallAws"},
    {kind: "startJob", label: "Start another job-net (.sync)", base: "StartJobNet"},
    {kind: "http", label: "HTTP call", base: "HttpCall"},
    {kind: "local", label: "Local function", base: "LocalFunction"},
    {kind: "wait", label: "Wait", base: "Wait"},
    {kind: "choice", label: "Choice", base: "Choice"},
    {kind: "parallel", label: "Parallel", base: "Parallel"},
    {kind: "map", label: "Map (for each item)", base: "Map"},
    {kind: "pass", label: "Pass", base: "Pass"},
    {kind: "succeed", label: "Succeed", base: "Succeed"},
    {kind: "fail", label: "Fail", base: "Fail"},
  ];
  const IN_PROGRESS = ["Pending", "InProgress", "Delayed"];

  /* {states: {name: state}, entry, exit: [name, "Next" | "Default"] | null} */
  function build(kind, data) {
    const base = PARTS.find((p) => p.kind === kind).base, taken = new Set();
    const nm = (b) => { const n = uniqueName(data, b, taken); taken.add(n); return n; };
    const name = nm(base);
    const task = (resource, params, resultPath, extra = {}) =>
      ({Type: "Task", Resource: resource, Parameters: params, ...extra, ResultPath: resultPath});
    switch (kind) {
      case "runCommand": {
        const wait = nm(`${name}Wait`), poll = nm(`${name}Poll`), done = nm(`${name}Done`);
        return {entry: name, exit: [done, "Default"], states: {
          [name]: {...task("arn:aws:states:::aws-sdk:ssm:sendCommand",
            {DocumentName: "AWS-RunShellScript", "InstanceIds.$": "$.instanceIds", Parameters: {commands: ["echo hello"]}},
            "$.command", {ResultSelector: {"CommandId.$": "$.Command.CommandId"}}),
            Comment: "SSM RunCommand; the next three states poll it until it is done", Next: wait},
          [wait]: {Type: "Wait", Seconds: 5, Next: poll},
          [poll]: {...task("arn:aws:states:::aws-sdk:ssm:listCommands", {"CommandId.$": "$.command.CommandId"}, "$.command",
            {ResultSelector: {"CommandId.$": "$.Commands[0].CommandId", "Status.$": "$.Commands[0].Status"}}), Next: done},
          [done]: {Type: "Choice", Choices: [{Or: IN_PROGRESS.map((s) => ({Variable: "$.command.Status", StringEquals: s})), Next: wait}]},
        }};
      }
      case "lambda": case "local":
        return {entry: name, exit: [name, "Next"], states: {[name]: task("arn:aws:states:::lambda:invoke",
          {FunctionName: kind === "local" ? "my_function" : "my-function", "Payload.$": "$"}, "$.result",
          {ResultSelector: {"Payload.$": "$.Payload"}})}};
      case "sdk":
        return {entry: name, exit: [name, "Next"], states: {[name]: task("arn:aws:states:::aws-sdk:ec2:describeInstances", {}, "$.result")}};
      case "startJob":
        return {entry: name, exit: [name, "Next"], states: {[name]: task("arn:aws:states:::states:startExecution.sync:2",
          {StateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:child", "Input.$": "$"}, "$.child")}};
      case "http":
        return {entry: name, exit: [name, "Next"], states: {[name]: task("arn:aws:states:::http:invoke",
          {ApiEndpoint: "https://example.com/", Method: "GET",
           Authentication: {ConnectionArn: "arn:aws:events:us-east-1:123456789012:connection/example/00000000-0000-0000-0000-000000000000"}}, "$.http")}};
      case "wait": return {entry: name, exit: [name, "Next"], states: {[name]: {Type: "Wait", Seconds: 10}}};
      case "choice": return {entry: name, exit: [name, "Default"], states: {[name]: {Type: "Choice", Choices: []}}};
      case "pass": return {entry: name, exit: [name, "Next"], states: {[name]: {Type: "Pass"}}};
      case "succeed": return {entry: name, exit: null, states: {[name]: {Type: "Succeed"}}};
      case "fail": return {entry: name, exit: null, states: {[name]: {Type: "Fail", Error: `${name}Error`, Cause: "what failed and what to do"}}};
      case "parallel": {
        const b1 = nm("Branch1Step"), b2 = nm("Branch2Step");
        return {entry: name, exit: [name, "Next"], states: {[name]: {Type: "Parallel", Branches: [
          {StartAt: b1, States: {[b1]: pass()}}, {StartAt: b2, States: {[b2]: pass()}}], ResultPath: "$.parallel"}}};
      }
      case "map": {
        const inner = nm(`${name}Step`);
        return {entry: name, exit: [name, "Next"], states: {[name]: {Type: "Map", ItemsPath: "$.items", MaxConcurrency: 2,
          ItemProcessor: {ProcessorConfig: {Mode: "INLINE"}, StartAt: inner, States: {[inner]: pass()}}, ResultPath: "$.mapped"}}};
      }
    }
    throw new Error(`unknown part ${kind}`);
  }

  function insertAfter(sts, after, entries) {
    const out = {};
    let done = false;
    for (const [k, v] of Object.entries(sts)) {
      out[k] = v;
      if (k === after) { Object.assign(out, entries); done = true; }
    }
    if (!done) Object.assign(out, entries);
    return out;
  }
  /* Point every reference to `from` in the machine at `to` (null: drop the reference). */
  function retarget(m, from, to) {
    if (m.StartAt === from) m.StartAt = to === null ? (Object.keys(m.States).find((n) => n !== from) || "") : to;
    for (const st of Object.values(m.States)) {
      if (!isObj(st)) continue;
      if (st.Next === from) { if (to === null) { delete st.Next; if (!TERMINAL.includes(st.Type)) st.End = true; } else st.Next = to; }
      if (st.Default === from) { if (to === null) delete st.Default; else st.Default = to; }
      if (Array.isArray(st.Choices)) st.Choices = st.Choices.filter((r) => to !== null || r.Next !== from).map((r) => (r.Next === from ? {...r, Next: to} : r));
      if (Array.isArray(st.Catch)) {
        st.Catch = st.Catch.filter((c) => to !== null || c.Next !== from).map((c) => (c.Next === from ? {...c, Next: to} : c));
        if (!st.Catch.length) delete st.Catch;
      }
    }
  }
  function setExit(m, exit, target) {
    if (!exit) return;
    const st = m.States[exit[0]];
    if (target) { st[exit[1]] = target; if (exit[1] === "Next") delete st.End; }
    else if (exit[1] === "Next") { delete st.Next; st.End = true; }
  }
  /* The exit of a state or part: [name, field] and where it leads now. */
  function exitOf(m, name) {
    const loop = loopOf(m, name);
    if (loop) return {exit: [loop.done, "Default"], target: m.States[loop.done].Default || null};
    const st = m.States[name];
    if (!isObj(st) || TERMINAL.includes(st.Type)) return {exit: null, target: null};
    if (st.Type === "Choice") return {exit: [name, "Default"], target: st.Default || null};
    return {exit: [name, "Next"], target: st.Next || null};
  }

  /* Add a part to the machine of `selected` (after it), or to the top level. Returns its entry pointer. */
  function addPart(data, kind, selected) {
    const part = build(kind, data);
    let machinePtr = "", after = null;
    if (selected && get(data, selected) !== undefined) {
      if (/\/Branches\/\d+$/.test(selected)) machinePtr = selected;
      else ({machinePtr, name: after} = locate(selected));
    }
    const m = machinePtr ? get(data, machinePtr) : data;
    if (!isObj(m.States)) m.States = {};
    const sel = after !== null ? m.States[after] : null;
    if (sel && sel.Comment === PLACEHOLDER) {          // replace the placeholder
      const target = sel.Next || null;
      m.States = insertAfter(m.States, after, part.states);
      retarget(m, after, part.entry);
      delete m.States[after];
      setExit(m, part.exit, target);
    } else if (sel) {
      const {exit, target} = exitOf(m, after);
      const loop = loopOf(m, after);  // a part goes after the whole RunCommand loop
      const anchor = loop ? Object.keys(m.States).filter((n) => loop.group.includes(n)).pop() : after;
      m.States = insertAfter(m.States, anchor, part.states);
      if (exit) { setExit(m, part.exit, target); setExit(m, exit, part.entry); }
      else setExit(m, part.exit, null);
    } else {
      const first = !Object.keys(m.States).length;
      Object.assign(m.States, part.states);
      if (first || !m.StartAt) m.StartAt = part.entry;
      setExit(m, part.exit, null);
    }
    return statePtr(machinePtr, part.entry);
  }

  function removeState(data, ptr) {
    const {machinePtr, name} = locate(ptr);
    const m = machinePtr ? get(data, machinePtr) : data;
    if (!m || !isObj(m.States) || !(name in m.States)) return;
    const loop = loopOf(m, name);
    const group = loop ? loop.group : [name];
    const {target} = exitOf(m, name);
    const after = group.includes(target) ? null : target;
    for (const n of group) delete m.States[n];
    for (const n of group) retarget(m, n, after);
    if (machinePtr && !Object.keys(m.States).length) {  // a branch or Map keeps one state
      const p = uniqueName(data, "Step");
      m.States[p] = pass(); m.StartAt = p;
    }
  }

  function connect(data, srcPtr, dstPtr) {
    const a = locate(srcPtr), b = locate(dstPtr);
    if (a.machinePtr !== b.machinePtr) throw new Error("both states must be in the same job-net, branch or Map");
    const m = a.machinePtr ? get(data, a.machinePtr) : data;
    const {exit} = exitOf(m, a.name);
    if (!exit) throw new Error(`${a.name} ends the job-net (${m.States[a.name].Type}): it has no next state`);
    setExit(m, exit, b.name);
  }

  function rename(data, ptr, to) {
    const {machinePtr, name} = locate(ptr);
    if (!to || to === name) return ptr;
    if (allNames(data).has(to)) throw new Error(`a state named ${to} exists already`);
    if (to.length > 80) throw new Error("a state name has at most 80 characters");
    const m = machinePtr ? get(data, machinePtr) : data;
    const out = {};
    for (const [k, v] of Object.entries(m.States)) out[k === name ? to : k] = v;
    m.States = out;
    retarget(m, name, to);
    return statePtr(machinePtr, to);
  }

  return {PLACEHOLDER, PARTS, esc, get, locate, statePtr, machines, states, edges, elements, loopOf,
          kindOf, layout, addPart, removeState, connect, rename, uniqueName};
})();
