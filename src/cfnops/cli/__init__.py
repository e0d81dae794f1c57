"""The ``cfnops`` command line: thin modules that parse, call the library and render."""

from typing import TYPE_CHECKING, Any

__all__ = ["app", "run"]

if TYPE_CHECKING:
    from cfnops.cli.main import app, run


def __getattr__(name: str) -> Any:
    # Loaded on use: the process entry (cli/_entry.py) answers `cfnops --help` before
    # importing Typer.
    if name in __all__:
        from cfnops.cli import main

        return getattr(main, name)
    raise AttributeError(f"module 'cfnops.cli' has no attribute {name!r}")
