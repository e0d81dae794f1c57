"""Prometheus metrics for workers and the console.

>>> from cfnops.telemetry import Metrics
>>> metrics = Metrics()              # the entry point owns it (runtime.metrics)
>>> # metrics.register(StoreCollector(runtime.database)); serve(metrics, 9464)

:class:`StoreCollector` reads the run store at scrape time, its counters from a tally
that only grows (so every worker and the console report the same totals, and neither
a restart nor pruning lowers one); :func:`serve` answers
``GET /metrics`` on a port of its own (``cfnops worker --metrics-port``).
"""

from cfnops.metrics._server import MetricsServer, serve
from cfnops.metrics._store import RUN_BUCKETS, StoreCollector

__all__ = ["RUN_BUCKETS", "MetricsServer", "StoreCollector", "serve"]
