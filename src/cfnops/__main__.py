"""``python -m cfnops`` is the ``cfnops`` command."""

from cfnops.cli.main import run

if __name__ == "__main__":
    run()
