"""The ``cfnops`` process entry point (``[project.scripts]`` and ``python -m cfnops``).

``cfnops --help`` / ``cfnops -h`` is answered from tables before Typer is imported
(:mod:`cfnops.cli._root_help`); everything else goes to :func:`cfnops.cli.main.run`.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main() -> None:
    if "_CFNOPS_COMPLETE" in os.environ:  # a shell asking for completions (Tab)
        from cfnops.cli.completion import complete

        complete()
        return
    if sys.argv[1:] in (["--help"], ["-h"]):
        from cfnops.cli._root_help import print_root_help

        if print_root_help():
            from cfnops.cli._exit import exit_process

            exit_process(0)
    from cfnops.cli._heap import collect_after_startup

    collect_after_startup()  # before the command's imports: they are most of start-up
    from cfnops.cli.main import run

    run()
