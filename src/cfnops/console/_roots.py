"""Which files the console may open: definition files under the configured roots only.

``[console] definition_roots`` lists the folders (default: ``jobnets`` and
``examples/jobnets`` in the console's working directory). A path is resolved
first, symlinks included, and then must lie inside a resolved root: a link
that points out of the roots is refused like a path outside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfnops.config import Settings
from cfnops.console.errors import BadFilter, Forbidden

DEFAULT_ROOTS = (Path("jobnets"), Path("examples/jobnets"))
SUFFIXES = (".json", ".yaml", ".yml")
MAX_BYTES = 2_000_000


def definition_roots(settings: Settings, cwd: Path | None = None) -> tuple[Path, ...]:
    """The roots, absolute and resolved (relative ones from ``cwd``, default the current)."""
    base = cwd or Path.cwd()
    roots = settings.console.definition_roots or DEFAULT_ROOTS
    return tuple((base / root.expanduser()).resolve() for root in roots)


def shown_root(root: Path, cwd: Path | None = None) -> str:
    """A root as an error page may show it: relative to the console's folder, or only its
    last two parts (a refused request learns nothing of the machine's folder layout)."""
    base = (cwd or Path.cwd()).resolve()
    if root.is_relative_to(base):
        return str(root.relative_to(base)) or "."
    return "…/" + "/".join(root.parts[-2:])


def resolve_inside(path_text: str, roots: Sequence[Path], cwd: Path | None = None) -> Path:
    """``path_text`` resolved, if it names a definition file inside one of ``roots``.

    Raises :class:`Forbidden` (403) for a path outside every root, before
    looking at whether it exists, and :class:`BadFilter` (400) for a name that
    is not a definition file.
    """
    given = Path(path_text).expanduser()
    if not given.is_absolute():
        given = (cwd or Path.cwd()) / given
    real = given.resolve()  # symlinks and ".." first, then the check
    if not any(real.is_relative_to(root) for root in roots):
        shown = ", ".join(shown_root(r, cwd) for r in roots) or "none"
        raise Forbidden(
            f"{path_text!r} is outside the definition roots ({shown})",
            hint="open a file under a root, or add its folder to [console] definition_roots",
        )
    if not (given.name.endswith(SUFFIXES) and real.name.endswith(SUFFIXES)):
        raise BadFilter("path", path_text, "a .json, .yaml or .yml definition file")
    return real


def read_definition(path_text: str, roots: Sequence[Path]) -> tuple[Path, str]:
    """The resolved path and text of a definition file under ``roots`` (at most 2 MB)."""
    path = resolve_inside(path_text, roots)
    try:
        if not path.is_file():
            raise BadFilter("path", path_text, "a definition file (this is not a file)")
        if path.stat().st_size > MAX_BYTES:
            raise BadFilter("path", path_text, "a file under 2 MB")
        return path, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise BadFilter("path", path_text, f"a readable file ({reason})") from None
