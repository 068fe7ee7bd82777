"""Futures: every operation runs on one worker thread; clients poll ``retrieve_future``."""

from __future__ import annotations

import itertools
import threading
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from .engine import UserError


class FutureStore:
    """Queues operations on a single worker thread and keeps their results by request id."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engine")
        self._futures: dict[str, Future] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def submit(self, operation: Callable[[], Any]) -> str:
        with self._lock:
            request_id = str(next(self._ids))
            self._futures[request_id] = self._executor.submit(operation)
        return request_id

    def get(self, request_id: str) -> Future | None:
        with self._lock:
            return self._futures.get(request_id)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def failure_body(error: BaseException) -> tuple[int, dict[str, Any]]:
    """HTTP status and body of a failed operation: 400/user for bad input, 500/server otherwise."""
    if isinstance(error, UserError):
        return 400, {"error": str(error), "category": "user", "detail": str(error)}
    detail = "".join(traceback.format_exception_only(type(error), error)).strip()
    return 500, {"error": detail, "category": "server", "detail": detail}
