"""The one private asyncio name the host relies on, in one place.

`tests/test_asyncio_compat.py` checks it against a real event loop, so a Python that
changes it fails a test that names it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from typing import cast

READY = "_ready"
"""The attribute a CPython event loop (`BaseEventLoop`) keeps its ready callbacks in: a
deque of `asyncio.Handle`, run from the left, one turn of the loop at a time, each
`call_soon` appending one on the right."""


def ready_queue(loop: asyncio.AbstractEventLoop) -> deque[asyncio.Handle] | None:
    """The callbacks `loop` runs at its next turns (`BaseEventLoop._ready`), or None if it
    keeps them otherwise (another loop, another Python: keys then simply take their turn,
    and the test fails). The host puts a typing player's work ahead of the rest
    (budget.WorkMeter): asyncio has no public way to order what is ready."""
    ready = getattr(loop, READY, None)
    return cast("deque[asyncio.Handle]", ready) if isinstance(ready, deque) else None


def put_ahead(
    ready: deque[asyncio.Handle], handle: asyncio.Handle, ahead: weakref.WeakSet[asyncio.Handle]
) -> None:
    """Move `handle`, just scheduled, from the end of `ready` to just behind the handles
    in `ahead` (those put ahead before it, which keep their order), and add it to them.

    Only the loop's own thread (this one) takes handles out of `ready`, but any thread
    may append one at any moment (`call_soon_threadsafe`: an AI's move worked out off the
    loop). So the handle is found from the right and taken out by its place counted from
    the left, which such appends do not change; popping the last one took a thread's
    handle that came in between (lost), and left this one to run twice."""
    place = len(ready) - 1
    while place >= 0 and ready[place] is not handle:
        place -= 1
    if place < 0:
        return  # not there (nothing else takes it out): left where the loop put it
    del ready[place]
    front = 0
    while front < len(ready) and ready[front] in ahead:
        front += 1
    ready.insert(front, handle)
    ahead.add(handle)
