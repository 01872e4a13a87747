"""Connection-pool gauges: connections in use, and threads waiting for one.

SQLAlchemy's pool events say when a connection is checked out and checked in, which
gives the in-use gauge. No event says that a thread has started to wait, so the pool
class itself is extended by one public method: :meth:`Pool.connect` (every checkout
goes through it) raises the waiting gauge while it runs. An app that runs without
metrics keeps SQLAlchemy's own pool class.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.pool import PoolProxiedConnection, QueuePool

from app.observability.metrics import PoolGauges

__all__ = ["observe_pool", "waiting_pool_class"]


def waiting_pool_class(gauges: PoolGauges) -> type[QueuePool]:
    """A :class:`QueuePool` whose ``connect`` counts its callers in ``gauges.waiting``.

    Pass it as ``poolclass`` to ``create_engine``; a pool recreated after ``dispose``
    is of the same class, so the gauge keeps counting.
    """
    waiting = gauges.waiting

    class WaitingCountedPool(QueuePool):
        """QueuePool counting the threads inside ``connect`` (see the module docstring)."""

        def connect(self) -> PoolProxiedConnection:
            waiting.inc()
            try:
                return super().connect()
            finally:
                waiting.dec()

    return WaitingCountedPool


def observe_pool(engine: Engine, gauges: PoolGauges) -> None:
    """Keep ``gauges.in_use`` equal to the connections ``engine`` has checked out."""
    in_use = gauges.in_use

    def checked_out(*_args: Any) -> None:
        in_use.inc()

    def checked_in(*_args: Any) -> None:
        in_use.dec()

    event.listen(engine, "checkout", checked_out)
    event.listen(engine, "checkin", checked_in)
