"""The ``cfnops`` command line: thin modules that parse, call the library and render.

``entry`` is the process entry point (the ``cfnops`` console script and ``python -m
cfnops``); ``run(argv)`` runs one command line and returns its exit code; ``app`` is the
Typer application.
"""

from typing import TYPE_CHECKING, Any

__all__ = ["app", "entry", "run"]

if TYPE_CHECKING:
    from cfnops.cli._entry import main as entry
    from cfnops.cli.main import app, run


def __getattr__(name: str) -> Any:
    # Loaded on use: the process entry (cli/_entry.py) answers `cfnops --help` before
    # importing Typer, so handing it out must not load cli/main.py.
    if name == "entry":
        from cfnops.cli._entry import main as entry

        return entry
    if name in __all__:
        from cfnops.cli import main

        return getattr(main, name)
    raise AttributeError(f"module 'cfnops.cli' has no attribute {name!r}")
