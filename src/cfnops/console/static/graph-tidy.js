/* cfnops console: after each layout of a job-net graph, arrows go around the states they
   would cross and arrow labels are placed where they overlap no state and no other label.

   dagre places the states; cytoscape then draws every arrow straight (or bundled) from
   state to state, so an arrow spanning several ranks can run through a state drawn
   between ("Fail -> Done" read from an arrow passing through Fail), and the labels of the
   arrows leaving a Choice print over each other. Both are fixed here from cytoscape's own
   geometry (what is drawn is what is checked):
   - an arrow that crosses a state is bent (an unbundled bezier) by the smallest distance,
     on either side, that clears every state;
   - a label is moved along its arrow (middle first, then towards either end) to the first
     place clear of states and placed labels; where none is, it is shown on hover only.
   Labels keep their size: placement in model units holds at every zoom. */
"use strict";
window.cfnopsTidy = (function () {
  const PAD = 4;  // clearance around a state, model px
  const BENDS = [];
  for (let d = 30; d <= 420; d += 30) BENDS.push(d, -d);
  const ALONG = [0.5, 0.38, 0.62, 0.26, 0.74, 0.15, 0.85];

  const hits = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  const grow = (b, p) => ({x1: b.x1 - p, y1: b.y1 - p, x2: b.x2 + p, y2: b.y2 + p});
  const inside = (p, b) => p.x > b.x1 && p.x < b.x2 && p.y > b.y1 && p.y < b.y2;

  // Points along the arrow as cytoscape draws it: straight, segments, or a chain of
  // quadratic curves through the midpoints of its control points.
  function path(e, per) {
    const s = e.sourceEndpoint(), t = e.targetEndpoint();
    const out = [];
    const line = (a, b) => { for (let i = 0; i <= per; i++) out.push({x: a.x + (b.x - a.x) * i / per, y: a.y + (b.y - a.y) * i / per}); };
    const quad = (a, c, b) => {
      for (let i = 0; i <= per; i++) {
        const u = i / per, v = 1 - u;
        out.push({x: v * v * a.x + 2 * v * u * c.x + u * u * b.x, y: v * v * a.y + 2 * v * u * c.y + u * u * b.y});
      }
    };
    const segs = e.segmentPoints(), cps = e.controlPoints();
    if (segs && segs.length) {
      const pts = [s, ...segs, t];
      for (let i = 0; i + 1 < pts.length; i++) line(pts[i], pts[i + 1]);
    } else if (cps && cps.length) {
      let from = s;
      cps.forEach((c, i) => {
        const to = i + 1 < cps.length ? {x: (c.x + cps[i + 1].x) / 2, y: (c.y + cps[i + 1].y) / 2} : t;
        quad(from, c, to);
        from = to;
      });
    } else {
      line(s, t);
    }
    return out;
  }

  function leaves(cy) {
    return cy.nodes(":visible").filter((n) => !n.isParent() || n.children(":visible").length === 0);
  }

  function crossings(e, boxes) {
    const ends = new Set([e.source().id(), e.target().id()]);
    const pts = path(e, 24);
    let count = 0;
    for (const [id, b] of boxes) {
      if (!ends.has(id) && pts.some((p) => inside(p, b))) count += 1;
    }
    return count;
  }

  function route(cy, boxes, routes) {
    cy.edges(":visible").forEach((e) => {
      const r = routes.get(e.id());
      if (r && r.points && r.points.length > 2) {
        const inner = r.points.slice(1, -1);
        const s = e.source().position(), t = e.target().position();
        const straight = inner.every((p) => Math.abs((p.x - s.x) * (t.y - s.y) - (p.y - s.y) * (t.x - s.x)) /
                                            Math.max(1, Math.hypot(t.x - s.x, t.y - s.y)) < 2);
        if (!straight) follow(e, inner);
      }
      if (e.source().same(e.target()) || crossings(e, boxes) === 0) return;
      let best = null, fewest = Infinity;
      for (const d of BENDS) {
        e.style({"curve-style": "unbundled-bezier", "control-point-distances": d, "control-point-weights": 0.5});
        const n = crossings(e, boxes);
        if (n < fewest) { fewest = n; best = d; }
        if (n === 0) break;
      }
      e.style({"curve-style": "unbundled-bezier", "control-point-distances": best, "control-point-weights": 0.5});
      e.addClass("routed");
    });
  }

  function labelBox(e) {
    return e.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true,
                          includeMainLabels: true, includeOverlays: false, includeUnderlays: false});
  }

  function place(cy, boxes, routes) {
    const taken = [];
    // Group titles (a Map's name above its box) are obstacles too.
    cy.nodes(":visible").filter((n) => n.isParent() && n.children(":visible").length > 0).forEach((n) => {
      taken.push(grow(n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true}), 1));
    });
    const states = [...boxes.values()];
    cy.edges(":visible").filter((e) => e.data("label")).forEach((e) => {
      const pts = path(e, 40), mid = e.midpoint(), r = routes.get(e.id());
      // Where dagre kept room for it (on its route), else along the arrow.
      const spots = ALONG.map((t) => pts[Math.round(t * (pts.length - 1))]);
      if (r && typeof r.x === "number" && !e.hasClass("routed")) spots.unshift({x: r.x, y: r.y});
      for (const p of spots) {
        e.style({"text-margin-x": p.x - mid.x, "text-margin-y": p.y - mid.y});
        const b = grow(labelBox(e), 1);
        if (!states.some((s) => hits(b, s)) && !taken.some((o) => hits(b, o))) {
          taken.push(b);
          return;
        }
      }
      e.style({"text-margin-x": 0, "text-margin-y": 0});
      e.addClass("label-on-hover");  // no clear place: its label shows while pointed at
    });
  }

  function tidy(cy, routes) {
    if (!cy || cy.elements(":visible").length === 0) return;
    routes = routes || new Map();
    cy.batch(() => {
      cy.edges().removeClass("routed label-on-hover").removeStyle(
        "curve-style edge-distances segment-weights segment-distances control-point-distances " +
        "control-point-weights text-margin-x text-margin-y");
    });
    const boxes = new Map();
    leaves(cy).forEach((n) => boxes.set(n.id(), grow(n.boundingBox({includeLabels: false, includeOverlays: false}), PAD)));
    route(cy, boxes, routes);
    place(cy, boxes, routes);
  }

  // ---- layout: dagre on the visible graph, run here rather than through cytoscape-dagre,
  // which leaves out every arrow into or out of a Map or Parallel box (dagre cannot take
  // an edge on a compound node), so those boxes landed anywhere. Such an arrow is laid out
  // to the box's first state (arrows in) or its last (arrows out); arrow labels are given
  // to dagre with their size, so it keeps room for them between the ranks.
  const open = (n) => n.isParent() && n.children(":visible").length > 0;
  function edgeOf(n, first) {
    let at = n;
    while (open(at)) {
      const kids = at.children(":visible");
      at = first ? kids[0] : kids[kids.length - 1];
    }
    return at;
  }
  let ruler = null;
  function labelSize(e) {
    ruler = ruler || document.createElement("canvas").getContext("2d");
    const size = parseFloat(e.style("font-size")) || 11;
    ruler.font = `${size}px ${e.style("font-family")}`;
    const lines = String(e.data("label")).split("\n");
    const w = Math.max(...lines.map((l) => ruler.measureText(l).width));
    return {width: Math.ceil(w) + 6, height: Math.ceil(lines.length * size * 1.25) + 4};
  }

  function layout(cy, options) {
    if (!cy || typeof dagre === "undefined") return;
    const o = Object.assign({rankdir: "TB", nodesep: 24, ranksep: 36, edgesep: 12}, options || {});
    const g = new dagre.graphlib.Graph({multigraph: true, compound: true});
    g.setGraph(o);
    g.setDefaultEdgeLabel(() => ({}));
    const nodes = cy.nodes(":visible"), centre = {};
    nodes.forEach((n) => {
      if (open(n)) { g.setNode(n.id(), {}); return; }
      // A collapsed box: its title sits above its body, both take room.
      const b = n.isParent() ? n.boundingBox({includeLabels: true, includeOverlays: false}) : null;
      const d = b ? {w: b.w, h: b.h} : n.layoutDimensions({nodeDimensionsIncludeLabels: false});
      if (b) centre[n.id()] = {dx: n.position("x") - (b.x1 + b.x2) / 2, dy: n.position("y") - (b.y1 + b.y2) / 2};
      g.setNode(n.id(), {width: d.w, height: d.h});
    });
    nodes.forEach((n) => { const p = n.parent(); if (p.length && p.visible()) g.setParent(n.id(), p.id()); });
    const laid = [];
    cy.edges(":visible").forEach((e) => {
      const s = edgeOf(e.source(), false), t = edgeOf(e.target(), true);
      if (s.same(t) || !g.hasNode(s.id()) || !g.hasNode(t.id())) return;
      const label = e.data("label") ? {...labelSize(e), labelpos: "c"} : {};
      g.setEdge(s.id(), t.id(), {minlen: 1, weight: 1, ...label}, e.id());
      // dagre's route is drawn where it runs between the very states it joins.
      if (s.same(e.source()) && t.same(e.target())) laid.push([e, s.id(), t.id()]);
    });
    dagre.layout(g);
    cy.batch(() => {
      nodes.forEach((n) => {
        if (open(n)) return;
        const at = g.node(n.id());
        if (!at || typeof at.x !== "number") return;
        const c = centre[n.id()];
        if (!c) { n.position({x: at.x, y: at.y}); return; }
        const dx = at.x + c.dx - n.position("x"), dy = at.y + c.dy - n.position("y");
        n.descendants().forEach((m) => { if (!m.isParent()) m.shift({x: dx, y: dy}); });
      });
    });
    const routes = new Map();
    for (const [e, s, t] of laid) routes.set(e.id(), g.edge(s, t, e.id()));
    tidy(cy, routes);
  }

  // An arrow drawn through dagre's points (segments between the states it joins): dagre
  // routes an arrow spanning ranks between the states of each rank it crosses.
  let sign = 1;
  function follow(e, points) {
    const s = e.source().position(), t = e.target().position();
    const dx = t.x - s.x, dy = t.y - s.y, l2 = dx * dx + dy * dy;
    if (l2 < 1 || points.length === 0) return;
    const set = (k) => e.style({
      "curve-style": "segments", "edge-distances": "node-position",
      "segment-weights": points.map((p) => ((p.x - s.x) * dx + (p.y - s.y) * dy) / l2),
      "segment-distances": points.map((p) => k * ((p.x - s.x) * dy - (p.y - s.y) * dx) / Math.sqrt(l2)),
    });
    set(sign);
    const got = (e.segmentPoints() || [])[0], want = points[0];
    if (got && Math.hypot(got.x - want.x, got.y - want.y) > 2) { sign = -sign; set(sign); }
  }

  function attach(cy) {
    if (!cy || cy.scratch("_tidy")) return;
    cy.scratch("_tidy", true);
    cy.on("mouseover", "edge.label-on-hover", (ev) => ev.target.addClass("hovered"));
    cy.on("mouseout", "edge.label-on-hover", (ev) => ev.target.removeClass("hovered"));
    layout(cy);
  }

  return {tidy, attach, layout};
})();
