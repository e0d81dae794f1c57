"""``DurableContext`` of the AWS Durable Execution SDK, executed on DBOS.

Workflows are written against the SDK (``context.step``, ``context.wait``,
``context.wait_for_condition``, ``map``, ``parallel``, ``run_in_child_context``,
``wait_for_callback``); this class gives those calls DBOS semantics:

- a step is one ``DBOS.run_step`` checkpoint. The step function runs inside it
  and its outcome is recorded as a JSON envelope (``{"v": result}`` or
  ``{"e": error, "retry": bool, "delay": s}``), so a replay reproduces the
  retry decision without re-consulting a strategy that may use jitter;
- a wait is ``DBOS.sleep``: the wake-up time is recorded on first execution,
  so a run recovered after a crash wakes at the original deadline;
- the pause after a failed attempt or an unfinished poll is not a checkpoint of
  its own: the wake-up time (``"at"``, epoch seconds) is part of the attempt's or
  poll's envelope, as the SDK's RETRY checkpoint carries the next attempt's
  delay. A replay sleeps until that time, so a recovered run keeps the deadline,
  and a poll costs one checkpoint instead of two;
- a callback is ``DBOS.recv`` on a topic named after the callback id, answered
  by ``Engine.send_callback`` (``cfnops approve`` uses it).

Branches of ``map``/``parallel`` run one after another inside the run, in
input order, so replay is deterministic; their completion rules follow the
SDK's ``CompletionConfig``.
"""

from __future__ import annotations

import functools
import json
import logging
import time
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from aws_durable_execution_sdk_python.concurrency.models import (
    BatchItem,
    BatchResult,
    CompletionReason,
)
from aws_durable_execution_sdk_python.config import (
    BatchItemStatus,
    CompletionConfig,
    Duration,
    MapConfig,
    ParallelConfig,
    StepConfig,
    WaitForCallbackConfig,
)
from aws_durable_execution_sdk_python.exceptions import (
    CallbackExternalError,
    CallbackTimeoutError,
    ChildContextError,
    StepError,
    ValidationError,
)
from aws_durable_execution_sdk_python.lambda_service import ErrorObject
from aws_durable_execution_sdk_python.retries import RetryPresets
from aws_durable_execution_sdk_python.types import (
    StepContext,
    WaitForCallbackContext,
    WaitForConditionCheckContext,
)
from aws_durable_execution_sdk_python.waits import WaitForConditionConfig
from dbos import DBOS

from cfnops import logcontext, tracing
from cfnops.durable._inputs import check_json

if TYPE_CHECKING:
    from cfnops.runtime import Runtime
    from cfnops.telemetry import Metrics

_log = logging.getLogger("cfnops.workflow")


def _default_strategy() -> Callable[[Exception, int], Any]:
    """The SDK's default retry strategy (built only when an attempt fails)."""
    return RetryPresets.default()


def _step_name(name: str | None, func: Callable[..., Any]) -> str:
    if name:
        return name
    return str(getattr(func, "_original_name", None) or getattr(func, "__name__", "step"))


def _error_fields(exc: BaseException) -> dict[str, Any]:
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "trace": traceback.format_exception_only(type(exc), exc)[-1:],
    }


class DbosDurableContext:
    """The SDK's ``DurableContext`` surface, executed on DBOS (one per run)."""

    def __init__(self, run_id: str, *, prefix: str = "", runtime: Runtime | None = None) -> None:
        self.run_id = run_id
        # What the engine hands every workflow: settings, clients, database, notifiers.
        self.runtime = runtime
        self._prefix = prefix
        self.logger: logging.LoggerAdapter[logging.Logger] = logging.LoggerAdapter(
            _log, {"run_id": run_id}
        )

    # -- helpers ---------------------------------------------------------------

    def _qualify(self, name: str) -> str:
        return f"{self._prefix}{name}"

    def _child(self, name: str) -> DbosDurableContext:
        return DbosDurableContext(
            self.run_id, prefix=f"{self._prefix}{name}/", runtime=self.runtime
        )

    def set_logger(self, new_logger: Any) -> None:
        self.logger = new_logger

    # -- step ------------------------------------------------------------------

    def step(
        self,
        func: Callable[[StepContext], Any],
        name: str | None = None,
        config: StepConfig | None = None,
    ) -> Any:
        """Run ``func`` once, checkpoint its JSON result, retry per ``config``.

        The hot path of every workflow: per attempt it adds to DBOS's own step (one
        checkpoint) only the step's log field, the attempt's span when tracing is on,
        its duration when the process serves metrics, and the JSON check of the result.
        The retry strategy is consulted (and the SDK's default built) only on failure.
        """
        base = self._qualify(_step_name(name, func))
        strategy = config.retry_strategy if config else None
        attempt = 1
        while True:
            label = base if attempt == 1 else f"{base} (attempt {attempt})"
            outcome: dict[str, Any] = DBOS.run_step(
                {"name": label, "retries_allowed": False},
                self._attempt,
                func,
                base,
                label,
                attempt,
                strategy,
            )
            if "v" in outcome:
                return outcome["v"]
            if not outcome["retry"]:
                _raise_recorded(outcome["e"])
            _sleep_until(float(outcome["at"]))
            attempt += 1

    def _attempt(
        self,
        func: Callable[[StepContext], Any],
        base: str,
        label: str,
        attempt: int,
        strategy: Callable[[Exception, int], Any] | None,
    ) -> dict[str, Any]:
        """One attempt of a step, inside its DBOS checkpoint: the outcome's envelope."""
        if tracing.enabled():
            with tracing.span(f"step {base}", **{"cfnops.attempt": attempt}):
                return self._attempt_once(func, label, attempt, strategy)
        return self._attempt_once(func, label, attempt, strategy)

    def _attempt_once(
        self,
        func: Callable[[StepContext], Any],
        label: str,
        attempt: int,
        strategy: Callable[[Exception, int], Any] | None,
    ) -> dict[str, Any]:
        metrics = self.runtime.metrics if self.runtime is not None else None
        started = time.monotonic() if metrics is not None else 0.0
        token = logcontext.bind(step=label)
        try:
            value = func(StepContext(logger=self.logger, attempt=attempt))
        except Exception as exc:
            decision = (strategy or _default_strategy())(exc, attempt)
            delay = max(1, decision.delay_seconds)
            if metrics is not None:
                self._observe(metrics, started, retried=bool(decision.should_retry))
            tracing.fail(type(exc).__name__, str(exc))
            if decision.should_retry:
                tracing.event("retry", delay_seconds=delay, error=type(exc).__name__)
            return {
                "e": _error_fields(exc),
                "retry": bool(decision.should_retry),
                "delay": delay,
                "at": time.time() + delay,
            }
        finally:
            logcontext.reset(token)
        if metrics is not None:
            self._observe(metrics, started)
        check_json(label, value)
        return {"v": value}

    @staticmethod
    def _observe(metrics: Metrics, started: float, *, retried: bool = False) -> None:
        """A step attempt's duration into the process's metrics."""
        workflow = logcontext.current().get("workflow", "?")
        metrics.observe_step(workflow, time.monotonic() - started, retried=retried)

    # -- waits -----------------------------------------------------------------

    def wait(self, duration: Duration, name: str | None = None) -> None:
        """Durable sleep: survives restarts and ends at the original deadline."""
        seconds = duration.to_seconds()
        if seconds < 1:
            raise ValidationError("duration must be at least 1 second")
        DBOS.sleep(float(seconds))

    def wait_for_condition(
        self,
        check: Callable[[Any, WaitForConditionCheckContext], Any],
        config: WaitForConditionConfig[Any],
        name: str | None = None,
    ) -> Any:
        """Poll ``check`` (each poll a step) until the strategy says stop."""
        if check is None:
            raise ValidationError("`check` is required for wait_for_condition")
        if not config:
            raise ValidationError("`config` is required for wait_for_condition")
        base = self._qualify(_step_name(name, check))
        state = json.loads(json.dumps(config.initial_state))
        attempt = 1
        while True:
            label = f"{base} #{attempt}"

            def poll(label: str = label, state: Any = state, attempt: int = attempt) -> Any:
                # One checkpoint per poll: the new state and, when the strategy
                # asks for another poll, when it is due.
                try:
                    # a poll is a step: its span (AWS calls under it) and its log field
                    with (
                        tracing.span(f"step {base}", **{"cfnops.poll": attempt}),
                        logcontext.bound(step=label),
                    ):
                        new = check(
                            state, WaitForConditionCheckContext(logger=self.logger, attempt=attempt)
                        )
                except Exception as exc:
                    return {"e": _error_fields(exc), "retry": False}
                check_json(label, new)
                decision = config.wait_strategy(new, attempt)
                if not decision.should_continue:
                    return {"v": new}
                return {"v": new, "at": time.time() + _poll_pause(decision.delay_seconds)}

            outcome: dict[str, Any] = DBOS.run_step({"name": label, "retries_allowed": False}, poll)
            if "e" in outcome:
                _raise_recorded(outcome["e"])
            state = outcome["v"]
            if "at" not in outcome:
                return state
            _sleep_until(float(outcome["at"]))
            attempt += 1

    def wait_for_callback(
        self,
        submitter: Callable[[str, WaitForCallbackContext], None],
        name: str | None = None,
        config: WaitForCallbackConfig | None = None,
    ) -> Any:
        """Run ``submitter(callback_id)`` as a step, then wait durably for the answer.

        The answer arrives through ``Engine.send_callback(callback_id, ...)``.
        """
        base = self._qualify(_step_name(name, submitter))
        callback_id = f"{self.run_id}:{base}"

        def submit(_: StepContext) -> None:
            submitter(callback_id, WaitForCallbackContext(logger=self.logger))

        self.step(submit, name=f"{_step_name(name, submitter)} submit")
        timeout = config.timeout_seconds if config and config.timeout_seconds else 86400 * 365
        message = DBOS.recv(topic=callback_id, timeout_seconds=float(timeout))
        if message is None:
            raise CallbackTimeoutError(f"callback {callback_id} timed out after {timeout} s")
        if isinstance(message, dict) and message.get("status") == "FAILED":
            raise CallbackExternalError(str(message.get("error", "callback failed")))
        return message.get("result") if isinstance(message, dict) else message

    # -- composition -----------------------------------------------------------

    def run_in_child_context(
        self,
        func: Callable[[Any], Any],
        name: str | None = None,
        config: Any = None,
    ) -> Any:
        """Run ``func`` with a child context whose step names are prefixed."""
        child = self._child(_step_name(name, func))
        try:
            return func(child)
        except (StepError, ChildContextError, CallbackTimeoutError, CallbackExternalError):
            raise
        except Exception as exc:
            raise ChildContextError(str(exc), error_type=type(exc).__name__) from exc

    def map(
        self,
        inputs: Sequence[Any],
        func: Callable[[Any, Any, int, Sequence[Any]], Any],
        name: str | None = None,
        config: MapConfig[Any] | None = None,
    ) -> BatchResult[Any]:
        base = _step_name(name, func)
        branches: list[tuple[str, Callable[[Any], Any]]] = [
            (f"{base}[{i}]", functools.partial(_map_branch, func, item, i, inputs))
            for i, item in enumerate(inputs)
        ]
        return self._batch(branches, config.completion_config if config else None)

    def parallel(
        self,
        functions: Sequence[Callable[[Any], Any]],
        name: str | None = None,
        config: ParallelConfig | None = None,
    ) -> BatchResult[Any]:
        base = name or "parallel"
        branches = [
            (f"{base}[{getattr(fn, 'name', None) or i}]", fn) for i, fn in enumerate(functions)
        ]
        return self._batch(branches, config.completion_config if config else None)

    def _batch(
        self,
        branches: list[tuple[str, Callable[[Any], Any]]],
        completion: CompletionConfig | None,
    ) -> BatchResult[Any]:
        # The SDK's default for map and parallel: every item must succeed.
        completion = completion or CompletionConfig(
            min_successful=None, tolerated_failure_count=0, tolerated_failure_percentage=0
        )
        if completion.should_complete is not None:
            raise ValidationError("custom should_complete predicates are not supported by cfnops")
        total = len(branches)
        items: list[BatchItem[Any]] = []
        succeeded = failed = 0
        reason = CompletionReason.ALL_COMPLETED
        for index, (label, fn) in enumerate(branches):
            try:
                result = self.run_in_child_context(fn, name=label)
                items.append(BatchItem(index, BatchItemStatus.SUCCEEDED, result))
                succeeded += 1
            except Exception as exc:
                items.append(
                    BatchItem(index, BatchItemStatus.FAILED, None, ErrorObject.from_exception(exc))
                )
                failed += 1
            if completion.min_successful is not None and succeeded >= completion.min_successful:
                reason = CompletionReason.MIN_SUCCESSFUL_REACHED
                break
            if failed and _tolerance_exceeded(completion, failed, total):
                reason = CompletionReason.FAILURE_TOLERANCE_EXCEEDED
                break
        return BatchResult(items, reason)


def _raise_recorded(err: dict[str, Any]) -> NoReturn:
    """Raise a checkpointed failure (see :func:`_error_fields`) as the SDK's StepError."""
    raise StepError(err["message"], error_type=err["type"], stack_trace=err["trace"])


def _poll_pause(delay: float) -> float:
    """Seconds until the next poll: as the SDK, at least 1 s, except that a
    positive fraction below 1 s is kept (sub-second polls of the local sandbox;
    the SDK's ``Duration`` holds whole seconds unless built with a fraction)."""
    return float(delay) if 0 < delay < 1 else float(max(1, delay))


def _sleep_until(deadline: float) -> None:
    """Sleep until ``deadline`` (epoch seconds, as recorded in a checkpoint)."""
    remaining = deadline - time.time()
    if remaining > 0:
        time.sleep(remaining)


def _map_branch(
    func: Callable[[Any, Any, int, Sequence[Any]], Any],
    item: Any,
    index: int,
    items: Sequence[Any],
    ctx: Any,
) -> Any:
    return func(ctx, item, index, items)


def _tolerance_exceeded(completion: CompletionConfig, failed: int, total: int) -> bool:
    count = completion.tolerated_failure_count
    pct = completion.tolerated_failure_percentage
    if count is None and pct is None:
        return True  # the SDK's fail-fast default
    if count is not None and failed > count:
        return True
    return pct is not None and total > 0 and failed * 100.0 / total > pct
