"""Process-wide heap tuning: an entry point's decision, never a library's."""

from __future__ import annotations

import gc

_settled: list[bool] = []  # entry point state: whether this process froze its heap


def settle_heap() -> None:
    """Freeze what the process holds before its first scan, once.

    What exists then (imported modules, botocore's service models, the clients)
    lives as long as the process. Left in the collected generations, the full
    collection a scan's allocations trigger walks it all again: 130 ms of the
    1.9 s of CPU a 600-stack scan took (``benchmarks/drift_scan.py``). Once per
    process, so a worker's repeated scheduled scans never freeze their own
    leftovers; reference counting still frees frozen objects, only cyclic
    garbage present at that moment is kept. The CLI calls it; ``cfnops.heal.scan``
    does not (an application embedding it keeps its own heap policy).
    """
    if not _settled:
        _settled.append(True)
        gc.freeze()
