"""Job-net definition: open a file or paste one; findings at their lines; the graph drawn.

An opened file is re-validated whenever it changes on disk (its size and
modification time are polled and the page updated over Server-Sent Events).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import yaml
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cfnops.asl import validate
from cfnops.console._jobview import graph_elements
from cfnops.console._roots import read_definition
from cfnops.console._web import authorize_post, console_of, render, stream, templates
from cfnops.console.errors import BadFilter, ConsoleError


def _parse(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except ValueError as json_error:
        try:
            return yaml.safe_load(text), None
        except yaml.YAMLError:
            return None, f"not JSON or YAML: {json_error}"


def pointer_line(text: str, pointer: str) -> int | None:
    """The 1-based line of ``pointer``'s last key in ``text`` (JSON or YAML), if found."""
    position, line = 0, None
    for raw in pointer.strip("/").split("/"):
        if not raw:
            continue
        key = raw.replace("~1", "/").replace("~0", "~")
        if key.isdigit():
            continue  # array positions: stay on the enclosing key
        pattern = re.compile(rf'("{re.escape(key)}"\s*:)|(^\s*-?\s*{re.escape(key)}\s*:)', re.M)
        found = pattern.search(text, position)
        if found is None:
            return line
        position = found.end()
        line = text.count("\n", 0, found.start()) + 1
    return line


def check(text: str, source: str) -> dict[str, Any]:
    """Findings (with lines), the source lines and graph elements, for a definition text."""
    definition, problem = _parse(text)
    findings: list[dict[str, Any]] = []
    if problem is not None:
        findings.append({"code": "Syntax", "message": problem, "pointer": "", "line": None})
    elif not isinstance(definition, Mapping):
        findings.append(
            {
                "code": "Syntax",
                "message": "the top level is not an object",
                "pointer": "",
                "line": 1,
            }
        )
    else:
        for f in validate(definition):
            findings.append(
                {"code": f.code, "message": f.message, "pointer": f.pointer,
                 "line": pointer_line(text, f.pointer)}
            )  # fmt: skip
    marked = {f["line"] for f in findings if f["line"]}
    drawable = isinstance(definition, Mapping) and isinstance(definition.get("States"), Mapping)
    return {
        "source": source,
        "findings": findings,
        "lines": [(n, line, n in marked) for n, line in enumerate(text.splitlines(), 1)],
        "elements": graph_elements(definition) if drawable else [],  # type: ignore[arg-type]
        "valid": not findings,
    }


def _roots(request: Request) -> tuple[Path, ...]:
    return console_of(request).definition_roots


async def definitions_page(request: Request) -> Response:
    path_text = request.query_params.get("path", "").strip()
    if not path_text:
        return render(request, "definitions.html", result=None, path="", text="")
    path, text = await anyio.to_thread.run_sync(read_definition, path_text, _roots(request))
    result = check(text, str(path))
    return render(
        request,
        "definitions.html",
        status=200 if result["valid"] else 422,
        result=result,
        path=str(path),
        text="",
    )


async def definitions_paste(request: Request) -> Response:
    _actor, form = await authorize_post(request, None)
    text = form.get("text", "")
    if not text.strip():
        raise BadFilter("text", "", "a definition pasted in the text box")
    result = check(text, "pasted definition")
    status = 200 if result["valid"] else 422
    return render(request, "definitions.html", status=status, result=result, path="", text=text)


async def definitions_stream(request: Request) -> Response:
    path_text = request.query_params.get("path", "")
    roots = _roots(request)
    path, _ = await anyio.to_thread.run_sync(read_definition, path_text, roots)
    fragment = templates.get_template("_definition_result.html")

    def marker() -> Any:
        try:
            st = path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def payload() -> str:
        try:
            _, text = read_definition(str(path), roots)
        except ConsoleError as exc:  # gone, unreadable, or now a link out of the roots
            return json.dumps({"error": exc.message, "elements": []})
        result = check(text, str(path))
        return json.dumps({"html": fragment.render(result=result), "elements": result["elements"]})

    return stream(request, marker, payload)


routes = [
    Route("/definitions", definitions_page),
    Route("/definitions", definitions_paste, methods=["POST"]),
    Route("/definitions/stream", definitions_stream),
]
