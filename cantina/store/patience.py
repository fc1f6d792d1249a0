"""A time limit on a call to Redis that does not count the host's own stalls against Redis.

A host's whole heap, collected at once, held its loop for 1.9 s (96 sessions playing:
benchmarks/bench_ssh.py --playing with BENCH_STEPS), and other long steps hold it too. A
call to Redis made just before such a stall finds its answer waiting on the socket when
the loop comes back, but its time limit (2 s) has passed meanwhile: the limit's timer and
the socket's answer are ready at once, and asyncio runs the timer first. Under
`asyncio.timeout` the call failed (tests/test_redis_line.py holds a loop up so), the host
told every player Redis was out of reach, and every table's decisions waited for it.

A loop that is busy all along holds a call up as well, a turn at a time. While 96
sessions arrived and set their tables on one host, calls of the lobby's (a table read
again, the beat's codes) timed out after 2.1 to 2.5 s, and the host called Redis gone
for a moment: the loop's thread had run for 99% of that time (2.148 s of 2.163, a
diagnostic run of benchmarks/bench_ssh.py --playing --pair 96,168), no turn of it longer
than `LATE`, and Redis's own latency monitor saw no command of 50 ms or more.

So a call is cut short only when Redis has had its time: when the limit comes due late
(the loop was held up), or the loop's thread was at work for `BUSY` of the limit or
more (the host, not Redis, was slow), the call is given the whole limit once more from
then; when it comes due on time on a loop with time to spare, the call still has one
turn of the loop to take an answer already read (the expiry is `asyncio.Timeout`'s own,
put off to the next turn). A Redis that does not answer is still found out: after the
limit, or twice the limit if the host was held up or busy just then.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

LATE = 0.2
"""Seconds a limit may come due late before the loop is taken to have been held up: more
than a crowded loop's turn, less than any collection of a whole heap."""
BUSY = 0.75
"""The part of a limit's time the loop's thread must have been at work (its processor
time, `time.thread_time`) for the host to count as busy: a host process of 96 playing
sessions used 0.9 of a core, its loop's thread all of it while they arrived."""


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
        worked = time.thread_time()

        def due(when: float) -> None:
            nonlocal timer, extended
            now = loop.time()
            busy = time.thread_time() - worked >= BUSY * seconds
            if (now - when > LATE or busy) and not extended:
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
