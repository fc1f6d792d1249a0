"""What the host sends down a channel, packet by packet: a frame as one SSH packet, and
ciphers that are cheap for the host to encrypt with (a host's work is mostly its frames:
benchmarks/bench_frames.py)."""

from __future__ import annotations

import asyncio
import re

import asyncssh
import pytest
import test_ssh
from ssh_clients import OpenSSH, plain
from test_ssh import Keys, client_key, needs_openssh, start_host

from cantina.ssh.server import CIPHERS, MACS

keys = test_ssh.keys  # the fixture, as the other SSH test files share it

SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
ASKED = b"\x1b[?2026$p"
"""The host's question: does the terminal do synchronised output?"""


class SyncTerminal(asyncssh.SSHClientSession):
    """A terminal that does synchronised output, as most of today's do: it says so when
    asked, and keeps each packet's data apart."""

    def __init__(self) -> None:
        self.packets: list[bytes] = []
        self.changed = asyncio.Event()
        self.chan: asyncssh.SSHClientChannel | None = None

    def connection_made(self, chan: asyncssh.SSHClientChannel) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: object) -> None:
        if datatype is not None:
            return
        self.packets.append(data)
        if ASKED in data and self.chan is not None:
            self.chan.write(b"\x1b[?2026;2$y")  # known, and off for now
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.changed.set()

    def since(self, mark: int) -> bytes:
        return b"".join(self.packets[mark:])

    async def until(self, check, timeout: float = 15.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not check():
            left = deadline - loop.time()
            assert left > 0, f"timed out; the screen showed:\n{plain(self.since(0))[-800:]}"
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), left)


async def sync_terminal(
    port: int, keys: Keys, **options: object
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, SyncTerminal]:
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="player",
        client_keys=[client_key(keys)],
        known_hosts=None,
        agent_path=None,
        connect_timeout=10,
        **options,
    )
    chan, terminal = await conn.create_session(
        SyncTerminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    return conn, chan, terminal


async def test_a_frame_goes_to_a_terminal_with_synchronised_output_as_one_packet(keys):
    """Textual writes such a frame in three parts (its start, the frame, its end); each
    sent alone was a packet of its own, costing the host three times the work."""
    host = await start_host(keys)
    try:
        conn, chan, terminal = await sync_terminal(host.port, keys)
        await terminal.until(lambda: b"shared tables" in plain(terminal.since(0)).encode())
        await terminal.until(lambda: SYNC_START in terminal.since(0))  # the reply was taken
        mark = len(terminal.packets)
        chan.write(b"j")  # to the join-code field, then a code typed and rubbed out
        for key in (b"a", b"b", b"\x7f", b"\x7f"):
            await asyncio.sleep(0.15)
            chan.write(key)
        await terminal.until(lambda: terminal.since(mark).count(SYNC_START) >= 5)
        await asyncio.sleep(0.3)
        frames = [packet for packet in terminal.packets[mark:] if SYNC_START in packet]
        for packet in terminal.packets[mark:]:
            assert packet.count(SYNC_START) == packet.count(SYNC_END), packet[:120]
        for frame in frames:
            assert frame.index(SYNC_START) < frame.index(SYNC_END) and len(frame) > 40
        conn.close()
    finally:
        await asyncio.wait_for(host.close(), 10)


async def test_a_write_outside_a_frame_is_sent_and_quitting_leaves_the_screen_clean(keys):
    """A bell is no frame, and nothing flushes after it: it goes as it is written.
    Quitting restores the terminal (the alternate screen left, the cursor shown) before
    the channel closes."""
    host = await start_host(keys)
    try:
        conn, chan, terminal = await sync_terminal(host.port, keys)
        await terminal.until(lambda: b"shared tables" in plain(terminal.since(0)).encode())
        (session,) = host.sessions
        assert session.app is not None
        mark = len(terminal.packets)
        session.app.bell()
        await terminal.until(lambda: b"\x07" in terminal.since(mark))
        chan.write(b"q")
        await asyncio.wait_for(chan.wait_closed(), 15)
        assert terminal.since(0).endswith(b"\x1b[?1049l\x1b[?25h\x1b[?1004l")
        conn.close()
    finally:
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_openssh_gets_an_aes_cipher_and_an_hmac(keys):
    """OpenSSH asks for chacha20-poly1305 first, then AES-CTR with umac: the host offers
    neither of the dearer two, so it is AES (9.2's next choice: CTR with HMAC-SHA2)."""
    assert not any("chacha" in name for name in CIPHERS)
    assert not any("umac" in name for name in MACS)
    host = await start_host(keys)
    try:
        ssh = await OpenSSH.start(keys.partner, host.port, "-tt", "-v")
        try:
            await ssh.expect("shared tables")
            ssh.send("q")
            assert await ssh.finish() == 0
        finally:
            ssh.kill()
        said = ssh.errors.decode(errors="replace")
        chosen = re.search(r"server->client cipher: (\S+) MAC: (\S+)", said)
        assert chosen, said[-800:]
        cipher, mac = chosen.groups()
        assert cipher in CIPHERS and (mac == "<implicit>" or mac in MACS), chosen.group(0)
        assert mac != "<implicit>" or "gcm" in cipher  # GCM has its own MAC

        only = await OpenSSH.start(
            keys.partner, host.port, "-tt", "-o", "Ciphers=chacha20-poly1305@openssh.com"
        )
        try:
            assert await only.finish() == 255
        finally:
            only.kill()
        assert "no matching cipher found" in only.errors.decode(errors="replace")
    finally:
        await asyncio.wait_for(host.close(), 10)


@pytest.mark.parametrize("cipher", CIPHERS)
async def test_every_offered_cipher_serves_a_session(keys, cipher):
    """Each cipher offered works end to end (asyncssh would refuse a name it lacks)."""
    host = await start_host(keys)
    try:
        conn, _, terminal = await sync_terminal(host.port, keys, encryption_algs=[cipher])
        await terminal.until(lambda: b"shared tables" in plain(terminal.since(0)).encode())
        assert conn.get_extra_info("send_cipher") == cipher
        conn.close()
    finally:
        await asyncio.wait_for(host.close(), 10)
