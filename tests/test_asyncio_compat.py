"""What cantina/ssh/asyncio_compat.py takes from asyncio's internals is still there, on a
real event loop: its ready callbacks, in a deque, each `call_soon` appending its handle."""

from __future__ import annotations

import asyncio

from cantina.ssh.asyncio_compat import ready_queue


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
