/* cfnops console: the Job run page. Data arrives as JSON and is set as text only.
   Live updates carry deltas (new events, changed statuses and iterations); nothing the
   user is typing is redrawn: forms stay, only their `hidden` flag follows the run. */
"use strict";
(function () {
  const C = window.cfnops;
  const el = (id) => document.getElementById(id);
  const make = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  };
  const slug = (s) => String(s || "none").toLowerCase().replace(/[^a-z_]/g, "-");
  let data = C.json("job-data");
  const runId = data.runId, base = "/jobs/" + encodeURIComponent(runId);
  const elements = C.json("job-elements") || [];
  const params = new URLSearchParams(location.search);
  let scope = {map: data.scope.map, iteration: data.scope.iteration};
  let open = data.scope.state || params.get("state") || null;
  let source = null, events = data.events.slice(), moreEvents = data.moreEvents;
  let userZoomed = false, collapsed = false;

  // ---- graph ---------------------------------------------------------------------------
  const cy = C.graph(el("graph"), elements);
  window.cfnopsGraph = cy;
  const READABLE = 1.0;  // below this zoom, 11 px labels would be drawn smaller than 11 px
  // The panel grows (never shrinks below its stylesheet height) to the laid-out graph's
  // height at the zoom its width allows, so a job-net that is as narrow as a long chain
  // shows whole at 100 % or more: the page scrolls, not the graph. Past MAX_HEIGHT (about
  // two screens) the panel stops growing and the graph pans as before.
  const MAX_HEIGHT = 2400, PAD = 16;
  function baseHeight(box) {
    const inline = box.style.height;
    box.style.height = "";
    const h = box.clientHeight;
    box.style.height = inline;
    return h;
  }
  function size(shown) {
    const box = el("graph");
    if (box.hidden || !box.clientWidth) return;
    const bb = shown.boundingBox(), base = baseHeight(box);
    // The largest zoom the width allows (at most 130 %) whose height fits MAX_HEIGHT,
    // never below READABLE.
    const room = (n) => n - 2 * PAD - 4;
    const wide = Math.min(1.3, room(box.clientWidth + 4) / Math.max(bb.w, 1));
    const z = Math.max(READABLE, Math.min(wide, room(MAX_HEIGHT) / Math.max(bb.h, 1)));
    const want = Math.ceil(bb.h * z) + 2 * PAD + 4;
    const height = wide >= READABLE && want > base && want <= MAX_HEIGHT ? `${want}px` : "";
    if (box.style.height !== height) { box.style.height = height; cy.resize(); }
  }
  function fit() {
    if (!cy) return;
    cy.resize();
    size(cy.elements(":visible"));
    cy.fit(cy.elements(":visible"), PAD);
    if (cy.zoom() > 1.3) { cy.zoom(1.3); cy.center(cy.elements(":visible")); }
    if (cy.zoom() < READABLE) {  // too many states to fit readably: a part of it at 100 %
      cy.zoom(READABLE);
      // The selected state, else the first failed one, centred; else the start, at the top.
      const shown = cy.nodes(":visible");
      const focus = shown.filter(":selected").union(shown.filter("[status = 'FAILED']"))[0];
      const start = cy.getElementById("__start");
      if (focus) cy.center(focus);
      else if (start.length) cy.pan({x: cy.width() / 2 - start.position("x") * READABLE, y: 24});
    }
  }
  function layout() {
    if (!cy) return;
    if (window.cfnopsTidy) window.cfnopsTidy.layout(cy);  // routes arrows, places labels
    else cy.layout({name: "dagre", rankDir: "TB", nodeSep: 24, rankSep: 36,
                    eles: cy.elements(":visible")}).run();
    fit();
  }
  function setCollapsed(on) {
    if (!cy) return;
    collapsed = on;
    cy.nodes("[compound = 'yes']").forEach((group) => {
      // A box with no displayed member has no size in cytoscape: a collapsed one keeps its
      // first state (and the branch box around it) displayed but invisible, as its body.
      group.descendants().style({display: on ? "none" : "element", visibility: "visible"});
      group.toggleClass("collapsed", on);
      if (on) {
        let body = group.children()[0];
        while (body && body.isParent()) { body.style({display: "element", visibility: "hidden"}); body = body.children()[0]; }
        if (body) body.style({display: "element", visibility: "hidden"});
      }
      const count = group.descendants().filter((n) => n.data("name")).length;
      group.data("label", group.data("label").split("\n+")[0] + (on ? `\n+${count} states` : ""));
    });
    el("graph-collapse").setAttribute("aria-pressed", String(on));
    el("graph-collapse").textContent = on ? "Expand Map/Parallel" : "Collapse Map/Parallel";
    layout();
  }
  if (cy) {
    cy.on("tap", "node", (ev) => { const n = ev.target.data("name"); if (n) openState(n); });
    cy.on("zoom", (ev) => { if (ev.originalEvent) userZoomed = true; });
    new ResizeObserver(() => { cy.resize(); if (!userZoomed) fit(); }).observe(el("graph"));
    if (cy.nodes().length > 80) setCollapsed(true); else fit();
  }
  el("graph-fit").addEventListener("click", () => { userZoomed = false; fit(); });
  el("graph-zoom-in").addEventListener("click", () => zoomBy(1.25));
  el("graph-zoom-out").addEventListener("click", () => zoomBy(0.8));
  el("graph-collapse").addEventListener("click", () => setCollapsed(!collapsed));
  function zoomBy(f) {
    if (!cy) return;
    userZoomed = true;
    cy.zoom({level: cy.zoom() * f, renderedPosition: {x: cy.width() / 2, y: cy.height() / 2}});
  }
  function paint() {
    if (cy) cy.nodes().forEach((n) => {
      const s = data.statuses[n.data("name")];
      if (s) n.data("status", s); else n.removeData("status");
    });
  }

  // ---- graph / timeline switch -----------------------------------------------------------
  function view(which) {
    const timeline = which === "timeline";
    el("graph").hidden = timeline; el("timeline").hidden = !timeline;
    el("view-graph").setAttribute("aria-pressed", String(!timeline));
    el("view-timeline").setAttribute("aria-pressed", String(timeline));
    if (timeline) loadTimeline(); else fit();
  }
  let timelineDue = null;
  function loadTimeline() {  // fetched when shown (the page and its updates do not carry it)
    if (timelineDue) return;
    timelineDue = setTimeout(() => {
      fetch(`${base}/data?timeline=1`, {headers: {Accept: "application/json", "X-Cfnops-Live": "1"}})
        .then((r) => r.json()).then((fresh) => { timelineDue = null; data.timeline = fresh.timeline; drawTimeline(); })
        .catch(() => { timelineDue = null; });  // unreachable: the next update asks again
    }, 0);
  }
  el("view-graph").addEventListener("click", () => view("graph"));
  el("view-timeline").addEventListener("click", () => view("timeline"));
  function drawTimeline() {
    const box = el("timeline");
    if (box.hidden) return;
    const rows = data.timeline || [];
    const starts = rows.map((r) => r.start).filter((v) => v != null);
    const t0 = Math.min(...starts), now = Date.now() / 1000;
    // A bar without an end runs until now only while it is running (a Fail state has none).
    const endOf = (r) => (r.end != null ? r.end : r.status === "RUNNING" ? now : r.start);
    const t1 = Math.max(...rows.filter((r) => r.start != null).map(endOf), t0 + 0.001);
    const span = t1 - t0;
    const list = make("ol", null, "gantt");
    for (const r of rows) {
      const li = make("li", null, "gantt-row" + (r.map ? " gantt-iteration" : ""));
      const label = make(r.map ? "button" : "span", r.label, "gantt-label");
      if (r.map) {
        label.type = "button";
        label.addEventListener("click", () => selectIteration(r.map, r.iteration));
      }
      const track = make("span", null, "gantt-track");
      if (r.start != null) {
        const bar = make("span", null, "gantt-bar s-" + slug(r.status));
        bar.style.left = `${((r.start - t0) / span) * 100}%`;
        const end = endOf(r);
        bar.style.width = `${Math.max(((end - r.start) / span) * 100, 0.4)}%`;
        const secs = (end - r.start).toFixed(2);
        bar.title = `${r.label}: ${r.status}, ${secs} s${r.retries ? `, ${r.retries} retries` : ""}`;
        track.appendChild(bar);
      }
      const note = make("span", `${r.status.toLowerCase()}${r.retries ? ` ↻${r.retries}` : ""}`, "gantt-note");
      li.append(label, track, note);
      list.appendChild(li);
    }
    const axis = make("p", `${new Date(t0 * 1000).toISOString().slice(11, 19)} → ` +
                           `${new Date(t1 * 1000).toISOString().slice(11, 19)} UTC (${span.toFixed(1)} s)`, "muted");
    box.replaceChildren(axis, list);
  }

  // ---- states and their panel ------------------------------------------------------------
  function query(extra) {
    const q = new URLSearchParams();
    if (scope.map != null && scope.iteration != null) {
      q.set("map", scope.map); q.set("iteration", String(scope.iteration));
    }
    for (const [k, v] of Object.entries(extra || {})) if (v != null) q.set(k, v);
    const text = q.toString();
    return text ? "?" + text : "";
  }
  function remember() {  // the address keeps the selected state and iteration (deep link)
    history.replaceState(null, "", location.pathname + query({state: open}));
  }
  function openState(name) {
    open = name; remember();
    C.liveFetch(`${base}/state${query({state: name})}`).then((r) => r.text().then((html) => {
      const panel = el("state-panel");
      if (r.ok) { C.adopt(panel, html); return; }
      const doc = new DOMParser().parseFromString(html, "text/html");
      const error = doc.querySelector(".error");
      panel.replaceChildren(error || make("p", "The state could not be read.", "error"));
    }));
    if (cy) { cy.nodes().unselect(); cy.nodes().filter((n) => n.data("name") === name).select(); }
  }
  function panelBusy() {  // typing in the panel (or its dialog open): do not redraw it
    const panel = el("state-panel"), active = document.activeElement, dialog = el("confirm");
    if (dialog && dialog.open) return true;
    if (active && panel.contains(active) && active.matches("input, textarea, select")) return true;
    return Array.from(panel.querySelectorAll("input:not([type=hidden]), textarea")).some((f) => f.value);
  }
  function drawList() {
    const list = el("state-list");
    const names = cy ? cy.nodes().filter((n) => n.data("name")).map((n) => n.data("name"))
                     : Object.keys(data.statuses);
    const buttons = new Map(Array.from(list.querySelectorAll("button")).map((b) => [b.dataset.state, b]));
    for (const name of names) {
      const status = data.statuses[name] || "NOT REACHED";
      let b = buttons.get(name);
      if (!b) {
        const li = document.createElement("li");
        b = make("button"); b.type = "button"; b.dataset.state = name;
        b.addEventListener("click", () => openState(name));
        li.appendChild(b); list.appendChild(li);
      }
      if (b.dataset.status === status && b.dataset.retries === String(data.retries[name] || 0)) continue;
      const retries = data.retries[name] ? `, ${data.retries[name]} retries` : "";
      b.className = "status s-" + slug(status);
      b.textContent = `${name}: ${status.toLowerCase()}${retries}`;
      b.dataset.status = status; b.dataset.retries = String(data.retries[name] || 0);
      b.setAttribute("aria-label", `State ${name}, ${status.toLowerCase()}${retries}`);
    }
  }

  // ---- iterations -----------------------------------------------------------------------
  const mapSelect = el("iter-map"), statusFilter = el("iter-filter");
  let showAll = false;  // the first 200 rows, until asked for all (a 10,000-item Map)
  el("iter-all").addEventListener("click", () => { showAll = true; drawIterations(); });
  function drawIterations() {
    const names = Object.keys(data.iterations || {});
    el("iterations-section").hidden = names.length === 0;
    if (!names.length) return;
    const have = Array.from(mapSelect.options).map((o) => o.value);
    for (const name of names) if (!have.includes(name)) mapSelect.appendChild(new Option(name, name));
    if (scope.map && names.includes(scope.map)) mapSelect.value = scope.map;
    const rows = (data.iterations[mapSelect.value] || []);
    const wanted = statusFilter.value;
    const matching = rows.filter((r) => !wanted || r.status === wanted);
    const shown = showAll ? matching : matching.slice(0, 200);
    const tbody = el("iteration-table").querySelector("tbody");
    const trs = shown.map((r) => {
      const tr = make("tr"); tr.dataset.index = String(r.index); tr.dataset.status = r.status;
      if (scope.map === mapSelect.value && scope.iteration === r.index) tr.className = "selected";
      const link = make("a", `${r.kind === "parallel" ? "branch" : "iteration"} ${r.index}`);
      link.href = `${location.pathname}?map=${encodeURIComponent(mapSelect.value)}&iteration=${r.index}` +
                  (open ? `&state=${encodeURIComponent(open)}` : "");
      link.addEventListener("click", (ev) => { ev.preventDefault(); selectIteration(mapSelect.value, r.index); });
      const first = make("td"); first.appendChild(link);
      const status = make("td"); status.appendChild(make("span", r.status, "status s-" + slug(r.status)));
      tr.append(first, status, make("td", r.duration == null ? "-" : `${r.duration.toFixed(2)} s`),
                make("td", r.retries), make("td", r.error ? `${r.error}: ${r.cause || ""}` : "", "wrap"));
      return tr;
    });
    tbody.replaceChildren(...trs);
    el("iter-count").textContent = `${matching.length} of ${rows.length}`;
    el("iter-all").hidden = showAll || matching.length <= shown.length;
    el("iter-all").textContent = `Show all ${matching.length}`;
  }
  mapSelect.addEventListener("change", drawIterations);
  statusFilter.addEventListener("change", drawIterations);
  el("iter-clear").addEventListener("click", () => selectIteration(null, null));
  function selectIteration(map, index) {
    scope = {map, iteration: index};
    remember();
    fetch(`${base}/data${query()}`, {headers: {Accept: "application/json", "X-Cfnops-Live": "1"}})
      .then((r) => r.json()).then((fresh) => {
        data.statuses = fresh.statuses; data.retries = fresh.retries;
        // Said once the graph shows the iteration (tests and screen readers wait for it).
        el("scope-note").textContent = map != null ? `showing ${map} iteration ${index}` : "";
        paint(); drawList(); drawIterations(); connect();
        if (open) openState(open);
      }).catch((err) => { el("scope-note").textContent = `could not load the iteration: ${err.message}`; });
  }

  // ---- history: newest first, a page at a time, live events prepended ----------------------
  const filter = el("history-filter");
  function eventRow(e) {
    const tr = make("tr"); tr.dataset.id = String(e.id);
    for (const v of [e.id, e.type, e.state, new Date(e.timestamp * 1000).toISOString().slice(11, 23), e.details]) {
      tr.appendChild(make("td", v, "wrap"));
    }
    return tr;
  }
  function matches(e) {
    const needle = filter.value.toLowerCase();
    return !needle || `${e.type} ${e.state} ${e.details}`.toLowerCase().includes(needle);
  }
  function drawHistory() {
    const tbody = el("history-table").querySelector("tbody");
    tbody.replaceChildren(...events.filter(matches).map(eventRow));
    el("history-more").hidden = !moreEvents;
    el("history-count").textContent = `${events.length} events loaded`;
  }
  filter.addEventListener("input", () => {
    if (moreEvents && filter.value) {  // search the whole history on the server
      const q = new URLSearchParams({q: filter.value, limit: "500"});
      fetch(`${base}/events?${q}`, {headers: {Accept: "application/json"}}).then((r) => r.json())
        .then((page) => {
          el("history-table").querySelector("tbody").replaceChildren(...page.events.map(eventRow));
        }).catch((err) => { el("history-count").textContent = `could not search the history: ${err.message}`; });
    } else {
      drawHistory();
    }
  });
  el("history-more").addEventListener("click", () => {
    const oldest = events.length ? events[events.length - 1].id : undefined;
    const q = new URLSearchParams({limit: "500"});
    if (oldest !== undefined) q.set("before", String(oldest));
    fetch(`${base}/events?${q}`, {headers: {Accept: "application/json"}}).then((r) => r.json())
      .then((page) => { events = events.concat(page.events); moreEvents = page.more; drawHistory(); })
      .catch((err) => { el("history-count").textContent = `could not load more events: ${err.message}`; });
  });

  // ---- run status, actions, holds, audit, reruns ----------------------------------------
  function drawRun() {
    const badge = el("run-status");
    badge.textContent = data.status; badge.className = "status s-" + slug(data.status);
    el("run-error").textContent = data.error ? `${data.error}: ${data.cause}` : "";
    el("held-note").hidden = !data.held;
    for (const node of document.querySelectorAll("[data-action]")) {
      node.hidden = !(data.actions || []).includes(node.dataset.action);
    }
  }
  function drawAudit() {
    const rows = (data.audit || []).map((e) => {
      const tr = make("tr", null, "audit-row");
      for (const v of [e.at, e.actor, e.action, e.reason]) tr.appendChild(make("td", v, "wrap"));
      return tr;
    });
    el("audit-table").querySelector("tbody").replaceChildren(...rows);
  }
  function drawReruns() {
    const links = (data.reruns || []).flatMap((id) => {
      const a = make("a", id); a.href = "/jobs/" + encodeURIComponent(id);
      return [a, document.createTextNode(" ")];
    });
    el("rerun-links").replaceChildren(...links);
    el("reruns").hidden = links.length === 0;
  }

  // ---- live --------------------------------------------------------------------------------
  function merge(update) {
    for (const key of ["status", "error", "cause", "held", "actions", "audit", "reruns", "lastEvent"]) {
      if (key in update) data[key] = update[key];
    }

    for (const key of ["statuses", "retries"]) {
      if (update[key]) Object.assign(data[key], update[key]);
      for (const gone of ((update.cleared || {})[key] || [])) delete data[key][gone];
    }
    for (const [name, rows] of Object.entries(update.iterations || {})) {
      const known = data.iterations[name] || (data.iterations[name] = []);
      for (const row of rows) {
        const at = known.findIndex((r) => r.index === row.index);
        if (at >= 0) known[at] = row; else known.push(row);
      }
      known.sort((a, b) => a.index - b.index);
    }
    if (update.events && update.events.length) {
      events = update.events.slice().reverse().concat(events);
      const tbody = el("history-table").querySelector("tbody");
      const fresh = update.events.slice().reverse().filter(matches).map(eventRow);
      tbody.prepend(...fresh);
      el("history-count").textContent = `${events.length} events loaded`;
    }
    window.cfnopsUpdates = (window.cfnopsUpdates || 0) + 1;
    if ("status" in update || "error" in update || "held" in update || "actions" in update) drawRun();
    if (update.statuses || update.retries) { paint(); drawList(); }
    if (update.iterations && Object.keys(update.iterations).length) drawIterations();
    if ("audit" in update) drawAudit();
    if ("reruns" in update) drawReruns();
    if (!el("timeline").hidden && (update.statuses || update.iterations || "status" in update)) loadTimeline();
    if (open && (update.statuses || "status" in update) && !panelBusy()) openState(open);
  }
  function connect() {
    if (source) source.close();
    source = C.listen(() => `${base}/stream${query({after: String(data.lastEvent)})}`,
                      (text) => { window.cfnopsLastUpdate = text; merge(JSON.parse(text)); });
  }

  paint(); drawList(); drawRun(); drawIterations(); drawHistory(); drawReruns();
  if (scope.map != null) el("scope-note").textContent = `showing ${scope.map} iteration ${scope.iteration}`;
  if (open) openState(open);
  connect();
})();
