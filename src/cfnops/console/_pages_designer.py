"""The job-net designer (``/designer``): draw a job-net, see its data flow, save plain ASL.

The page holds the definition as plain JSON data and draws it; this module answers its
requests: open a file or a start-point template, parse and render the code view
(:mod:`._designer_doc`), the data-flow check (:mod:`._designer_flow`), the AWS SDK
catalogue (:mod:`._designer_sdk`), save under the console's definition roots, and run on
the sandbox (queued for ``cfnops worker``: the console never runs a job-net itself).
Every request body and answer is JSON; POSTs carry the CSRF token header.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cfnops.console._designer_doc import DesignDoc, DesignSyntaxError, open_text, save_text
from cfnops.console._roots import read_definition
from cfnops.console._web import HERE, authorize_post, console_of, render
from cfnops.console.errors import BadFilter, Forbidden, NotFound
from cfnops.runtime import Runtime

__all__ = ["TEMPLATES", "definition_roots", "routes"]

TEMPLATES_DIR = HERE / "designer_templates"
TEMPLATES = {
    "websystem-stop": "Stop a web system (maintenance page, RunCommand, ALB, database, backup)",
    "websystem-start": "Start a web system (database, instances, RunCommand, ALB health)",
    "nightly-batch": "Nightly batch (extract, load in parallel, report; calendar schedule)",
}
_QUEUE = "cfnops"
_MAX_BODY = 2_000_000


def definition_roots(request: Request) -> list[Path]:
    """Folders the designer opens and saves under: the Definitions page's roots
    (``[console] definition_roots``, resolved once when the console starts)."""
    return list(console_of(request).definition_roots)


def _doc_json(doc: DesignDoc, sample: Any = None) -> dict[str, Any]:
    return {"format": doc.format, "text": doc.text, "data": doc.data, "sample": sample}


def _opened(path: str, template: str, run_id: str) -> str:
    if path:
        return f"the file {path}"
    if template:
        return f"the template {TEMPLATES.get(template, template)}"
    return f"the definition of run {run_id}"


def _template(name: str) -> dict[str, Any]:
    """A start point: its definition and a sample input for the data-flow check."""
    if name not in TEMPLATES:
        raise BadFilter("template", name, "one of " + ", ".join(TEMPLATES))
    doc = open_text((TEMPLATES_DIR / f"{name}.asl.json").read_text(encoding="utf-8"), "json")
    sample = json.loads((TEMPLATES_DIR / f"{name}.input.json").read_text(encoding="utf-8"))
    return _doc_json(doc, sample)


def _from_run(runtime: Runtime, run_id: str) -> dict[str, Any]:
    """The definition a job run ran (saved as a new file: the run keeps its own copy)."""
    from cfnops.jobs import JobService
    from cfnops.jobs.errors import UnknownJobRun

    try:
        row = JobService(runtime).store.get_run(run_id)  # the console's one database
    except UnknownJobRun:
        raise NotFound(f"no job run {run_id!r}", hint="pick one on the Runs page") from None
    text = json.dumps(row.definition, indent=2, ensure_ascii=False) + "\n"
    return _doc_json(open_text(text, "json"), row.input)


def _open(path_text: str, roots: list[Path]) -> tuple[str, DesignDoc]:
    path, text = read_definition(path_text, roots)
    fmt = "yaml" if path.suffix in (".yaml", ".yml") else "json"
    return str(path), open_text(text, fmt)


def _sample_beside(path: str, roots: list[Path]) -> Any:
    """``NAME.input.json`` next to ``NAME.asl.json`` (the examples' convention), if any."""
    name = Path(path).name
    for suffix in (".asl.json", ".asl.yaml", ".asl.yml", ".json", ".yaml", ".yml"):
        if name.endswith(suffix):
            beside = Path(path).with_name(name[: -len(suffix)] + ".input.json")
            break
    else:
        return None
    if not beside.is_file():
        return None
    try:
        return json.loads(read_definition(str(beside), roots)[1])
    except (BadFilter, Forbidden, ValueError):
        return None


def _first_check(definition: Any, sample: Any) -> dict[str, Any] | None:
    """The check the page would ask for on opening (sample input, no Task results), on the
    data as the page holds it: its JSON block is written with sorted keys (``tojson``), and
    the shapes on the arrows list keys in that order after every later check too."""
    if not isinstance(definition, dict):
        return None
    from cfnops.console._designer_flow import design_check  # loads the check on first use

    held = json.loads(json.dumps(definition, sort_keys=True))
    given = json.loads(json.dumps({} if sample is None else sample, sort_keys=True))
    return design_check(held, given, {})


async def designer_page(request: Request) -> Response:
    path_text = request.query_params.get("path", "").strip()
    template = request.query_params.get("template", "").strip()
    run_id = request.query_params.get("run", "").strip()
    path = ""
    doc: dict[str, Any] = {"format": "json", "text": "", "data": None, "sample": None}
    if path_text:
        roots = definition_roots(request)
        path, opened = await anyio.to_thread.run_sync(_open, path_text, roots)
        doc = _doc_json(opened, await anyio.to_thread.run_sync(_sample_beside, path, roots))
    elif template:
        doc = await anyio.to_thread.run_sync(_template, template)
    elif run_id:
        doc = await anyio.to_thread.run_sync(_from_run, console_of(request).runtime, run_id)
    settings = console_of(request).settings
    if doc["data"] is not None:
        # The first check goes in the page: it is drawn once, with no second request.
        doc["check"] = await anyio.to_thread.run_sync(_first_check, doc["data"], doc["sample"])
    boot = {
        "path": path,
        # what the page opened, named first in "Start from" (it is not an empty canvas)
        "opened": _opened(path, template, run_id) if doc["data"] is not None else None,
        "doc": doc,
        "templates": [{"name": k, "title": v} for k, v in TEMPLATES.items()],
        "roots": [str(r) for r in definition_roots(request)],
        "placeholder": placeholder(definition_roots(request)),
        "sandbox": bool(settings.aws.endpoint_url),
    }
    return render(request, "designer.html", boot=boot)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > _MAX_BODY:
        raise BadFilter("body", f"{len(raw)} bytes", "a definition under 2 MB")
    try:
        found = json.loads(raw or b"{}")
    except ValueError as exc:
        raise BadFilter("body", raw[:40].decode(errors="replace"), f"JSON ({exc})") from None
    if not isinstance(found, dict):
        raise BadFilter("body", "", "a JSON object")
    return found


def _definition(body: Mapping[str, Any]) -> dict[str, Any]:
    found = body.get("definition")
    if not isinstance(found, dict):
        raise BadFilter("definition", str(found)[:40], "a state machine object")
    return found


def _base(body: Mapping[str, Any]) -> DesignDoc | None:
    base = body.get("base")
    if not isinstance(base, Mapping) or not isinstance(base.get("text"), str) or not base["text"]:
        return None
    try:
        return open_text(str(base["text"]), str(base.get("format") or "json"))
    except DesignSyntaxError:
        return None


async def api_parse(request: Request) -> Response:
    await authorize_post(request, None)  # changes nothing: any signed-in token
    body = await _body(request)
    try:
        doc = open_text(str(body.get("text", "")), str(body.get("format") or "json"))
    except DesignSyntaxError as exc:
        return JSONResponse({"error": exc.to_json()}, status_code=422)
    return JSONResponse({"definition": doc.data})


async def api_render(request: Request) -> Response:
    await authorize_post(request, None)  # changes nothing: any signed-in token
    body = await _body(request)
    text = save_text(_base(body), _definition(body), str(body.get("format") or "json"))
    return JSONResponse({"text": text})


async def api_check(request: Request) -> Response:
    await authorize_post(request, None)  # changes nothing: any signed-in token
    body = await _body(request)
    definition = _definition(body)
    results = body.get("taskResults") or {}
    if not isinstance(results, dict):
        raise BadFilter("taskResults", str(results)[:40], "an object of state name → result")
    from cfnops.console._designer_flow import design_check  # loads the check on first use

    found = await anyio.to_thread.run_sync(
        lambda: design_check(definition, body.get("input", {}), results)
    )
    return JSONResponse(found)


async def api_template(request: Request) -> Response:
    found = await anyio.to_thread.run_sync(_template, request.path_params["name"])
    return JSONResponse(found)


async def api_sdk(request: Request) -> Response:
    from cfnops.console._designer_sdk import sdk_operation, sdk_operations, sdk_services

    service = request.query_params.get("service", "").strip()
    action = request.query_params.get("action", "").strip()
    if not service:
        return JSONResponse({"services": await anyio.to_thread.run_sync(sdk_services)})
    if not action:
        ops = await anyio.to_thread.run_sync(sdk_operations, service)
        return JSONResponse({"service": service, "actions": ops})
    return JSONResponse(await anyio.to_thread.run_sync(sdk_operation, service, action))


def placeholder(roots: list[Path], cwd: Path | None = None) -> str:
    """A save path that works: a file in the first root, relative to the console's folder
    (the one convention of both pages) when the root lies under it."""
    if not roots:
        return "my-jobnet.asl.json"
    base = (cwd or Path.cwd()).resolve()
    root = roots[0]
    shown = root.relative_to(base) if root.is_relative_to(base) else root
    return str(shown / "my-jobnet.asl.json")


def _target(roots: list[Path], path_text: str, fmt: str) -> Path:
    """The file to write: like the Definitions page, a relative path is taken from the
    console's working folder, and the result must lie under a definition root."""
    if not path_text.strip():
        raise BadFilter("path", path_text, "a file name, e.g. " + placeholder(roots))
    raw = Path(path_text).expanduser()
    path = (raw if raw.is_absolute() else Path.cwd() / raw).resolve()
    if not any(path.is_relative_to(root) for root in roots):
        raise Forbidden(
            f"{path_text!r} is outside the console's definition roots",
            hint=f"save under a root, e.g. {placeholder(roots)} (relative paths start in the"
            " console's folder; roots are set by [console] definition_roots)",
        )
    wanted = (".yaml", ".yml") if fmt == "yaml" else (".json",)
    if not path.name.endswith(wanted):
        raise BadFilter("path", path_text, f"a file name ending in {' or '.join(wanted)}")
    if not path.parent.is_dir():
        raise BadFilter("path", path_text, f"a path in an existing folder ({path.parent})")
    return path


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process's umask."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # no /proc: read it by setting it back at once
    os.umask(mask)
    return 0o666 & ~mask


def _write(path: Path, text: str) -> None:
    """Write whole or not at all: a temporary file in the same folder, then a rename.
    A file saved over keeps its mode; a new file gets the mode the umask gives."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def api_save(request: Request) -> Response:
    actor, _ = await authorize_post(request, "operator")
    body = await _body(request)
    definition = _definition(body)
    fmt = str(body.get("format") or "json")
    console = console_of(request)
    path = _target(definition_roots(request), str(body.get("path") or ""), fmt)
    text = save_text(_base(body), definition, fmt)
    await anyio.to_thread.run_sync(_write, path, text)
    await anyio.to_thread.run_sync(
        lambda: console.audit.record(
            actor=actor,
            action="designer.save",
            target=f"definition:{path}",
            detail={"format": fmt, "bytes": len(text.encode())},
        )
    )
    return JSONResponse({"path": str(path), "bytes": len(text.encode()), "text": text})


async def api_run(request: Request) -> Response:
    actor, _ = await authorize_post(request, "operator")
    body = await _body(request)
    definition = _definition(body)
    console = console_of(request)
    if not console.settings.aws.endpoint_url:
        raise Forbidden(
            "this console is not configured for a sandbox",
            hint="start `cfnops sandbox` and the console and worker with CFNOPS_AWS__ENDPOINT_URL",
        )
    name = str(body.get("machineName") or "designer")
    from cfnops.jobs import JobService

    jobs = JobService(console.runtime)
    run_id = await anyio.to_thread.run_sync(
        lambda: jobs.start(
            definition, body.get("input", {}), machine_name=name, queue=_QUEUE, source="console"
        )
    )
    await anyio.to_thread.run_sync(
        lambda: console.audit.record(
            actor=actor, action="designer.run", target=f"job:{run_id}", detail={"machine": name}
        )
    )
    return JSONResponse({"runId": run_id, "url": f"/jobs/{run_id}"})


routes = [
    Route("/designer", designer_page),
    Route("/designer/api/parse", api_parse, methods=["POST"]),
    Route("/designer/api/render", api_render, methods=["POST"]),
    Route("/designer/api/check", api_check, methods=["POST"]),
    Route("/designer/api/save", api_save, methods=["POST"]),
    Route("/designer/api/run", api_run, methods=["POST"]),
    Route("/designer/api/sdk", api_sdk),
    Route("/designer/api/templates/{name}", api_template),
]
