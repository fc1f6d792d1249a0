"""The one private asyncio name the host relies on, in one place.

`tests/test_asyncio_compat.py` checks it against a real event loop, so a Python that
changes it fails a test that names it.
"""

from __future__ import annotations

import asyncio
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
