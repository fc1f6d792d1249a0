"""What cantina/ssh/asyncio_compat.py takes from asyncio's internals is still there, on a
real event loop: its ready callbacks, in a deque, each `call_soon` appending its handle."""

from __future__ import annotations

import asyncio
import weakref

from cantina.ssh.asyncio_compat import put_ahead, ready_queue


async def test_a_running_loop_still_keeps_its_ready_callbacks_where_the_host_orders_them():
    loop = asyncio.get_running_loop()
    ready = ready_queue(loop)
    assert ready is not None
    ran: list[str] = []
    first = loop.call_soon(ran.append, "first")
    assert ready[-1] is first  # appended on the right
    second = loop.call_soon(ran.append, "second")
    ready.remove(second)
    ready.appendleft(second)  # what the host does with a key's work
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert ran == ["second", "first"]  # run from the left


def test_a_loop_that_keeps_them_otherwise_gets_none():
    class Other:
        _ready = [1, 2]  # not a deque: not asyncio's

    assert ready_queue(Other()) is None  # type: ignore[arg-type]


async def test_put_ahead_moves_only_its_handle_whatever_came_in_behind_it():
    """A handle appended after the one to put ahead (as another thread's may be) stays in its
    place: only the one put ahead moves, behind those put ahead before it."""
    loop = asyncio.get_running_loop()
    ready = ready_queue(loop)
    assert ready is not None
    ran: list[str] = []
    ahead: weakref.WeakSet[asyncio.Handle] = weakref.WeakSet()
    waiting = loop.call_soon(ran.append, "waiting")
    key_1 = loop.call_soon(ran.append, "key 1")
    put_ahead(ready, key_1, ahead)
    key_2 = loop.call_soon(ran.append, "key 2")
    loop.call_soon(ran.append, "from a thread")  # as if another thread's, before key 2 moved
    put_ahead(ready, key_2, ahead)
    assert waiting not in ahead and key_1 in ahead and key_2 in ahead
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert ran == ["key 1", "key 2", "waiting", "from a thread"]
