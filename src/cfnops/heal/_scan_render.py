"""A fleet scan as Markdown and as a standalone HTML file (pure; JSON is ``to_json``)."""

from __future__ import annotations

from jinja2 import Environment

from cfnops.heal._scan import ScanResult


def _summary(result: ScanResult) -> str:
    low, high = result.concurrency[1], result.concurrency[2]
    counts = ", ".join(f"{n} {status}" for status, n in result.counts().items()) or "no stacks"
    return (
        f"{len(result.rows)} stacks ({counts}) in {result.seconds:.1f} s: "
        f"{result.stacks_per_minute:g} stacks/minute; concurrency {low}-{high}, "
        f"{result.throttled} throttled call(s); {result.coverage.text()}"
    )


def scan_markdown(result: ScanResult) -> str:
    out = ["# Drift scan", "", _summary(result) + ".", ""]
    out += [
        "| account | region | stack | status | coverage | drifted |",
        "|---|---|---|---|---|---|",
    ]
    for r in result.rows:
        cov = r.report.coverage_with_nested.text() if r.report else (r.error or "")
        drifted = ", ".join(d.logical_id for d in r.report.drifted()) if r.report else ""
        out.append(f"| {r.account} | {r.region} | {r.stack} | {r.status} | {cov} | {drifted} |")
    if result.stack_sets:
        out += [
            "",
            "## StackSet instances",
            "",
            "| stack set | account | region | status | drift |",
        ]
        out.append("|---|---|---|---|---|")
        for s in result.stack_sets:
            out.append(f"| {s.stack_set} | {s.account} | {s.region} | {s.status} | {s.drift} |")
    return "\n".join(out) + "\n"


_HTML = Environment(autoescape=True).from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cfnops drift scan</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.DRIFTED{background:#fff3cd}.ERROR{background:#f8d7da}.IN_SYNC{background:#d1e7dd}</style>
</head><body><h1>Drift scan</h1><p>{{ summary }}</p>
<table><tr><th>account</th><th>region</th><th>stack</th><th>status</th><th>coverage</th>
<th>drifted</th></tr>
{% for r in rows %}<tr class="{{ r.status }}"><td>{{ r.account }}</td><td>{{ r.region }}</td>
<td>{{ r.stack }}</td><td>{{ r.status }}</td><td>{{ r.coverage }}</td><td>{{ r.drifted }}</td></tr>
{% endfor %}</table>
{% if sets %}<h2>StackSet instances</h2><table><tr><th>stack set</th><th>account</th>
<th>region</th><th>status</th><th>drift</th></tr>
{% for s in sets %}<tr class="{{ s.drift }}"><td>{{ s.stack_set }}</td><td>{{ s.account }}</td>
<td>{{ s.region }}</td><td>{{ s.status }}</td><td>{{ s.drift }}</td></tr>{% endfor %}</table>
{% endif %}</body></html>
"""
)


def scan_html(result: ScanResult) -> str:
    rows = [
        {
            "account": r.account,
            "region": r.region,
            "stack": r.stack,
            "status": r.status,
            "coverage": r.report.coverage_with_nested.text() if r.report else (r.error or ""),
            "drifted": ", ".join(d.logical_id for d in r.report.drifted()) if r.report else "",
        }
        for r in result.rows
    ]
    return _HTML.render(summary=_summary(result), rows=rows, sets=result.stack_sets)
