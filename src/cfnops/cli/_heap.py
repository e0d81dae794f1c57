"""Process-wide heap tuning: an entry point's decision, never a library's."""

from __future__ import annotations

import gc
import threading

# How long a process runs before the cyclic collector is switched on (see below).
STARTUP_SECONDS = 1.0

_settled: list[bool] = []  # entry point state: whether this process froze its heap


def settle_heap() -> None:
    """Freeze what the process holds before its first scan, once.

    What exists then (imported modules, botocore's service models, the clients)
    lives as long as the process. Left in the collected generations, the full
    collection a scan's allocations trigger walks it all again: 130 ms of the
    1.9 s of CPU a 600-stack scan took (``benchmarks/drift_scan.py``). Once per
    process, so a worker's repeated scheduled scans never freeze their own
    leftovers; reference counting still frees frozen objects, only cyclic
    garbage present at that moment is kept. The CLI calls it; heal's fleet scan
    does not (an application embedding it keeps its own heap policy).
    """
    if not _settled:
        _settled.append(True)
        gc.freeze()


def collect_after_startup(seconds: float = STARTUP_SECONDS) -> threading.Timer:
    """Keep the cyclic garbage collector off for the first ``seconds`` of the process.

    Start-up is imports: hundreds of modules whose classes, functions and tables live
    as long as the process and are not garbage, yet every 700 allocations the
    collector walks the youngest of them and, every few rounds, all of them. Off
    during start-up, a ``job run`` of one Pass state took 8 % less wall time
    (0.684 -> 0.627 s median of 11 interleaved rounds, load ~1.3). A command that is
    still running after ``seconds`` (a worker, the console, a run that waits) gets
    normal collection from then on, switched on by a daemon timer; a command that
    ends sooner never needed it. Reference counting frees everything else as usual.
    Only the ``cfnops`` process entry point calls this (:mod:`cfnops.cli._entry`).
    """
    gc.disable()
    timer = threading.Timer(seconds, gc.enable)
    timer.name = "cfnops-gc-after-startup"
    timer.daemon = True
    timer.start()
    return timer
