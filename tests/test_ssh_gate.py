"""Who gets in to `cantina serve`, for how long, and what the host's log says about it:
real clients (raw TCP sockets, asyncssh, OpenSSH) against a host on 127.0.0.1.

Idle sockets and half-done logins must never keep an honest player out; a logged-in
connection must hold a session; a dropped link is noticed; input the terminal parser
cannot read ends no session and logs no traceback; and each login, refusal and disconnect
is one line in the host's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import asyncssh
import pytest
import waiting
from ssh_clients import (
    HAVE_OPENSSH,
    OpenSSH,
    Terminal,
    make_key,
    run_client,
    ssh_options,
)
from textual import events

from cantina.cli import build_parser
from cantina.ssh.cli import host_options
from cantina.ssh.keys import fingerprint, load_or_create_host_key, read_authorized_keys
from cantina.ssh.ledger import Ledger
from cantina.ssh.limits import UNREADABLE, Limits, Startups, Strikes, early_drop
from cantina.ssh.serve import settings_line
from cantina.ssh.server import SILENT_MAKES_WAY, Host, HostOptions
from screens.textual_compat import UncachedXTermParser, UnreadableInput

until = partial(waiting.until, timeout=15.0)  # its limit here, as before

needs_openssh = pytest.mark.skipif(not HAVE_OPENSSH, reason="OpenSSH client not installed")


@dataclasses.dataclass
class Keys:
    player: Path
    host_key: Path
    authorized: Path


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Keys:
    folder = tmp_path_factory.mktemp("gate")
    player = make_key(folder / "player")
    authorized = folder / "authorized_keys"
    authorized.write_text(player.with_suffix(".pub").read_text())
    return Keys(player, folder / "host_key", authorized)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def host_log(caplog) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="cantina.ssh")
    return caplog


@contextlib.asynccontextmanager
async def running_host(keys: Keys, **limits: object):
    options = HostOptions(
        port=0,
        host_key=keys.host_key,
        authorized_keys=keys.authorized,
        limits=dataclasses.replace(Limits(), **limits),
        pace=0.05,
    )
    host = Host(options, read_authorized_keys(keys.authorized))
    await host.start(load_or_create_host_key(keys.host_key))
    try:
        yield host
    finally:
        await asyncio.wait_for(host.close(), 10)


class Client(asyncssh.SSHClient):
    """An asyncssh client that keeps why its connection ended."""

    def __init__(self) -> None:
        self.lost: asyncio.Future[Exception | None] = asyncio.get_event_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


async def log_in(
    port: int, keys: Keys, *, source: str = "127.0.0.1"
) -> tuple[asyncssh.SSHClientConnection, Client]:
    """A logged-in asyncssh connection from `source` (any 127.x address is this machine)."""
    conn, client = await asyncssh.create_connection(
        Client,
        "127.0.0.1",
        port,
        username="player",
        client_keys=[asyncssh.read_private_key(keys.player)],
        known_hosts=None,
        agent_path=None,
        connect_timeout=10,
        local_addr=(source, 0),
    )
    return conn, client


async def terminal(
    conn: asyncssh.SSHClientConnection,
) -> tuple[asyncssh.SSHClientChannel, Terminal]:
    chan, term = await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    return chan, term


class RawSocket:
    """A TCP connection that says nothing: what the host sent it, and when it closed."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.got = bytearray()
        self.task = asyncio.create_task(self._read(reader))

    @classmethod
    async def open(cls, port: int, source: str = "127.0.0.1") -> RawSocket:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        return cls(reader, writer)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while chunk := await reader.read(4096):
                self.got.extend(chunk)

    @property
    def closed(self) -> bool:
        return self.task.done()

    def close(self) -> None:
        self.task.cancel()
        self.writer.close()


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


# --- the early drop ---------------------------------------------------------------------------


def test_early_drop_is_openssh_maxstartups():
    startups = Startups(10, 30, 100)
    assert not any(early_drop(n, startups, 0.0) for n in range(10)), "below start: none"
    assert early_drop(10, startups, 0.29) and not early_drop(10, startups, 0.31), "30% at start"
    # Half-way from start to full: 30% + 70% / 2 = 65%.
    assert early_drop(55, startups, 0.64) and not early_drop(55, startups, 0.66)
    assert early_drop(100, startups, 0.999) and early_drop(500, startups, 0.999), "full: all"
    assert early_drop(4, Startups(4, 100, 4), 0.999) and not early_drop(3, Startups(4, 100, 4), 0)


# --- idle sockets and half-done logins --------------------------------------------------------


async def test_a_flood_of_idle_sockets_keeps_no_one_out(keys, host_log):
    """130 sockets from one address that never start SSH: the first 8 (the address's cap
    on connections logging in) are held until the login grace ends, the other 122 are
    closed at once with the reason; honest players still log in, from that address (a
    socket that never sent its SSH version makes way) and from another."""
    async with running_host(keys) as host:
        flood = [await RawSocket.open(host.port) for _ in range(130)]
        try:
            await until(lambda: sum(s.closed for s in flood) == 122)
            held = [s for s in flood if not s.closed]
            assert len(held) == 8 and len(host.waiting["127.0.0.1"]) == 8
            refused = [s for s in flood if s.closed]
            reason = b"cantina: too many connections from your address are logging in"
            assert all(s.got.startswith(b"SSH-2.0-") and reason in s.got for s in refused)
            await asyncio.sleep(SILENT_MAKES_WAY + 0.2)  # the held ones are plainly idle

            conn, _ = await log_in(host.port, keys)
            other, _ = await log_in(host.port, keys, source="127.0.0.2")
            try:
                for link in (conn, other):
                    _, term = await terminal(link)
                    await term.expect("shared tables")
                assert len(host.sessions) == 2
                made_way = [s for s in held if s.closed]
                assert len(made_way) == 1 and b"made way for a new connection" in made_way[0].got
            finally:
                conn.close()
                other.close()
            assert sum(not s.closed for s in flood) == 7, "the rest wait for the login grace"
        finally:
            for s in flood:
                s.close()
    refusals = [r.getMessage() for r in host_log.records if r.getMessage().startswith("refused")]
    assert len(refusals) == 122
    assert refusals[0] == (
        "refused 127.0.0.1 (not logged in): "
        "too many connections from your address are logging in; try again later"
    )
    no_tracebacks(host_log)


async def test_clients_stalled_in_their_login_are_refused_with_the_reason(keys):
    """Connections that did send an SSH version hold their place: past the address's cap a
    real client is refused, and told why."""
    async with running_host(keys, startups_per_address=2) as host:
        stalled = [await RawSocket.open(host.port) for _ in range(2)]
        try:
            for s in stalled:
                s.writer.write(b"SSH-2.0-Stalled\r\n")
            await asyncio.sleep(SILENT_MAKES_WAY + 0.2)
            with pytest.raises(asyncssh.DisconnectError) as refused:
                await log_in(host.port, keys)
            assert "cantina: too many connections from your address" in refused.value.reason
            conn, _ = await log_in(host.port, keys, source="127.0.0.2")  # another address
            conn.close()
        finally:
            for s in stalled:
                s.close()


async def test_a_refused_client_writing_on_still_reads_why_not_a_reset(keys):
    """A client refused as it connects has often sent its key exchange already (OpenSSH
    writes it before reading the host's reply; a connection handed to a worker of
    `--workers` has had time to). Cut at once, the host's socket holds bytes it never
    read, so the client's side is reset: its next write fails ("Broken pipe", OpenSSH's
    whole message) and it never reads the reason. The host half-closes instead and reads
    on: the client writes on without error, then reads the reason and the end."""
    async with running_host(keys, startups_per_address=1) as host:
        first = await RawSocket.open(host.port)  # the address's one place logging in
        first.writer.write(b"SSH-2.0-First\r\n")
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        try:
            writer.write(b"SSH-2.0-Late\r\n" + bytes(32768))  # unread by the host
            await writer.drain()
            await asyncio.sleep(0.5)  # refused by now
            writer.write(bytes(32768))  # a reset would fail this write, or the read below
            await writer.drain()
            got = await asyncio.wait_for(reader.read(), 10)  # to the host's end
            assert got.startswith(b"SSH-2.0-"), got[:40]
            assert b"cantina: too many connections from your address are logging in" in got
        finally:
            writer.close()
            first.close()
        await until(lambda: host.connections == 0)


async def test_connections_logging_in_from_many_addresses_are_dropped_early(keys):
    """OpenSSH's MaxStartups over all addresses: from `start`, new ones are dropped (here
    always, with a rate of 100%), told why."""
    async with running_host(keys, startups=Startups(2, 100, 4)) as host:
        held = [await RawSocket.open(host.port, f"127.0.0.{n}") for n in (3, 4)]
        try:
            await until(lambda: host.waiting_count == 2)
            with pytest.raises(asyncssh.DisconnectError) as dropped:
                await log_in(host.port, keys, source="127.0.0.5")
            assert dropped.value.reason.startswith(
                "cantina: too many connections are logging in; try again later"
            )
            assert not any(s.closed for s in held)
        finally:
            for s in held:
                s.close()
        await until(lambda: host.waiting_count == 0)
        conn, _ = await log_in(host.port, keys, source="127.0.0.5")
        conn.close()


async def test_a_socket_that_never_sends_its_version_is_closed_after_the_grace(keys, host_log):
    async with running_host(keys, login_timeout=1.0) as host:
        silent = await RawSocket.open(host.port)
        started = asyncio.get_running_loop().time()
        try:
            await until(lambda: silent.closed, timeout=10)
            assert asyncio.get_running_loop().time() - started < 5
            assert silent.got.startswith(b"SSH-2.0-")
        finally:
            silent.close()
        await until(lambda: host.connections == 0)
    (line,) = [r.getMessage() for r in host_log.records if "disconnect" in r.getMessage()]
    assert re.fullmatch(
        r"disconnect 127\.0\.0\.1 \(not logged in\) after 1\.\d s: the login grace time ran out",
        line,
    )


async def test_a_login_that_opens_no_session_is_closed(keys, host_log):
    async with running_host(keys, no_session_timeout=0.5) as host:
        conn, client = await log_in(host.port, keys)
        try:
            await asyncio.wait_for(client.lost, 10)
        finally:
            conn.close()
        await until(lambda: host.connections == 0)
    said = host_log.text
    key = fingerprint(asyncssh.read_private_key(keys.player))
    assert f"login 127.0.0.1 {key} as 'player'" in said
    assert re.search(
        rf"disconnect 127\.0\.0\.1 {re.escape(key)} 'player' after 0\.\d s: no session was opened",
        said,
    )


@needs_openssh
async def test_ssh_with_no_session_is_told_why_it_is_closed(keys):
    """`ssh -N` logs in and opens no session: closed after the wait, with the reason."""
    async with running_host(keys, no_session_timeout=0.5) as host:
        status, _, err = await run_client(
            "ssh", *ssh_options(keys.player, host.port), "-N", "player@127.0.0.1"
        )
        assert status == 255
        assert "cantina: no session was opened" in err, err


async def test_a_connection_whose_session_ended_is_closed_after_a_while(keys, host_log):
    async with running_host(keys, no_session_timeout=0.5) as host:
        conn, client = await log_in(host.port, keys)
        try:
            chan, term = await terminal(conn)
            await term.expect("shared tables")
            await asyncio.sleep(1.0)  # a session open: the connection is not closed
            assert not client.lost.done()
            chan.write(b"\x11")  # ctrl+q: the session ends, the connection stays
            await asyncio.wait_for(term.closed.wait(), 10)
            await asyncio.wait_for(client.lost, 10)
        finally:
            conn.close()
        assert host.connections == 0 and not host.logged_in
    assert "s: its session ended and nothing else is open" in host_log.text


# --- a dropped link -----------------------------------------------------------------------------


def test_a_dropped_link_is_noticed_within_thirty_seconds():
    limits = Limits()
    assert limits.keepalive_interval * (limits.keepalive_count_max + 1) <= 30


async def test_a_silently_dropped_link_ends_its_session(keys, host_log):
    """A link that stops carrying anything, either way (a proxy between client and host
    that freezes): the host's keepalives go unanswered and it ends the session."""
    frozen = asyncio.Event()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while chunk := await reader.read(65536):
                if frozen.is_set():
                    await asyncio.Event().wait()  # swallowed, as a dead link would
                writer.write(chunk)

    async with running_host(keys, keepalive_interval=0.3, keepalive_count_max=2) as host:
        pipes: list[asyncio.Task[None]] = []

        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", host.port)
            pipes.append(asyncio.create_task(pipe(reader, up_writer)))
            pipes.append(asyncio.create_task(pipe(up_reader, writer)))

        proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
        port = proxy.sockets[0].getsockname()[1]
        conn, _ = await log_in(port, keys)
        try:
            _, term = await terminal(conn)
            await term.expect("shared tables")
            assert len(host.sessions) == 1
            frozen.set()
            started = asyncio.get_running_loop().time()
            await until(lambda: not host.sessions and host.connections == 0, timeout=15)
            assert asyncio.get_running_loop().time() - started < 5
        finally:
            conn.abort()
            for task in pipes:
                task.cancel()
            proxy.close()
    assert "no answer to keepalives (the link dropped)" in host_log.text


# --- input the parser cannot read ---------------------------------------------------------------

BAD_INPUT = {
    "a key past Unicode": b"\x1b[9999999u",
    "a modified key past Unicode": b"\x1b[27;5;9999999~",
    "a huge code point": b"\x1b[99999999999999999999999999u",
    "a mouse report over a zero-sized terminal": b"\x1b[48;0;0;0;0t\x1b[<0;5;5M",
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
async def test_unreadable_input_ends_no_session(keys, host_log, case):
    """The sender's session reads on (a later key is answered), another session is
    untouched, and the host logs at most one line, with no traceback."""
    async with running_host(keys) as host:
        sender, _ = await log_in(host.port, keys)
        other, _ = await log_in(host.port, keys)
        try:
            chan, term = await terminal(sender)
            other_chan, other_term = await terminal(other)
            await term.expect("shared tables")
            await other_term.expect("shared tables")
            for _ in range(3):  # and again: the parser was not left dead by the first
                chan.write(BAD_INPUT[case])
                await asyncio.sleep(0.1)
            mark = len(term.output)
            chan.write(b"m")
            await term.expect("Resume a campaign", since=mark)
            mark = len(other_term.output)
            other_chan.write(b"m")
            await other_term.expect("Resume a campaign", since=mark)
            assert len(host.sessions) == 2
        finally:
            sender.close()
            other.close()
    no_tracebacks(host_log)
    dropped = [r for r in host_log.records if "dropped, unreadable" in r.getMessage()]
    assert len(dropped) <= 1


async def test_quit_then_the_palette_in_one_write_ends_only_that_session(keys, host_log):
    """ctrl+q and ctrl+p read at once: the session quits, as asked, and no command palette
    opens on an app on its way out (its search found its own widgets gone)."""
    async with running_host(keys) as host:
        sender, _ = await log_in(host.port, keys)
        other, _ = await log_in(host.port, keys)
        try:
            chan, term = await terminal(sender)
            other_chan, other_term = await terminal(other)
            await term.expect("shared tables")
            await other_term.expect("shared tables")
            chan.write(b"\x11\x10")
            await asyncio.wait_for(term.closed.wait(), 10)
            assert chan.get_exit_status() == 0 and not term.errors
            mark = len(other_term.output)
            other_chan.write(b"m")
            await other_term.expect("Resume a campaign", since=mark)
        finally:
            sender.close()
            other.close()
    no_tracebacks(host_log)


@needs_openssh
async def test_ssh_with_no_input_ends_cleanly_every_time(keys, host_log):
    """`ssh -tt host </dev/null`: the client's input ends as its session starts; each
    time the session ends at once, with status 0, and nothing in the host's log but the
    login and the disconnect."""
    async with running_host(keys) as host:
        for _ in range(10):
            status, _, err = await run_client(
                "ssh", *ssh_options(keys.player, host.port), "-tt", "player@127.0.0.1"
            )
            assert status == 0, err
        await until(lambda: host.connections == 0)
    no_tracebacks(host_log)
    said = [r.getMessage().split()[0] for r in host_log.records]
    assert said.count("login") == 10 and said.count("disconnect") == 10


async def test_an_address_coming_back_over_and_over_is_held_to_a_session_rate(keys, host_log):
    """Each session costs the host a whole app, so an address that leaves and comes back
    again and again (to set up table after table, say) gets `session_burst` new sessions
    at once, then one each 1 / `session_rate` seconds; in between its connections are
    refused before their key exchange, with a line saying when to try again. Another
    address is not held by it."""
    async with running_host(keys, session_burst=2, session_rate=0.2) as host:

        async def lobby(source: str = "127.0.0.1") -> None:
            conn, _ = await log_in(host.port, keys, source=source)
            try:
                _, term = await terminal(conn)
                await term.expect("shared tables")
            finally:
                conn.close()

        await lobby()
        await lobby()
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await lobby()
        assert refused.value.reason.startswith(
            "cantina: new sessions from your address come too fast; try again in 5 s"
        )
        await lobby("127.0.0.2")
        await asyncio.sleep(5.5)  # one more new session's worth
        await lobby()
    no_tracebacks(host_log)


@pytest.mark.parametrize(
    "kind", ["a mouse report over a zero-sized terminal", "a key past Unicode"]
)
async def test_an_address_whose_sessions_keep_sending_unreadable_input_is_held(
    keys, host_log, kind
):
    """A client that sends what the host cannot read, quits and comes back for more (each
    time a login and a whole app) is held: after `strikes` such sessions its connections
    are refused at once, before their key exchange, with one line saying when to try
    again, and the wait doubles when it comes back for more. One bad sequence holds
    nobody, and another address is never held by it."""
    async with running_host(keys, strikes=2, strike_wait=3) as host:

        async def lobby(source: str, bad: bool) -> None:
            conn, _ = await log_in(host.port, keys, source=source)
            try:
                chan, term = await terminal(conn)
                await term.expect("shared tables")
                if bad:
                    mark = len(host_log.records)
                    chan.write(BAD_INPUT[kind])
                    await until(
                        lambda: any("unreadable" in r.getMessage() for r in host_log.records[mark:])
                    )
                chan.write(b"\x11")  # quit
                await asyncio.wait_for(term.closed.wait(), 10)
            finally:
                conn.close()

        async def refused(source: str) -> str:
            started = asyncio.get_running_loop().time()
            with pytest.raises(asyncssh.DisconnectError) as refusal:
                await lobby(source, bad=False)
            assert asyncio.get_running_loop().time() - started < 2
            assert refusal.value.code == asyncssh.DISC_TOO_MANY_CONNECTIONS  # as --workers'
            return refusal.value.reason

        attacker = "127.0.0.2"
        await lobby(attacker, bad=True)
        await lobby(attacker, bad=False)  # one bad sequence holds nobody
        await lobby(attacker, bad=True)
        line = "sessions from your address sent input the host cannot read; try again in"
        assert (await refused(attacker)).startswith(f"cantina: {line} 3 s")
        await lobby("127.0.0.1", bad=False)  # another address is untouched
        await asyncio.sleep(3.2)
        await lobby(attacker, bad=True)  # back, and at it again: held twice as long
        assert (await refused(attacker)).startswith(f"cantina: {line} 6 s")
        await lobby("127.0.0.1", bad=False)
    no_tracebacks(host_log)
    held = [r.getMessage() for r in host_log.records if r.getMessage().startswith("holding")]
    assert held == [
        f"holding {attacker} for 3 s: its sessions sent input the host cannot read",
        f"holding {attacker} for 6 s: its sessions sent input the host cannot read",
    ]


async def test_with_strikes_0_an_address_whose_sessions_send_unreadable_input_is_never_held(
    keys, host_log
):
    """`--strikes 0`: three sessions of one address in a row send what the host cannot
    read (each one line in the log), and its next session is let in all the same."""
    args = build_parser().parse_args(["serve", "--strikes", "0"])
    limits = host_options(args).limits
    async with running_host(keys, strikes=limits.strikes, strike_wait=3) as host:
        for bad in (True, True, True, False):
            conn, _ = await log_in(host.port, keys, source="127.0.0.2")
            try:
                chan, term = await terminal(conn)
                await term.expect("shared tables")
                if bad:
                    mark = len(host_log.records)
                    chan.write(BAD_INPUT["a key past Unicode"])
                    await until(
                        lambda m=mark: any(
                            "unreadable" in r.getMessage() for r in host_log.records[m:]
                        )
                    )
                chan.write(b"\x11")  # quit
                await asyncio.wait_for(term.closed.wait(), 10)
            finally:
                conn.close()
    no_tracebacks(host_log)
    assert not [r for r in host_log.records if r.getMessage().startswith("holding")]


def test_strikes_double_the_wait_up_to_a_cap_and_are_forgotten_after_a_quiet_spell():
    now = [0.0]
    limits = Limits(
        strikes=2, strike_window=60, strike_wait=30, strike_wait_max=100, strike_quiet=600
    )
    strikes = Strikes(limits, clock=lambda: now[0])
    assert strikes.strike("a", UNREADABLE) == 0 and not strikes.held("a")
    now[0] = 61.0  # a strike a minute: never held
    assert strikes.strike("a", UNREADABLE) == 0 and not strikes.held("a")
    now[0] = 62.0
    assert strikes.strike("a", UNREADABLE) == 30
    assert strikes.held("a").endswith("try again in 30 s") and not strikes.held("b")
    now[0] = 92.5
    assert not strikes.held("a")
    assert [strikes.strike("a", UNREADABLE) for _ in range(3)] == [60, 0, 0]
    now[0] = 153.0
    assert strikes.strike("a", UNREADABLE) == 100  # the cap
    now[0] = 153.0 + 601
    assert strikes.strike("a", UNREADABLE) == 0  # quiet long enough: afresh
    strikes.forget()
    assert "a" in strikes.records
    now[0] += 601
    strikes.forget()
    assert not strikes.records


def test_the_parent_of_workers_holds_an_address_struck_on_any_worker():
    """`--workers`' Ledger: strikes told of connections on two workers count together;
    the address held, its new connections and its sessions on any worker are refused
    with the lone host's line; a strike of a connection it does not count is ignored."""
    ledger = Ledger(Limits(strikes=2, strike_wait=30))
    for number, worker in ((1, 1), (2, 2), (3, 1)):
        ledger.handed(number, worker, "127.0.0.2", 0.0)
        assert ledger.login(number) is None
    ledger.handed(4, 2, "127.0.0.1", 0.0)
    assert ledger.strike(99, UNREADABLE) == ("", 0.0)
    assert ledger.strike(1, UNREADABLE) == ("127.0.0.2", 0.0)
    assert ledger.arriving("127.0.0.2") == ("", False)
    assert ledger.strike(2, UNREADABLE) == ("127.0.0.2", 30.0)  # on the other worker
    line = "sessions from your address sent input the host cannot read; try again in 30 s"
    assert ledger.arriving("127.0.0.2") == (line, False)
    assert ledger.session(3, 1) == line
    assert ledger.arriving("127.0.0.1") == ("", False) and ledger.session(4, 1) is None


# --- the host's own view: the log, the flags ----------------------------------------------------


@needs_openssh
async def test_each_login_refusal_and_disconnect_is_one_line(keys, host_log):
    async with running_host(keys, per_address=1) as host:
        first = await OpenSSH.start(keys.player, host.port, "-tt")
        try:
            await first.expect("shared tables")
            status, _, err = await run_client(
                "ssh", *ssh_options(keys.player, host.port), "-tt", "player@127.0.0.1"
            )
            assert status != 0 and "too many sessions from your address" in err
            first.send("\x11")
            assert await first.finish() == 0
        finally:
            first.kill()
        await until(lambda: host.connections == 0)
    key = fingerprint(asyncssh.read_private_key(keys.player))
    lines = [r.getMessage() for r in host_log.records]
    assert [line.split()[0] for line in lines] == [
        "login",
        "login",
        "refused",
        "disconnect",
        "disconnect",
    ], lines
    assert lines[2] == (f"refused 127.0.0.1 {key} 'player': too many sessions from your address")
    assert any(
        re.fullmatch(
            rf"disconnect 127\.0\.0\.1 {re.escape(key)} 'player' after \d+\.\d s: "
            r"session refused: too many sessions from your address",
            line,
        )
        for line in lines
    ), lines


def test_serve_flags_reach_the_host():
    args = build_parser().parse_args(
        [
            "serve",
            "--open",
            "--per-address",
            "3",
            "--tables-per-player",
            "4",
            "--max-tables",
            "200",
            "--away-grace",
            "15",
            "--idle-timeout",
            "600",
            "--login-grace",
            "12",
            "--startups-per-address",
            "5",
            "--max-startups",
            "6:40:20",
            "--strikes",
            "5",
            "--strike-wait",
            "10",
        ]
    )
    options = host_options(args)
    assert options.limits.strikes == 5 and options.limits.strike_wait == 10
    assert options.limits.strike_wait_max == 100  # ten times the first wait, as 30 to 300
    assert "held after 5 abusive sessions in 60 s, for 10 s (doubling, up to 100 s)" in (
        settings_line(options)
    )
    assert options.away_grace == 15 and options.tables_per_player == 4
    assert options.max_tables == 200 and "4 tables a player, 200 in all" in settings_line(options)
    limits = options.limits
    assert (limits.per_address, limits.idle_timeout, limits.login_timeout) == (3, 600, 12)
    assert limits.startups_per_address == 5 and limits.startups == Startups(6, 40, 20)
    defaults = host_options(build_parser().parse_args(["serve", "--open"]))
    assert defaults.limits == Limits() and defaults.tables_per_player == 2
    assert defaults.max_tables == HostOptions().max_tables == 64
    assert defaults.away_grace == HostOptions().away_grace
    never = host_options(build_parser().parse_args(["serve", "--open", "--strikes", "0"]))
    assert settings_line(never).endswith("never held for its sessions' abuse (--strikes 0)")


def test_serve_logs_each_login_on_stderr_with_the_time(keys, tmp_path):
    """`cantina serve` itself: its log lines go to stderr, each with a timestamp."""
    key = str(tmp_path / "host_key")
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", "serve", "--open", "--port", "0", "--host-key", key],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CANTINA_CONFIG_DIR": str(tmp_path)},
    )
    try:
        port = int(process.stdout.readline().split()[-1])

        async def visit() -> None:
            conn, _ = await log_in(port, keys)
            conn.close()
            await conn.wait_closed()

        asyncio.run(visit())
        lines = [process.stderr.readline() for _ in range(2)]
    finally:
        process.terminate()
        process.wait(20)
    player = fingerprint(asyncssh.read_private_key(keys.player))
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} cantina: "
    assert re.fullmatch(rf"{stamp}login 127\.0\.0\.1 {re.escape(player)} as 'player'\n", lines[0])
    assert re.fullmatch(
        rf"{stamp}disconnect 127\.0\.0\.1 {re.escape(player)} 'player' after \d+\.\d s: "
        r"the client closed the connection\n",
        lines[1],
    ), lines


def test_the_key_parser_drops_what_it_cannot_read_and_reads_on():
    parser = UncachedXTermParser()

    def keys(text: str) -> list[str]:
        return [m.key for m in parser.feed(text) if isinstance(m, events.Key)]

    for bad in ("\x1b[9999999u", "\x1b[27;5;9999999~", "\x1b[99999999999999999999999999u"):
        assert keys(bad) == [], "an ignored key: nothing reaches the app"
        assert keys("a") == ["a"]
    list(parser.feed("\x1b[48;0;0;0;0t"))  # a terminal of no size, reported in-band
    with pytest.raises(UnreadableInput, match="ZeroDivisionError"):
        list(parser.feed("\x1b[<0;5;5Mx"))  # a mouse report over it fails in Textual's code
    assert keys("b") == ["b"], "a fresh parse: later input is read"
