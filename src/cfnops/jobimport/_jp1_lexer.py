"""``ajsprint`` / ``ajsdefine`` unit definitions → a tree of units with their parameters.

Format (JP1/AJS3 Command Reference, 5.1.1 "Format of unit definition files",
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2830e/AJSO0209.HTM)::

    unit=NAME,[permission],[JP1-user],[resource-group];
    {
        ty=n;  key=value;  ...
        unit=CHILD,,,;
        { ... }
    }

Statements end with ``;`` (a statement may span lines); ``/* … */`` is a comment;
inside double quotes ``#"`` is a quote and ``##`` a ``#``. Each parameter keeps the
line it started on, for messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cfnops.jobimport.errors import ImportInputError

__all__ = ["Unit", "parse_units"]

_FIX = "print the unit again with ajsprint -a (the whole root jobnet) and import that file"


@dataclass
class Unit:
    name: str
    line: int
    owner: str = ""
    params: list[tuple[str, str, int]] = field(default_factory=list)  # (key, value, line)
    children: list[Unit] = field(default_factory=list)
    parent: Unit | None = None

    @property
    def type(self) -> str:
        return self.get("ty") or ""

    def get(self, key: str) -> str | None:
        for k, v, _ in self.params:
            if k == key:
                return v
        return None

    def all(self, key: str) -> list[tuple[str, int]]:
        return [(v, line) for k, v, line in self.params if k == key]

    @property
    def path(self) -> str:
        return f"{self.parent.path}/{self.name}" if self.parent else self.name


def _statements(text: str, source: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    i, line, n = 0, 1, len(text)
    buf: list[str] = []
    start = 0
    while i < n:
        ch = text[i]
        if not buf and ch in " \t\r\n\f\ufeff":
            line += ch == "\n"
            i += 1
            continue
        if not buf and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ImportInputError(source, f"line {line}", "a comment is never closed", _FIX)
            line += text.count("\n", i, end)
            i = end + 2
            continue
        if not buf and ch in "{}":
            out.append((ch, line))
            i += 1
            continue
        if not buf:
            start = line
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "#" and j + 1 < n and text[j + 1] in '#"' else 1
            if j >= n:
                raise ImportInputError(
                    source, f"line {start}", "a quoted value is never closed (truncated?)", _FIX
                )
            buf.append(text[i : j + 1])
            line += text.count("\n", i, j)
            i = j + 1
            continue
        if ch == ";":
            out.append(("".join(buf).strip(), start))
            buf = []
            i += 1
            continue
        if ch == "\n":
            line += 1
            ch = " "
        buf.append(ch)
        i += 1
    if "".join(buf).strip():
        raise ImportInputError(
            source, f"line {start}", "the last statement has no ';' (truncated?)", _FIX
        )
    return out


def unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == '"':
        v = v[1:-1].replace('#"', '"').replace("##", "#")
    return v


def parse_units(text: str, source: str) -> list[Unit]:
    """The top-level units of a definition file (each with its nested units)."""
    stmts = _statements(text, source)
    if not stmts or not stmts[0][0].startswith("unit="):
        line = stmts[0][1] if stmts else 1
        raise ImportInputError(
            source,
            f"line {line}",
            "does not start with unit=NAME,...; : not JP1/AJS3 ajsprint output",
            "give the output of ajsprint -a (a unit definition file) with --from jp1",
        )
    roots: list[Unit] = []
    stack: list[Unit] = []
    pending: Unit | None = None
    for stmt, line in stmts:
        if stmt.startswith("unit="):
            fields = stmt[5:].split(",")
            # ajsprint names the top unit by its full path (unit=/GROUP/NET,...)
            name = fields[0].strip().rstrip("/").rsplit("/", 1)[-1] or fields[0].strip()
            pending = Unit(name, line, owner=fields[2].strip() if len(fields) > 2 else "")
            continue
        if stmt == "{":
            if pending is None:
                raise ImportInputError(source, f"line {line}", "'{' without unit=", _FIX)
            pending.parent = stack[-1] if stack else None
            (stack[-1].children if stack else roots).append(pending)
            stack.append(pending)
            pending = None
            continue
        if stmt == "}":
            if not stack:
                raise ImportInputError(source, f"line {line}", "'}' without a unit", _FIX)
            stack.pop()
            continue
        if not stack:
            raise ImportInputError(source, f"line {line}", f"{stmt[:40]!r} outside a unit", _FIX)
        key, eq, value = stmt.partition("=")
        if not eq:
            raise ImportInputError(source, f"line {line}", f"{stmt[:40]!r} is not key=value", _FIX)
        stack[-1].params.append((key.strip(), value.strip(), line))
    if stack:
        raise ImportInputError(
            source,
            f"line {stmts[-1][1]}",
            f"the file ends inside unit {stack[-1].path} (truncated?)",
            _FIX,
        )
    return roots
