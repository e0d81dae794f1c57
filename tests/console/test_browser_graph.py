"""The Job run page's graph stays readable on a 100-state job-net, in real Chromium.

The 30-state job-net of the designer's test as well (a chain, a Choice of three rules
and a Default, a Map of four steps, a Fail). Measured from what cytoscape draws (its
label boxes, node boxes, arrow endpoints and control points), not from the page's own
placement code: no two arrow labels overlap,
no arrow label lies on a state, no arrow runs through a state that is not one of its
ends, every label is drawn at 11 px or more, and Fit brings back the whole-or-readable
view after zooming. Collapsed (the first view of more than 80 states) and expanded.
The 30-state job-net shows whole (every state inside the panel's drawing area) at 100 %
zoom or more on open and on Fit: its panel grows to the graph's height.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests._runtime import runtime_for
from tests._subprocess import worker_env
from tests.console._browser import ConsoleProcess, shot, sign_in, wait_until
from tests.console.test_designer_browser import _thirty_states

from cfnops.config import load_settings
from cfnops.jobs import JobService

pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

TASK = "arn:aws:lambda:us-east-1:123456789012:function:work"


def _hundred_states() -> dict[str, Any]:
    """Eight sections of: a Task caught to a shared Fail state, a Choice with three rules
    and a Default, four branches joining, and every other section a Map of three steps
    (one section a Parallel of two); a chain to the end: 100 states in all."""
    states: dict[str, Any] = {}
    for k in range(8):
        after = f"Work{k + 1}" if k < 7 else "Tail0"
        states[f"Work{k}"] = {
            "Type": "Task", "Resource": TASK, "Next": f"Route{k}",
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Failed"}],
        }  # fmt: skip
        states[f"Route{k}"] = {
            "Type": "Choice",
            "Choices": [
                {"Variable": "$.mode", "StringEquals": m, "Next": f"{m.title()}{k}"}
                for m in ("fast", "slow", "skip")
            ],
            "Default": f"Other{k}",
        }
        for m in ("Fast", "Slow", "Skip", "Other"):
            states[f"{m}{k}"] = {"Type": "Pass", "Next": f"Join{k}"}
        if k == 3:
            states[f"Join{k}"] = {"Type": "Parallel", "Next": after, "Branches": [
                {"StartAt": f"P{k}{b}0", "States": {
                    f"P{k}{b}0": {"Type": "Pass", "Next": f"P{k}{b}1"},
                    f"P{k}{b}1": {"Type": "Pass", "End": True}}}
                for b in "ab"
            ]}  # fmt: skip
        elif k % 2 == 0:
            inner = [f"M{k}s{i}" for i in range(3)]
            states[f"Join{k}"] = {
                "Type": "Map", "ItemsPath": "$.items", "Next": after,
                "ItemProcessor": {"ProcessorConfig": {"Mode": "INLINE"}, "StartAt": inner[0],
                                  "States": {n: {"Type": "Pass", **({"Next": inner[i + 1]}
                                             if i + 1 < len(inner) else {"End": True})}
                                             for i, n in enumerate(inner)}},
            }  # fmt: skip
        else:
            states[f"Join{k}"] = {"Type": "Pass", "Next": after}
    states["Failed"] = {"Type": "Fail", "Error": "Work.Failed", "Cause": "a step failed"}
    tail = (
        100
        - 1
        - sum(
            1
            + len((s.get("ItemProcessor") or {}).get("States", {}))
            + sum(len(b["States"]) for b in s.get("Branches", []))
            for n, s in states.items()
        )
    )
    for i in range(tail):
        states[f"Tail{i}"] = {"Type": "Pass", "Next": f"Tail{i + 1}" if i + 1 < tail else "Done"}
    states["Done"] = {"Type": "Succeed"}
    return {"StartAt": "Work0", "States": states}


def _count(definition: dict[str, Any]) -> int:
    total = 0
    for state in definition["States"].values():
        total += 1
        if "ItemProcessor" in state:
            total += _count(state["ItemProcessor"])
        for branch in state.get("Branches", []):
            total += _count(branch)
    return total


# What cytoscape draws, measured in model coordinates (the same at every zoom).
MEASURE = """() => {
  const cy = cfnopsGraph, z = cy.zoom();
  const hits = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  const leaves = cy.nodes(':visible')
    .filter((n) => !n.isParent() || !n.children(':visible').length);
  const states = leaves.map((n) => ({id: n.id(), b: n.boundingBox({includeLabels: false})}));
  const shown = cy.edges(':visible')
    .filter((e) => e.data('label') && +e.style('text-opacity') > 0);
  const labels = shown.map((e) => ({id: e.id(), b: e.boundingBox({includeNodes: false,
      includeEdges: false, includeLabels: true, includeOverlays: false,
      includeUnderlays: false})}));
  const out = {labelOverLabel: [], labelOverState: [], arrowThroughState: [], sizes: [],
               labelled: cy.edges(':visible').filter((e) => e.data('label')).length,
               shown: labels.length, states: states.length};
  labels.forEach((a, i) => {
    if (!(a.b.w > 0 && a.b.h > 0)) out.labelOverLabel.push([a.id, 'empty box']);
    labels.slice(i + 1).forEach((b) => {
      if (hits(a.b, b.b)) out.labelOverLabel.push([a.id, b.id]);
    });
    states.forEach((s) => { if (hits(a.b, s.b)) out.labelOverState.push([a.id, s.id]); });
  });
  cy.elements(':visible').filter((e) => e.data('label') && +e.style('text-opacity') > 0)
    .forEach((e) => out.sizes.push(parseFloat(e.style('font-size')) * z));
  const inside = (p, b) => p.x > b.x1 + 1 && p.x < b.x2 - 1 && p.y > b.y1 + 1 && p.y < b.y2 - 1;
  cy.edges(':visible').forEach((e) => {
    const s = e.sourceEndpoint(), t = e.targetEndpoint(), pts = [];
    const cps = e.controlPoints() || [], segs = e.segmentPoints() || [];
    const all = segs.length ? [s, ...segs, t] : [s, t];
    if (cps.length) {
      let from = s;
      cps.forEach((c, i) => {
        const to = i + 1 < cps.length
          ? {x: (c.x + cps[i + 1].x) / 2, y: (c.y + cps[i + 1].y) / 2} : t;
        for (let k = 0; k <= 50; k++) { const u = k / 50, v = 1 - u;
          pts.push({x: v*v*from.x + 2*v*u*c.x + u*u*to.x, y: v*v*from.y + 2*v*u*c.y + u*u*to.y}); }
        from = to;
      });
    } else {
      for (let i = 0; i + 1 < all.length; i++) for (let k = 0; k <= 50; k++)
        pts.push({x: all[i].x + (all[i+1].x - all[i].x) * k / 50,
                  y: all[i].y + (all[i+1].y - all[i].y) * k / 50});
    }
    states.forEach((st) => {
      const end = st.id === e.source().id() || st.id === e.target().id();
      if (!end && pts.some((p) => inside(p, st.b))) out.arrowThroughState.push([e.id(), st.id]);
    });
  });
  return out;
}"""


@pytest.fixture(scope="module")
def hundred(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleProcess]:
    db = tmp_path_factory.mktemp("graph") / "runs.sqlite"
    definition = _hundred_states()
    assert _count(definition) == 100
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    jobs.store.create_run("hundred-1", "hundred", definition, {})
    jobs.store.create_run("thirty-1", "thirty", _thirty_states(), {})
    process = ConsoleProcess(worker_env(db))
    yield process
    process.stop()


def _check(page: Any, view: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(MEASURE)
    assert found["labelOverLabel"] == [], (view, found["labelOverLabel"])
    assert found["labelOverState"] == [], (view, found["labelOverState"])
    assert found["arrowThroughState"] == [], (view, found["arrowThroughState"])
    assert min(found["sizes"]) >= 11, (view, min(found["sizes"]))
    return found


def test_a_hundred_state_graph_has_no_overlaps_and_fits(
    browser: Any, hundred: ConsoleProcess
) -> None:
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    try:
        sign_in(page, hundred.url)
        page.goto(f"{hundred.url}/jobs/hundred-1")
        wait_until(page, "() => window.cfnopsGraph && cfnopsGraph.zoom() > 0")
        collapsed = _check(page, "collapsed")
        assert collapsed["labelled"] >= 40  # the Choices' and Catches' arrows are there
        shot(page, "graph-hundred-collapsed")
        page.get_by_role("button", name="Expand Map/Parallel").click()
        wait_until(page, "() => cfnopsGraph.nodes(':visible').length > 100")
        expanded = _check(page, "expanded")
        # Every labelled arrow shows its label (none needed hiding to hover).
        assert expanded["shown"] == expanded["labelled"], expanded
        shot(page, "graph-hundred-expanded")
        fitted = page.evaluate("cfnopsGraph.zoom()")
        page.get_by_role("button", name="Zoom in").click()
        page.get_by_role("button", name="Zoom in").click()
        assert page.evaluate("cfnopsGraph.zoom()") > fitted
        page.get_by_role("button", name="Fit").click()
        assert abs(page.evaluate("cfnopsGraph.zoom()") - fitted) < 1e-6
        # Fit shows the start (too many states to fit at a readable zoom: from the top).
        start = page.evaluate(
            "(() => { const b = cfnopsGraph.getElementById('__start').renderedBoundingBox();"
            " return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= cfnopsGraph.width(); })()"
        )
        assert start
        # With a state selected, Fit centres it (the job-net does not fit at 100 %).
        page.locator('#state-list button[data-state="Tail20"]').click()
        wait_until(page, "() => cfnopsGraph.nodes(':selected').length === 1")
        page.get_by_role("button", name="Zoom out").click()
        page.get_by_role("button", name="Fit").click()
        centred = page.evaluate(
            "(() => { const n = cfnopsGraph.nodes(':selected')[0], p = n.renderedPosition();"
            " return [p.x - cfnopsGraph.width() / 2, p.y - cfnopsGraph.height() / 2,"
            " cfnopsGraph.zoom()]; })()"
        )
        assert abs(centred[0]) < 2 and abs(centred[1]) < 2 and abs(centred[2] - fitted) < 1e-6
    finally:
        context.close()


# Every drawn state (its box and name) as drawn on screen, against the panel's drawing area.
OUTSIDE = """() => {
  const cy = cfnopsGraph, w = cy.width(), h = cy.height();
  return cy.nodes(':visible').filter((n) => n.style('visibility') === 'visible').map((n) => {
    const b = n.renderedBoundingBox({includeLabels: true, includeOverlays: false});
    return {id: n.id(), x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2, w, h};
  }).filter((b) => b.x1 < 0 || b.y1 < 0 || b.x2 > b.w || b.y2 > b.h);
}"""


def _whole(page: Any, view: str) -> dict[str, Any]:
    """The whole job-net in the panel at a zoom that keeps labels at 11 px or more."""
    found = _check(page, view)  # labels >= 11 px as drawn, none overlapping
    assert page.evaluate(OUTSIDE) == [], view
    # The panel's drawing area is the cytoscape canvas, the size of #graph inside its border.
    area = page.evaluate(
        "[cfnopsGraph.width(), cfnopsGraph.height(),"
        " document.getElementById('graph').clientWidth,"
        " document.getElementById('graph').clientHeight]"
    )
    assert abs(area[0] - area[2]) < 2 and abs(area[1] - area[3]) < 2, (view, area)
    assert page.evaluate("cfnopsGraph.zoom()") >= 1.0, view
    return found


def test_the_thirty_state_graph_fits_whole_with_readable_labels_on_open_and_fit(
    browser: Any, hundred: ConsoleProcess
) -> None:
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    try:
        sign_in(page, hundred.url)
        page.goto(f"{hundred.url}/jobs/thirty-1")
        wait_until(page, "() => window.cfnopsGraph && cfnopsGraph.zoom() > 0")
        found = _whole(page, "thirty, opened")
        # 29 states drawn as boxes (the Map is the box around its four) and Start
        assert found["shown"] == found["labelled"] == 4 and found["states"] == 30
        # The 21-step chain is taller than the stylesheet's 560 px: the panel grew to it.
        assert page.evaluate("document.getElementById('graph').clientHeight") > 560
        shot(page, "graph-thirty", full_page=True)
        fitted = page.evaluate("cfnopsGraph.zoom()")
        page.get_by_role("button", name="Zoom in").click()
        page.get_by_role("button", name="Zoom in").click()
        page.mouse.move(300, 400)
        page.mouse.down()
        page.mouse.move(500, 200, steps=5)  # panned off as well
        page.mouse.up()
        assert page.evaluate(OUTSIDE) != []  # zoomed in, states are off the panel
        page.get_by_role("button", name="Fit").click()
        _whole(page, "thirty, Fit after zoom in")
        assert abs(page.evaluate("cfnopsGraph.zoom()") - fitted) < 1e-6
        page.get_by_role("button", name="Zoom out").click()
        page.get_by_role("button", name="Zoom out").click()
        page.get_by_role("button", name="Fit").click()
        _whole(page, "thirty, Fit after zoom out")
        assert abs(page.evaluate("cfnopsGraph.zoom()") - fitted) < 1e-6
        shot(page, "graph-thirty-fit", full_page=True)
    finally:
        context.close()
