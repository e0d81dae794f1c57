"""``python -m cfnops`` is the ``cfnops`` command."""

from cfnops.cli._entry import main

if __name__ == "__main__":
    main()
