"""No process-wide holder of clients, settings or engines outside the entry points (issue 32).

Below ``cli/``, ``console/``, ``lambda_handlers/`` and ``demo/`` the runtime is handed
down (docs/architecture.md, "One runtime value"): this walks every library module's
module- and class-level names with ``ast`` and fails on one that holds a runtime type or
a client. Planted violations prove what the rule sees.
"""

from __future__ import annotations

import ast
import hashlib
import re
import tempfile
from pathlib import Path

from tests._source import parse_file
from tests.test_import_direction import PACKAGE, SRC, _library_modules

# A module- or class-level name whose annotation or value mentions one of these holds
# clients, settings or engines for the whole process.
_RUNTIME_TYPES = re.compile(
    r"\b(AwsClients|Settings|AwsSettings|Runtime|HealRuntime|Database|Engine|Session"
    r"|create_engine|make_engine|boto3)\b"
)
# The ONE exception. DBOS is a process-wide singleton (one DBOS instance, one system
# database per process: DBOS's own global), so the engine that launched it is one per
# process too: a run DBOS recovers after a crash is started by DBOS, not by a caller
# that could hand it the runtime, and reaches it only through Engine.current()
# (durable/_engine.py and docs/architecture.md say so).
# The engine a launched process runs its runs in; and the job runner's one watcher thread,
# which holds each run's own watch (its own store) only while that run executes and hands
# nothing to a later caller (a thread per run cost a draining worker more CPU than the run).
_ALLOWED_HOLDERS = {
    "cfnops/durable/_engine.py:Engine._current",
    "cfnops/jobs/_runner.py:_WATCHER",
}

# A container that starts empty at module or class level is filled while the process
# runs: a holder. Its annotation must say what it holds, so that the runtime-type check
# above can judge it; one that holds ``Any`` or ``object``, or has no annotation, could
# hold clients, settings or engines unseen (the sandbox's Lambda backend sat in
# ``_backend: list[Any] = []``). Containers written out with their contents (tables,
# ``__all__``) are constants, not holders.
_CONTAINERS = {
    "list",
    "dict",
    "set",
    "defaultdict",
    "OrderedDict",
    "deque",
    "Counter",
    "ChainMap",
    "WeakValueDictionary",
    "WeakKeyDictionary",
    "WeakSet",
}
_OPAQUE = {"Any", "object"}


def _starts_empty(value: ast.expr | None) -> bool:
    if isinstance(value, ast.List | ast.Set):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.Call):
        func = value.func
        return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in (
            _CONTAINERS
        )
    return False


def _opaque(annotation: ast.expr | None, opaque: set[str], entry: bool = False) -> bool:
    """The annotation does not say what the holder holds: none at all, a bare ``list`` or
    ``dict``, or an entry type (a mapping's value, a sequence's or set's item) that is
    ``Any``, ``object`` or a bare container, alone or in a union. A named entry type (a
    class, a ``Mapping[str, Any]`` JSON document, a callable) is what the runtime-type
    check judges. ``opaque``: ``Any``, ``object`` and the module's aliases of them."""
    if annotation is None:
        return True
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body  # a quoted annotation
    if isinstance(annotation, ast.BinOp):  # X | Y
        return _opaque(annotation.left, opaque, entry) or _opaque(annotation.right, opaque, entry)
    if isinstance(annotation, ast.Subscript):
        head = ast.unparse(annotation.value).rpartition(".")[2]
        args = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        if head in ("Optional", "Union", "ClassVar", "Final"):
            return any(_opaque(a, opaque, entry) for a in args or [annotation.slice])
        if entry:
            return False  # a named, parametrised entry type
        return _opaque(args[-1] if args else annotation.slice, opaque, entry=True)
    name = ast.unparse(annotation).rpartition(".")[2]
    return name in opaque or name in _CONTAINERS


def _opaque_names(tree: ast.Module) -> set[str]:
    """``Any``, ``object`` and the module-level aliases of them (``Backend = Any``)."""
    names = set(_OPAQUE)
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if value is not None and ast.unparse(value).rpartition(".")[2] in _OPAQUE:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


# Classes whose body declares fields (each instance gets its own value): an annotated
# name with a value there is an instance default, not a class attribute.
_FIELD_CLASSES = re.compile(r"\b(dataclass|BaseModel|BaseSettings|NamedTuple|TypedDict|Struct)\b")


def _declares_fields(cls: ast.ClassDef) -> bool:
    heads = [*cls.decorator_list, *cls.bases]
    # a msgspec.Struct subclass repeats its options: class Settings(_Section, frozen=True)
    frozen = any(k.arg == "frozen" for k in cls.keywords)
    return frozen or any(_FIELD_CLASSES.search(ast.unparse(h)) for h in heads)


def _what_it_holds(cls: ast.ClassDef) -> str:
    """The annotations and calls of a class body (not its docstrings or comments)."""
    parts: list[str] = []
    for node in ast.walk(cls):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            parts.append(ast.unparse(node.annotation))
        elif isinstance(node, ast.Call):
            func = node.func
            parts.append(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return " ".join(parts)


def holder_types(paths: list[Path], seed: re.Pattern[str] = _RUNTIME_TYPES) -> re.Pattern[str]:
    """The runtime types and every class of ``paths`` whose instances hold one of them
    (an attribute or ``__init__`` parameter of such a type, a ``make_engine`` call),
    transitively: a process-wide dict of such objects holds their clients and engines
    (``LocalLambda._by_url`` held one backend, settings and engine, per database URL).
    ``seed``: the types (and calls) to start from."""
    classes = [
        node
        for path in paths
        for node in ast.walk(parse_file(path))
        if isinstance(node, ast.ClassDef)
    ]
    names: set[str] = set()
    pattern = seed
    while True:
        grown = names | {c.name for c in classes if pattern.search(_what_it_holds(c))}
        if grown == names:
            return pattern
        names = grown
        pattern = re.compile(rf"{seed.pattern}|\b({'|'.join(sorted(names))})\b")


# Clients of anything, not only AWS: by name (an HTTP transport, a connection or its pool,
# a session, a notifier, a backend, an engine), or a class of cfnops whose code connects
# (``urlopen``, a socket, a boto3 ``client``…) or holds a runtime type, transitively.
_CLIENT_NAMES = (
    r"\w*(Client|Clients|Transport|Connection|ConnectionPool|Session|Notifier|Backend|Engine)"
)
_CONNECTS = r"urlopen|build_opener|create_connection|socket|connect|client|resource"
_CLIENT_SEED = re.compile(rf"{_RUNTIME_TYPES.pattern}|\b({_CLIENT_NAMES}|{_CONNECTS})\b")


def client_types(paths: list[Path]) -> re.Pattern[str]:
    """What an instance of is a client: a name of :data:`_CLIENT_SEED` or a class of
    ``paths`` that uses or holds one."""
    return holder_types(paths, _CLIENT_SEED)


def _holds_a_client(value: ast.expr, clients: re.Pattern[str]) -> bool:
    """``value`` builds a client-like object, alone or inside a container written out
    (``[UrllibTransport()]``, ``{"x": SomeClient()}``, ``defaultdict(SomeClient)``): a
    process-wide client, whatever the container's annotation says."""
    if isinstance(value, ast.List | ast.Set | ast.Tuple):
        return any(_holds_a_client(e, clients) for e in value.elts)
    if isinstance(value, ast.Dict):
        return any(_holds_a_client(v, clients) for v in [*value.keys, *value.values] if v)
    if isinstance(value, ast.Call):
        name = ast.unparse(value.func).rpartition(".")[2]
        if name in _CONTAINERS:  # list([...]), defaultdict(SomeClient)
            parts = [*value.args, *(k.value for k in value.keywords)]
            return any(
                _holds_a_client(a, clients)
                or (isinstance(a, ast.Name | ast.Attribute) and _is_client(a, clients))
                for a in parts
            )
        return _is_client(value.func, clients)
    return False


def _is_client(func: ast.expr, clients: re.Pattern[str]) -> bool:
    return clients.fullmatch(ast.unparse(func).rpartition(".")[2]) is not None


def _holders(
    path: Path,
    holds: re.Pattern[str] = _RUNTIME_TYPES,
    clients: re.Pattern[str] = _CLIENT_SEED,
    root: Path = SRC,
) -> list[str]:
    tree = parse_file(path)
    rel = path.relative_to(root)
    found: list[str] = []
    module_level: dict[str, str] = {}
    opaque = _opaque_names(tree)

    def check(body: list[ast.stmt], owner: str, fields: bool = False) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                check(node.body, f"{owner}{node.name}.", _declares_fields(node))
                continue
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                annotation = ast.unparse(node.annotation)
                if owner and "ClassVar" not in annotation and (node.value is None or fields):
                    continue  # an instance attribute declared in the class body
                # (with a value, outside a dataclass or model, it is the class's own)
                text = annotation + " " + (ast.unparse(node.value) if node.value else "")
                names = [node.target.id]
                unseen = _opaque(node.annotation, opaque)
                # filled later with what its annotation hides, or names a client
                open_holder = _starts_empty(node.value) and (
                    unseen or clients.search(annotation) is not None
                )
            elif isinstance(node, ast.Assign):
                text = ast.unparse(node.value)
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                unseen = open_holder = _starts_empty(node.value)  # an unannotated holder
                if _is_constant(node.value) and not open_holder:  # constants, aliases
                    if not owner:
                        module_level.update(dict.fromkeys(names, ""))
                    continue
            else:
                continue
            if not owner:
                # a name a function rebinds with `global` is judged by what it may hold
                module_level.update(dict.fromkeys(names, "Any" if unseen else text))
            built = node.value is not None and _holds_a_client(node.value, clients)
            if holds.search(text) or open_holder or built:
                found.extend(f"{rel}:{owner}{n}" for n in names if n != "__all__")

    check(tree.body, "")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.extend(
                f"{rel}:global {n}"
                for n in node.names
                if holds.search(module_level.get(n, "Runtime")) or module_level.get(n) == "Any"
            )
    return sorted(set(found) - _ALLOWED_HOLDERS)


def _is_constant(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript | ast.Name | ast.Attribute):
        return True
    if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "frozenset":
        return all(_is_constant(a) for a in value.args)
    try:
        ast.literal_eval(value)
    except ValueError:
        return False
    return True


def test_no_process_global_holds_clients_settings_or_engines() -> None:
    """Only entry points keep process-wide state; libraries receive the runtime."""
    library = _library_modules()
    holds, clients = holder_types(library), client_types(library)
    found = [h for path in library for h in _holders(path, holds, clients)]
    assert not found, "pass the runtime down instead of holding it:\n  " + "\n  ".join(found)


def _planted(source: str) -> list[str]:
    """The holder check applied to ``source`` as if it were a module of heal, written into
    a throw-away ``src/cfnops/heal/`` under a temporary directory (tests never write into
    the project's ``src/``; one file name per source: parsed trees are cached by path)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    with tempfile.TemporaryDirectory(prefix="cfnops-holders-") as tmp:
        root = Path(tmp) / "src"
        probe = root / PACKAGE.name / "heal" / f"_probe_for_test_{digest}.py"
        probe.parent.mkdir(parents=True)
        probe.write_text(source)
        paths = [probe]
        found = _holders(probe, holder_types(paths), client_types(paths), root=root)
        return [h.partition(":")[2] for h in found]


def test_the_holder_check_sees_module_and_class_globals() -> None:
    source = (
        "from cfnops.aws import AwsClients\n"
        "_cache: dict[str, AwsClients] = {}\n"
        "class Service:\n"
        "    default_clients: ClassVar[AwsClients | None] = None\n"
        "    settings: Settings  # an instance attribute: fine\n"
        "def configure(s):\n"
        "    global _settings\n"
        "class Backend:\n"
        "    _by_url: dict[str, Backend] = {}  # no ClassVar, yet the class's own\n"
        "    def __init__(self, settings: Settings) -> None: ...\n"
        "@dataclass\n"
        "class Options:\n"
        "    settings: Settings | None = None  # a field's default: each instance's own\n"
        "    names: list[str] = []\n"
    )
    assert _planted(source) == [
        "Backend._by_url",
        "Service.default_clients",
        "_cache",
        "global _settings",
    ]


def test_the_holder_check_sees_holders_typed_any() -> None:
    """The shape the sandbox's Lambda backend had: a holder whose type hides what it holds."""
    assert _planted("from typing import Any\n_backend: list[Any] = []  # served backend\n") == [
        "_backend"
    ]
    source = (
        "import collections, typing\n"
        "Backend = typing.Any\n"
        "_a: dict[str, Any] = {}\n"
        "_b: 'list[object]' = []\n"
        "_c: list[Backend | None] = []\n"
        "_d = []\n"
        "_e = collections.defaultdict(list)\n"
        "_f: dict = {}\n"
        "_g: Any = None\n"
        "def serve(backend):\n"
        "    global _g\n"
        "class Server:\n"
        "    served: ClassVar[list[Any]] = []\n"
        "# not holders of unseen things:\n"
        "_names: list[str] = []  # plain data\n"
        "_specs: dict[str, Mapping[str, Any]] = {}  # named entries: JSON documents\n"
        "_TABLE: dict[str, Any] = {'Ref': 'AWS::Region'}  # written out: a constant\n"
        "__all__: list[str] = []\n"
        "@dataclass\n"
        "class Options:\n"
        "    extra: dict[str, Any] = {}  # a field's default: each instance's own\n"
    )
    assert _planted(source) == [
        "Server.served",
        "_a",
        "_b",
        "_c",
        "_d",
        "_e",
        "_f",
        "global _g",
    ]


def test_the_holder_check_sees_containers_filled_with_clients() -> None:
    """The shape job-nets' HTTP transport had: a list written out with a client in it,
    swapped by a setter (``_transport: list[HttpTransport] = [UrllibTransport()]``)."""
    old_shape = (
        "import urllib.request\n"
        "from cfnops.http import HttpTransport\n"
        "class UrllibTransport:\n"
        "    def send(self, request):\n"
        "        return urllib.request.urlopen(request)\n"
        "_transport: list[HttpTransport] = [UrllibTransport()]\n"
        "def set_http_transport(transport):\n"
        "    _transport[0] = transport\n"
    )
    assert _planted(old_shape) == ["_transport"]
    source = (
        "import collections, re, threading, urllib.request\n"
        "class Hook:  # no client name: it connects\n"
        "    def post(self, url):\n"
        "        return urllib.request.urlopen(url)\n"
        "class Relay:  # holds one that connects\n"
        "    def __init__(self, hook: Hook) -> None: ...\n"
        "_hooks = {'slack': Hook()}\n"
        "_relays = (Relay(Hook()),)\n"
        "_by_name: dict[str, Any] = {'x': SomeClient()}  # named a client\n"
        "_sessions = collections.defaultdict(SomeSession)\n"
        "_default = UrllibTransport()\n"
        "_pending: list[HttpTransport] = []  # empty, entries named\n"
        "class Service:\n"
        "    default = [UrllibTransport(timeout=5)]\n"
        "# not holders of clients:\n"
        "_routes = [Route('/', page)]\n"
        "RULES = (Rule('D001', 'ResourceReplaced'),)\n"
        "_patterns = [re.compile('x')]\n"
        "_names: list[str] = ['a']\n"
        "_lock = threading.Lock()\n"
        "functions = FunctionRegistry()\n"
        "@dataclass\n"
        "class Options:\n"
        "    http: HttpTransport = field(default_factory=UrllibTransport)  # each one's own\n"
        "    hooks: list[Hook] = field(default_factory=lambda: [Hook()])\n"
    )
    assert _planted(source) == [
        "Service.default",
        "_by_name",
        "_default",
        "_hooks",
        "_pending",
        "_relays",
        "_sessions",
    ]
