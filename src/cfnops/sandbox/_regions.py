"""Region lists from one boto3 session while moto is imported.

Importing moto's EC2 models creates three new ``boto3.Session`` objects only to
call ``get_available_regions`` (one per partition); each new session parses
botocore's endpoint file and the EC2 service model again (~0.1 s apiece). While
the sandbox loads moto, ``boto3.Session`` is a subclass that answers region
lists from one shared session instead. The lists come from the same bundled
botocore data, so they are identical; ``boto3.Session`` is restored afterwards.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import boto3.session

__all__ = ["shared_region_lists"]

_lock = threading.Lock()


@functools.cache
def _shared() -> Any:
    return boto3.session.Session()


@functools.cache
def _regions(service: str, partition: str, allow_non_regional: bool) -> tuple[str, ...]:
    return tuple(_shared().get_available_regions(service, partition, allow_non_regional))


class _SharedRegionsSession(boto3.session.Session):  # type: ignore[misc]  # Any without stubs
    """A ``boto3.Session`` whose region lists come from one shared session."""

    def get_available_regions(
        self,
        service_name: str,
        partition_name: str = "aws",
        allow_non_regional: bool = False,
    ) -> list[str]:
        return list(_regions(service_name, partition_name, allow_non_regional))


@contextmanager
def shared_region_lists() -> Iterator[None]:
    """While inside, ``boto3.Session`` answers region lists from one shared session."""
    with _lock:
        original = boto3.Session
        boto3.Session = _SharedRegionsSession  # type: ignore[misc]  # swapped back below
        try:
            yield
        finally:
            boto3.Session = original  # type: ignore[misc]
