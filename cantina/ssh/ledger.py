"""The counts `cantina serve --workers N`'s limits are held to over every worker: the
parent sees every connection, so it keeps them, and answers each worker's asks."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from cantina.ssh.limits import (
    ADDRESS_CONNECTIONS,
    ADDRESS_SESSIONS,
    ALL_LOGGING_IN,
    CANTINA_FULL,
    InputBudget,
    Limits,
    Strikes,
    early_drop,
    too_fast_line,
)


@dataclass
class Link:
    """A connection handed to a worker, as the parent counts it."""

    worker: int
    address: str
    handed: float
    logged_in: bool = False
    refused: bool = False
    """Refused at its login: counted nowhere until it ends."""
    sessions: set[int] = field(default_factory=set)
    """The asks of its sessions that count (their worker's numbers), until each ends."""


class Ledger:
    """The counts the limits are held to over every worker (the parent's): connections
    logging in, logged in and sessions, by address, each address's new sessions, and
    the addresses held for their sessions' abuse (`Strikes`, each told by the worker
    that saw it). The checks and refusals are those of `Host` with one process."""

    def __init__(self, limits: Limits, draw: random.Random | None = None) -> None:
        self.limits = limits
        self.random = draw or random.Random()
        self.links: dict[int, Link] = {}
        self.waiting: Counter[str] = Counter()
        self.logged_in: Counter[str] = Counter()
        self.sessions: Counter[str] = Counter()
        self.starts: dict[str, InputBudget] = {}
        self.strikes = Strikes(limits)
        """The whole host's: an address held is refused on every worker."""
        self.last = 0

    def number(self) -> int:
        self.last += 1
        return self.last

    def arriving(self, address: str) -> tuple[str, bool]:
        """A new connection from `address`: why it is refused (or ""), and whether its
        address is at its cap of connections logging in (one of them must make way)."""
        if self.too_fast(address):  # no session to give it: spare the key exchange
            return too_fast_line(self.limits.session_rate), False
        struck = self.strikes.held(address)
        if struck:  # held for its sessions' abuse: spare the key exchange too
            return struck, False
        if self.waiting[address] >= self.limits.startups_per_address:
            return "", True
        if early_drop(self.waiting.total(), self.limits.startups, self.random.random()):
            return ALL_LOGGING_IN, False
        return "", False

    def crowding(self, address: str) -> list[int]:
        """The workers holding connections of `address` still logging in, the one with
        the oldest first (the likeliest to hold one that never sent its SSH version)."""
        links = sorted(
            (link for link in self.links.values() if link.address == address),
            key=lambda link: link.handed,
        )
        waiting = (link for link in links if not link.logged_in and not link.refused)
        return list(dict.fromkeys(link.worker for link in waiting))

    def handed(self, number: int, worker: int, address: str, now: float) -> None:
        self.links[number] = Link(worker, address, now)
        self.waiting[address] += 1

    def login(self, number: int) -> str | None:
        link = self.links.get(number)
        if link is None or link.logged_in or link.refused:
            return None
        self._drop(self.waiting, link.address)
        why = None
        if self.logged_in.total() >= self.limits.max_connections:
            why = CANTINA_FULL
        elif self.logged_in[link.address] >= self.limits.connections_per_address:
            why = ADDRESS_CONNECTIONS
        if why:
            link.refused = True
            return why
        link.logged_in = True
        self.logged_in[link.address] += 1
        return None

    def session(self, number: int, ask: int) -> str | None:
        link = self.links.get(number)
        if link is None:
            return None
        if self.sessions.total() >= self.limits.max_sessions:
            return CANTINA_FULL
        if self.sessions[link.address] >= self.limits.per_address:
            return ADDRESS_SESSIONS
        struck = self.strikes.held(link.address)
        if struck:
            return struck
        starts = self.starts.get(link.address)
        if starts is None:
            limits = self.limits
            starts = self.starts[link.address] = InputBudget(
                limits.session_rate, limits.session_burst
            )
        if not starts.take(1):
            return too_fast_line(self.limits.session_rate)
        link.sessions.add(ask)
        self.sessions[link.address] += 1
        return None

    def strike(self, number: int, why: str) -> tuple[str, float]:
        """A session of this connection ended for abuse, or sent what cannot be read
        (`why`, a key of STRIKES): its address, and the seconds it is now held for (0:
        not held; "" and 0 for a connection not counted here)."""
        link = self.links.get(number)
        if link is None:
            return "", 0.0
        return link.address, self.strikes.strike(link.address, why)

    def session_ended(self, number: int, ask: int) -> None:
        """A session ended: it counts no more, if it counted (one its worker let in while
        this parent did not answer, and refused once it did, never did)."""
        link = self.links.get(number)
        if link is not None and ask in link.sessions:
            link.sessions.discard(ask)
            self._drop(self.sessions, link.address)

    def ended(self, number: int) -> None:
        link = self.links.pop(number, None)
        if link is None:
            return
        for _ in link.sessions:
            self._drop(self.sessions, link.address)
        if link.logged_in:
            self._drop(self.logged_in, link.address)
        elif not link.refused:
            self._drop(self.waiting, link.address)

    def worker_ended(self, worker: int) -> None:
        """A worker died: its connections went with it."""
        for number in [n for n, link in self.links.items() if link.worker == worker]:
            self.ended(number)

    def too_fast(self, address: str) -> bool:
        starts = self.starts.get(address)
        return starts is not None and starts.take(0) == 0 and starts.tokens < 1

    def forget(self) -> None:
        """Forget the addresses whose budget of new sessions is full again, and those
        with no strike for `Limits.strike_quiet`."""
        for address, starts in list(self.starts.items()):
            if starts.take(0) == 0 and starts.tokens >= starts.burst:
                del self.starts[address]
        self.strikes.forget()

    @staticmethod
    def _drop(counter: Counter[str], address: str) -> None:
        counter[address] -= 1
        if counter[address] <= 0:
            del counter[address]
