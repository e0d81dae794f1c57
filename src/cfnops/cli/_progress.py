"""Progress of long waits as plain lines: one per phase change, on a non-terminal stderr.

A terminal gets Rich's live views; a pipe, a log file or CI gets nothing until the
end from those, so commands that wait (``heal``, ``runs start``, ``job run``,
``demo heal``, ``ami rotate --stack``) also report each phase change here.

With ``--log-format json`` each line is a JSON record instead (logger
``cfnops.progress``, level ``INFO``, whatever the ``-v`` level: these lines are the
command's output, not logs), carrying ``phase``, ``detail`` and the ``run_id`` /
``state`` / ``stack`` it is about as fields.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from cfnops.cli._json_stderr import JsonStderr, record_line

if TYPE_CHECKING:
    from cfnops.database import Database
    from cfnops.heal import FleetRow


class PhaseLines:
    """Writes ``HH:MM:SS WHAT: PHASE`` when WHAT's phase changes (and only then)."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self._stream, "isatty", None)
            enabled = not (callable(isatty) and isatty())
        self.enabled = enabled
        self._last: dict[str, str] = {}
        self._lock = threading.Lock()

    def note(
        self,
        what: str,
        phase: str,
        detail: str = "",
        *,
        run_id: str | None = None,
        state: str | None = None,
        stack: str | None = None,
    ) -> None:
        """Report ``phase`` of ``what`` unless it is the phase last reported for it
        (``run_id``, ``state`` and ``stack`` are fields of a JSON line)."""
        if not self.enabled:
            return
        with self._lock:
            if self._last.get(what) == phase:
                return
            self._last[what] = phase
            tail = f" — {detail}" if detail else ""
            stream = self._stream
            if isinstance(stream, JsonStderr):
                fields = {"run_id": run_id, "state": state, "stack": stack}
                stream = stream.inner
                stream.write(
                    record_line(
                        "INFO",
                        "cfnops.progress",
                        f"{what}: {phase}{tail}",
                        phase=phase,
                        detail=detail or None,
                        **fields,
                    )
                )
            else:
                now = datetime.now(UTC).strftime("%H:%M:%S")
                stream.write(f"{now} {what}: {phase}{tail}\n")
            stream.flush()

    def fleet(self, rows: Iterable[FleetRow]) -> None:
        """The heal fleet's rows: one line per stack whose status or phase changed."""
        for r in rows:
            what = f"heal {r.target.stack}" + (f" ({r.target.region})" if r.target.region else "")
            if r.run_id:
                what += f" run {r.run_id}"
            phase = r.status + (f" {r.phase}" if r.phase else "")
            self.note(what, phase, r.detail, run_id=r.run_id or None, stack=r.target.stack)


@contextmanager
def watch_run(
    database: Database,
    run_id: str,
    lines: PhaseLines | None = None,
    *,
    every: float = 0.5,
) -> Iterator[PhaseLines]:
    """While the body waits for ``run_id``: a line per status or step change of the run.

    Reads the run's record from the database (as ``cfnops runs show`` does) on a
    daemon thread; nothing when ``lines`` is disabled (stderr is a terminal).
    """
    lines = lines if lines is not None else PhaseLines()
    if not lines.enabled:
        yield lines
        return
    from cfnops.durable import RunStore

    stop = threading.Event()

    def poll() -> None:
        with RunStore(database) as store:
            done = False
            while not done:
                done = stop.wait(every)  # once more after the wait: the final status
                with suppress(Exception):  # the run may not be recorded yet
                    record = store.get(run_id)
                    steps = store.steps(run_id)
                    phase = record.status + (f" {steps[-1].name}" if steps else "")
                    lines.note(f"run {run_id}", phase, run_id=run_id)

    thread = threading.Thread(target=poll, name=f"progress-{run_id}", daemon=True)
    thread.start()
    try:
        yield lines
    finally:
        stop.set()
        thread.join(timeout=2 * every + 1)
