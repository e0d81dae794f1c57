/* cfnops job-net designer: canvas (cytoscape.js, the console's graph library), palette, forms, code view, data flow.
   No inline script, no innerHTML: the page's data comes from a JSON block, text goes in with
   textContent. The definition is the one source of truth; the drawing is derived from it. */
"use strict";
window.cfnopsDesigner = (function () {
  const M = window.cfnopsDesignModel, F = window.cfnopsDesignForms, el = F.el;
  const $ = (id) => document.getElementById(id);
  const EMPTY = () => ({Comment: "New job-net", StartAt: "", States: {}});
  const S = {data: null, base: null, format: "json", undo: [], redo: [], selected: null, positions: {},
             check: null, connecting: false, lastKey: null, lastAt: 0, seq: 0, codeSeq: 0, cy: null, text: ""};
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  function api(url, body) {
    const init = body === undefined ? {headers: {Accept: "application/json"}} :
      {method: "POST", body: JSON.stringify(body),
       headers: {Accept: "application/json", "Content-Type": "application/json", "X-CSRF-Token": csrf()}};
    // An unreachable console (or a proxy's non-JSON page) is an answer too: the caller
    // shows it in the status line, and nothing rejects unhandled.
    const down = (err) => ({ok: false, status: 0, body: {error: `the console did not answer (${err.message})`,
                                                         hint: "try again once it is reachable"}});
    return fetch(url, init).then((r) => r.json().then((j) => ({ok: r.ok, status: r.status, body: j}))).catch(down);
  }
  const status = (text) => { $("d-status").textContent = text; };
  const sdkCache = {};
  function sdk(service, action) {
    const q = `service=${encodeURIComponent(service || "")}&action=${encodeURIComponent(action || "")}`;
    sdkCache[q] = sdkCache[q] || api(`/designer/api/sdk?${q}`).then((r) => (r.ok ? r.body : {}));
    return sdkCache[q];
  }

  /* --- drawing ----------------------------------------------------------------------- */
  function style() {
    return [
      {selector: "node", style: {"label": "data(label)", "text-wrap": "wrap", "text-valign": "center", "shape": "round-rectangle",
        "width": "data(w)", "height": "data(h)", "padding": "8px", "font-size": 11, "background-color": "#fff", "border-width": 1,
        "border-color": "#7a8699", "min-zoomed-font-size": 5, "z-index-compare": "manual", "z-index": 100}},
      {selector: "node.box", style: {"text-valign": "top", "background-opacity": 0.06, "border-style": "dashed", "font-size": 11,
        "width": "data(bw)", "height": "data(bh)", "padding": 0, "z-index": "data(z)"}},
      {selector: "node.part", style: {"background-color": "#e8f1ff", "background-opacity": 0.5, "border-color": "#0b5fff"}},
      {selector: "node[kind = 'end']", style: {"shape": "ellipse", "background-color": "#232f3e", "color": "#fff"}},
      {selector: "node[placeholder = 'yes']", style: {"border-style": "dotted", "color": "#888"}},
      {selector: "node.t-fail", style: {"background-color": "#ffe3e3"}},
      {selector: "node.t-succeed", style: {"background-color": "#e3f7e3"}},
      {selector: "node.bad", style: {"border-color": "#c8102e", "border-width": 3, "background-color": "#ffecec"}},
      {selector: "node:selected", style: {"border-width": 3, "border-color": "#0b5fff"}},
      {selector: "edge", style: {"curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.2, "line-color": "#9aa5b5",
        "target-arrow-color": "#9aa5b5", "label": "data(label)", "font-size": 11, "text-wrap": "wrap", "text-max-width": 220,
        "text-background-color": "#fff", "text-background-opacity": 0.85, "min-zoomed-font-size": 6,
        "z-index-compare": "manual", "z-index": 50}},
      {selector: "edge.k-catch", style: {"line-style": "dashed", "line-color": "#d9822b", "target-arrow-color": "#d9822b"}},
      {selector: "edge.bad", style: {"line-color": "#c8102e", "target-arrow-color": "#c8102e", "width": 3, "color": "#a1001b"}},
    ];
  }
  function edgeLabel(e) {
    const info = S.check && S.check.edgesById[e.id];
    const base = e.kind === "next" || e.kind === "start" ? "" : e.kind;
    if (info && info.findings.length) return `✘ ${info.findings.map((f) => f.pointer).join(", ")}`;
    if ($("d-flow").checked && info && info.shape.length) return (base ? `${base}: ` : "") + short(info.shape[0], 70);
    return base;
  }
  const short = (t, n) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  /* Group boxes (a RunCommand part, a Parallel and its branches, a Map) are plain nodes drawn
     behind their members and sized to them (fitBoxes), not cytoscape compound nodes: those
     tripled the cost of the first frame of a 100-state job-net. `in` names a node's box. */
  function flat(els) {
    const boxOf = {}, boxes = new Set();
    for (const e of els) if (!e.data.source && e.data.parent) { boxOf[e.data.id] = e.data.parent; boxes.add(e.data.parent); }
    const depth = (id) => { let d = 0; for (let b = boxOf[id]; b; b = boxOf[b]) d++; return d; };
    for (const e of els) {
      if (e.data.source) continue;
      if (e.data.parent) { e.data.in = e.data.parent; delete e.data.parent; }
      if (boxes.has(e.data.id)) { Object.assign(e.data, {z: depth(e.data.id), bw: 80, bh: 40}); e.classes = `${e.classes || ""} box`.trim(); }
    }
    return els;
  }
  const isBox = (n) => n.hasClass("box");
  /* The nodes inside box `id`, at any depth. */
  function inside(id) {
    return S.cy.nodes().filter((n) => { for (let b = n.data("in"); b; b = S.cy.getElementById(b).data("in")) if (b === id) return true; return false; });
  }
  /* Size every box to its members (innermost first), measured, then written in one batch. */
  function fitBoxes() {
    const cy = S.cy, PAD = 10, LABEL = 18, rect = {}, members = {};
    const boxes = cy.nodes(".box").toArray().sort((a, b) => b.data("z") - a.data("z"));
    // Measured before any box is sized: a node first measured after a box's data changed in
    // the same pass kept a stale "takes no space" and was never drawn.
    cy.nodes().forEach((n) => { if (!isBox(n)) n.boundingBox({includeLabels: false}); });
    if (!boxes.length) return;
    cy.nodes().forEach((n) => { const b = n.data("in"); if (b) (members[b] = members[b] || []).push(n); });
    for (const box of boxes) {
      let r = null;
      for (const n of members[box.id()] || []) {
        const m = rect[n.id()] || n.boundingBox({includeLabels: false});
        r = r ? {x1: Math.min(r.x1, m.x1), y1: Math.min(r.y1, m.y1), x2: Math.max(r.x2, m.x2), y2: Math.max(r.y2, m.y2)} : {...m};
      }
      if (!r) continue;
      const b = {x1: r.x1 - PAD, y1: r.y1 - PAD, x2: r.x2 + PAD, y2: r.y2 + PAD};
      rect[box.id()] = {...b, y1: b.y1 - LABEL};  // its label is drawn above it
      box.scratch("_fit", b);
    }
    cy.batch(() => { for (const box of boxes) {
      const b = box.scratch("_fit");
      if (!b) continue;
      box.data({bw: b.x2 - b.x1, bh: b.y2 - b.y1});
      box.position({x: (b.x1 + b.x2) / 2, y: (b.y1 + b.y2) / 2});
      box.removeScratch("_fit");
    } });
  }
  function draw(layout, lists = true) {
    const els = flat(M.elements(S.data)), at = layout ? M.layout(S.data) : null;
    if (!S.cy) {
      S.cy = cytoscape({container: $("d-graph"), elements: [], style: style(), wheelSensitivity: 0.3, maxZoom: 1.6,
                        boxSelectionEnabled: false});
      S.cy.on("tap", "node", (ev) => onTap(ev.target.id()));
      S.cy.on("grab", "node.box", (ev) => { S.grabbed = {...ev.target.position()}; });
      S.cy.on("drag", "node", (ev) => {
        const n = ev.target;
        if (!isBox(n)) return fitBoxes();
        const p = n.position(), was = S.grabbed || p, dx = p.x - was.x, dy = p.y - was.y;  // a box carries its members
        S.grabbed = {...p};
        inside(n.id()).forEach((m) => { const q = m.position(); m.position({x: q.x + dx, y: q.y + dy}); });
      });
      S.cy.on("dragfree", "node", (ev) => {
        const moved = isBox(ev.target) ? inside(ev.target.id()) : ev.target;
        moved.forEach((n) => { if (!isBox(n)) S.positions[n.id()] = {...n.position()}; });
        fitBoxes();
      });
      S.cy.on("mouseover", "edge", (ev) => hover(ev.target.id()));
      S.cy.on("mouseout", "edge", () => { $("d-hover").textContent = ""; });
      window.cfnopsDesignerGraph = S.cy;
    }
    const cy = S.cy;
    cy.batch(() => {
      patch(cy, els);
      const bad = new Set(S.check ? S.check.findings.filter((f) => f.severity === "error" && f.state).map((f) => f.state) : []);
      cy.nodes().forEach((n) => { if (bad.has(n.id())) n.addClass("bad"); });
      cy.edges().forEach((e) => {
        e.data("label", edgeLabel(e.data()));
        const info = S.check && S.check.edgesById[e.id()];
        if (info && info.findings.length) e.addClass("bad");
      });
    });
    const missing = cy.nodes().filter((n) => !isBox(n) && !S.positions[n.id()]);
    if (layout || missing.length === cy.nodes().filter((n) => !isBox(n)).length) autoLayout(at);
    else {
      const anchor = S.selected && S.positions[S.selected] ? S.positions[S.selected] : {x: 120, y: 40};
      missing.forEach((n, i) => { S.positions[n.id()] = {x: anchor.x + 30 * i, y: anchor.y + 80 * (i + 1)}; });
      cy.batch(() => cy.nodes().forEach((n) => { if (!isBox(n) && S.positions[n.id()]) n.position(S.positions[n.id()]); }));
      fitBoxes();
    }
    if (S.selected) cy.getElementById(S.selected).select();
    if (lists) drawLists();
  }
  /* Bring the drawing to `els` touching only what changed (a full redraw of 100 states costs). */
  function patch(cy, els) {
    const want = new Map(els.map((e) => [e.data.id, e]));
    cy.elements().forEach((ele) => {
      const e = want.get(ele.id());
      const d = e && e.data;
      const same = d && (ele.isNode() || (ele.data("source") === d.source && ele.data("target") === d.target));
      if (!same) ele.remove();
    });
    const nodes = els.filter((e) => !e.data.source), edges = els.filter((e) => e.data.source);
    for (const e of [...nodes, ...edges]) {
      const ele = cy.getElementById(e.data.id);
      if (ele.length && ele.inside()) {
        for (const [k, v] of Object.entries(e.data)) if (k !== "id" && k !== "bw" && k !== "bh" && ele.data(k) !== v) ele.data(k, v);
        for (const k of Object.keys(ele.data())) if (!(k in e.data) && !["id", "source", "target"].includes(k)) ele.removeData(k);
        if ((e.classes || "") !== ele.classes().filter((c) => c !== "bad").join(" ")) ele.classes(e.classes || "");
      } else cy.add(e);
    }
  }
  function autoLayout(laid) {
    const cy = S.cy, at = laid || M.layout(S.data);
    cy.batch(() => cy.nodes().forEach((n) => {
      if (!isBox(n) && at[n.id()]) n.position(at[n.id()]);
    }));
    fitBoxes();
    // Fit from the layout's own extent: cytoscape's fit measures every compound box (slow).
    const pts = Object.values(at), pad = 90;
    const x0 = Math.min(...pts.map((p) => p.x)) - pad, x1 = Math.max(...pts.map((p) => p.x)) + pad;
    const y0 = Math.min(...pts.map((p) => p.y)) - pad / 2, y1 = Math.max(...pts.map((p) => p.y)) + pad / 2;
    S.extent = {x0, x1, y0, y1};
    fitView();
    for (const [id, p] of Object.entries(at)) S.positions[id] = {...p};
  }
  // The whole job-net, centred, when it fits at a readable zoom (11 px labels drawn at
  // 11 px or more); a larger one opens at that zoom, centred across and from its top,
  // and is panned (drag, or the scroll wheel) or zoomed out by hand.
  const READABLE = 1.0;
  function fitView() {
    const cy = S.cy, e = S.extent;
    if (!cy || !e) return;
    const whole = Math.min(1.6, cy.width() / (e.x1 - e.x0), cy.height() / (e.y1 - e.y0));
    const zoom = Math.max(whole, READABLE);
    const y = whole >= READABLE ? (cy.height() - zoom * (e.y0 + e.y1)) / 2 : -zoom * e.y0;
    cy.viewport({zoom, pan: {x: (cy.width() - zoom * (e.x0 + e.x1)) / 2, y}});
  }
  function zoomBy(f) {
    const cy = S.cy;
    cy.zoom({level: Math.min(cy.maxZoom(), Math.max(0.2, cy.zoom() * f)), renderedPosition: {x: cy.width() / 2, y: cy.height() / 2}});
  }
  function hover(edgeId) {
    const info = S.check && S.check.edgesById[edgeId];
    if (!info) return;
    const lines = [`${info.source} → ${info.target}`, ...info.shape.map((s) => `data: ${s}`),
      ...info.findings.map((f) => `✘ ${f.pointer}: ${f.message}${f.suggestion ? ` (fix: ${f.suggestion})` : ""}`)];
    $("d-hover").textContent = lines.join("\n");
  }
  function drawLists() {
    const list = $("d-states");
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.ptr : null;
    list.replaceChildren(...M.states(S.data).map((s) => {
      const errs = S.check ? S.check.findings.filter((f) => f.state === s.ptr && f.severity === "error") : [];
      const b = el("button", {type: "button", className: `status${errs.length ? " s-failed" : ""}`,
        dataset: {ptr: s.ptr, state: s.name}, "aria-pressed": String(S.selected === s.ptr),
        "aria-label": `State ${s.name}, ${M.kindOf(s.state)}${errs.length ? `, ${errs.length} error(s)` : ""}`,
        onclick: () => onTap(s.ptr)}, `${s.name} · ${M.kindOf(s.state)}`);
      return el("li", {}, b);
    }));
    if (focused) {  // the list is redrawn after each check: keyboard focus stays on its state
      const again = list.querySelector(`button[data-ptr="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    }
    const arrows = $("d-arrows");
    arrows.replaceChildren(...M.edges(S.data).map((e) => {
      const info = S.check && S.check.edgesById[e.id];
      const bad = info && info.findings.length;
      const name = (p) => (p === "/StartAt" ? "Start" : p.endsWith("/StartAt") ? `start of ${M.locate(p.replace(/\/(StartAt|ItemProcessor\/StartAt|Iterator\/StartAt|Branches\/\d+\/StartAt)$/, "")).name}` : M.locate(p).name);
      const text = `${name(e.source)} → ${name(e.target)}${e.kind === "next" || e.kind === "start" ? "" : ` (${e.kind})`}` +
        (info && info.shape.length ? `: ${short(info.shape[0], 160)}` : "") +
        (bad ? ` ✘ ${info.findings.map((f) => `${f.pointer}: ${f.message}${f.suggestion ? ` (fix: ${f.suggestion})` : ""}`).join("; ")}` : "");
      return el("li", {className: bad ? "bad" : "", dataset: {edge: e.id}}, text);
    }));
  }

  /* --- selection, editing, history ------------------------------------------------------ */
  function onTap(id) {
    if (S.connecting && S.selected && id !== S.selected) {
      S.connecting = false;
      const src = S.selected;
      try { commit(() => M.connect(S.data, src, id)); status(`Connected ${M.locate(src).name} → ${M.locate(id).name}.`); }
      catch (err) { status(err.message); }
      return;
    }
    if (id === "/StartAt" || id.startsWith("part:")) id = id.startsWith("part:") ? id.slice(5) : id;
    if (id === "/StartAt") return;
    S.selected = id;
    if (S.cy) { S.cy.nodes().unselect(); S.cy.getElementById(id).select(); }
    drawLists(); renderForm();
  }
  function snapshot() { return JSON.stringify(S.data); }
  /* Apply an edit. `key` coalesces typing in one field into one undo step. */
  function commit(fn, key, opts = {}) {
    const now = Date.now();
    if (!key || key !== S.lastKey || now - S.lastAt > 1500) { S.undo.push(snapshot()); S.redo = []; }
    S.lastKey = key || null; S.lastAt = now;
    fn();
    afterEdit(opts);
  }
  function afterEdit(opts = {}) {
    if (S.selected && M.get(S.data, S.selected) === undefined && !/\/Branches\/\d+$/.test(S.selected)) S.selected = null;
    draw(false);
    if (opts.form !== false) renderForm();
    if (opts.code !== false) renderCode();
    scheduleCheck();
  }
  function undo() {
    if (!S.undo.length) return status("Nothing to undo.");
    S.redo.push(snapshot()); S.data = JSON.parse(S.undo.pop()); S.lastKey = null;
    afterEdit(); status("Undone.");
  }
  function redo() {
    if (!S.redo.length) return status("Nothing to redo.");
    S.undo.push(snapshot()); S.data = JSON.parse(S.redo.pop()); S.lastKey = null;
    afterEdit(); status("Redone.");
  }
  function addPart(kind, position) {
    let ptr;
    commit(() => { ptr = M.addPart(S.data, kind, S.selected); });
    S.selected = ptr;
    if (position) { S.positions[ptr] = position; draw(false); }
    else draw(true);  // placed by keyboard or a press: laid out with the rest
    renderForm();
    status(`Added ${M.locate(ptr).name}.`);
    const button = document.querySelector(`#d-states button[data-ptr="${CSS.escape(ptr)}"]`);
    return button;
  }
  function removeSelected() {
    if (!S.selected || /\/Branches\/\d+$/.test(S.selected)) return status("Select a state to delete.");
    const name = M.locate(S.selected).name;
    commit(() => M.removeState(S.data, S.selected));
    S.selected = null; renderForm(); status(`Deleted ${name}.`);
  }
  function renderForm() {
    const form = $("d-form");
    if (!S.selected || M.get(S.data, S.selected) === undefined) {
      form.replaceChildren(el("p", {className: "hint"}, "Select a state to edit it."));
      $("d-form-title").textContent = "Settings";
      return;
    }
    const {machinePtr, name} = M.locate(S.selected);
    const machine = machinePtr ? M.get(S.data, machinePtr) : S.data;
    const info = S.check && S.check.states[S.selected];
    const ptr = S.selected;
    $("d-form-title").textContent = `Settings of ${name}`;
    const types = {};
    for (const [n, st] of Object.entries(machine.States)) types[n] = st && st.Type;
    const jsonata = (S.data.QueryLanguage === "JSONata" && !(M.get(S.data, ptr).QueryLanguage === "JSONPath"));
    const active = form.contains(document.activeElement) ? focusKey(document.activeElement) : null;
    F.render(form, {
      ptr, name, machinePtr, machine, state: M.get(S.data, ptr), names: Object.keys(machine.States), types,
      loop: M.loopOf(machine, name), jsonata, sdk,
      paths: info && info.reached ? (jsonata ? info.jsonata : info.paths) : ["$"],
      update: (fn, key, rerender) => commit(() => fn(M.get(S.data, ptr)), key, {form: !!rerender}),
      updateMachine: (fn, key) => commit(() => fn(machinePtr ? M.get(S.data, machinePtr) : S.data), key, {form: false}),
      rename: (to) => {
        try { let next; commit(() => { next = M.rename(S.data, ptr, to); }); S.selected = next; renderForm(); }
        catch (err) { status(err.message); renderForm(); }
      },
      addBranch: () => commit(() => {
        const st = M.get(S.data, ptr), n = M.uniqueName(S.data, "BranchStep");
        st.Branches.push({StartAt: n, States: {[n]: {Type: "Pass", Comment: M.PLACEHOLDER, End: true}}});
      }),
    });
    if (S.check) F.mark(form, S.check.findings, ptr);
    if (active) { const again = [...form.querySelectorAll("input, select, textarea, button")].find((n) => focusKey(n) === active); if (again) again.focus(); }
  }
  /* What identifies a form control across re-renders: its label or its text. */
  function focusKey(node) {
    return `${node.tagName}:${(node.labels && node.labels[0] ? node.labels[0].textContent : node.textContent).trim()}`;
  }

  /* --- data-flow check --------------------------------------------------------------- */
  let checkTimer = null;
  function sample(id) {
    try { $("d-data-error").textContent = ""; return JSON.parse($(id).value || "{}"); }
    catch (err) { $("d-data-error").textContent = `${id === "d-input" ? "Sample input" : "Task results"}: ${err.message}`; return null; }
  }
  function scheduleCheck(delay = 100) {
    S.wanted = (S.wanted || 0) + 1;  // a check is owed for this edit
    $("d-graph").dataset.pending = "1";
    clearTimeout(checkTimer); checkTimer = setTimeout(runCheck, delay);
  }
  function runCheck() {
    const input = sample("d-input"), results = sample("d-results");
    if (input === null || results === null || !S.data) { delete $("d-graph").dataset.pending; return Promise.resolve(); }
    const seq = ++S.seq, wanted = S.wanted;
    return api("/designer/api/check", {definition: S.data, input, taskResults: results}).then((r) => {
      if (seq !== S.seq) return;
      if (wanted === S.wanted) delete $("d-graph").dataset.pending;  // no edit since it was asked
      if (!r.ok) { status(r.body.error || "The check failed."); return; }
      const check = useCheck(r.body);
      S.cy.batch(() => {
        S.cy.nodes().removeClass("bad");
        for (const f of check.findings) if (f.severity === "error" && f.state) S.cy.getElementById(f.state).addClass("bad");
        S.cy.edges().forEach((e) => {
          e.data("label", edgeLabel(e.data()));
          const info = check.edgesById[e.id()];
          e.toggleClass("bad", !!(info && info.findings.length));
        });
      });
      drawLists(); drawFindings();
      const form = $("d-form");
      if (S.selected) {
        const info = check.states[S.selected];
        const list = document.getElementById("d-paths");
        if (list && info && info.reached) list.replaceChildren(...(info.paths || []).map((p) => el("option", {value: p})));
        F.mark(form, check.findings, S.selected);
      }
      shown(seq);
    });
  }
  function useCheck(check) {
    check.edgesById = {};
    for (const e of check.edges) check.edgesById[e.id] = e;
    S.check = check;
    return check;
  }
  /* The check is shown: data-checked now, data-shown (and the time, which
     benchmarks/designer_speed.py reads) once the frame that draws it is painted. */
  function shown(seq) {
    $("d-graph").dataset.checked = String(seq);
    requestAnimationFrame(() => setTimeout(() => {
      window.cfnopsDesignerShownAt = performance.now();
      $("d-graph").dataset.shown = String(seq);
    }));
  }
  function drawFindings(strict) {
    const c = S.check, box = $("d-findings");
    if (!c) return;
    const items = c.findings.map((f) => el("li", {className: `sev-${f.severity}`},
      `${f.severity === "error" ? "✘" : "!"} ${f.pointer}: ${f.message}${f.suggestion ? ` (fix: ${f.suggestion})` : ""} [${f.code}]`));
    // "No errors" only when everything was checked: references the sample data could not
    // reach (unknown Task results) may still fail at run time.
    const n = Object.keys(c.states).length, unchecked = c.notChecked.length;
    const head = !c.ok ? `${c.findings.filter((f) => f.severity === "error").length} error(s).`
      : unchecked ? `No errors found so far: ${n} states checked with the sample data, ${unchecked} reference(s) NOT checked.`
      : `No errors: ${n} states checked with the sample data.`;
    const parts = [el("p", {id: "d-check-head"}, head), el("ul", {}, ...items)];
    if (c.notChecked.length) parts.push(el("p", {className: "hint"}, `${c.notChecked.length} reference(s) not checked (unknown Task results: declare them under Task results).`));
    if (strict) {
      parts.push(el("h3", {}, "Validate strict (what Step Functions would reject)"));
      parts.push(c.strict.length ? el("ul", {id: "d-strict-result"}, ...c.strict.map((p) => el("li", {className: "sev-error"}, p)))
        : el("p", {id: "d-strict-result"}, "Strict validation passed: Step Functions would accept this definition."));
    }
    box.replaceChildren(...parts);
  }

  /* --- code view --------------------------------------------------------------------- */
  function gutter(badLine, top) {
    const n = ($("d-code").value.match(/\n/g) || []).length + 1, g = $("d-gutter");
    if (!badLine) {  // one text node: a node per line costs on a long definition
      g.textContent = Array.from({length: n}, (_, i) => `${i + 1}\n`).join("");
      if (!top) g.scrollTop = $("d-code").scrollTop;  // reading it lays the page out
      return;
    }
    const nodes = [];
    for (let i = 1; i <= n; i++) {
      nodes.push(i === badLine ? el("span", {className: "bad", dataset: {line: String(i)}}, String(i)) : String(i));
      nodes.push("\n");
    }
    g.replaceChildren(...nodes);
    g.scrollTop = $("d-code").scrollTop;
  }
  function renderCode(force) {
    const seq = ++S.codeSeq;
    return api("/designer/api/render", {definition: S.data, format: S.format, base: S.base}).then((r) => {
      if (seq !== S.codeSeq || !r.ok) return;
      S.text = r.body.text;
      if (force || document.activeElement !== $("d-code")) { $("d-code").value = S.text; $("d-code-error").textContent = ""; gutter(); }
    });
  }
  let codeTimer = null;
  function onCode() {
    gutter();
    clearTimeout(codeTimer);
    codeTimer = setTimeout(() => {
      const text = $("d-code").value;
      api("/designer/api/parse", {text, format: S.format}).then((r) => {
        if (text !== $("d-code").value) return;
        if (!r.ok) {
          const e = typeof r.body.error === "object" && r.body.error ? r.body.error : {message: r.body.error};
          $("d-code-error").textContent = `${e.message || "invalid"} — the drawing keeps the last valid definition.`;
          gutter(e.line);
          return;
        }
        $("d-code-error").textContent = "";
        S.text = text;
        commit(() => { S.data = r.body.definition; }, "code", {code: false});
      });
    }, 300);
  }

  /* --- load, save, run --------------------------------------------------------------- */
  function load(doc, path) {
    S.data = doc.data || EMPTY();
    S.base = doc.text ? {format: doc.format, text: doc.text} : null;
    S.format = doc.format || "json"; $("d-format").value = S.format;
    S.undo = []; S.redo = []; S.selected = null; S.positions = {}; S.check = null;
    if (path !== undefined) $("d-path").value = path;
    if (doc.sample !== undefined && doc.sample !== null) $("d-input").value = JSON.stringify(doc.sample, null, 2);
    const seq = ++S.seq;
    if (doc.check) useCheck(doc.check);  // checked by the server with the page: drawn once
    else runCheck();  // asked first: the server checks while the page draws
    // Every element written first, the drawing last: the page is laid out once, not per part.
    renderForm();
    if (doc.check) drawFindings();
    if (doc.text && doc.format === S.format) {  // the file's own text: no request to render it
      S.text = doc.text; $("d-code").value = doc.text; $("d-code-error").textContent = ""; gutter(0, true);
    } else renderCode();
    drawLists();
    draw(true, false);
    performance.mark("cfnops:designer-drawn");
    if (doc.check) shown(seq);
  }
  function save() {
    const path = $("d-path").value.trim();
    if (!path) { $("d-path").focus(); return status("Name the file to save (under the definition roots)."); }
    return api("/designer/api/save", {path, definition: S.data, format: S.format, base: S.base}).then((r) => {
      if (!r.ok) return status(`Not saved: ${r.body.error}${r.body.hint ? ` (${r.body.hint})` : ""}`);
      S.base = {format: S.format, text: r.body.text};
      const errors = S.check ? S.check.findings.filter((f) => f.severity === "error").length : 0;
      status(`Saved ${r.body.bytes} bytes to ${r.body.path}${errors ? ` (with ${errors} error(s) from the check)` : ""}.`);
      $("d-status").dataset.saved = r.body.path;
    });
  }
  function download() {
    const name = ($("d-path").value.trim().split("/").pop()) || `jobnet.asl.${S.format === "yaml" ? "yaml" : "json"}`;
    const url = URL.createObjectURL(new Blob([S.text], {type: S.format === "yaml" ? "application/yaml" : "application/json"}));
    const a = el("a", {href: url, download: name});
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  function copy() {
    const done = () => status("Copied the definition.");
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(S.text).then(done, () => status("Copy refused by the browser."));
    else { $("d-code").select(); document.execCommand("copy"); done(); }
  }
  function run() {
    const input = sample("d-input");
    if (input === null) return;
    const machineName = (($("d-path").value.trim().split("/").pop() || "designer").replace(/\.(asl\.)?(json|ya?ml)$/, "")
      .replace(/[^A-Za-z0-9_-]/g, "-")) || "designer";
    api("/designer/api/run", {definition: S.data, input, machineName}).then((r) => {
      if (!r.ok) return status(`Not started: ${r.body.error}${r.body.hint ? ` (${r.body.hint})` : ""}`);
      const s = $("d-status");
      s.replaceChildren(`Started ${r.body.runId} on the sandbox (a worker runs it): `, el("a", {href: r.body.url}, "open the run"));
    });
  }

  /* --- wiring ------------------------------------------------------------------------ */
  function palette() {
    const list = $("d-parts");
    for (const p of M.PARTS) {
      const b = el("button", {type: "button", draggable: "true", dataset: {part: p.kind}, onclick: () => {
        const added = addPart(p.kind);
        if (added) added.focus();
      }}, p.label);
      b.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", p.kind); ev.dataTransfer.effectAllowed = "copy"; });
      list.append(el("li", {}, b));
    }
    const g = $("d-graph");
    g.addEventListener("dragover", (ev) => { ev.preventDefault(); g.classList.add("drop"); });
    g.addEventListener("dragleave", () => g.classList.remove("drop"));
    g.addEventListener("drop", (ev) => {
      ev.preventDefault(); g.classList.remove("drop");
      const kind = ev.dataTransfer.getData("text/plain");
      if (!M.PARTS.some((p) => p.kind === kind)) return;
      const rect = g.getBoundingClientRect(), pan = S.cy.pan(), zoom = S.cy.zoom();
      const pos = {x: (ev.clientX - rect.left - pan.x) / zoom, y: (ev.clientY - rect.top - pan.y) / zoom};
      addPart(kind, pos);
    });
  }
  function keys(ev) {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
    const mod = ev.ctrlKey || ev.metaKey;
    if (mod && !typing && ev.key.toLowerCase() === "z" && !ev.shiftKey) { ev.preventDefault(); undo(); }
    else if (mod && !typing && (ev.key.toLowerCase() === "y" || (ev.key.toLowerCase() === "z" && ev.shiftKey))) { ev.preventDefault(); redo(); }
    else if (!typing && !mod && (ev.key === "Delete" || ev.key === "Backspace") && S.selected) { ev.preventDefault(); removeSelected(); }
    else if (!typing && !mod && ev.key.toLowerCase() === "c" && S.selected) { ev.preventDefault(); startConnect(); }
    else if (S.connecting && ev.key === "Escape") { S.connecting = false; status("Connect cancelled."); }
  }
  function startConnect() {
    if (!S.selected) return status("Select the state to connect from first.");
    S.connecting = true;
    status(`Connect ${M.locate(S.selected).name} to…: choose the next state on the canvas or in the state list (Escape cancels).`);
  }
  function init() {
    performance.mark("cfnops:designer-init");
    const boot = JSON.parse($("designer-boot").textContent);
    palette();
    $("d-undo").addEventListener("click", undo);
    $("d-redo").addEventListener("click", redo);
    $("d-layout").addEventListener("click", () => { autoLayout(); status("Laid out."); });
    $("d-fit").addEventListener("click", fitView);
    $("d-zoom-in").addEventListener("click", () => zoomBy(1.25));
    $("d-zoom-out").addEventListener("click", () => zoomBy(0.8));
    $("d-connect").addEventListener("click", startConnect);
    $("d-delete").addEventListener("click", removeSelected);
    $("d-flow").addEventListener("change", () => draw(false));
    $("d-strict").addEventListener("click", () => runCheck().then(() => { drawFindings(true); status(
      S.check && !S.check.strict.length ? "Validate strict: accepted." : "Validate strict: see the problems under Check."); }));
    $("d-run").addEventListener("click", run);
    if ($("d-save")) $("d-save").addEventListener("click", save);  // operators only
    $("d-download").addEventListener("click", download);
    $("d-copy").addEventListener("click", copy);
    $("d-code").addEventListener("input", onCode);
    $("d-code").addEventListener("scroll", () => { $("d-gutter").scrollTop = $("d-code").scrollTop; });
    $("d-format").addEventListener("change", () => { S.format = $("d-format").value; renderCode(true); });
    $("d-input").addEventListener("input", () => scheduleCheck(300));
    $("d-results").addEventListener("input", () => scheduleCheck(300));
    const asOpened = JSON.stringify(boot.doc);  // edits change the loaded copy, not this
    $("d-new").addEventListener("click", () => {
      const t = $("d-template").value;
      if (t === "@opened") { load(JSON.parse(asOpened), boot.path); status(`Started again from ${boot.opened}.`); return; }
      if (!t) { load({format: "json", text: "", data: EMPTY()}, ""); status("Empty canvas: add parts from the palette."); return; }
      api(`/designer/api/templates/${encodeURIComponent(t)}`).then((r) => {
        if (r.ok) { load(r.body, ""); status(`Started from the template ${t}.`); }
      });
    });
    document.addEventListener("keydown", keys);
    load(boot.doc.data ? boot.doc : {format: "json", text: "", data: EMPTY()});
  }
  if (document.getElementById("designer-boot")) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
  }
  return {state: S, runCheck, addPart, undo, redo, save, fitView};
})();
