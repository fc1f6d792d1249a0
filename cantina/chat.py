"""Chat at a host: a room for the lobby and one for each shared table.

Nothing here draws anything. A room keeps its last lines (a bounded number: a host runs
for days) and tells its listeners of each new one; every line's name and text went
through the project's one sanitiser (`clean_name`), so no control character or escape
sequence typed by one player reaches another's terminal. How often a person may speak
is counted per person across every room of the host (`ChatRates`); whom a viewer has
muted is the viewer's own (`Muted`), and the room never knows; the host keeps each
person's mutes across their connections (`MuteBook`): by key, or a guest's by rejoin code.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from cantina.seating import clean_name

MAX_LINE = 200
"""The most characters a line keeps (after cleaning)."""
KEEP = 200
"""Lines a room keeps: its whole history, as far as anyone can scroll back."""
BURST = 5
PER_SECONDS = 10.0
"""At most `BURST` lines in `PER_SECONDS` from one person (a token bucket: a person who
has been quiet may say five lines at once, then one every two seconds)."""
FORGET_AFTER = 1000
"""Speakers counted before the quiet ones (their bucket full again) are forgotten."""
MUTED_MAX = 500
"""People one viewer may have muted at once (past it, the one muted longest ago is not)."""
BOOK_MAX = 4096
"""People whose mutes the host keeps (the least lately seen are forgotten first)."""
WATCHING = " (watching)"
"""How a spectator's line is marked, after their name."""


class Speaker(Protocol):
    """Who says a line: a key's fingerprint (the same person on every connection) and the
    name shown (`cantina.lobby.Player` is one)."""

    @property
    def identity(self) -> str: ...

    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class ChatLine:
    identity: str
    name: str
    text: str
    watching: bool = False
    """Said by a spectator at a table (marked so: a player's word is not theirs)."""

    @property
    def who(self) -> str:
        return self.name + (WATCHING if self.watching else "")

    def plain(self) -> str:
        return f"{self.who}: {self.text}"


class ChatRates:
    """How many lines each person may still say now: one token bucket per identity."""

    def __init__(
        self,
        burst: int = BURST,
        per: float = PER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.per = per
        self.rate = burst / per
        """Tokens back per second."""
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """Tokens left and when counted, by identity."""

    def _tokens(self, identity: str, now: float) -> float:
        tokens, at = self._buckets.get(identity, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - at) * self.rate)

    def take(self, identity: str) -> bool:
        """Whether `identity` may say a line now (and, if so, count it)."""
        now = self.clock()
        tokens = self._tokens(identity, now)
        if tokens < 1:
            return False
        self._buckets[identity] = (tokens - 1, now)
        if len(self._buckets) > FORGET_AFTER:
            self._forget_quiet(now)
        return True

    def wait(self, identity: str) -> float:
        """Seconds until `identity` may say a line again (0: now)."""
        tokens = self._tokens(identity, self.clock())
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def _forget_quiet(self, now: float) -> None:
        """Those whose bucket is full again count as never having spoken: the table of
        buckets stays as small as the number of people talking now."""
        for identity in [i for i in self._buckets if self._tokens(i, now) >= self.burst]:
            del self._buckets[identity]

    def __len__(self) -> int:
        return len(self._buckets)


Listener = Callable[[ChatLine], None]


class ChatRoom:
    """One room's lines, the newest last, and who listens for the next."""

    def __init__(self, rates: ChatRates | None = None, keep: int = KEEP) -> None:
        self.rates = rates if rates is not None else ChatRates()
        """Shared by every room of a host (the lobby's), so a person's pace is counted
        wherever they speak."""
        self.lines: deque[ChatLine] = deque(maxlen=keep)
        self._listeners: list[Listener] = []
        self.publish: Listener | None = None
        """Told of each line said in this room through this host (a shared lobby sends
        it on to the other hosts, which `hear` it)."""

    def say(self, speaker: Speaker, text: str, *, watching: bool = False) -> ChatLine:
        """Add a line by `speaker`, cleaned, and tell every listener. ValueError, with the
        words to show the speaker, when there is nothing left to say or they speak too
        often."""
        cleaned = clean_name(text, fallback="", limit=MAX_LINE)
        if not cleaned:
            raise ValueError("Nothing to say: that line was empty.")
        if not self.rates.take(speaker.identity):
            wait = max(1, round(self.rates.wait(speaker.identity)))
            raise ValueError(
                f"Slow down: at most {self.rates.burst} lines every "
                f"{self.rates.per:g} seconds (wait {wait} s)."
            )
        line = ChatLine(speaker.identity, clean_name(speaker.name, "Player"), cleaned, watching)
        self._add(line)
        if self.publish is not None:
            self.publish(line)
        return line

    def hear(self, line: ChatLine) -> ChatLine:
        """Add a line said through another host (counted and cleaned there; cleaned here
        again all the same: what reaches a terminal is this host's to check)."""
        text = clean_name(line.text, fallback="", limit=MAX_LINE)
        heard = ChatLine(line.identity, clean_name(line.name, "Player"), text, line.watching)
        if text:
            self._add(heard)
        return heard

    def _add(self, line: ChatLine) -> None:
        self.lines.append(line)
        for listener in list(self._listeners):
            listener(line)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with each new line; returns what stops it."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    @property
    def listeners(self) -> int:
        return len(self._listeners)


@dataclass
class Muted:
    """Whom one viewer does not want to read: identities, with the name each was muted
    under (to show which). A viewer's own, never the room's: the muted person is not told,
    and still speaks to everyone else."""

    names: dict[str, str] = field(default_factory=dict)
    changed: Callable[[], None] | None = field(default=None, compare=False, repr=False)
    """Told after each change (the host keeps a guest's mutes by rejoin code)."""

    def __contains__(self, identity: object) -> bool:
        return identity in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def toggle(self, identity: str, name: str) -> bool:
        """Mute `identity`, or unmute them if muted; whether they are muted now."""
        if identity in self.names:
            del self.names[identity]
            muted = False
        else:
            self.names[identity] = name
            while len(self.names) > MUTED_MAX:
                del self.names[next(iter(self.names))]
            muted = True
        if self.changed is not None:
            self.changed()
        return muted

    def take_in(self, kept: Muted) -> None:
        """Mute, too, everyone `kept` mutes (mutes from an earlier connection)."""
        for identity, name in kept.names.items():
            self.names.setdefault(identity, name)
        while len(self.names) > MUTED_MAX:
            del self.names[next(iter(self.names))]


class MuteBook:
    """Each person's mutes, kept by the host while it runs, so a player who reconnects
    still does not read whom they muted. Kept under who they are on every connection: a
    key's fingerprint, or, for a guest (a new identity each connection), their seat's
    rejoin code (`rejoin_key`). Bounded: the least lately used are forgotten first."""

    def __init__(self, keep: int = BOOK_MAX) -> None:
        self.keep = keep
        self._kept: OrderedDict[str, Muted] = OrderedDict()

    def of(self, who: str) -> Muted:
        """The mutes kept under `who` (made empty, and kept, if none yet): one object,
        shared by all of `who`'s sessions."""
        muted = self._kept.get(who)
        if muted is None:
            muted = Muted()
        self.put(who, muted)
        return muted

    def put(self, who: str, muted: Muted) -> None:
        """Keep `muted` under `who` from now on."""
        self._kept[who] = muted
        self._kept.move_to_end(who)
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)

    def adopt(self, who: str, muted: Muted) -> None:
        """A new connection is `who` again (a guest back by rejoin code): `muted` takes
        in what was kept under `who`, and is kept there from now on."""
        kept = self._kept.get(who)
        if kept is not None and kept is not muted:
            muted.take_in(kept)
        self.put(who, muted)

    def __len__(self) -> int:
        return len(self._kept)


def rejoin_key(code: str) -> str:
    """Where a guest's mutes are kept: under their seat's rejoin code."""
    return f"rejoin:{code}"


@dataclass
class ChatSeat:
    """One viewer in one room: who they are, whether they watch (a spectator at a table),
    and whom they have muted (shared by all their rooms)."""

    room: ChatRoom
    me: Speaker
    muted: Muted
    watching: bool = False

    def say(self, text: str) -> ChatLine:
        """Say a line in the room (ValueError: see `ChatRoom.say`)."""
        return self.room.say(self.me, text, watching=self.watching)

    def shown(self, line: ChatLine) -> bool:
        """Whether this viewer reads `line` (their own lines always)."""
        return line.identity == self.me.identity or line.identity not in self.muted

    def visible(self) -> list[ChatLine]:
        """The room's lines this viewer reads, oldest first."""
        return [line for line in self.room.lines if self.shown(line)]

    def toggle_mute(self, line: ChatLine) -> bool:
        """Mute (or unmute) the one who said `line`; ValueError for one's own line."""
        if line.identity == self.me.identity:
            raise ValueError("That is your own line: you cannot mute yourself.")
        return self.muted.toggle(line.identity, line.name)
