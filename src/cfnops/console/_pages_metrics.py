"""``GET /metrics``: the Prometheus text format of the run store, behind the console's sign-in.

A scraper authenticates like any API client: ``Authorization: Bearer <token>`` with a
token of the console's token file (give Prometheus its own name there, see
docs/observability.md), or a browser's session. The metrics are read from the run
database at each scrape (:class:`cfnops.metrics.StoreCollector`); the registry is the
console application's own, built on the first scrape.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cfnops.console._web import console_of


async def metrics(request: Request) -> Response:
    state = request.app.state
    found = getattr(state, "metrics", None)
    if found is None:
        from cfnops.metrics import StoreCollector
        from cfnops.telemetry import Metrics

        found = Metrics()
        found.register(StoreCollector(console_of(request).database))
        state.metrics = found
    body, content_type = await anyio.to_thread.run_sync(found.exposition)
    return Response(
        body, media_type=content_type.split(";")[0], headers={"Content-Type": content_type}
    )


routes = [Route("/metrics", metrics)]
