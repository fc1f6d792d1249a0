"""Every private asyncssh name the host relies on, in one place.

asyncssh is pinned (pyproject.toml) and the host uses its public API wherever it can;
what is left is here, each piece saying what it reaches into and why nothing public does
the job. `tests/test_asyncssh_compat.py` checks each against a real asyncssh connection on
127.0.0.1, so an upgrade that renames one fails a test that names it.
"""

from __future__ import annotations

import asyncio
import socket
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


ABORT = "abort"
"""What asyncssh's `SSHConnection.disconnect` ends with: it sends the disconnect
message, then calls its transport's `abort` (`_force_close`), read as the transport's
attribute when it is called."""
LINGER = 2.0
"""Seconds a refused connection is read (and what it sends thrown away) after its
refusal was sent, unless the client closes first."""
LINGER_MOST = 64
"""Refused connections lingering at once, at most; past that, one is cut at once."""


class _Discard(asyncio.Protocol):
    """Takes a refused connection's bytes from asyncssh and throws them away."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.fd: int = transport.get_extra_info("socket").fileno()
        _lingering_fds.add(self.fd)

    def data_received(self, data: bytes) -> None:
        pass

    def eof_received(self) -> bool:
        return False  # the client has read its line and closed: close ours

    def connection_lost(self, exc: Exception | None) -> None:
        global _lingering
        _lingering -= 1
        _lingering_fds.discard(self.fd)


_lingering = 0
_lingering_fds: set[int] = set()


def lingering(sock: socket.socket) -> bool:
    """Whether `sock` is a refused connection's, still read by `disconnect_lingering`:
    whoever handed it to asyncssh must leave it to its transport, which closes it after.
    Closed under it, it is reset, as if never lingered (a worker of `--workers` did)."""
    return sock.fileno() in _lingering_fds


def disconnect_lingering(conn: Any, code: int, reason: str) -> None:
    """`conn.disconnect(code, reason)`, but the socket is half-closed after the message,
    not cut: what the client sends meanwhile is read and thrown away for up to `LINGER`
    seconds, or until it closes. Cut at once, a socket holding bytes the host never read
    is reset, and a client that writes its key exchange before reading the host's
    reply (OpenSSH) gets "Broken pipe" instead of the reason (a connection handed to a
    worker of `--workers` has had time to send it). asyncssh's `disconnect` ends with the
    transport's `abort` (`ABORT`): that call, on this transport alone, lingers instead."""
    global _lingering
    transport = cast("asyncio.Transport | None", getattr(conn, TRANSPORT, None))
    if transport is None or _lingering >= LINGER_MOST or not transport.can_write_eof():
        conn.disconnect(code, reason)
        return
    abort = transport.abort
    loop = asyncio.get_running_loop()

    def linger() -> None:
        global _lingering
        if transport.is_closing():
            return
        _lingering += 1
        transport.set_protocol(_Discard(transport))
        if not transport.is_reading():
            transport.resume_reading()
        transport.write_eof()
        loop.call_later(LINGER, abort)

    setattr(transport, ABORT, linger)
    conn.disconnect(code, reason)
