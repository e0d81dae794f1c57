"""The ``cfnops`` command line: thin modules that parse, call the library and render."""

from cfnops.cli.main import app, run

__all__ = ["app", "run"]
