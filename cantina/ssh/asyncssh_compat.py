"""Every private asyncssh name the host relies on, in one place.

asyncssh is pinned (pyproject.toml) and the host uses its public API wherever it can;
what is left is here, each piece saying what it reaches into and why nothing public does
the job. `tests/test_asyncssh_compat.py` checks each against a real asyncssh connection on
127.0.0.1, so an upgrade that renames one fails a test that names it.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

TRANSPORT = "_transport"
"""The attribute an asyncssh connection (`SSHConnection`) keeps its TCP transport in."""
READING = ("pause_reading", "resume_reading")
"""What the host does with that transport (asyncio's `ReadTransport` methods)."""


def connection_transport(conn: Any) -> asyncio.ReadTransport | None:
    """The TCP transport under an asyncssh connection (`SSHConnection._transport`), or None
    if it has none (closed, or asyncssh keeps it elsewhere now: the host then never
    pauses reading, and its test fails). The host pauses and resumes reading it while a
    connection's session is over its work budget and too many of its bytes wait
    (budget.ReadPacer): asyncssh offers no public way to stop reading a connection, and
    `get_extra_info` gives its socket, not the transport that reads it."""
    transport = getattr(conn, TRANSPORT, None)
    readable = all(callable(getattr(transport, name, None)) for name in READING)
    return cast("asyncio.ReadTransport", transport) if readable else None
