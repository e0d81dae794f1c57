"""Template side: load it, find custom resources, their functions and the handler source.

Templates are decoded by the shared loader (:mod:`cfnops.templates`: JSON, and YAML
with the short-form tags), which keeps line numbers on every mapping and string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfnops.guard.errors import GuardInputError
from cfnops.templates import NotFastJson, TemplateError, decode, decode_json

CUSTOM_TYPES = ("AWS::CloudFormation::CustomResource",)
FUNCTION_TYPES = ("AWS::Lambda::Function", "AWS::Serverless::Function")
_FOLLOW_TYPES = ("AWS::Lambda::Version", "AWS::Lambda::Alias")
_SUB_VARIABLE = re.compile(r"\$\{([^}!][^}]*)\}")


@dataclass(frozen=True)
class Template:
    path: Path
    text: str
    body: Mapping[str, Any]

    @property
    def resources(self) -> Mapping[str, Any]:
        resources = self.body.get("Resources")
        return resources if isinstance(resources, Mapping) else {}


@dataclass(frozen=True)
class CodeSource:
    """Handler source text and where its lines are in the files the user has."""

    text: str
    file: str
    language: str  # "python" | "nodejs"
    entry: str  # the handler function's name
    line_map: tuple[int, ...] = ()  # code line (1-based) -> file line; empty: identity
    assumed: str = ""  # why the entry is a guess (a Handler setting that cannot be resolved)

    def file_line(self, code_line: int) -> int:
        if not self.line_map:
            return code_line
        index = min(max(code_line, 1), len(self.line_map)) - 1
        return self.line_map[index]


def load_template(path: Path) -> Template:
    """Read and decode a template; raise :class:`GuardInputError` (exit 2) when unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise GuardInputError(path, "file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise GuardInputError(path, f"cannot read it ({exc})") from exc
    try:
        body = _decode(text, str(path))
    except TemplateError as exc:
        where = f"{exc.line}:{exc.column}"
        raise GuardInputError(path, f"{where}: {exc.reason}", line=exc.line) from exc
    if not isinstance(body, Mapping) or not isinstance(body.get("Resources"), Mapping):
        raise GuardInputError(path, "not a CloudFormation template (no Resources mapping)")
    return Template(path, text, body)


def _located(path: tuple[str, ...]) -> bool:
    """The key paths whose values need their line: resources down to their inline code."""
    depth = len(path)
    if path[0] != "Resources":
        return False
    if depth <= 2:
        return True
    if path[2] != "Properties":
        return False
    if depth == 3:
        return True
    if path[3] == "InlineCode":
        return True
    return path[3] == "Code" and (depth == 4 or path[4] == "ZipFile")


def _decode(text: str, source: str) -> Any:
    """JSON through the C decoder (lines only where guard reports them), else YAML."""
    if text.lstrip().startswith("{"):
        try:
            return decode_json(text, source, _located)
        except NotFastJson:
            pass  # duplicate keys, tabs, YAML flow syntax ...: the YAML loader says where
    return decode(text, source)


def is_custom_resource(resource: Any) -> bool:
    if not isinstance(resource, Mapping):
        return False
    kind = resource.get("Type")
    return isinstance(kind, str) and (kind.startswith("Custom::") or kind in CUSTOM_TYPES)


def _properties(resource: Any) -> Mapping[str, Any]:
    props = resource.get("Properties") if isinstance(resource, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _referenced(value: Any) -> list[str]:
    """Logical ids a ServiceToken value refers to (Ref, GetAtt, Sub, Join, If)."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((name, arg),) = value.items()
        if name == "Ref" and isinstance(arg, str):
            return [arg]
        if name == "Fn::GetAtt":
            target = arg.split(".")[0] if isinstance(arg, str) else arg[0] if arg else None
            return [target] if isinstance(target, str) else []
        if name == "Fn::Sub":
            text = arg if isinstance(arg, str) else arg[0] if arg else ""
            return [m.split(".")[0] for m in _SUB_VARIABLE.findall(str(text))]
        return [x for item in (arg if isinstance(arg, list) else [arg]) for x in _referenced(item)]
    if isinstance(value, list):
        return [x for item in value for x in _referenced(item)]
    return []


def service_function(template: Template, logical_id: str) -> tuple[str | None, str]:
    """The logical id of the Lambda function behind a custom resource, or (None, why not)."""
    token = _properties(template.resources[logical_id]).get("ServiceToken")
    if token is None:
        return None, "it has no ServiceToken"
    seen: set[str] = set()
    queue = _referenced(token)
    while queue:
        target = queue.pop(0)
        resource = template.resources.get(target)
        if target in seen or not isinstance(resource, Mapping):
            continue
        seen.add(target)
        kind = resource.get("Type")
        if kind in FUNCTION_TYPES:
            return target, ""
        if kind in _FOLLOW_TYPES:
            queue.extend(_referenced(_properties(resource).get("FunctionName")))
        elif kind == "AWS::SNS::Topic":
            return None, f"its ServiceToken is the SNS topic {target}"
    return None, "handler not in template (its ServiceToken is an external ARN or a parameter)"


def _function_settings(template: Template, function_id: str) -> dict[str, Any]:
    resource = template.resources[function_id]
    settings: dict[str, Any] = {}
    if resource.get("Type") == "AWS::Serverless::Function":
        globals_ = template.body.get("Globals")
        if isinstance(globals_, Mapping) and isinstance(globals_.get("Function"), Mapping):
            settings.update(globals_["Function"])
    settings.update(_properties(resource))
    return settings


def handler_code(
    template: Template, function_id: str, code_dir: Path | None
) -> tuple[CodeSource | None, str]:
    """The handler source of a function: inline code, SAM CodeUri, or ``--code`` folder."""
    props = _function_settings(template, function_id)
    handler = resolve_string(template, props.get("Handler"))
    runtime = resolve_string(template, props.get("Runtime")) or ""
    unsupported = unsupported_language(runtime, handler)
    if unsupported is not None:
        return None, unsupported
    module, _, entry = handler.rpartition(".") if isinstance(handler, str) else ("", "", "")
    assumed = ""
    if handler is None and props.get("Handler") is not None:
        assumed = (
            f"its Handler {_short(props.get('Handler'))} cannot be resolved from the template "
            "(a parameter without a default or allowed value, or another resource's value)"
        )
        entry = " unresolved"  # no function has this name: every top-level one is checked
    entry = entry or "handler"
    code = props.get("Code")
    inline = code.get("ZipFile") if isinstance(code, Mapping) else props.get("InlineCode")
    if inline is not None:
        if not isinstance(inline, str) and not (
            isinstance(inline, Mapping) and set(inline) & {"Fn::Sub", "Fn::Join"}
        ):
            return None, f"inline code is not a string ({_short(inline)}); pass --code DIR"
        text, line_map = _inline_text(template, inline)
        language = _language(runtime, None, text)
        return CodeSource(text, str(template.path), language, entry, line_map, assumed), ""
    folders = _code_folders(template, function_id, props, code_dir)
    if not folders:
        return None, "handler code is not in the template: pass --code DIR"
    module = module or "index"
    for folder in folders:
        for suffix in _suffixes(runtime):
            candidate = folder / (module.replace(".", "/") + suffix)
            if candidate.is_file():
                text = candidate.read_text(encoding="utf-8", errors="replace")
                language = _language(runtime, candidate.suffix, text)
                return CodeSource(text, str(candidate), language, entry, (), assumed), ""
    looked = ", ".join(str(f) for f in folders)
    return None, f"handler module {module!r} not found (looked in {looked})"


def _code_folders(
    template: Template, function_id: str, props: Mapping[str, Any], code_dir: Path | None
) -> list[Path]:
    """Where a function's code may be on disk, in the order they are tried."""
    folders: list[Path] = []
    code_uri = resolve_string(template, props.get("CodeUri"))
    if isinstance(code_uri, str) and "://" not in code_uri:
        folders.append(template.path.parent / code_uri)
    metadata = template.resources[function_id].get("Metadata")
    asset = metadata.get("aws:asset:path") if isinstance(metadata, Mapping) else None
    if isinstance(asset, str):  # CDK: cdk.out/<template> next to cdk.out/<asset folder>
        folders.append(template.path.parent / asset)
    if code_dir is not None:
        folders += [code_dir / function_id, code_dir]
    return folders


def _short(value: Any) -> str:
    text = str(dict(value) if isinstance(value, Mapping) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suffixes(runtime: str) -> tuple[str, ...]:
    if runtime.startswith("python"):
        return (".py",)
    if runtime.startswith("nodejs"):
        return (".js", ".mjs", ".cjs")
    return (".py", ".js", ".mjs", ".cjs")


def _language(runtime: str, suffix: str | None, text: str) -> str:
    if runtime.startswith("python") or suffix == ".py":
        return "python"
    if runtime.startswith("nodejs") or suffix in (".js", ".mjs", ".cjs"):
        return "nodejs"
    python_like = re.search(r"^\s*(def |import |from \S+ import )", text, re.MULTILINE)
    return "python" if python_like else "nodejs"


def _mark_line(node: Any) -> int | None:
    mark = getattr(node, "start_mark", None)
    return int(mark.line) + 1 if mark is not None else None


def _inline_text(
    template: Template, value: Any, parent_mark: Any = None
) -> tuple[str, tuple[int, ...]]:
    """Inline code as text, with each code line's line in the template.

    Strings under a short-form tag (``!Sub |``) carry no mark of their own; the
    tag's mapping mark (``parent_mark``) points at the same place.
    """
    if isinstance(value, Mapping) and len(value) == 1:
        ((name, arg),) = value.items()
        if name == "Fn::Sub":
            inner = arg[0] if isinstance(arg, list) and arg else arg
            text, lines = _inline_text(template, inner, getattr(value, "start_mark", None))
            return _SUB_VARIABLE.sub("CFN_SUB", text.replace("${!", "${")), lines
        if name == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
            return _joined(template, value, arg)
    if not isinstance(value, str):
        line = _mark_line(value) or 1
        return "", (line,)
    mark = getattr(value, "start_mark", None) or parent_mark
    start = int(mark.line) + 1 if mark is not None else 1
    count = value.count("\n") + 1
    if mark is not None and _is_block_scalar(template.text, mark.index):
        return str(value), tuple(start + i for i in range(1, count + 1))
    return str(value), (start,) * count


def _is_block_scalar(text: str, index: int) -> bool:
    """Whether the YAML scalar starting at ``index`` is a literal/folded block (``|``/``>``)."""
    head = text[index : index + 200]
    if head.startswith("!"):  # a tag such as !Sub precedes the scalar
        head = head.split(None, 1)[1] if len(head.split(None, 1)) > 1 else ""
    return head[:1] in ("|", ">")


def _joined(template: Template, node: Any, arg: list[Any]) -> tuple[str, tuple[int, ...]]:
    delimiter = arg[0] if isinstance(arg[0], str) else ""
    items = arg[1] if isinstance(arg[1], list) else []
    source_lines = template.text.splitlines()
    cursor = (_mark_line(node) or 1) - 1
    parts: list[str] = []
    line_map: list[int] = []
    for item in items:
        text = str(item) if isinstance(item, str) else "CFN_REF"
        probe = text.strip()[:30]
        for offset, source in enumerate(source_lines[cursor:]):
            if probe and probe in source:
                cursor += offset
                break
        parts.append(text)
        line_map.extend([cursor + 1] * (text.count("\n") + (1 if delimiter == "\n" else 0)))
    joined = str(delimiter).join(parts)
    needed = joined.count("\n") + 1
    line_map.extend([cursor + 1] * max(0, needed - len(line_map)))
    return joined, tuple(line_map[:needed])


_UNSUPPORTED = (
    ("go", "Go"),
    ("java", "Java"),
    ("dotnet", ".NET"),
    ("ruby", "Ruby"),
    ("provided", "custom-runtime (Go, Rust ...)"),
)


def unsupported_language(runtime: str, handler: str | None) -> str | None:
    """Why a handler cannot be analysed (a language the guard does not read), or None."""
    for prefix, language in _UNSUPPORTED:
        if runtime.startswith(prefix):
            return (
                f"{language} handlers are not analysed (runtime {runtime}); only Python and "
                "Node.js are: review its PhysicalResourceId by hand"
            )
    if not runtime and handler and "::" in handler:
        return (
            f"Java/.NET handlers are not analysed (handler {handler}); only Python and "
            "Node.js are: review its PhysicalResourceId by hand"
        )
    return None


def _parameter_default(template: Template, name: str) -> str | None:
    """The value a deploy uses without arguments: the Default, or the only allowed value."""
    params = template.body.get("Parameters")
    spec = params.get(name) if isinstance(params, Mapping) else None
    default = spec.get("Default") if isinstance(spec, Mapping) else None
    if default is None and isinstance(spec, Mapping):
        allowed = spec.get("AllowedValues")
        if isinstance(allowed, list) and len(allowed) == 1:
            default = allowed[0]
    return str(default) if isinstance(default, str | int | float) else None


def resolve_string(template: Template, value: Any) -> str | None:
    """A string setting as deployed with default parameter values: literal, ``Ref`` to a
    parameter, ``Fn::Join`` / ``Fn::Sub`` of those; ``None`` when it cannot be known."""
    if isinstance(value, str):
        return str(value)
    if not isinstance(value, Mapping) or len(value) != 1:
        return None
    ((name, arg),) = value.items()
    if name == "Ref" and isinstance(arg, str):
        return _parameter_default(template, arg)
    if name == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
        delimiter, items = arg
        if not isinstance(delimiter, str) or not isinstance(items, list):
            return None
        parts = [resolve_string(template, item) for item in items]
        return None if any(p is None for p in parts) else delimiter.join(str(p) for p in parts)
    if name == "Fn::Select" and isinstance(arg, list) and len(arg) == 2:
        index = str(arg[0]) if isinstance(arg[0], int) else resolve_string(template, arg[0])
        items = _split(template, arg[1]) if isinstance(arg[1], Mapping) else arg[1]
        if index is None or not index.isdigit() or not isinstance(items, list):
            return None
        return resolve_string(template, items[int(index)]) if int(index) < len(items) else None
    if name == "Fn::Sub":
        text, variables = (arg, {}) if isinstance(arg, str) else [*arg, None, None][:2]
        if not isinstance(text, str):
            return None
        local = variables if isinstance(variables, Mapping) else {}
        unresolved = False

        def substitute(match: re.Match[str]) -> str:
            nonlocal unresolved
            key = match.group(1).strip()
            found = (
                resolve_string(template, local[key])
                if key in local
                else _parameter_default(template, key)
            )
            if found is None:
                unresolved = True
                return ""
            return found

        out = _SUB_VARIABLE.sub(substitute, text).replace("${!", "${")
        return None if unresolved else out
    return None


def _split(template: Template, value: Mapping[str, Any]) -> list[str] | None:
    arg = value.get("Fn::Split")
    if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and arg[0]):
        return None
    text = resolve_string(template, arg[1])
    return None if text is None else text.split(arg[0])
