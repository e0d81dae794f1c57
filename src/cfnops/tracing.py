"""OpenTelemetry traces (the ``cfnops[otel]`` extra): a span per run, per step or state,
per AWS call; one trace per run id, across crashes.

An entry point calls :func:`setup` once: with the extra installed and the standard
``OTEL_*`` variables (``OTEL_TRACES_EXPORTER=otlp|console``, ``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_SERVICE_NAME`` …), it installs the SDK's tracer provider and botocore's
instrumentation (a span per AWS call). Otherwise nothing is imported and :func:`span`
returns a shared no-op context: tracing costs one boolean test per run, step and state.

Every span of a run belongs to the trace whose id is derived from the run id (SHA-256),
under a root span id derived the same way: the run span written before a ``kill -9``
and the one written by the process that recovers the run are in one trace, side by
side, with the ``cfnops.run_id`` attribute. When the run ends, the process that ends it
exports that root span (:func:`run_root`: from the run's creation to its end, status
``ERROR`` when it failed), so every execution span has an exported parent. A step's
retry is an event on the failed attempt's span (``retry``, with the delay).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, ParamSpec, TypeVar

__all__ = ["carry", "enabled", "event", "run_root", "run_span", "setup", "span"]

_T = TypeVar("_T")
_P = ParamSpec("_P")

_NOOP: AbstractContextManager[None] = nullcontext()


def _tracer() -> Any:
    """OpenTelemetry's tracer when a real provider is installed, else ``None`` (cheaply:
    without the SDK configured, ``opentelemetry`` is not even imported)."""
    api = sys.modules.get("opentelemetry.trace")
    if api is None:
        return None
    provider = api.get_tracer_provider()
    if isinstance(provider, api.ProxyTracerProvider | api.NoOpTracerProvider):
        return None
    return provider.get_tracer("cfnops")


def enabled() -> bool:
    return _tracer() is not None


def resource_attributes(env: Mapping[str, str]) -> dict[str, str]:
    """cfnops's defaults under what the standard variables say: ``OTEL_RESOURCE_ATTRIBUTES``
    (``key=value,…``, values percent-decoded) overrides them and ``OTEL_SERVICE_NAME``
    overrides ``service.name`` there (OpenTelemetry's SDK environment variables,
    https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/)."""
    from urllib.parse import unquote

    from cfnops._version import __version__

    found = {"service.name": "cfnops", "service.version": __version__}
    for item in env.get("OTEL_RESOURCE_ATTRIBUTES", "").split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            found[key.strip()] = unquote(value.strip())
    if env.get("OTEL_SERVICE_NAME", "").strip():
        found["service.name"] = env["OTEL_SERVICE_NAME"].strip()
    return found


def setup(environ: Mapping[str, str] | None = None) -> bool:
    """Configure tracing from ``OTEL_*`` when the extra is installed; ``True`` when on."""
    env = os.environ if environ is None else environ
    exporter_name = env.get("OTEL_TRACES_EXPORTER", "")
    wanted = exporter_name not in ("", "none") or bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if not wanted or env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ModuleNotFoundError:
        return False
    provider = TracerProvider(resource=Resource.create(resource_attributes(env)))
    if exporter_name == "console":
        exporter: Any = ConsoleSpanExporter()
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    instrument_botocore()
    return True


def instrument_botocore() -> None:
    """A span per AWS call (opentelemetry-instrumentation-botocore)."""
    try:
        from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    except ModuleNotFoundError:
        return
    instrumentor = BotocoreInstrumentor()  # type: ignore[no-untyped-call]
    if not instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.instrument()


def _ids(run_id: str) -> tuple[int, int]:
    digest = hashlib.sha256(run_id.encode()).digest()
    return int.from_bytes(digest[:16], "big") or 1, int.from_bytes(digest[16:24], "big") or 1


@contextmanager
def _run_span(tracer: Any, workflow: str, run_id: str) -> Iterator[None]:
    from opentelemetry import trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    trace_id, root_id = _ids(run_id)
    root = SpanContext(trace_id, root_id, is_remote=True, trace_flags=TraceFlags(1))
    parent = trace.set_span_in_context(NonRecordingSpan(root))
    attributes = {"cfnops.run_id": run_id, "cfnops.workflow": workflow}
    with tracer.start_as_current_span(f"run {workflow}", context=parent, attributes=attributes):
        yield


def run_span(workflow: str, run_id: str) -> AbstractContextManager[None]:
    """The span of one execution of a run (a recovered run gets another, same trace)."""
    tracer = _tracer()
    return _NOOP if tracer is None else _run_span(tracer, workflow, run_id)


def run_root(workflow: str, run_id: str, created_ms: int | None, error: str | None) -> None:
    """Export the run's root span — the parent of each execution's ``run`` span, whose id
    is derived from the run id — when the run ends: from ``created_ms`` to now, status
    ``ERROR`` with ``error`` when the run failed. Needs the SDK's tracer (its id
    generator, replaced here for this one span); nothing otherwise."""
    tracer = _tracer()
    if tracer is None or not hasattr(tracer, "id_generator"):
        return
    import copy
    import time

    from opentelemetry.context import Context
    from opentelemetry.sdk.trace.id_generator import IdGenerator
    from opentelemetry.trace import Status, StatusCode

    trace_id, root_id = _ids(run_id)

    class _RootIds(IdGenerator):
        def generate_trace_id(self) -> int:
            return trace_id

        def generate_span_id(self) -> int:
            return root_id

    root_tracer = copy.copy(tracer)  # the provider's processors, resource and limits
    root_tracer.id_generator = _RootIds()
    now = time.time_ns()
    start = min(now, created_ms * 1_000_000) if created_ms else now
    attributes = {"cfnops.run_id": run_id, "cfnops.workflow": workflow, "cfnops.root": True}
    span = root_tracer.start_span(
        f"run {workflow} root", context=Context(), start_time=start, attributes=attributes
    )
    if error:
        span.set_status(Status(StatusCode.ERROR, error[:256]))
    span.end(end_time=now)


@contextmanager
def _span(tracer: Any, name: str, attributes: Mapping[str, Any]) -> Iterator[None]:
    with tracer.start_as_current_span(name, attributes=dict(attributes)):
        yield


def span(name: str, **attributes: Any) -> AbstractContextManager[None]:
    """A child span of the current one (a step attempt, an ASL state)."""
    tracer = _tracer()
    return _NOOP if tracer is None else _span(tracer, name, attributes)


def carry(fn: Callable[_P, _T]) -> Callable[_P, _T]:
    """``fn`` under the caller's current span, to run on another thread (a thread starts
    with no span: a Task's AWS call or a branch's states would start traces of their own).
    ``fn`` itself when tracing is off."""
    if _tracer() is None:
        return fn
    from opentelemetry import context

    captured = context.get_current()

    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        token = context.attach(captured)
        try:
            return fn(*args, **kwargs)
        finally:
            context.detach(token)

    return run


def fail(error: str, message: str = "") -> None:
    """Mark the current span failed (status ERROR): a step attempt that raised, retried
    or not (OpenTelemetry's span status: https://opentelemetry.io/docs/specs/otel/trace/api/#set-status)."""
    if _tracer() is None:
        return
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    description = f"{error}: {message}" if message else error
    trace.get_current_span().set_status(Status(StatusCode.ERROR, description[:256]))


def event(name: str, **attributes: Any) -> None:
    """An event on the current span (a retry)."""
    api = sys.modules.get("opentelemetry.trace")
    if api is not None:
        api.get_current_span().add_event(name, attributes=attributes)
