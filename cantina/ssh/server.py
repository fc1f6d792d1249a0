"""The SSH side of `cantina serve`: who gets in, what they may ask for, their sessions.

A connection proves a key (or, only when the host allows guests, nothing); its session
must ask for a terminal and a shell, and then runs one `HostedApp`. Everything else an
SSH client can ask for (commands, subsystems such as sftp, forwarding of ports, agents or
X11) is refused with one line saying so, and the connection or channel closes.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from cantina.campaign.store import save_dir
from cantina.lobby import Lobby
from cantina.pace import Pace
from cantina.seating import clean_name
from cantina.ssh.budget import OWNER, Budgets, InputPacer, WorkBudget, WorkMeter
from cantina.ssh.keys import fingerprint
from cantina.ssh.limits import InputGate, Limits

log = logging.getLogger("cantina.ssh")

DISCONNECT = asyncssh.DISC_BY_APPLICATION


MAX_SIZE = (400, 150)
"""The largest terminal drawn for (a client may claim any size; drawing costs by area)."""


def terminal_size(width: int, height: int) -> tuple[int, int]:
    """A client's terminal size, 80 x 24 when it gives none, never past MAX_SIZE."""
    return (min(width or 80, MAX_SIZE[0]), min(height or 24, MAX_SIZE[1]))


@dataclass
class HostOptions:
    host: str = "127.0.0.1"
    port: int = 2222
    host_key: Path | None = None
    authorized_keys: Path | None = None
    open: bool = False
    """Admit any key (each still identifies its player)."""
    guests: bool = False
    """Admit clients with no key at all, each a new guest."""
    limits: Limits = field(default_factory=Limits)
    lobby: bool = True
    """Sessions open in the lobby of shared tables (else the plain menu)."""
    away_grace: float = 60.0
    """Seconds a shared table waits for a player who left before an AI plays their seat."""
    pace: float = 0.5
    """Seconds each thing that happens at a shared table stays on show before the next."""
    abandoned_after: float = 900.0
    """Seconds after its last player left that a started table closes."""
    save_dir: Path | None = None
    """The host's campaign folder; each player's own campaigns go in a folder of theirs
    inside it (`players/`), named for their key, so nobody sees another's."""


class Host:
    """The running cantina host: who is connected, the sessions, the shared lobby."""

    def __init__(self, options: HostOptions, authorized: asyncssh.SSHAuthorizedKeys | None) -> None:
        self.options = options
        self.limits = options.limits
        self.authorized = authorized
        self.connections = 0
        self.sessions: set[Session] = set()
        self.by_address: Counter[str] = Counter()
        self.lobby: Lobby | None = None
        if options.lobby:
            pace = Pace(beat=options.pace)
            self.lobby = Lobby(away_grace=options.away_grace, pace=pace)
        self.server: asyncssh.SSHAcceptor | None = None
        limits = self.limits
        self.budgets = Budgets(
            limits.work_rate, limits.work_burst, limits.address_work_rate, limits.work_burst
        )
        """Each session's and each address's share of the host's time (budget.py)."""
        self._sweeper: asyncio.Task[None] | None = None

    def player_saves(self, identity: str) -> Path | None:
        """Where this player's campaigns are kept: a folder named for their key's
        fingerprint. A guest has no key to come back with, so no campaigns."""
        if identity.startswith("guest:") or not identity:
            return None
        name = hashlib.sha256(identity.encode()).hexdigest()[:24]
        return save_dir(self.options.save_dir) / "players" / name

    def admits(self, key: asyncssh.SSHKey, address: str) -> bool:
        """Whether this key may come in from `address`: any key with `--open`, else a key
        the authorized keys list (for that address, if its line says `from=`)."""
        if self.options.open:
            return True
        return self.authorized is not None and (
            self.authorized.validate(key, address, address) is not None
        )

    def room_for(self, address: str) -> str | None:
        """Why a new session from `address` may not start now, or None."""
        if len(self.sessions) >= self.limits.max_sessions:
            return "the cantina is full; try again later"
        if self.by_address[address] >= self.limits.per_address:
            return "too many sessions from your address"
        return None

    def started(self, session: Session) -> None:
        self.sessions.add(session)
        self.by_address[session.gate.address] += 1

    def ended(self, session: Session) -> None:
        if session in self.sessions:
            self.sessions.discard(session)
            self.by_address[session.gate.address] -= 1
            if self.by_address[session.gate.address] <= 0:
                del self.by_address[session.gate.address]

    async def sweep(self) -> None:
        """End sessions idle (no keystroke) past the idle timeout."""
        idle = self.limits.idle_timeout
        while True:
            await asyncio.sleep(min(1.0, idle / 4))
            now = asyncio.get_running_loop().time()
            for session in list(self.sessions):
                if now - session.last_input > idle:
                    session.end("idle for too long; come back any time")
            if self.lobby is not None:
                self.lobby.check_presence()
                self.lobby.sweep(self.options.abandoned_after)

    async def start(self, host_key: asyncssh.SSHKey) -> None:
        if self.budgets.enabled:
            WorkMeter.install(asyncio.get_running_loop())
        self.server = await asyncssh.create_server(
            lambda: Gate(self),
            self.options.host,
            self.options.port,
            server_host_keys=[host_key],
            login_timeout=self.limits.login_timeout,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            line_editor=False,
            encoding=None,
            keepalive_interval=30,
            keepalive_count_max=4,
        )
        self._sweeper = asyncio.create_task(self.sweep())

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """End every session and table, and wait (a little) for them to finish, so no
        app or dealer is left half-way when the event loop stops."""
        tasks: list[asyncio.Task[Any]] = []
        if self._sweeper is not None:
            self._sweeper.cancel()
            tasks.append(self._sweeper)
        for session in list(self.sessions):
            session.end("the host is closing")
            if session.task is not None:
                tasks.append(session.task)
        if self.lobby is not None:
            for table in self.lobby.tables.values():
                if table.dealer is not None and table.dealer.task is not None:
                    tasks.append(table.dealer.task)
            self.lobby.close_all()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        if self.budgets.enabled:
            WorkMeter.uninstall(asyncio.get_running_loop())


class Gate(asyncssh.SSHServer):
    """One connection: its address, its proof of identity, what it may ask for."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.username = "Player"
        self.identity = ""
        """The key's fingerprint (or `guest:…`): who this is, across reconnections."""
        self._offered = ""
        self.refusal = ""
        """Why this connection's session must be refused (a forwarding it asked for)."""
        self.started = False

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "?"
        self.host.connections += 1
        if self.host.connections > self.host.limits.max_connections:
            self.refuse("too many connections; try again later")
        # Agent and X11 forwarding are refused by asyncssh already; these hooks make the
        # refusal visible to the player, as a disconnect with a reason, instead of silent.
        conn.create_agent_listener = self._refuse_agent  # type: ignore[method-assign]
        conn.attach_x11_listener = self._refuse_x11  # type: ignore[method-assign,assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.host.connections -= 1

    def refuse(self, why: str) -> None:
        """Close the whole connection, telling the client why in one line."""
        conn = self.conn
        if conn is not None:
            asyncio.get_running_loop().call_soon(conn.disconnect, DISCONNECT, f"cantina: {why}")

    async def _refuse_agent(self, *args: Any) -> bool:
        self._refuse_forwarding("agent forwarding is not offered here (connect without -A)")
        return False

    async def _refuse_x11(self, *args: Any) -> None:
        self._refuse_forwarding("X11 forwarding is not offered here (connect without -X)")
        return None

    def _refuse_forwarding(self, why: str) -> None:
        """A channel's requests are served in order, so this lands before its shell
        request: the session then refuses with this line. Asked for later, it ends the
        connection."""
        if self.started:
            self.refuse(why)
        else:
            self.refusal = why

    def begin_auth(self, username: str) -> bool:
        self.username = clean_name(username, "Player")
        return True

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for every key offered and again for the signed attempt; the last one
        # accepted before authentication completes is the one that proved itself.
        if self.host.admits(key, self.address):
            self._offered = fingerprint(key)
            return True
        return False

    def kbdint_auth_supported(self) -> bool:
        return self.host.options.guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        """A guest: admitted at once, with no questions, and no key to come back with."""
        self._offered = f"guest:{secrets.token_hex(6)}"
        return True

    def auth_completed(self) -> None:
        self.identity = self._offered

    def connection_requested(self, *args: Any) -> bool:
        self.refuse("port forwarding is not offered here")
        raise asyncssh.ChannelOpenError(
            asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "cantina: port forwarding is not offered"
        )

    def server_requested(self, *args: Any) -> bool:
        self.refuse("port forwarding is not offered here")
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return self.connection_requested()

    def unix_server_requested(self, *args: Any) -> bool:
        return self.server_requested()

    def session_requested(self) -> Session:
        return Session(self.host, self)


class Session(asyncssh.SSHServerSession):
    """One terminal session: it runs one HostedApp, feeds it input, carries its output."""

    def __init__(self, host: Host, gate: Gate) -> None:
        self.host = host
        self.gate = gate
        self.chan: asyncssh.SSHServerChannel | None = None
        self.refusal = ""
        self.size = (80, 24)
        self.driver: Any = None
        self.app: Any = None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self.goodbye = ""
        """Why the host ended this session, told to the player as it closes."""
        limits = host.limits
        self.gate_input = InputGate(limits.input_rate, limits.paste_max)
        self.budget: WorkBudget | None = None
        """This session's share of the host's time, once it runs (None: unlimited)."""
        self.pacer = InputPacer(None, self._feed, self._give_size)
        """Where input and window changes wait while the session is over its budget."""
        self.last_input = asyncio.get_event_loop().time()

    # --- what the client asks for ----------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], modes) -> bool:
        self.size = terminal_size(term_size[0], term_size[1])
        self.pacer.shown_size = self.size
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.refusal = "commands are not offered here; connect with plain ssh for the cantina"
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        self.refusal = "subsystems (sftp and the like) are not offered here"
        return True

    def session_started(self) -> None:
        assert self.chan is not None
        self.gate.started = True
        refusal = self.refusal or self.gate.refusal
        if refusal:
            return self.refuse(refusal)
        if self.chan.get_terminal_type() is None:
            return self.refuse("the cantina needs a terminal: connect with ssh -t")
        full = self.host.room_for(self.gate.address)
        if full:
            return self.refuse(full)
        self.host.started(self)
        if self.host.budgets.enabled:
            self.budget = self.pacer.budget = self.host.budgets.open(self.gate.address)
        self.task = asyncio.create_task(self.run(), name=f"cantina session {self.gate.identity}")

    def refuse(self, why: str) -> None:
        assert self.chan is not None
        self.closed = True
        self.chan.write_stderr(f"cantina: {why}\r\n".encode())
        self.chan.exit(1)

    # --- the app ---------------------------------------------------------------------------

    async def run(self) -> None:
        from cantina.ssh.app import HostedApp, colour_system

        assert self.chan is not None
        OWNER.set(self.budget)  # the app's work, in every task it makes, is this session's
        try:
            colours = colour_system(self.chan.get_terminal_type(), self.chan.get_environment())
            lobby = self.host.lobby
            player = None
            if lobby is not None:
                player = lobby.player(self.gate.identity, self.gate.username)
                lobby.arrived(player)
            try:
                app = self.app = HostedApp(
                    self,
                    colours=colours,
                    lobby=lobby,
                    player=player,
                    save_dir=self.host.player_saves(self.gate.identity),
                )
                await app.run_async(size=self.size)
            finally:
                if lobby is not None and player is not None:
                    lobby.left(player)
            if app.return_code and not self.goodbye:
                self.goodbye = (
                    "something went wrong, and this session ended (the host has the details)"
                )
        except Exception:
            log.error("a session failed:\n%s", traceback.format_exc())
            self.goodbye = "something went wrong, and this session ended"
        finally:
            self.host.ended(self)
            self._release()
            self.app = None
            self.close(1 if self.goodbye else 0)

    def _release(self) -> None:
        """Give back this session's account (once) and drop what it held."""
        self.pacer.close()
        if self.budget is not None:
            self.budget.close()
            self.host.budgets.close(self.gate.address, self.budget)
            self.budget = self.pacer.budget = None

    def close(self, status: int) -> None:
        """Say goodbye (if there is a reason to) and close the channel."""
        if self.chan is not None and not self.closed:
            self.closed = True
            try:
                if self.goodbye:
                    self.chan.write_stderr(f"\r\ncantina: {self.goodbye}\r\n".encode())
                self.chan.exit(status)
            except (OSError, asyncssh.Error):
                self.chan.close()

    def end(self, why: str) -> None:
        """End this session from the host's side (idle, host closing, bad input)."""
        self.goodbye = self.goodbye or why
        if self.budget is not None:
            self.budget.close()  # nothing of it waits: it must shut down
        if self.app is not None:
            self.app.exit()
        elif self.chan is not None and not self.closed:
            self.refuse(why)

    # --- the driver's terminal -------------------------------------------------------------

    def attach(self, driver: Any) -> None:
        self.driver = driver

    def detach(self) -> None:
        self.driver = None

    def write(self, data: bytes) -> None:
        chan = self.chan
        if chan is None or self.closed:
            return
        if chan.get_write_buffer_size() > self.host.limits.write_buffer:
            # The client has stopped reading: drop it rather than hold its frames.
            self.closed = True
            if self.gate.conn is not None:
                self.gate.conn.abort()
            if self.app is not None:
                self.app.exit()
            return
        try:
            chan.write(data)
        except (OSError, asyncssh.Error):
            self.closed = True

    # --- what the client sends -------------------------------------------------------------

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if datatype is not None or self.driver is None:
            return
        passed = self.gate_input.filter(data)
        if not passed:
            return
        self.last_input = asyncio.get_running_loop().time()
        self.pacer.input(passed)  # now, or once this session's budget allows

    def _feed(self, data: bytes) -> None:
        if self.driver is None:
            return
        try:
            self.driver.feed(data)
        except Exception:
            log.error("input failed:\n%s", traceback.format_exc())
            self.end("bad input")

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        """Follow the client's terminal once its size settles (the last size wins): a
        flood of window changes would be a flood of whole-screen redraws."""
        self.size = terminal_size(width, height)
        self.pacer.window(*self.size)

    def _give_size(self, width: int, height: int) -> None:
        if self.driver is not None:
            self.driver.resized(width, height)

    def eof_received(self) -> bool:
        """The client has no more input: end the app, and keep the channel open until it
        has ended, for the exit status."""
        if self.app is not None:
            self.app.exit()
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.app is not None:
            self.app.exit()
        self.host.ended(self)
        self._release()
