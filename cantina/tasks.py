"""Tasks that belong to a table, the lobby or the store: not to whoever set them going.

A task starts in a copy of its maker's context (contextvars), and on an SSH host a
session's context names the account its work is charged to (`cantina.ssh.budget.OWNER`):
every callback of a task made there counts as that session's, and waits while that
session is over its share of the host's time. A table's dealer, started from its
creator's screen, stood still for everyone at the table whenever that one person was
over their share; the store's writer, woken by whoever set a table first, held every
table's record with them; and an answer from Redis held past the call's timeout read as
Redis out of reach for the whole host. So these tasks start from an empty context: their
work is no session's, and only the sessions' own work waits for their debts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, TypeVar

T = TypeVar("T")


def detached(
    work: Coroutine[Any, Any, T],
    *,
    name: str | None = None,
    done: Callable[[asyncio.Task[T]], object] | None = None,
) -> asyncio.Task[T]:
    """Run `work` as a task of its own, in an empty context (see the module's notes);
    `done` is called as it ends, in an empty context too (a session's in debt would
    put it off)."""
    task = asyncio.get_running_loop().create_task(work, name=name, context=Context())
    if done is not None:
        task.add_done_callback(done, context=Context())
    return task
