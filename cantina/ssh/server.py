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
import random
import secrets
import socket
import traceback
from collections import Counter
from contextvars import copy_context
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import asyncssh

from cantina.campaign.store import save_dir
from cantina.chat import MuteBook
from cantina.lobby import Lobby
from cantina.lobby.table import MAX_TABLES
from cantina.pace import Pace
from cantina.seating import clean_name
from cantina.ssh.asyncssh_compat import connection_transport, disconnect_lingering
from cantina.ssh.budget import OWNER, Budgets, InputPacer, ReadPacer, WorkBudget, WorkMeter
from cantina.ssh.keys import fingerprint
from cantina.ssh.limits import (
    ADDRESS_CONNECTIONS,
    ADDRESS_LOGGING_IN,
    ADDRESS_SESSIONS,
    ALL_LOGGING_IN,
    BAD_INPUT,
    CANTINA_FULL,
    RESIZE_FLOOD,
    STRIKES,
    UNREADABLE,
    InputBudget,
    InputGate,
    Limits,
    Strikes,
    early_drop,
    holding_line,
    too_fast_line,
)
from cantina.store.campaigns import CampaignKeeper, RedisCampaigns
from cantina.store.memory import InProcessStore, TableStore
from cantina.store.redis_store import RedisStore
from cantina.text import clean_text

log = logging.getLogger("cantina.ssh")

DISCONNECT = asyncssh.DISC_BY_APPLICATION
FULL = asyncssh.DISC_TOO_MANY_CONNECTIONS
"""The disconnect code of a refusal for want of room (asyncssh clients raise it even
after logging in, where a plain DISCONNECT reads as a normal close)."""

CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr",
           "aes256-ctr")  # fmt: skip
"""The ciphers the host offers: asyncssh's defaults less chacha20-poly1305, whose packets
cost the host about three times an AES one's, and a host's work is mostly its frames
(`benchmarks/bench_frames.py`). OpenSSH has had the GCM ones since 6.2, and every client
has the CTR ones; the client's own order picks among them."""
MACS = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
        "hmac-sha1-etm@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1")  # fmt: skip
"""The MACs offered for a CTR cipher: asyncssh's usual ones less umac, which OpenSSH
takes first when offered and which costs asyncssh more than HMAC-SHA2 does."""

MAX_SIZE = (400, 150)
"""The largest terminal drawn for (a client may claim any size; drawing costs by area)."""
SILENT_MAKES_WAY = 1.0
"""Seconds after which a connection that has sent no SSH version is not a client still
starting, and makes way for a new connection from its address at its cap."""


def terminal_size(width: int, height: int) -> tuple[int, int]:
    """A client's terminal size, 80 x 24 when it gives none, never past MAX_SIZE."""
    return (min(width or 80, MAX_SIZE[0]), min(height or 24, MAX_SIZE[1]))


def lost_reason(exc: Exception | None) -> str:
    """Why a connection the host did not end was lost, in a few words for the log (what
    a client says is its own text, so it is cleaned and cut short)."""
    if isinstance(exc, asyncssh.ConnectionLost):  # asyncssh's own timers, or a closed socket
        if "Login timeout" in exc.reason:
            return "the login grace time ran out"
        if "keepalive" in exc.reason:
            return "no answer to keepalives (the link dropped)"
    elif isinstance(exc, asyncssh.DisconnectError):  # the client's own disconnect message
        said = clean_text(" ".join(exc.reason.split()))[:80]
        return f"the client disconnected ({said})" if said else "the client disconnected"
    return "the client closed the connection"


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
    abandoned_after: float = 60.0
    """Seconds a started table with nobody at it (no player, no spectator) stays open."""
    tables_per_player: int = 2
    max_tables: int = MAX_TABLES
    """Shared tables one player may have open at once (for the lobby's cap)."""
    save_dir: Path | None = None
    """The host's campaign folder; each player's own campaigns go in a folder of theirs
    inside it (`players/`), named for their key, so nobody sees another's."""
    store: str | None = None
    """Where the shared tables are kept: `redis://HOST:PORT/DB`, or None for the host's
    memory only (they end with the host)."""
    handed: bool = False
    """Listen on no port: a worker of `cantina serve --workers N`, whose parent accepts
    each connection and hands it to the worker with the fewest (`Host.adopt`)."""


@dataclass(frozen=True)
class Handed:
    """A connection the parent of `--workers` accepted and handed to this worker: its
    number there, and what the parent, which counts every worker's connections, made of
    it: a refusal to tell it, or that its address is at its cap of connections logging in
    (`crowded`: one of its that never sent an SSH version here makes way, else it is
    refused)."""

    number: int
    refusal: str = ""
    crowded: bool = False


class Counts(Protocol):
    """The counts the limits are held to over every worker of `--workers` (kept by their
    parent): a worker asks before a login or a session counts, and tells when a session
    it was granted ends (a connection's end is told with the connection's)."""

    async def login(self, handed: Handed) -> str | None:
        """Why this logged-in connection may not stay, or None (it counts)."""
        ...

    async def session(self, handed: Handed) -> tuple[str | None, int]:
        """Why a new session on this connection may not start, or None (it counts); and
        the number its end is told with (`session_ended`)."""
        ...

    def session_ended(self, handed: Handed, ask: int) -> None:
        """The session asked about as `ask` has ended (if it was counted, it counts no
        more: one let in while the parent did not answer may have been refused since)."""
        ...

    def strike(self, handed: Handed, why: str) -> None:
        """A session of this connection ended for abuse, or sent what cannot be read
        (`why`, a key of STRIKES): the parent counts it against the address, and holds
        it (on every worker) at `Limits.strikes`."""
        ...


def player_name(identity: str) -> str:
    """A keyed player's name for their campaigns (a folder, or Redis keys): their key's
    fingerprint, hashed (so nothing in it reaches a path or a key as it was typed)."""
    return hashlib.sha256(identity.encode()).hexdigest()[:24]


class Host:
    """The running cantina host: who is connected, the sessions, the shared lobby."""

    def __init__(self, options: HostOptions, authorized: asyncssh.SSHAuthorizedKeys | None) -> None:
        self.options = options
        self.limits = options.limits
        self.authorized = authorized
        self.connections = 0
        """Every connection open now, logged in or not."""
        self.waiting: dict[str, list[Gate]] = {}
        """Connections not yet logged in, by address, oldest first."""
        self.logged_in: Counter[str] = Counter()
        """Logged-in connections, by address."""
        self.random = random.Random()
        """The draws of the early drop (a test may seed it)."""
        self.sessions: set[Session] = set()
        self.by_address: Counter[str] = Counter()
        self.session_starts: dict[str, InputBudget] = {}
        """Each address's new sessions, as a token bucket (`Limits.session_rate`)."""
        self.strikes = Strikes(self.limits)
        """Addresses whose sessions abused the host, held for a while (`Limits.strikes`;
        with `--workers`, the parent's are the whole host's, and these stay empty)."""
        self.lobby: Lobby | None = None
        self.store: TableStore = (
            RedisStore.from_url(options.store) if options.store else InProcessStore()
        )
        """Where the shared tables are kept (ValueError for an address it cannot read)."""
        self.campaign_keeper = CampaignKeeper.from_url(options.store) if options.store else None
        """With Redis, keyed players' campaigns are kept there too, for any host to open."""
        if options.lobby:
            pace = Pace(beat=options.pace)
            self.lobby = Lobby(
                away_grace=options.away_grace,
                pace=pace,
                tables_per_player=options.tables_per_player,
                max_tables=options.max_tables,
                store=self.store,
            )
        self.server: asyncssh.SSHAcceptor | None = None
        self._handed: asyncssh.SSHServerConnectionOptions | None = None
        limits = self.limits
        self.budgets = Budgets(
            limits.work_rate, limits.work_burst, limits.address_work_rate, limits.work_burst
        )
        """Each session's and each address's share of the host's time (budget.py)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.mutes = MuteBook()
        """Whom each player has muted, kept across their connections (chat.py)."""
        self.counts: Counts | None = None
        """With `--workers`, the parent's counts over every worker, asked before a login
        or a session counts (the limits are the whole host's); None: this host's own."""

    def player_saves(self, identity: str) -> Path | None:
        """Where this player's campaigns are kept: a folder named for their key's
        fingerprint. A guest has no key to come back with, so no campaigns."""
        if identity.startswith("guest:") or not identity:
            return None
        return save_dir(self.options.save_dir) / "players" / player_name(identity)

    def player_campaigns(self, identity: str) -> RedisCampaigns | None:
        """With a Redis store, a keyed player's campaigns in it (under the same name as
        their folder has; the saves in that folder are brought in when listed); else None,
        and they are files, as `player_saves`."""
        folder = self.player_saves(identity)
        if self.campaign_keeper is None or folder is None:
            return None
        return self.campaign_keeper.player(player_name(identity), folder)

    def admits(self, key: asyncssh.SSHKey, address: str) -> bool:
        """Whether this key may come in from `address`: any key with `--open`, else a key
        the authorized keys list (for that address, if its line says `from=`)."""
        if self.options.open:
            return True
        return self.authorized is not None and (
            self.authorized.validate(key, address, address) is not None
        )

    @property
    def waiting_count(self) -> int:
        """Connections not yet logged in, over all addresses."""
        return sum(len(gates) for gates in self.waiting.values())

    def room_to_log_in(self, gate: Gate) -> str | None:
        """Why a new connection may not even try to log in, or None (and it is counted
        among those waiting). Per address first: at its cap, the oldest of its connections
        that never sent an SSH version (a socket held open, not a client) makes way;
        then, over all addresses, OpenSSH's random early drop."""
        if gate.handed is not None:
            return self.handed_in(gate, gate.handed)
        if self.too_fast(gate.address):  # no session to give it: spare the key exchange
            return self.too_fast_line()
        struck = self.strikes.held(gate.address)
        if struck:  # held for its sessions' abuse: spare the key exchange too
            return struck
        held = self.waiting.setdefault(gate.address, [])
        silent: Gate | None = None
        if len(held) >= self.limits.startups_per_address:
            silent = next((g for g in held if g.silent_for() >= SILENT_MAKES_WAY), None)
            if silent is None:
                if not held:
                    del self.waiting[gate.address]
                return ADDRESS_LOGGING_IN
        if early_drop(self.waiting_count, self.limits.startups, self.random.random()):
            if not held:
                del self.waiting[gate.address]
            return ALL_LOGGING_IN
        if silent is not None:
            silent.close("made way for a new connection (it never sent its SSH version)")
        held.append(gate)
        return None

    def handed_in(self, gate: Gate, handed: Handed) -> str | None:
        """`room_to_log_in` for a connection handed by the parent of `--workers`, which
        has counted it already: refused as it said, or (its address at its cap) in place
        of a connection of that address here that never sent an SSH version."""
        if handed.refusal:  # its address held for its sessions' abuse, say
            return handed.refusal
        held = self.waiting.setdefault(gate.address, [])
        if handed.crowded:
            silent = next((g for g in held if g.silent_for() >= SILENT_MAKES_WAY), None)
            if silent is None:
                if not held:
                    del self.waiting[gate.address]
                return ADDRESS_LOGGING_IN
            silent.close("made way for a new connection (it never sent its SSH version)")
        held.append(gate)
        return None

    def logged_in_from(self, gate: Gate) -> str | None:
        """A connection that has logged in: no longer waiting, and counted among those
        logged in; or why there is no room for it (and it counts nowhere)."""
        self.stop_waiting(gate)
        if self.counts is not None:  # the parent of `--workers` holds the counts, and asks
            pass
        elif self.logged_in.total() >= self.limits.max_connections:
            return CANTINA_FULL
        elif self.logged_in[gate.address] >= self.limits.connections_per_address:
            return ADDRESS_CONNECTIONS
        self.logged_in[gate.address] += 1
        return None

    def stop_waiting(self, gate: Gate) -> None:
        held = self.waiting.get(gate.address)
        if held is not None and gate in held:
            held.remove(gate)
            if not held:
                del self.waiting[gate.address]

    def logged_out(self, gate: Gate) -> None:
        self.logged_in[gate.address] -= 1
        if self.logged_in[gate.address] <= 0:
            del self.logged_in[gate.address]

    def room_for(self, address: str) -> str | None:
        """Why a new session from `address` may not start now, or None."""
        if len(self.sessions) >= self.limits.max_sessions:
            return CANTINA_FULL
        if self.by_address[address] >= self.limits.per_address:
            return ADDRESS_SESSIONS
        struck = self.strikes.held(address)
        if struck:
            return struck
        limits = self.limits
        starts = self.session_starts.get(address)
        if starts is None:
            starts = InputBudget(limits.session_rate, limits.session_burst)
            self.session_starts[address] = starts
        if not starts.take(1):
            return self.too_fast_line()
        return None

    def too_fast(self, address: str) -> bool:
        """Whether `address` has started all the new sessions it may for now: a new
        connection from it is refused before its key exchange, as its session would be."""
        starts = self.session_starts.get(address)
        return starts is not None and starts.take(0) == 0 and starts.tokens < 1

    def too_fast_line(self) -> str:
        return too_fast_line(self.limits.session_rate)

    def strike(self, gate: Gate, why: str) -> None:
        """A session of `gate` ended for abuse, or sent what cannot be read (`why`, a key
        of STRIKES): at `Limits.strikes` of them, its address is held (one line). With
        `--workers`, the parent counts it, over every worker, and holds the address."""
        if self.counts is not None and gate.handed is not None:
            self.counts.strike(gate.handed, why)
            return
        wait = self.strikes.strike(gate.address, why)
        if wait:
            log.info(holding_line(gate.address, why, wait))

    def started(self, session: Session) -> None:
        self.sessions.add(session)
        self.by_address[session.gate.address] += 1

    def ended(self, session: Session) -> None:
        if session in self.sessions:
            session.uncount()
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
            for address, starts in list(self.session_starts.items()):
                if starts.take(0) == 0 and starts.tokens >= starts.burst:  # full: forget it
                    del self.session_starts[address]
            self.strikes.forget()
            if self.lobby is not None:
                self.lobby.check_presence()
                self.lobby.sweep(self.options.abandoned_after)

    async def start(self, host_key: asyncssh.SSHKey) -> None:
        """Listen; first, with a durable store, take up the tables kept in it (StoreAway
        when it cannot be reached)."""
        if self.lobby is not None:
            await self.lobby.restore()
        if self.budgets.enabled:
            WorkMeter.install(asyncio.get_running_loop())
        settings: dict[str, Any] = {
            "server_host_keys": [host_key],
            "login_timeout": self.limits.login_timeout,
            "allow_pty": True,
            "agent_forwarding": False,
            "x11_forwarding": False,
            "line_editor": False,
            "encoding": None,
            "encryption_algs": list(CIPHERS),
            "mac_algs": list(MACS),
            "keepalive_interval": self.limits.keepalive_interval,
            "keepalive_count_max": self.limits.keepalive_count_max,
        }
        if self.options.handed:
            self._handed = await asyncssh.SSHServerConnectionOptions.construct(
                server_factory=lambda: Gate(self), **settings
            )
        else:
            self.server = await asyncssh.create_server(
                lambda: Gate(self), self.options.host, self.options.port, **settings
            )
        self._sweeper = asyncio.create_task(self.sweep())

    async def adopt(self, sock: socket.socket, handed: Handed | None = None) -> None:
        """Serve a connection accepted elsewhere (`handed`), as if this host had accepted
        it, until it ends (asyncssh.Error or OSError if it ends before the login)."""
        assert self._handed is not None
        conn = await asyncssh.run_server(
            sock, options=self._handed, server_factory=lambda: Gate(self, handed)
        )
        await conn.wait_closed()

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
        await self.store.close()
        if self.campaign_keeper is not None:
            self.campaign_keeper.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        if self.budgets.enabled:
            WorkMeter.uninstall(asyncio.get_running_loop())


class Gate(asyncssh.SSHServer):
    """One connection: its address, its proof of identity, what it may ask for."""

    def __init__(self, host: Host, handed: Handed | None = None) -> None:
        self.host = host
        self.handed = handed
        """How the parent of `--workers` handed it over (None: accepted here)."""
        self.admitted: asyncio.Future[bool] | None = None
        """With `--workers`, whether the parent let it stay once logged in (it asks)."""
        self._asking: asyncio.Task[None] | None = None
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.username = "Player"
        self.identity = ""
        """The key's fingerprint (or `guest:…`): who this is, across reconnections."""
        self._offered = ""
        self.refusal = ""
        """Why this connection's session must be refused (a forwarding it asked for)."""
        self.started = False
        self.opened = 0.0
        self.logged_in = False
        self.ended = False
        """Refused or closed by the host (its line is logged already)."""
        self.reason = ""
        """Why the host ended this connection, or its last session ended, for the log."""
        self.sessions_open = 0
        self._no_session: asyncio.TimerHandle | None = None
        self.reader: ReadPacer | None = None
        """The connection's bytes on their way to asyncssh, held while its session is
        over its budget (budget.py)."""

    # --- who gets in ---------------------------------------------------------------------

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "?"
        self.opened = asyncio.get_running_loop().time()
        self.host.connections += 1
        # Its transport is paused while too much of its input waits (asyncssh_compat).
        self.reader = ReadPacer(conn.data_received, connection_transport(conn))
        conn.data_received = self.reader.data_received  # type: ignore[method-assign]
        why = self.host.room_to_log_in(self)
        if why:
            self.refuse(why, FULL)
        # Agent and X11 forwarding are refused by asyncssh already; these hooks make the
        # refusal visible to the player, as a disconnect with a reason, instead of silent.
        conn.create_agent_listener = self._refuse_agent  # type: ignore[method-assign]
        conn.attach_x11_listener = self._refuse_x11  # type: ignore[method-assign,assignment]

    def silent_for(self) -> float:
        """Seconds this connection has been open without sending its SSH version (0 once
        it has): an SSH client sends it at once."""
        if self.conn is None or self.conn.get_extra_info("client_version") is not None:
            return 0.0
        return asyncio.get_running_loop().time() - self.opened

    @property
    def who(self) -> str:
        """Who this is, for the host's log: the key's fingerprint and name, or a guest."""
        if not self.identity:
            return "(not logged in)"
        if self.identity.startswith("guest:"):
            return f"guest {self.username!r}"
        return f"{self.identity} {self.username!r}"

    def connection_lost(self, exc: Exception | None) -> None:
        self.host.connections -= 1
        if self.reader is not None:
            self.reader.close()
        self.host.stop_waiting(self)
        if self.logged_in:
            self.host.logged_out(self)
        self._cancel_no_session()
        if not self.ended:
            took = asyncio.get_running_loop().time() - self.opened
            why = self.reason or lost_reason(exc)
            log.info("disconnect %s %s after %.1f s: %s", self.address, self.who, took, why)

    def refuse(self, why: str, code: int = DISCONNECT) -> None:
        """Close the whole connection, telling the client why in one line."""
        if self.ended:
            return
        self.ended = True
        log.info("refused %s %s: %s", self.address, self.who, why)
        self.host.stop_waiting(self)
        conn = self.conn
        if conn is not None:  # read on a moment: see disconnect_lingering
            asyncio.get_running_loop().call_soon(
                disconnect_lingering, conn, code, f"cantina: {why}"
            )

    def close(self, why: str) -> None:
        """End this connection from the host's side, telling the client why."""
        if self.ended:
            return
        took = asyncio.get_running_loop().time() - self.opened
        log.info("disconnect %s %s after %.1f s: %s", self.address, self.who, took, why)
        self.ended = True
        self.host.stop_waiting(self)
        if self.conn is not None:
            self.conn.disconnect(DISCONNECT, f"cantina: {why}")

    # --- a logged-in connection must hold a session --------------------------------------

    def session_opened(self) -> None:
        self.sessions_open += 1
        self._cancel_no_session()

    def session_closed(self) -> None:
        self.sessions_open -= 1
        if self.sessions_open <= 0 and self.logged_in and not self.ended:
            self._await_session("its session ended and nothing else is open")

    def _await_session(self, why: str) -> None:
        self._cancel_no_session()
        self._no_session = asyncio.get_running_loop().call_later(
            self.host.limits.no_session_timeout, self.close, why
        )

    def _cancel_no_session(self) -> None:
        if self._no_session is not None:
            self._no_session.cancel()
            self._no_session = None

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
        if self.ended:
            return
        why = self.host.logged_in_from(self)
        if why:
            return self.refuse(why, FULL)
        self.logged_in = True
        self._await_session("no session was opened")  # before a channel can open
        counts = self.host.counts
        if counts is not None and self.handed is not None:
            self.admitted = asyncio.get_running_loop().create_future()
            self._asking = asyncio.create_task(
                self._ask_to_stay(counts, self.handed, self.admitted)
            )
            return
        self._logged()

    async def _ask_to_stay(
        self, counts: Counts, handed: Handed, admitted: asyncio.Future[bool]
    ) -> None:
        """Logged in on a worker: the parent counts it, or says why there is no room
        (meanwhile its client may have opened a session, which waits for the answer)."""
        why = await counts.login(handed)
        admitted.set_result(why is None)
        if why:
            self.refuse(why, FULL)
        elif not self.ended:
            self._logged()

    def _logged(self) -> None:
        shown = "guest" if self.identity.startswith("guest:") else self.identity
        log.info("login %s %s as %r", self.address, shown, self.username)

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
        self.input_ended = False
        """The client sent EOF before the app was made."""
        self.goodbye = ""
        """Why the host ended this session, told to the player as it closes."""
        limits = host.limits
        self.gate_input = InputGate(limits.input_rate, limits.paste_max)
        self.window_changes = InputBudget(limits.resize_rate, limits.resize_burst)
        """The client's window changes, as a token bucket (`Limits.resize_rate`)."""
        self.budget: WorkBudget | None = None
        """This session's share of the host's time, once it runs (None: unlimited)."""
        self.pacer = InputPacer(None, self._feed, self._give_size)
        """Where input and window changes wait while the session is over its budget."""
        self.counted = False
        """Counted by the parent of `--workers` (told when it ends)."""
        self.ask = 0
        """The number its start was asked about with (to the parent of `--workers`)."""
        self.last_input = asyncio.get_event_loop().time()

    # --- what the client asks for ----------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan
        self.gate.session_opened()

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
        counts, handed = self.host.counts, self.gate.handed
        if counts is not None and handed is not None:
            self.task = asyncio.create_task(self._ask_to_start(counts, handed))
            return
        full = self.host.room_for(self.gate.address)
        if full:
            return self.refuse(full)
        self.begin()

    async def _ask_to_start(self, counts: Counts, handed: Handed) -> None:
        """On a worker: the parent counts this session over every worker, or says why
        there is no room (its connection first, if that is still being asked about)."""
        admitted = self.gate.admitted
        if admitted is not None and not await admitted:
            return  # its connection was refused: it closes
        why, self.ask = await counts.session(handed)
        self.counted = why is None
        if self.closed:  # gone while asking
            self.uncount()
        elif why:
            self.refuse(why)
        else:
            self.begin()

    def uncount(self) -> None:
        """Tell the parent of `--workers` that this session it counted has ended."""
        counts, handed = self.host.counts, self.gate.handed
        if self.counted and counts is not None and handed is not None:
            self.counted = False
            counts.session_ended(handed, self.ask)

    def begin(self) -> None:
        """Run the app: this session counts now, with its share of the host's time."""
        self.host.started(self)
        if self.host.budgets.enabled:
            self.budget = self.pacer.budget = self.host.budgets.open(self.gate.address)
            if self.gate.reader is not None:
                self.gate.reader.budget = self.budget
        # The app's work, in every task it makes, is this session's (from the first step
        # on: making the app is work too, put off while its address is in debt).
        context = copy_context()
        context.run(OWNER.set, self.budget)
        if self.budget is not None:
            self.budget.began()
        self.task = asyncio.create_task(
            self.run(), name=f"cantina session {self.gate.identity}", context=context
        )

    def refuse(self, why: str) -> None:
        assert self.chan is not None
        self.closed = True
        log.info("refused %s %s: %s", self.gate.address, self.gate.who, why)
        self.gate.reason = f"session refused: {why}"
        self.chan.write_stderr(f"cantina: {why}\r\n".encode())
        self.chan.exit(1)

    # --- the app ---------------------------------------------------------------------------

    async def run(self) -> None:
        from cantina.ssh.app import HostedApp, colour_system

        assert self.chan is not None
        try:
            colours = colour_system(self.chan.get_terminal_type(), self.chan.get_environment())
            lobby = self.host.lobby
            player = None
            if lobby is not None:
                player = lobby.player(self.gate.identity, self.gate.username, self.gate.address)
                lobby.arrived(player)
            try:
                app = self.app = HostedApp(
                    self,
                    colours=colours,
                    lobby=lobby,
                    player=player,
                    save_dir=self.host.player_saves(self.gate.identity),
                    campaign_store=self.host.player_campaigns(self.gate.identity),
                    mutes=self.host.mutes,
                )
                if self.budget is not None:
                    self.budget.drawing = app.frame_due
                if self.closed or self.input_ended:  # gone before its app was made
                    app.leave()
                await app.run_async(size=self.size)
            finally:
                if self.app is not None:
                    self.app.keep_mutes()  # a guest's, for their rejoin code
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
        reader = self.gate.reader
        if reader is not None and reader.budget is self.budget:
            reader.budget = None
        if self.budget is not None:
            self.budget.close()
            self.host.budgets.close(self.gate.address, self.budget)
            self.budget = self.pacer.budget = None

    def _leave(self) -> None:
        """End the app: taking its screens down is this session's work, charged to its
        share (and its address's, which outlives it while in debt)."""
        if self.budget is not None:
            self.budget.began()
        if self.app is not None:
            self.app.leave()

    def close(self, status: int) -> None:
        """Say goodbye (if there is a reason to) and close the channel."""
        if self.chan is not None and not self.closed:
            self.closed = True
            if self.goodbye:
                self.gate.reason = f"session ended: {self.goodbye}"
            try:
                if self.goodbye:
                    self.chan.write_stderr(f"\r\ncantina: {self.goodbye}\r\n".encode())
                self.chan.exit(status)
            except (OSError, asyncssh.Error):
                self.chan.close()

    def end(self, why: str) -> None:
        """End this session from the host's side (idle, host closing, bad input)."""
        if why in STRIKES and not self.goodbye:
            self.host.strike(self.gate, why)
        self.goodbye = self.goodbye or why
        if self.budget is not None:
            self.budget.close()  # nothing of it waits: it must shut down
        if self.app is not None:
            self._leave()
        elif self.chan is not None and not self.closed:
            self.refuse(why)

    # --- the driver's terminal -------------------------------------------------------------

    @property
    def who(self) -> str:
        return f"{self.gate.address} {self.gate.who}"

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
                self._leave()
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
        driver = self.driver
        if driver is None:
            return
        dropped = driver.dropped
        try:
            driver.feed(data)
        except Exception:
            log.error("input failed:\n%s", traceback.format_exc())
            self.end(BAD_INPUT)
            return
        if driver.dropped and not dropped:  # its first unreadable input: a strike
            self.host.strike(self.gate, UNREADABLE)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        """Follow the client's terminal once its size settles (the last size wins: a
        flood of window changes would be a flood of whole-screen redraws). A client that
        sends more than `Limits.resize_rate` of them, past its burst, is flooding: its
        session ends, with one line."""
        if not self.window_changes.take(1):
            if not self.goodbye:  # the host's log says why as its connection closes
                self.end(RESIZE_FLOOD)
            return
        self.size = terminal_size(width, height)
        self.pacer.window(*self.size)

    def _give_size(self, width: int, height: int) -> None:
        if self.driver is not None:
            self.driver.resized(width, height)

    def eof_received(self) -> bool:
        """The client has no more input: end the app, and keep the channel open until it
        has ended, for the exit status."""
        if self.app is not None:
            self._leave()
            return True
        if self.task is not None:  # its app is on its way: it ends as soon as it is made
            self.input_ended = True
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.session_closed()
        self.closed = True
        if self.app is not None:
            self._leave()
        self.host.ended(self)
        self._release()
