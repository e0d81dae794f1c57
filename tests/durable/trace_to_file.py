"""Imported by the tracing test's subprocesses (a workflow module): the SDK's in-memory
exporter, which also appends each finished span to $CFNOPS_TEST_SPANS as JSON, so the
test can read the spans of a process it killed with SIGKILL."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from cfnops.tracing import instrument_botocore


class FileBackedInMemoryExporter(InMemorySpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        with open(os.environ["CFNOPS_TEST_SPANS"], "a", encoding="utf-8") as fh:
            for span in spans:
                fh.write(json.dumps(_row(span)) + "\n")
            fh.flush()
        return result


def _row(span: ReadableSpan) -> dict[str, Any]:
    ctx = span.get_span_context()
    assert ctx is not None
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": f"{ctx.trace_id:032x}",
        "span_id": f"{ctx.span_id:016x}",
        "parent": f"{span.parent.span_id:016x}" if span.parent else None,
        "attributes": dict(span.attributes or {}),
        "events": [e.name for e in span.events],
        "status": span.status.status_code.name,
        "pid": os.getpid(),
    }


if os.environ.get("CFNOPS_TEST_SPANS"):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileBackedInMemoryExporter()))
    trace.set_tracer_provider(provider)
    instrument_botocore()
