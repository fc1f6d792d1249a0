"""A time limit on a call to Redis that does not count the host's own stalls against Redis.

A host's whole heap, collected at once, held its loop for 1.9 s (96 sessions playing:
benchmarks/bench_ssh.py --playing with BENCH_STEPS), and other long steps hold it too. A
call to Redis made just before such a stall finds its answer waiting on the socket when
the loop comes back, but its time limit (2 s) has passed meanwhile: the limit's timer and
the socket's answer are ready at once, and asyncio runs the timer first. Under
`asyncio.timeout` the call failed (tests/test_redis_line.py holds a loop up so), the host
told every player Redis was out of reach, and every table's decisions waited for it.

So a call is cut short only when Redis has had its time: when the limit comes due late
(the loop was held up), the call is given the whole limit once more from then; when it
comes due on time, the call still has one turn of the loop to take an answer already read
(the expiry is `asyncio.Timeout`'s own, put off to the next turn). A Redis that does not
answer is still found out: after the limit, or twice the limit if the loop was held up
just then.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

LATE = 0.2
"""Seconds a limit may come due late before the loop is taken to have been held up: more
than a crowded loop's turn, less than any collection of a whole heap."""


@contextlib.asynccontextmanager
async def patient_timeout(seconds: float | None) -> AsyncIterator[None]:
    """As `asyncio.timeout(seconds)` (TimeoutError at the end; None: no limit), but
    patient with the host's own stalls (see the module's notes)."""
    if seconds is None:
        yield
        return
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(None) as limit:
        extended = False
        timer: asyncio.TimerHandle | None = None

        def due(when: float) -> None:
            nonlocal timer, extended
            now = loop.time()
            if now - when > LATE and not extended:
                extended = True
                timer = loop.call_at(now + seconds, due, now + seconds)
            else:
                limit.reschedule(now)  # expires at the loop's next turn, not in this one

        first = loop.time() + seconds
        timer = loop.call_at(first, due, first)
        try:
            yield
        finally:
            if timer is not None:
                timer.cancel()
