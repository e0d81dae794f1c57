"""The ``cfnops`` command line: thin modules that parse, call the library and render.

``entry`` is the process entry point (the ``cfnops`` console script and ``python -m
cfnops``); ``run(argv)`` runs one command line and returns its exit code; ``app`` is the
Typer application.
"""

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports

__all__ = ["app", "entry", "run"]

if TYPE_CHECKING:
    from cfnops.cli._entry import main as entry
    from cfnops.cli.main import app, run


# Loaded on use: the process entry (cli/_entry.py) answers `cfnops --help` before
# importing Typer, so handing it out must not load cli/main.py.
__getattr__, __dir__ = lazy_exports(
    __name__, {"app": "main", "run": "main", "entry": "_entry:main"}, globals()
)
