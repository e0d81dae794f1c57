"""``cfnops --help`` without Typer: the root help rendered from tables, with Rich only.

Typer, its vendored Click, its Rich help module (which loads Rich's Markdown and
traceback support) and pydantic take ~0.1 s to import; the root help needs none of
them. :func:`print_root_help` builds the same Rich renderables Typer's
``rich_format_help`` builds for the root command (usage, help text, the options
panel, the commands panel from :data:`SUMMARIES`) on a console configured as Typer
configures its own, so the output is byte-identical, colours included.
``tests/cli/test_root_help.py`` renders both ways (several widths, plain and
coloured, both program names) and fails on any difference; ``cli/main.py`` builds
the Typer app from the same :data:`ROOT_HELP` and :data:`SUMMARIES`.

Anything unusual (``TYPER_USE_RICH`` set, a terminal too narrow for the usage line to
stay on one line) answers ``False``: the caller then lets Typer render.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

__all__ = ["GLOBAL_OPTIONS", "ROOT_HELP", "SUMMARIES", "print_root_help", "program_name"]

ROOT_HELP = (
    "Keep CloudFormation-managed AWS systems in their declared state and run "
    "their operations as durable workflows.\n\n"
    "Exit codes: 0 success, 1 operation failed, 2 usage or input error, "
    "3 held by policy (needs approval)."
)

# What ``cfnops --help`` shows for each command: the first paragraph of its own help,
# kept here so the root help imports no command module. tests/cli check that it
# renders exactly what the commands themselves would show.
SUMMARIES: dict[str, str] = {
    "runs": "Durable run records: list, show, history, cancel, resume; batch actions on job runs.",
    "worker": "Run the durable worker in the foreground.",
    "sandbox": "The local AWS sandbox (moto's server plus cfnops extensions).",
    "guard": "Find custom-resource handlers with an unstable PhysicalResourceId or a Delete "
    "ignoring it.",
    "diff": "Template diff with replacement analysis: which changes update in place, may "
    "replace, require replacement, destroy or orphan, propagated through references.",
    "ami": "Drift-free AMI rotation for auto-healing Auto Scaling groups.",
    "job": "Job-nets (Amazon States Language) on the durable engine.",
    "events": "EventBridge events.",
    "drift": "Drift reports (`cfnops drift STACK…` = `cfnops drift report STACK…`), "
    "accepted drift.",
    "heal": "Heal drifted stacks with durable runs (detect → REVERT_DRIFT change set → gate "
    "→ execute).",
    "approve": "Approve a held change set: the run executes it and reports.",
    "reject": "Reject a held change set: the run deletes it and ends as REJECTED.",
    "audit": "The audit log of operator actions.",
    "console": "Serve the console: runs, job runs, heal approvals, definitions, schedules, audit.",
    "completion": "Print the shell completion script (bash, zsh or fish).",
    "demo": "Demonstrations on the embedded defaults (local sandbox, SQLite).",
}

# The root command's options as its help lists them (defined for parsing in cli/main.py):
# (long name, short name, type, help, default shown).
GLOBAL_OPTIONS: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("--region", "", "<str>", "AWS region (default: profile/AWS_REGION).", None),
    ("--profile", "", "<str>", "Named profile from ~/.aws/config.", None),
    (
        "--endpoint-url",
        "",
        "<str>",
        "Send AWS calls here (the sandbox: http://127.0.0.1:5000). "
        "AWS_ENDPOINT_URL is honoured when unset.",
        None,
    ),
    ("--output", "-o", "<str>", "text | json | markdown (where the command has it).", None),
    ("--config", "", "<path>", "Settings file (default: ./cfnops.toml when present).", None),
    ("--verbose", "-v", "<int>", "More logging (-vv for debug).", "0"),
    (
        "--log-format",
        "",
        "<str>",
        "text | json: logs on stderr as text or one JSON object per line "
        "(default: CFNOPS_LOG_FORMAT, else text).",
        None,
    ),
    ("--version", "", "", "Print the version.", None),
    ("--help", "-h", "", "Show this message and exit.", None),
)

_USAGE_ARGS = "[OPTIONS] COMMAND [ARGS]..."


def _usage_width() -> int:
    """Click's help width (``HelpFormatter``): the terminal's, within 50-78 columns."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def program_name() -> str:
    """The program name Click shows in the usage line (``cfnops``, ``python -m cfnops``)."""
    main = sys.modules["__main__"]
    path = sys.argv[0]
    package = getattr(main, "__package__", None)
    if package in {None, ""}:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = str(package) if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def print_root_help() -> bool:
    """Print the root help as Typer would; ``False`` (nothing printed) when Typer must."""
    usage = f"Usage: {program_name()} {_USAGE_ARGS}"
    if "TYPER_USE_RICH" in os.environ or len(usage) > _usage_width():
        return False  # Click would wrap the usage line: let Typer render it
    from rich.align import Align
    from rich.padding import Padding
    from rich.text import Text

    options, negatives, types = _highlighters()
    console = _console(options)

    def text(value: str, style: str = "") -> Any:
        return options(Text.from_markup(inspect.cleandoc(value), style=style))

    console.print(Padding(options(usage), 1), style="bold")
    console.print(Padding(Align(_help_text(text), pad=False), (0, 1, 1, 1)))
    console.print(_options_panel(text, options, negatives, types))
    console.print(_commands_panel(text))
    sys.stdout.write("\n")  # Click echoes the (empty) plain help after Typer's
    return True


# Typer's tables in its help panels.
_TABLE_STYLE: dict[str, Any] = {
    "show_header": False,
    "expand": True,
    "box": None,
    "show_lines": False,
    "leading": 0,
    "border_style": None,
    "row_styles": None,
    "pad_edge": False,
    "padding": (0, 1),
}


def _highlighters() -> tuple[Any, Any, Any]:
    """Typer's highlighters: options and switches, negative ones, and types."""
    from rich.highlighter import RegexHighlighter

    class Options(RegexHighlighter):
        highlights = [
            r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
            r"(?P<types>\<[^\>]+\>)",
            r"(?P<usage>Usage: )",
        ]

    class Negatives(RegexHighlighter):
        highlights = [
            r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        ]

    class Types(RegexHighlighter):
        highlights = [
            r"^(?P<types_sep>(\[|<))",
            r"(?P<types_sep>\|)",
            r"(?P<types_sep>(\]|>))(\.\.\.)?$",
        ]

    return Options(), Negatives(), Types()


def _console(highlighter: Any) -> Any:
    """A console configured as Typer configures its own."""
    from rich.console import Console
    from rich.theme import Theme

    force = any(os.environ.get(name) for name in ("GITHUB_ACTIONS", "FORCE_COLOR", "PY_COLORS"))
    width = os.environ.get("TERMINAL_WIDTH")
    return Console(
        theme=Theme(
            {
                "option": "bold cyan",
                "switch": "bold green",
                "negative_option": "bold magenta",
                "negative_switch": "bold red",
                "types": "bold yellow",
                "types_sep": "dim",
                "usage": "yellow",
            }
        ),
        highlighter=highlighter,
        color_system="auto",
        force_terminal=(
            False if os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL") else (True if force else None)
        ),
        width=int(width) if width else None,
    )


def _help_text(text: Any) -> Any:
    from rich.console import group
    from rich.text import Text

    @group()
    def help_text() -> Any:
        first, *rest = inspect.cleandoc(ROOT_HELP).split("\n\n")
        yield text(first.replace("\n", " ").strip())
        if rest:
            yield Text("")
            yield text("\n\n".join(rest), style="dim")

    return help_text()


def _options_panel(text: Any, options: Any, negatives: Any, types: Any) -> Any:
    from rich.columns import Columns
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    rows = Table(highlight=True, **_TABLE_STYLE)
    for long, short, kind, help_, default in GLOBAL_OPTIONS:
        items = [text(help_)]
        if default is not None:
            items.append(Text(f"[default: {default}]", style="dim"))
        rows.add_row(
            options(long),
            options(short),
            negatives(""),
            negatives(""),
            types(Text(kind, style="bold yellow", overflow="fold")),
            Columns(items),
        )
    return Panel(rows, border_style="dim", title="Options", title_align="left")


def _commands_panel(text: Any) -> Any:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    commands = Table(highlight=False, **_TABLE_STYLE)
    commands.add_column(style="bold cyan", no_wrap=True, width=max(map(len, SUMMARIES)))
    commands.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name in sorted(SUMMARIES):
        first = inspect.cleandoc(SUMMARIES[name]).split("\n\n")[0]
        commands.add_row(Text(name), text(first.strip()))
    return Panel(commands, border_style="dim", title="Commands", title_align="left")
