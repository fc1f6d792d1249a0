"""`patient_timeout`: a limit that does not count the loop's own stalls against the call
it guards, and still ends a call that gets no answer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from cantina.store.patience import BUSY, LATE, patient_timeout


async def test_a_call_without_an_answer_ends_at_its_limit():
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(TimeoutError):
        async with patient_timeout(0.1):
            await asyncio.sleep(5)
    assert 0.1 <= loop.time() - start < 0.1 + LATE


async def test_an_answer_that_came_while_the_loop_stood_still_is_taken():
    """The answer (here a timer at 0.1 s) comes while the loop stands still from 0.05 s to
    0.45 s, past the limit (0.15 s): asyncio's own timeout runs its expiry first."""
    loop = asyncio.get_running_loop()
    await taken_where_asyncio_fails(lambda: loop.call_later(0.05, time.sleep, 0.4), 0.15, 0.1)


async def taken_where_asyncio_fails(hold: Callable[[], object], limit: float, answer: float):
    """A call answered `answer` s after it began, past its `limit`, while the loop was
    held (`hold`, at once): taken under `patient_timeout`; a TimeoutError under
    asyncio's own timeout, as the store had it before."""
    hold()
    async with patient_timeout(limit):
        await asyncio.sleep(answer)
    await asyncio.sleep(0.2)  # the loop at rest again
    hold()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(limit):
            await asyncio.sleep(answer)


async def test_a_stall_gives_a_call_without_an_answer_one_more_limit_not_more():
    loop = asyncio.get_running_loop()
    start = loop.time()
    loop.call_later(0.05, time.sleep, 0.5)  # the limit, due at 0.15 s, given again at 0.55
    loop.call_later(0.6, time.sleep, 0.3)  # held up again past 0.7 s: no third limit
    with pytest.raises(TimeoutError):
        async with patient_timeout(0.15):
            await asyncio.sleep(5)
    assert 0.55 + 0.15 <= loop.time() - start < 0.9 + LATE


def work(seconds: float) -> None:
    """Keep the loop's thread at work for `seconds` of its processor time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def keep_busy(loop: asyncio.AbstractEventLoop, until: float) -> None:
    """Work the loop's thread in short turns (10 ms of processor time each, none of them
    late by `LATE`) until the loop's clock reads `until`: a crowd arriving."""
    work(0.01)
    if loop.time() < until:
        loop.call_soon(keep_busy, loop, until)


async def test_an_answer_that_came_while_the_loop_was_busy_all_along_is_taken():
    """The answer comes at 0.25 s, past the limit (0.2 s), while the loop was at work all
    the time in short turns: the host, not Redis, was slow. asyncio's timeout fails."""
    loop = asyncio.get_running_loop()
    await taken_where_asyncio_fails(lambda: keep_busy(loop, loop.time() + 0.35), 0.2, 0.25)


async def test_a_busy_loop_gives_a_call_without_an_answer_one_more_limit_not_more():
    loop = asyncio.get_running_loop()
    start = loop.time()
    keep_busy(loop, start + 1.0)
    with pytest.raises(TimeoutError):
        async with patient_timeout(0.15):
            await asyncio.sleep(5)
    assert 0.3 <= loop.time() - start < 0.3 + LATE
    while loop.time() < start + 1.0:  # the rest of the busy spell
        await asyncio.sleep(0.05)


async def test_a_loop_with_time_to_spare_gives_no_more_time():
    """Work in a part of the limit under `BUSY` (here 10 ms turns every 50 ms) is no
    reason for more time."""
    loop = asyncio.get_running_loop()
    start = loop.time()

    def some_work() -> None:
        work(0.01)
        if loop.time() < start + 0.5:
            loop.call_later(0.05, some_work)

    some_work()
    assert BUSY > 0.01 / 0.06  # its work: 10 ms in each 60
    with pytest.raises(TimeoutError):
        async with patient_timeout(0.2):
            await asyncio.sleep(5)
    assert 0.2 <= loop.time() - start < 0.2 + LATE
    while loop.time() < start + 0.5:
        await asyncio.sleep(0.05)


async def test_no_limit():
    async with patient_timeout(None):
        await asyncio.sleep(0.01)
