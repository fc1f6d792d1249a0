"""What cantina/ssh/asyncssh_compat.py takes from asyncssh's internals is still there, on
a real asyncssh connection on 127.0.0.1 (and no other module of the host reaches in)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import asyncssh

from cantina.ssh import asyncssh_compat
from cantina.ssh.asyncssh_compat import READING, TRANSPORT, connection_transport

ROOT = Path(__file__).resolve().parent.parent


class Server(asyncssh.SSHServer):
    def __init__(self, seen: list[asyncssh.SSHServerConnection]) -> None:
        self.seen = seen

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.seen.append(conn)

    def begin_auth(self, username: str) -> bool:
        return False  # anyone in


async def test_an_asyncssh_connection_still_keeps_its_transport_where_the_host_reads_it():
    """The host pauses a connection's reading through `SSHConnection._transport`
    (budget.ReadPacer): on a server connection of the installed asyncssh, that is the
    transport reading its socket, and pausing it stops the reading."""
    seen: list[asyncssh.SSHServerConnection] = []
    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.create_server(
        lambda: Server(seen),
        "127.0.0.1",
        0,
        server_host_keys=[key],
        process_factory=lambda process: process.exit(0),
    )
    port = server.sockets[0].getsockname()[1]
    try:
        async with asyncssh.connect(
            "127.0.0.1", port, username="x", known_hosts=None, agent_path=None
        ) as client:
            (conn,) = seen
            assert TRANSPORT in vars(conn), f"asyncssh no longer keeps {TRANSPORT}"
            transport = connection_transport(conn)
            assert transport is not None, f"{TRANSPORT} lacks {READING}"
            assert transport.get_extra_info("peername") == conn.get_extra_info("peername")
            assert transport.is_reading()
            transport.pause_reading()
            assert not transport.is_reading()
            transport.resume_reading()
            result = await asyncio.wait_for(client.run("true"), 10)  # the link still works
            assert result.exit_status == 0
    finally:
        server.close()
        await server.wait_closed()


def test_without_the_name_the_host_gets_no_transport():
    class Bare:
        pass

    assert connection_transport(Bare()) is None


def test_only_the_compat_module_uses_asyncssh_private_names():
    """No other module of the host reads a private attribute of an asyncssh object by name
    (`getattr(x, "_name")`): put it in asyncssh_compat.py with a case above."""
    compat = Path(asyncssh_compat.__file__).resolve()
    leaks = []
    for path in sorted((ROOT / "cantina" / "ssh").glob("*.py")):
        if path.resolve() == compat:
            continue
        if re.search(r"""getattr\([^,]+,\s*["']_[a-z]""", path.read_text()):
            leaks.append(path.name)
    assert leaks == []
