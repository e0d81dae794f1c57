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

  // A live stream. On any error (a dropped connection, a database restart, a proxy's 502;
  // the browser gives up for good on an error answer) it is opened again after a pause
  // (1 s, doubling to 30 s), unless the session ended. ``url`` may be a function, asked
  // at each opening, so that a page passes the last event it has and nothing is sent twice.
  function listen(url, onUpdate) {
    const handle = {source: null, closed: false, pause: 1000,
                    close() { this.closed = true; if (this.source) this.source.close(); }};
    const address = () => (typeof url === "function" ? url() : url);
    function open() {
      if (handle.closed) return;
      const here = address(), source = new EventSource(here);
      handle.source = source;
      source.addEventListener("open", () => { handle.pause = 1000; });
      source.addEventListener("update", (ev) => onUpdate(ev.data));
      source.addEventListener("signed-out", () => { handle.close(); signIn("expired"); });
      source.addEventListener("error", () => {
        source.close();
        if (handle.closed) return;
        // Refused (the session ended while the page was closed or asleep): ask why.
        fetch(here, {headers: {Accept: "application/json", "X-Cfnops-Live": "1"}})
          .then((r) => {
            if (r.status === 401) { handle.closed = true; signIn("expired"); }
            // A 200 is a stream: only its status was wanted. Cancelling a stream the server
            // has just dropped rejects ("network error"); that is expected here, not a fault.
            if (r.body) r.body.cancel().catch(() => null);
          }, () => null)
          .finally(() => {
            setTimeout(open, handle.pause);
            handle.pause = Math.min(handle.pause * 2, 30000);
          });
      });
    }
    open();
    return handle;
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
      container, elements, minZoom: 0.05, maxZoom: 2.5,
      layout: window.cfnopsTidy ? {name: "preset"} : {name: "dagre", rankDir: "TB", nodeSep: 24, rankSep: 36},
      style: [
        {selector: "node", style: {"label": "data(label)", "text-wrap": "wrap", "text-valign": "center",
          "shape": "round-rectangle", "width": "label", "height": "label", "padding": "8px",
          "font-size": 11, "background-color": "#ffffff", "border-width": 1, "border-color": "#7a8699"}},
        {selector: "node[compound = 'yes'], :parent", style: {"text-valign": "top", "background-opacity": 0.06,
          "border-style": "dashed"}},
        {selector: "node.collapsed", style: {"text-valign": "center", "padding": "14px", "border-style": "solid"}},
        {selector: "node[kind = 'end']", style: {"shape": "ellipse", "background-color": "#232f3e", "color": "#fff"}},
        {selector: "node:selected", style: {"border-width": 3, "border-color": "#0b5fff"}},
        {selector: "edge", style: {"curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.2,
          "line-color": "#9aa5b5", "target-arrow-color": "#9aa5b5", "label": "data(label)", "font-size": 11,
          "text-background-color": "#ffffff", "text-background-opacity": 0.85, "text-background-padding": 1}},
        {selector: "edge.label-on-hover", style: {"text-opacity": 0, "text-background-opacity": 0}},
        {selector: "edge.label-on-hover.hovered", style: {"text-opacity": 1, "text-background-opacity": 0.85, "z-index": 10}},
      ].concat(Object.entries(COLOURS).map(([s, c]) =>
        ({selector: `node[status = '${s}']`, style: {"background-color": c, "background-opacity": 1}})))
        .concat([{selector: ":parent", style: {"background-opacity": 0.15, "border-width": 2}}]),
    });
    // Arrows around states, labels clear of each other (graph-tidy.js, after every layout).
    if (window.cfnopsTidy) window.cfnopsTidy.attach(cy);
    return cy;
  }

  function liveRuns() {
    const box = document.getElementById("runs-live");
    // Ticked runs (for an action on many runs) stay ticked when the table is redrawn.
    listen(box.dataset.stream, (html) => {
      const ticked = new Set(Array.from(box.querySelectorAll("input[name=run]:checked"), (i) => i.value));
      adopt(box, html);
      box.querySelectorAll("input[name=run]").forEach((i) => { i.checked = ticked.has(i.value); });
    });
  }

  function healRun() {
    const box = document.getElementById("heal-live");
    if (!box) return;
    let first = true;
    let waiting = false;
    // Never redraw under the user: while a field has focus or text, or the dialog is
    // open, the refresh waits for the field to be left.
    function busy() {
      const main = document.getElementById("main"), active = document.activeElement;
      const dialog = document.getElementById("confirm");
      if (dialog && dialog.open) return true;
      if (active && main.contains(active) && active.matches("input, textarea, select")) return true;
      return Array.from(main.querySelectorAll("input:not([type=hidden]), textarea")).some((f) => f.value);
    }
    function refresh() {
      if (busy()) {
        if (!waiting) { waiting = true; document.addEventListener("focusout", () => { waiting = false; refresh(); }, {once: true}); }
        return;
      }
      liveFetch(location.href).then((r) => r.text()).then((html) => {
        const doc = new DOMParser().parseFromString(html, "text/html");
        const fresh = doc.getElementById("main");
        if (fresh && !busy()) document.getElementById("main").replaceChildren(...Array.from(fresh.childNodes));
      }).catch(() => null);  // the console is unreachable: the stream's next update tries again
    }
    listen(`/heal/runs/${encodeURIComponent(box.dataset.run)}/stream`, () => {
      if (first) { first = false; return; }
      refresh();
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

  // Destructive actions: a form with data-confirm opens the dialog (consequence + reason)
  // first; the reason goes into the form's "reason" field and on to the audit log.
  // Elements are looked up at each use: a live page may replace them.
  function confirmations() {
    let pending = null, opener = null;
    const el = (id) => document.getElementById(id);
    function bind(dialog) {
      if (dialog.dataset.bound) return;
      dialog.dataset.bound = "1";
      // Confirm acts at once (not on the dialog's close event, which may come late).
      el("confirm-ok").addEventListener("click", (ev) => {
        ev.preventDefault();
        const reason = el("confirm-reason").value.trim(), form = pending;
        if (!reason) { el("confirm-missing").hidden = false; el("confirm-reason").focus(); return; }
        pending = null;
        dialog.close("ok");
        if (!form) return;
        const field = form.elements.namedItem("reason");
        if (field) field.value = reason;
        form.dataset.confirmed = "1";
        form.requestSubmit();
      });
      dialog.addEventListener("close", () => {  // cancelled (Escape or Cancel): back where it was
        // A late close event of an earlier opening must not cancel the one open now.
        if (dialog.open || dialog.returnValue === "ok") return;
        pending = null;
        if (opener && opener.focus) opener.focus();
      });
    }
    document.addEventListener("submit", (ev) => {
      const form = ev.target, dialog = el("confirm");
      if (!(form instanceof HTMLFormElement) || !form.dataset.confirm || !dialog) return;
      if (form.dataset.confirmed === "1") { form.dataset.confirmed = ""; return; }
      ev.preventDefault();
      bind(dialog);
      pending = form; opener = document.activeElement;
      el("confirm-consequence").textContent = form.dataset.confirm;
      const field = form.elements.namedItem("reason");
      el("confirm-reason").value = field ? field.value : "";
      el("confirm-missing").hidden = true;
      dialog.returnValue = "";
      dialog.showModal();
      el("confirm-reason").focus();
    });
  }

  function copyButtons() {
    document.addEventListener("click", (ev) => {
      const button = ev.target instanceof Element ? ev.target.closest("button[data-copy]") : null;
      if (!button) return;
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy"; }, 1500); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.textContent).then(done);
      } else {  // plain http on another host: select it for Ctrl+C
        const range = document.createRange(); range.selectNodeContents(source);
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        button.textContent = "Selected: press Ctrl+C";
      }
    });
  }

  confirmations();
  copyButtons();
  const pages = {"runs": liveRuns, "heal-run": healRun, "definitions": definitionPage};
  const start = pages[document.body.dataset.page || ""];
  if (start) start();
  return {adopt, listen, liveFetch, json, graph, COLOURS};
})();
