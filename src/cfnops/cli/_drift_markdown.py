"""``cfnops drift --output markdown``: drift reports as Markdown (pure)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from cfnops.heal import StackDriftReport, fleet_coverage


def _cell(value: str | None) -> str:
    text = "—" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def walk(report: StackDriftReport, depth: int = 0) -> Iterator[tuple[int, StackDriftReport]]:
    """The report and its nested stacks, depth first."""
    yield depth, report
    for nested in report.nested:
        yield from walk(nested, depth + 1)


def report_markdown(reports: Sequence[StackDriftReport]) -> str:
    """One section per stack (nested stacks follow their parent), fleet coverage first."""
    out: list[str] = ["# Drift report", "", f"Fleet {fleet_coverage(reports).text()}.", ""]
    for root in reports:
        for depth, rep in walk(root):
            kind = "Nested stack" if depth else "Stack"
            out.append(f"## {kind} `{rep.stack_name}`: {rep.effective_status}")
            out.append("")
            out += [f"{rep.coverage.text().capitalize()}.", ""]
            if rep.reason:
                out += [f"_{_cell(rep.reason)}_", ""]
            if not rep.resources:
                continue
            out.append("| resource | type | status | property | expected | actual | difference |")
            out.append("|---|---|---|---|---|---|---|")
            for r in rep.resources:
                status = r.effective_status
                if status != r.status:
                    status = f"{status} (ignored {r.status})"
                if r.status == "NOT_CHECKED" and r.reason:
                    status = f"NOT_CHECKED: {r.reason}"
                if not r.properties:
                    out.append(f"| {r.logical_id} | {r.resource_type} | {_cell(status)} | | | | |")
                for p in r.properties:
                    diff = p.difference_type + (" (ignored)" if p.ignored else "")
                    out.append(
                        f"| {r.logical_id} | {r.resource_type} | {_cell(status)} | "
                        f"`{_cell(p.path)}` | {_cell(p.expected)} | {_cell(p.actual)} | {diff} |"
                    )
            out.append("")
            changes = [r.attribution.text() for r in rep.resources if r.attribution]
            if changes:
                out += [f"- {_cell(line)}" for line in changes] + [""]
    return "\n".join(out).rstrip() + "\n"
