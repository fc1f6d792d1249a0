"""Waiting in a test for what the loop will do: one poll and one failure message for all.

A host, a dealer or a store answers on the event loop, at a pace that varies with the
machine's load, so tests wait for the state they check, never for a fixed time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def until(
    check: Callable[[], object], what: str = "it", *, timeout: float = 20.0, every: float = 0.01
) -> None:
    """Let the loop run until `check()` is true; fail, naming `what`, after `timeout` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(every)


async def until_drawn(pilot: Any, ready: Callable[[], object], *, limit: int = 600) -> None:
    """Let the app run, a Pilot pause at a time, until `ready()` is true (at most `limit`
    pauses): the app's messages land between the checks."""
    for _ in range(limit):
        await pilot.pause()
        if ready():
            return
    raise AssertionError(f"still not there after {limit} pauses")
