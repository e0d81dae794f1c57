/* cfnops console: live pages over Server-Sent Events, graphs with cytoscape.js + dagre. */
"use strict";
window.cfnops = (function () {
  const COLOURS = {RUNNING: "#8ec5ff", SUCCEEDED: "#9be39b", FAILED: "#ff9b9b",
                   CAUGHT: "#ffd27f", ABORTED: "#d0d0d0"};

  function json(id) {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  // Server-rendered fragments (autoescaped templates) are parsed inert by DOMParser and
  // moved in as nodes; data from JSON is only ever set as text, never as markup.
  function adopt(target, html) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    target.replaceChildren(...Array.from(doc.body.childNodes));
  }

  function signIn(why) {
    const next = encodeURIComponent(location.pathname + location.search);
    location.assign(`/login?next=${next}&why=${why}`);
  }

  function listen(url, onUpdate) {
    const source = new EventSource(url);
    source.addEventListener("update", (ev) => onUpdate(ev.data));
    source.addEventListener("signed-out", () => { source.close(); signIn("expired"); });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return;
      // Refused (the session ended while the page was closed or asleep): ask why.
      fetch(url, {headers: {Accept: "application/json", "X-Cfnops-Live": "1"}})
        .then((r) => { if (r.status === 401) signIn("expired"); });
    });
    return source;
  }

  // Requests a live page makes on its own do not count as the user's activity.
  function liveFetch(url) {
    return fetch(url, {headers: {Accept: "text/html", "X-Cfnops-Live": "1"}});
  }

  function graph(container, elements) {
    if (typeof cytoscape === "undefined" || !container) return null;
    if (typeof cytoscapeDagre !== "undefined" && !graph.registered) {
      cytoscape.use(cytoscapeDagre); graph.registered = true;
    }
    const cy = cytoscape({
      container, elements, wheelSensitivity: 0.3, maxZoom: 1.6,
      layout: {name: "dagre", rankDir: "TB", nodeSep: 24, rankSep: 36},
      style: [
        {selector: "node", style: {"label": "data(label)", "text-wrap": "wrap", "text-valign": "center",
          "shape": "round-rectangle", "width": "label", "height": "label", "padding": "8px",
          "font-size": 11, "background-color": "#ffffff", "border-width": 1, "border-color": "#7a8699"}},
        {selector: "node[compound = 'yes'], :parent", style: {"text-valign": "top", "background-opacity": 0.06,
          "border-style": "dashed"}},
        {selector: "node[kind = 'end']", style: {"shape": "ellipse", "background-color": "#232f3e", "color": "#fff"}},
        {selector: "node:selected", style: {"border-width": 3, "border-color": "#0b5fff"}},
        {selector: "edge", style: {"curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.2,
          "line-color": "#9aa5b5", "target-arrow-color": "#9aa5b5", "label": "data(label)", "font-size": 9}},
      ].concat(Object.entries(COLOURS).map(([s, c]) =>
        ({selector: `node[status = '${s}']`, style: {"background-color": c, "background-opacity": 1}})))
        .concat([{selector: ":parent", style: {"background-opacity": 0.15, "border-width": 2}}]),
    });
    return cy;
  }

  function liveRuns() {
    const box = document.getElementById("runs-live");
    listen(box.dataset.stream, (html) => adopt(box, html));
  }

  function jobPage() {
    const runId = json("job-data").runId;
    const base = "/jobs/" + encodeURIComponent(runId);
    const cy = graph(document.getElementById("graph"), json("job-elements"));
    window.cfnopsGraph = cy;
    const list = document.getElementById("state-list");
    const panel = document.getElementById("state-panel");
    const filter = document.getElementById("history-filter");
    let data = json("job-data"), scope = {}, open = null, source = null;

    function query() {
      return scope.map ? `?map=${encodeURIComponent(scope.map)}&index=${scope.index}` : "";
    }
    function openState(name) {
      open = name;
      const sep = scope.map ? "&" : "?";
      liveFetch(`${base}/state${query()}${sep}state=${encodeURIComponent(name)}`)
        .then((r) => r.text().then((html) => {
          if (r.ok) { adopt(panel, html); return; }
          const doc = new DOMParser().parseFromString(html, "text/html");
          const error = doc.querySelector(".error");
          if (error) { panel.replaceChildren(error); return; }
          const p = document.createElement("p");
          p.setAttribute("role", "alert"); p.textContent = "The state could not be read.";
          panel.replaceChildren(p);
        }));
      if (cy) { cy.nodes().unselect(); cy.nodes().filter((n) => n.data("name") === name).select(); }
    }
    function drawList() {
      list.replaceChildren();
      const names = cy ? cy.nodes().filter((n) => n.data("name")).map((n) => n.data("name"))
                       : Object.keys(data.statuses);
      for (const name of names) {
        const status = data.statuses[name] || "NOT REACHED";
        const li = document.createElement("li"), b = document.createElement("button");
        b.type = "button"; b.className = "status s-" + status.toLowerCase().replace(" ", "-");
        b.textContent = `${name}: ${status.toLowerCase()}`;
        b.dataset.state = name; b.dataset.status = status;
        b.setAttribute("aria-label", `State ${name}, ${status.toLowerCase()}`);
        b.addEventListener("click", () => openState(name));
        li.appendChild(b); list.appendChild(li);
      }
    }
    function drawIterations() {
      const box = document.getElementById("iterations");
      for (const [name, indexes] of Object.entries(data.iterations)) {
        const id = "iter-" + name.replace(/\W/g, "_");
        let sel = document.getElementById(id);
        if (!sel) {
          const label = document.createElement("label");
          label.htmlFor = id; label.textContent = `${name} iteration`;
          sel = document.createElement("select"); sel.id = id; sel.dataset.map = name;
          sel.addEventListener("change", () => {
            for (const other of box.querySelectorAll("select")) if (other !== sel) other.value = "";
            scope = sel.value === "" ? {} : {map: name, index: Number(sel.value)};
            connect(); if (open) openState(open);
          });
          box.append(label, sel);
        }
        const keep = sel.value;
        const options = [new Option("latest of each state", "")]
          .concat(indexes.map((i) => new Option(`iteration ${i}`, String(i))));
        sel.replaceChildren(...options);
        sel.value = keep;
      }
    }
    function drawHistory() {
      const needle = filter.value.toLowerCase();
      const rows = data.history.filter((e) => !needle ||
        `${e.type} ${e.state} ${e.details}`.toLowerCase().includes(needle));
      const tbody = document.querySelector("#history-table tbody");
      tbody.replaceChildren();
      for (const e of rows) {
        const tr = document.createElement("tr");
        for (const v of [e.id, e.type, e.state, new Date(e.timestamp * 1000).toISOString().slice(11, 23), e.details]) {
          const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
        }
        tbody.appendChild(tr);
      }
    }
    function apply(next) {
      data = next;
      if (cy) cy.nodes().forEach((n) => {
        const s = data.statuses[n.data("name")];
        if (s) n.data("status", s); else n.removeData("status");
      });
      const badge = document.getElementById("run-status");
      badge.textContent = data.status; badge.className = "status s-" + data.status.toLowerCase();
      document.getElementById("run-error").textContent = data.error ? `${data.error}: ${data.cause}` : "";
      drawList(); drawIterations(); drawHistory();
      if (open) openState(open);
    }
    function connect() {
      if (source) source.close();
      source = listen(`${base}/stream${query()}`, (text) => apply(JSON.parse(text)));
    }
    if (cy) cy.on("tap", "node", (ev) => { const n = ev.target.data("name"); if (n) openState(n); });
    filter.addEventListener("input", drawHistory);
    apply(data); connect();
  }

  function healRun() {
    const box = document.getElementById("heal-live");
    if (!box) return;
    let first = true;
    listen(`/heal/runs/${encodeURIComponent(box.dataset.run)}/stream`, () => {
      if (first) { first = false; return; }
      liveFetch(location.href).then((r) => r.text()).then((html) => {
        const doc = new DOMParser().parseFromString(html, "text/html");
        const fresh = doc.getElementById("main");
        if (fresh) document.getElementById("main").replaceChildren(...Array.from(fresh.childNodes));
      });
    });
  }

  function definitionPage() {
    let cy = graph(document.getElementById("graph"), json("def-elements") || []);
    window.cfnopsDefinitionGraph = cy;
    const live = document.getElementById("def-live");
    if (!live || !live.dataset.stream) return;
    listen(live.dataset.stream, (text) => {
      const msg = JSON.parse(text), result = document.getElementById("def-result");
      if (msg.error !== undefined) {
        const p = document.createElement("p");
        p.setAttribute("role", "alert"); p.className = "error"; p.textContent = msg.error;
        result.replaceChildren(p);
      } else {
        adopt(result, msg.html);
      }
      if (cy) cy.destroy();
      cy = graph(document.getElementById("graph"), msg.elements);
      window.cfnopsDefinitionGraph = cy;
    });
  }

  const pages = {"runs": liveRuns, "job": jobPage, "heal-run": healRun, "definitions": definitionPage};
  const start = pages[document.body.dataset.page || ""];
  if (start) start();
  return {adopt, listen, liveFetch, json};
})();
