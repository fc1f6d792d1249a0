"""When a hosted app's frames are drawn: a timer that fell behind (a screen's update timer
after a pause) ticks on the next beat of its interval, not the one after."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import textwrap
import time

from textual import timer
from textual.app import App

from cantina.ssh.app import TEXTUAL_TIMER_RUN, _run_on_the_beat, timers_on_the_beat

BEAT = 0.1


async def ticks_after_a_late_tick() -> float:
    """Seconds from a late tick (a paused timer resumed past its beat, as a screen's
    update timer is when a change comes after a pause) to the tick after it."""
    ticks: list[float] = []
    app: App[None] = App()
    async with app.run_test():
        beat = app.set_interval(BEAT, lambda: ticks.append(time.monotonic()), pause=True)
        beat.resume()  # its beats count from here: 0.1, 0.2, 0.3, 0.4, 0.5 ...
        await asyncio.sleep(1.5 * BEAT)  # one tick, at 0.1
        beat.pause()
        await asyncio.sleep(2 * BEAT)  # beat 0.2 passes while paused
        beat.resume()  # at 0.35: ticks at once, late
        deadline = time.monotonic() + 10 * BEAT
        while len(ticks) < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        beat.stop()
    assert len(ticks) == 3, ticks
    return ticks[2] - ticks[1]


async def test_a_timer_behind_its_beat_ticks_on_the_next_beat() -> None:
    """Resumed at 0.35, it ticks at once and next at 0.4 (Textual's own waited for 0.5:
    a key pressed just after a frame waited up to two frame periods for its own)."""
    timers_on_the_beat()
    assert timer.Timer._run is _run_on_the_beat
    assert await ticks_after_a_late_tick() < BEAT


async def test_textuals_own_timer_skips_a_beat() -> None:
    """What the replacement is for: with Textual's `_run`, the same timer waits past the
    next beat (if Textual fixes this, the replacement can go)."""
    timer.Timer._run = TEXTUAL_TIMER_RUN  # type: ignore[method-assign]
    try:
        assert await ticks_after_a_late_tick() > BEAT
    finally:
        timers_on_the_beat()


def test_the_replaced_textual_code_is_unchanged() -> None:
    """`_run_on_the_beat` is a copy of Textual 8.2.8's `Timer._run` with the count fixed:
    a new Textual must be read against it (then this digest updated)."""
    source = textwrap.dedent(inspect.getsource(TEXTUAL_TIMER_RUN))
    assert hashlib.sha256(source.encode()).hexdigest()[:16] == "92f4923ce3b2fa97", source
