"""The JSONPath subset Step Functions accepts, parsed once and evaluated cheaply.

Step Functions evaluates paths with Jayway semantics: a *definite* path (only names and
indexes) yields one value or fails; an *indefinite* path (wildcards, slices, filters,
deep scan) yields a list, empty when nothing matches.
See https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

__all__ = [
    "JsonPath",
    "JsonPathSyntaxError",
    "PathNotFound",
    "parse_path",
]

_MISSING: Any = object()


class JsonPathSyntaxError(ValueError):
    """The text is not a JSONPath Step Functions accepts."""


class PathNotFound(LookupError):
    """A definite path selected nothing."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


@dataclass(frozen=True, slots=True)
class _Step:
    kind: str  # "name" | "index" | "wild" | "slice" | "filter" | "deep"
    name: str = ""
    index: int = 0
    start: int | None = None
    stop: int | None = None
    step: int | None = None
    filt: Any = None


@dataclass(frozen=True, slots=True)
class JsonPath:
    """A parsed path: ``root`` is ``$`` (input), ``$$`` (context) or ``$name`` (variable)."""

    text: str
    root: str
    steps: tuple[_Step, ...]
    definite: bool

    @property
    def is_variable(self) -> bool:
        return self.root not in ("$", "$$")

    @property
    def variable(self) -> str:
        return self.root[1:]

    def bracket_notation(self) -> str:
        """The path as Jayway prints it in error messages: ``$['a']['b'][0]``."""
        out = ["$"]
        for st in self.steps:
            if st.kind == "name":
                out.append(f"['{st.name}']")
            elif st.kind == "index":
                out.append(f"[{st.index}]")
            elif st.kind == "wild":
                out.append("[*]")
            else:
                out.append("[...]")
        return "".join(out)

    def evaluate(self, root: Any) -> Any:
        """Apply the steps to ``root``; raise :class:`PathNotFound` for a definite miss."""
        if self.definite:
            cur = root
            for st in self.steps:
                if st.kind == "name":
                    if not isinstance(cur, dict) or st.name not in cur:
                        raise PathNotFound(self.text)
                    cur = cur[st.name]
                else:
                    if not isinstance(cur, list):
                        raise PathNotFound(self.text)
                    i = st.index
                    if i < 0:
                        i += len(cur)
                    if not 0 <= i < len(cur):
                        raise PathNotFound(self.text)
                    cur = cur[i]
            return cur
        nodes = [root]
        for st in self.steps:
            nodes = _apply(st, nodes)
        return nodes

    def exists(self, root: Any) -> bool:
        try:
            value = self.evaluate(root)
        except PathNotFound:
            return False
        return self.definite or bool(value)


def _apply(st: _Step, nodes: list[Any]) -> list[Any]:
    out: list[Any] = []
    for node in nodes:
        if st.kind == "name":
            if isinstance(node, dict) and st.name in node:
                out.append(node[st.name])
        elif st.kind == "index":
            if isinstance(node, list):
                i = st.index + len(node) if st.index < 0 else st.index
                if 0 <= i < len(node):
                    out.append(node[i])
        elif st.kind == "wild":
            if isinstance(node, list):
                out.extend(node)
            elif isinstance(node, dict):
                out.extend(node.values())
        elif st.kind == "slice":
            if isinstance(node, list):
                out.extend(node[st.start : st.stop : st.step])
        elif st.kind == "filter":
            items = node if isinstance(node, list) else [node] if isinstance(node, dict) else []
            out.extend(item for item in items if st.filt.test(item))
        elif st.kind == "deep":
            out.extend(_descend(node, st.name))
    return out


def _descend(node: Any, name: str) -> list[Any]:
    found: list[Any] = []
    if isinstance(node, dict):
        if name == "*":
            found.extend(node.values())
        elif name in node:
            found.append(node[name])
        for value in node.values():
            found.extend(_descend(value, name))
    elif isinstance(node, list):
        if name == "*":
            found.extend(node)
        for value in node:
            found.extend(_descend(value, name))
    return found


# --- filters: [?(@.a op literal)] joined by && / || --------------------------------------


@cache
def _filter_token() -> re.Pattern[str]:
    # compiled on the first filter (most definitions have none): not at import
    return re.compile(
        r"\s*(?:(?P<op>==|!=|<=|>=|<|>|=~|&&|\|\|)|(?P<path>@(?:\.[A-Za-z0-9_\-]+|\[\d+\]|\['[^']*'\])*)"
        r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
        r"|(?P<kw>true|false|null)|(?P<re>/(?:[^/\\]|\\.)*/[a-z]*))"
    )


@dataclass(frozen=True, slots=True)
class _Cmp:
    path: tuple[_Step, ...]
    op: str | None
    value: Any

    def test(self, item: Any) -> bool:
        left = JsonPath("@", "@", self.path, True)
        try:
            got = left.evaluate(item)
        except PathNotFound:
            return False
        if self.op is None:
            return True
        if self.op == "=~":
            return isinstance(got, str) and self.value.search(got) is not None
        return _compare(got, self.op, self.value)


def _compare(a: Any, op: str, b: Any) -> bool:
    num = (int, float)
    if op in ("==", "!="):
        same = (
            (isinstance(a, bool) == isinstance(b, bool))
            and (a == b)
            and (isinstance(a, num) == isinstance(b, num))
        )
        return same if op == "==" else not same
    both_num = all(isinstance(x, num) and not isinstance(x, bool) for x in (a, b))
    if not (both_num or (isinstance(a, str) and isinstance(b, str))):
        return False
    if op == "<":
        return bool(a < b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    return bool(a >= b)


@dataclass(frozen=True, slots=True)
class _Bool:
    op: str
    parts: tuple[Any, ...]

    def test(self, item: Any) -> bool:
        if self.op == "&&":
            return all(p.test(item) for p in self.parts)
        return any(p.test(item) for p in self.parts)


def _parse_filter(text: str) -> Any:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _filter_token().match(text, pos)
        if not m or m.end() == pos:
            raise JsonPathSyntaxError(text)
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    ors: list[Any] = []
    ands: list[Any] = []
    i = 0
    while i < len(tokens):
        kind, val = tokens[i]
        if kind != "path":
            raise JsonPathSyntaxError(text)
        steps = _parse_steps(val[1:], text) if len(val) > 1 else ()
        op: str | None = None
        lit: Any = None
        if (
            i + 2 < len(tokens) + 1
            and i + 1 < len(tokens)
            and tokens[i + 1][0] == "op"
            and (tokens[i + 1][1] not in ("&&", "||"))
        ):
            op = tokens[i + 1][1]
            if i + 2 >= len(tokens):
                raise JsonPathSyntaxError(text)
            lkind, lval = tokens[i + 2]
            lit = _literal(lkind, lval, text)
            i += 3
        else:
            i += 1
        ands.append(_Cmp(steps, op, lit))
        if i < len(tokens):
            kind, val = tokens[i]
            if kind != "op" or val not in ("&&", "||"):
                raise JsonPathSyntaxError(text)
            if val == "||":
                ors.append(ands[0] if len(ands) == 1 else _Bool("&&", tuple(ands)))
                ands = []
            i += 1
            if i >= len(tokens):
                raise JsonPathSyntaxError(text)
    ors.append(ands[0] if len(ands) == 1 else _Bool("&&", tuple(ands)))
    return ors[0] if len(ors) == 1 else _Bool("||", tuple(ors))


def _literal(kind: str, val: str, text: str) -> Any:
    if kind == "str":
        return val[1:-1].replace("\\'", "'").replace('\\"', '"')
    if kind == "num":
        return float(val) if any(c in val for c in ".eE") else int(val)
    if kind == "kw":
        return {"true": True, "false": False, "null": None}[val]
    if kind == "re":
        body, _, flags = val[1:].rpartition("/")
        return re.compile(body, re.IGNORECASE if "i" in flags else 0)
    raise JsonPathSyntaxError(text)


# --- the path grammar --------------------------------------------------------------------

_NAME = re.compile(r"[^.\[\]\s]+")
# a slice [a:b:c], compiled on first use (re caches it)
_SLICE = r"^\s*(-?\d*)\s*:\s*(-?\d*)\s*(?::\s*(-?\d*)\s*)?$"


def _parse_steps(text: str, full: str) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("..", i):
            i += 2
            if i < n and text[i] == "[":
                end = text.index("]", i)
                inner = text[i + 1 : end].strip()
                if inner == "*":
                    steps.append(_Step("deep", name="*"))
                elif inner[:1] in "'\"" and inner[-1:] == inner[:1]:
                    steps.append(_Step("deep", name=inner[1:-1]))
                else:
                    raise JsonPathSyntaxError(full)
                i = end + 1
                continue
            m = _NAME.match(text, i)
            if not m:
                raise JsonPathSyntaxError(full)
            steps.append(_Step("deep", name=m.group(0)))
            i = m.end()
        elif c == ".":
            i += 1
            if i < n and text[i] == "[":
                continue  # Jayway accepts "$.[...]" as "$[...]"
            m = _NAME.match(text, i)
            if not m:
                raise JsonPathSyntaxError(full)
            name = m.group(0)
            steps.append(_Step("wild") if name == "*" else _Step("name", name=name))
            i = m.end()
        elif c == "[":
            i = _parse_bracket(text, i, full, steps)
        else:
            raise JsonPathSyntaxError(full)
    return tuple(steps)


def _parse_bracket(text: str, i: int, full: str, steps: list[_Step]) -> int:
    n = len(text)
    j = i + 1
    while j < n and text[j] == " ":
        j += 1
    if j < n and text[j] in "'\"":
        quote = text[j]
        names: list[str] = []
        while True:
            k = j + 1
            buf: list[str] = []
            while k < n and text[k] != quote:
                if text[k] == "\\" and k + 1 < n and text[k + 1] in (quote, "\\"):
                    k += 1
                buf.append(text[k])
                k += 1
            if k >= n:
                raise JsonPathSyntaxError(full)
            names.append("".join(buf))
            k += 1
            while k < n and text[k] == " ":
                k += 1
            if k < n and text[k] == ",":
                k += 1
                while k < n and text[k] == " ":
                    k += 1
                if k >= n or text[k] not in "'\"":
                    raise JsonPathSyntaxError(full)
                j = k
                quote = text[k]
                continue
            if k >= n or text[k] != "]":
                raise JsonPathSyntaxError(full)
            if len(names) != 1:
                raise JsonPathSyntaxError(full)
            steps.append(_Step("name", name=names[0]))
            return k + 1
    if text.startswith("?(", j):
        depth = 0
        k = j + 1
        while k < n:
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        if k >= n or depth != 0:
            raise JsonPathSyntaxError(full)
        end = text.find("]", k)
        if end < 0:
            raise JsonPathSyntaxError(full)
        steps.append(_Step("filter", filt=_parse_filter(text[j + 2 : k])))
        return end + 1
    end = text.find("]", j)
    if end < 0:
        raise JsonPathSyntaxError(full)
    inner = text[j:end].strip()
    script = re.fullmatch(r"\(\s*@\.length\s*-\s*(\d+)\s*\)", inner)
    if inner == "*":
        steps.append(_Step("wild"))
    elif script:  # Jayway's [(@.length-N)] script index: the N-th item from the end
        steps.append(_Step("index", index=-int(script.group(1))))
    elif re.fullmatch(r"-?\d+", inner):
        steps.append(_Step("index", index=int(inner)))
    elif m := re.match(_SLICE, inner):
        a, b, c = m.group(1), m.group(2), m.group(3)
        steps.append(
            _Step(
                "slice",
                start=int(a) if a else None,
                stop=int(b) if b else None,
                step=int(c) if c else None,
            )
        )
    else:
        raise JsonPathSyntaxError(full)
    return end + 1


_VARIABLE_ROOT = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=4096)
def parse_path(text: str) -> JsonPath:
    """Parse a Reference Path or Path; raise :class:`JsonPathSyntaxError` if it is not one."""
    if not isinstance(text, str) or not text.startswith("$"):
        raise JsonPathSyntaxError(str(text))
    if text.startswith("$$"):
        root, rest = "$$", text[2:]
    else:
        m = _VARIABLE_ROOT.match(text)
        if m:
            root, rest = m.group(0), text[m.end() :]
        else:
            root, rest = "$", text[1:]
    steps = _parse_steps(rest, text)
    definite = all(s.kind in ("name", "index") for s in steps)
    return JsonPath(text, root, steps, definite)


def is_valid_path(text: str) -> bool:
    try:
        parse_path(text)
    except JsonPathSyntaxError:
        return False
    return True
