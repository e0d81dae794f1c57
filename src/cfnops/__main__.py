"""``python -m cfnops`` is the ``cfnops`` command."""

from cfnops.cli import entry

if __name__ == "__main__":
    entry()
