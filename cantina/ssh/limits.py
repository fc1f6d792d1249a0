"""What one host allows: sessions, time, input and output, per the hosting options."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple


class Startups(NamedTuple):
    """OpenSSH's MaxStartups, start:rate:full, over connections not yet logged in: below
    `start` all are taken; from `start`, a new one is dropped with a chance of `rate`
    percent, rising to certain at `full`."""

    start: int
    rate: int
    full: int

    def __str__(self) -> str:
        return f"{self.start}:{self.rate}:{self.full}"


def early_drop(waiting: int, startups: Startups, draw: float) -> bool:
    """Whether a new connection is dropped with `waiting` others not yet logged in;
    `draw` is a random number in [0, 1)."""
    start, rate, full = startups
    if waiting < start:
        return False
    if waiting >= full:
        return True
    chance = (rate + (100 - rate) * (waiting - start) / (full - start)) / 100
    return draw < chance


STARTUPS = Startups(16, 30, 64)

# What a client is told when there is no room for it (the host's, or with `--workers` the
# parent's, which holds the counts of every worker).
CANTINA_FULL = "the cantina is full; try again later"
ADDRESS_SESSIONS = "too many sessions from your address"
ADDRESS_CONNECTIONS = "too many connections from your address"
ADDRESS_LOGGING_IN = "too many connections from your address are logging in; try again later"
ALL_LOGGING_IN = "too many connections are logging in; try again later"


RESIZE_FLOOD = "too many window changes"
"""Why a session that sends more window changes than `Limits.resize_rate` ends."""
BAD_INPUT = "bad input"
"""Why a session whose input broke its app ends."""
UNREADABLE = "unreadable input"
"""What a session sent that its terminal parser could not read (dropped; it reads on)."""
STRIKES = {
    BAD_INPUT: "were ended for bad input",
    RESIZE_FLOOD: "were ended for too many window changes",
    UNREADABLE: "sent input the host cannot read",
}
"""What counts against an address (`Strikes`), as its refusal line says it."""


def too_fast_line(session_rate: float) -> str:
    """What an address that starts new sessions faster than `session_rate` is told."""
    wait = max(1, round(1 / session_rate))
    return f"new sessions from your address come too fast; try again in {wait} s"


@dataclass(frozen=True)
class Limits:
    max_sessions: int = 64
    """Sessions (apps) running at once, over all clients."""
    per_address: int = 8
    """Sessions at once from one client address."""
    max_connections: int = 128
    """Logged-in connections at once, over all clients. Those still logging in are
    counted apart (`startups`), so a flood of them never keeps out a player with a key."""
    startups_per_address: int = 8
    """Connections not yet logged in at once from one address; past it, the oldest that
    has not even sent its SSH version (for a second or more) makes way for the new one,
    else the new one is refused."""
    startups: Startups = STARTUPS
    """Connections not yet logged in, over all addresses: OpenSSH's random early drop
    (its default 10:30:100, scaled to the 64 sessions and 8 an address here)."""
    login_timeout: float = 30.0
    """Seconds from connecting to a finished authentication (the login grace time); a
    socket that never sends its SSH version is closed then too."""
    no_session_timeout: float = 20.0
    """Seconds a logged-in connection may hold no session (none opened yet, or its last
    one ended) before it is closed."""
    keepalive_interval: float = 10.0
    """Seconds of silence from a client before the host asks whether it is still there."""
    keepalive_count_max: int = 2
    """Unanswered asks after which its link counts as dropped: with the interval, a link
    that died silently is noticed within 30 seconds."""
    idle_timeout: float = 1800.0
    """Seconds since the last keystroke (not output: a redrawing UI never stops)."""
    input_rate: float = 4096.0
    """Bytes of input per second, sustained; more is dropped."""
    paste_max: int = 16384
    """Bytes of input at once (a paste); more is dropped."""
    resize_rate: float = 20.0
    """Window changes a second a session may send, sustained (past `resize_burst`); its
    session ends past that. A terminal dragged to a new size sends a few dozen, once
    in a while; each one the host reads costs it a packet's decrypting and dispatching
    (held to the session's work share, but a resize storm from one address took a
    sixth of a core and slowed everyone's keys by the loop's turns it took)."""
    resize_burst: int = 200
    """Window changes a session may send at once before `resize_rate` holds it."""
    work_rate: float = 0.05
    """Seconds of the host's time a session's input may cost, per second, sustained; its
    input waits while it has used more (see budget.py). 0: no limit."""
    work_burst: float = 0.3
    """Seconds of the host's time a session may use at once before its input waits (and
    all the sessions of one address together)."""
    address_work_rate: float = 0.08
    """As `work_rate`, for all the sessions of one client address together."""
    session_rate: float = 0.5
    """New sessions a second one address may start, sustained (past `session_burst`):
    each costs the host a whole app, so an address that leaves and comes back over and
    over (to set tables up, say) is held to this."""
    session_burst: int = 16
    """New sessions one address may start at once before `session_rate` holds it."""
    strikes: int = 2
    """Sessions of one address that may end for abuse (bad input, a flood of window
    changes) or send input the host cannot read within `strike_window` seconds: at
    this many, its new connections are refused for `strike_wait` seconds (0: never). A
    terminal that once sends a bad sequence is not held; a client that quits and comes
    back with more, over and over (each time a login and a whole app), is. With
    `--workers`, the parent keeps them, over every worker (ledger.py)."""
    strike_window: float = 60.0
    strike_wait: float = 30.0
    """The first wait; each time it is held again (one more strike before it has been
    quiet for `strike_quiet`), the wait doubles, up to `strike_wait_max`."""
    strike_wait_max: float = 300.0
    strike_quiet: float = 600.0
    """Seconds with no strike after which an address starts afresh."""
    write_buffer: int = 1 << 20
    """Bytes of output waiting for a client; past it the client is not reading and is
    dropped, so it never holds memory or stalls the others."""

    @property
    def connections_per_address(self) -> int:
        """Logged-in connections at once from one address: one for each of its sessions,
        and as many again for connections still opening or closing."""
        return 2 * self.per_address


def struck_line(why: str, wait: float) -> str:
    """What an address held for its sessions' abuse is told (`why`: a key of STRIKES)."""
    return f"sessions from your address {STRIKES[why]}; try again in {math.ceil(wait)} s"


def holding_line(address: str, why: str, wait: float) -> str:
    """What the host's log says as it holds an address (`why`: a key of STRIKES)."""
    return f"holding {address} for {round(wait)} s: its sessions {STRIKES[why]}"


@dataclass
class Record:
    """One address's strikes (`Strikes`)."""

    times: list[float] = field(default_factory=list)
    """Its strikes in the last `strike_window`, since it was last held."""
    last: float = 0.0
    why: str = ""
    wait: float = 0.0
    """Its last wait (0: never held since it was last quiet)."""
    until: float = 0.0


class Strikes:
    """Addresses whose sessions abused the host (`Limits.strikes`): held, each new
    connection refused at once (before its key exchange), for a wait that doubles each
    time it comes back for more, and forgotten after a quiet spell."""

    def __init__(self, limits: Limits, clock=time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.records: dict[str, Record] = {}

    def strike(self, address: str, why: str) -> float:
        """A session of `address` ended for (or sent) `why`: the seconds it is now held
        for (0: not held)."""
        limits, now = self.limits, self.clock()
        if not limits.strikes:  # never held
            return 0.0
        record = self.records.get(address)
        if record is None or now - record.last > limits.strike_quiet:
            record = self.records[address] = Record()
        record.times = [t for t in record.times if now - t <= limits.strike_window]
        record.times.append(now)
        record.last, record.why = now, why
        if record.wait and now < record.until:
            return 0.0  # held already (a session it had open)
        if len(record.times) < limits.strikes and not record.wait:
            return 0.0
        record.wait = min(2 * record.wait or limits.strike_wait, limits.strike_wait_max)
        record.until = now + record.wait
        record.times.clear()
        return record.wait

    def held(self, address: str) -> str:
        """Why a new connection or session of `address` is refused now, or ""."""
        record = self.records.get(address)
        if record is None:
            return ""
        left = record.until - self.clock()
        return struck_line(record.why, left) if left > 0 else ""

    def forget(self) -> None:
        """Forget the addresses quiet for `strike_quiet`."""
        now = self.clock()
        for address, record in list(self.records.items()):
            if now - record.last > self.limits.strike_quiet and now >= record.until:
                del self.records[address]


class InputBudget:
    """A token bucket over input bytes: typing passes, floods and huge pastes are cut."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self, size: int) -> int:
        """How many of `size` bytes may pass now."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        allowed = min(size, int(self.tokens))
        self.tokens -= allowed
        return allowed


PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


class InputGate:
    """What of a client's input reaches its app: at most the budget's bytes, and no paste
    longer than `paste_max`. A paste that is cut is closed at once (its end marker sent
    on), so the app never waits inside an endless paste, and the rest of it is dropped
    until the client's own end marker arrives."""

    def __init__(self, rate: float, paste_max: int, clock=time.monotonic) -> None:
        self.budget = InputBudget(rate, paste_max + 64, clock)  # a paste and its markers
        self.paste_max = paste_max
        self.pasting = False
        self.pasted = 0
        self.discarding = False
        self._carry = b""

    def filter(self, data: bytes) -> bytes:
        if self.discarding:
            data = self._carry + data
            end = data.find(PASTE_END)
            if end < 0:
                self._carry = data[-(len(PASTE_END) - 1) :]
                return b""
            data = data[end + len(PASTE_END) :]
            self.discarding = False
            self._carry = b""
        allowed = self.budget.take(len(data))
        passed, rest = data[:allowed], data[allowed:]
        out = bytearray()
        for piece in _paste_pieces(passed):
            if piece == PASTE_START:
                self.pasting, self.pasted = True, 0
            elif piece == PASTE_END:
                self.pasting = False
            elif self.pasting:
                room = self.paste_max - self.pasted
                if len(piece) > room:
                    out += piece[:room] + PASTE_END
                    self.pasting = False
                    self.discarding = PASTE_END not in rest
                    return bytes(out)
                self.pasted += len(piece)
            out += piece
        if self.pasting and rest:
            out += PASTE_END  # the budget cut this paste short: close it
            self.pasting = False
            self.discarding = PASTE_END not in rest
        return bytes(out)


def _paste_pieces(data: bytes) -> list[bytes]:
    """`data` split around its paste markers, the markers kept as pieces of their own."""
    pieces: list[bytes] = []
    start = 0
    while True:
        found = [(i, m) for m in (PASTE_START, PASTE_END) if (i := data.find(m, start)) >= 0]
        if not found:
            break
        i, marker = min(found)
        if i > start:
            pieces.append(data[start:i])
        pieces.append(marker)
        start = i + len(marker)
    if start < len(data):
        pieces.append(data[start:])
    return pieces
