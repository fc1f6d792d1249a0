"""Every private redis-py name the store relies on, in one place.

redis-py is pinned (pyproject.toml) and the store uses its public API wherever it can;
what is left is here, each piece saying what it reaches into and why nothing public does
the job. `tests/test_redis_compat.py` checks each against a real redis-server on
127.0.0.1, so an upgrade that renames one fails a test that names it.
"""

from __future__ import annotations

from typing import Any

IDLE = "_available_connections"
"""The list an asyncio `ConnectionPool` keeps its idle connections in, and hands them out
from (`get_available_connection` pops the last)."""


def take_idle(pool: Any) -> list[Any]:
    """Take the pool's idle connections out of it, all at once, for the caller to close
    (none if the pool keeps them elsewhere now: nothing is closed, and its test fails).
    `ConnectionPool.disconnect(inuse_connections=False)`, the public way, closes each
    while it is still idle in the pool, awaiting the socket's close: a call made meanwhile
    took one and wrote to a closing socket ("Connection lost"), and the host said Redis
    was out of reach again just after it had come back."""
    idle = getattr(pool, IDLE, None)
    if not isinstance(idle, list):
        return []
    taken = list(idle)
    idle.clear()
    return taken
