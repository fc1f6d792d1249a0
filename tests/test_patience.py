"""`patient_timeout`: a limit that does not count the loop's own stalls against the call
it guards, and still ends a call that gets no answer."""

from __future__ import annotations

import asyncio
import time

import pytest

from cantina.store.patience import LATE, patient_timeout


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
    loop.call_later(0.05, time.sleep, 0.4)
    async with patient_timeout(0.15):
        await asyncio.sleep(0.1)
    loop.call_later(0.05, time.sleep, 0.4)
    with pytest.raises(TimeoutError):  # what the store did before
        async with asyncio.timeout(0.15):
            await asyncio.sleep(0.1)


async def test_a_stall_gives_a_call_without_an_answer_one_more_limit_not_more():
    loop = asyncio.get_running_loop()
    start = loop.time()
    loop.call_later(0.05, time.sleep, 0.5)  # the limit, due at 0.15 s, given again at 0.55
    loop.call_later(0.6, time.sleep, 0.3)  # held up again past 0.7 s: no third limit
    with pytest.raises(TimeoutError):
        async with patient_timeout(0.15):
            await asyncio.sleep(5)
    assert 0.55 + 0.15 <= loop.time() - start < 0.9 + LATE


async def test_no_limit():
    async with patient_timeout(None):
        await asyncio.sleep(0.01)
