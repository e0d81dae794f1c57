"""``cfnops completion bash|zsh|fish``: the shell's completion script, on stdout.

The script asks ``cfnops`` itself for candidates (``_CFNOPS_COMPLETE=complete_<shell>``),
which :func:`cfnops.cli._entry.main` routes to Typer's completion. Installing it adds
nothing to a normal start: the script only runs ``cfnops`` when Tab is pressed, and the
entry point looks at that variable only then. Completing a command's options imports
that command's modules only (the lazy group), as running it would.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cfnops.errors import UsageError

SHELLS = ("bash", "zsh", "fish")


def completion_script(shell: str) -> str:
    """The completion script of ``shell`` for the ``cfnops`` program."""
    # Typer's own scripts and protocol (typer is pinned to 0.28.x in pyproject.toml;
    # tests/cli/test_completion.py drives a real bash through them).
    from typer._completion_shared import get_completion_script

    if shell not in SHELLS:
        raise UsageError(
            f"completion {shell!r}: expected bash, zsh or fish",
            hint='e.g. eval "$(cfnops completion bash)" in ~/.bashrc',
        )
    return str(
        get_completion_script(prog_name="cfnops", complete_var="_CFNOPS_COMPLETE", shell=shell)
    )


def completion(
    shell: Annotated[
        str,
        typer.Argument(metavar="SHELL", help="bash, zsh or fish.", autocompletion=lambda: SHELLS),
    ],
) -> None:
    """Print the shell completion script (bash, zsh or fish).

    bash: eval "$(cfnops completion bash)" in ~/.bashrc; zsh: the same in ~/.zshrc after
    compinit; fish: cfnops completion fish > ~/.config/fish/completions/cfnops.fish."""
    typer.echo(completion_script(shell))


def complete() -> None:
    """Answer a completion request (``_CFNOPS_COMPLETE`` is set): Typer's shells, then the CLI."""
    from typer._completion_classes import completion_init

    from cfnops.cli.main import app

    completion_init()  # Typer's bash/zsh/fish protocol (the app has add_completion=False)
    # named explicitly: under ``python -m cfnops`` Typer would derive another variable
    app(prog_name="cfnops", complete_var="_CFNOPS_COMPLETE")


def register(app: typer.Typer) -> None:
    app.command("completion")(completion)
