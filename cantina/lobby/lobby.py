"""The shared tables of a host: who sits where, who is here, and each table's dealer.

Nothing here draws anything. Each SSH session's screens read this state and follow a
started table through its one `Dealer` (`cantina.dealer`), which plays the AI seats, the
stand-in for a player who is away, and paces what everyone sees; a person's pick goes to
it for their own seat only. The lobby decides who is present: a player is at a table
while a screen of theirs follows it, and a table nobody holds closes (`Lobby.sweep`).

A guest has no key to come back with: each seat of a guest has a rejoin code, shown on
their screen, that puts a new connection back in that seat (`Lobby.rejoin`).

With a durable store (`cantina.store`, `--store redis://…`) the lobby keeps each table's
setup and seats there as they change, its dealer records every decision there, and a host
that starts again reads the open tables back (`Lobby.restore`), each rebuilt from its
seed and its decisions. Who is connected stays in the host.

With a Redis store the lobby is shared by every host using it (`cantina serve --store
redis://…` on any number of processes or machines). Each host follows the lobby's stream
of changes (a Redis stream, not pub/sub: a host that lost its connection for a moment
reads on from the last change it saw, and misses none) and the log stream of each
started table it has a reason to (a screen of its own on it, its AI lease, its own
people seated there), in one blocking read (`_follow`): a table opened, joined, started
or closed on one host shows on the others at once, and each decision recorded at a
table is applied by the dealer of every host following it as it arrives. Another host's
dealer of the table stands where it was, and reads on from there, missing nothing, once
it has a reason to (`_catch_up`): a decision at one table does not wake every host. A
seat is claimed by one script in Redis (`RedisStore.seat`): two hosts cannot give it to
two people; a host that loses the race takes the table as Redis has it. Each second
(`_beat`) a host says who follows each table from it (so a player at a table through
another host is not away, and the table is not swept as empty) and takes or keeps the
lease on the AI seats of the started tables: the host holding it plays them, and the
stand-in; when it dies, its lease lapses and another host, reaching for it each beat,
takes over (its dealer caught up first). The chat of the lobby and of each table goes
through a capped stream per room, read in the same blocking read: a line said on one
host (cleaned, and counted against its speaker's pace there) shows on every other at
once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import msgspec

from cantina.ai.temperament import temperament
from cantina.campaign.errors import explain
from cantina.chat import ChatLine, ChatRates, ChatRoom
from cantina.dealer import Dealer, Pace, apply_entry
from cantina.games.table import IllegalAction
from cantina.live import LiveTable
from cantina.lobby.codes import (
    REJOIN_TRIES,
    REJOIN_TRIES_PER_ADDRESS,
    REJOIN_WINDOW,
    draw_code,
    new_rejoin_code,
)
from cantina.lobby.table import Player, SharedTable, record_of, seated_of
from cantina.seating import MAX_NAME, Seat, TableSetup, clean_name
from cantina.store.memory import InProcessStore, Journal, StoreAway, TableStore
from cantina.store.records import (
    StoredTable,
    decode_setup,
    new_id,
)
from cantina.store.redis_store import HERE_MS, RESERVE_MS, RedisStore, Said, Seating

if TYPE_CHECKING:
    from cantina.campaign.store import OpenCampaign

log = logging.getLogger("cantina.lobby")

STORE_AWAY = (
    "The table store (Redis) is out of reach: the table waits for it, and no decision is lost."
)
STORE_BACK = "Redis is back: play goes on."
STORE_QUIET = 1.0
"""Seconds Redis is out of reach before the tables are told: not for a blip, nor for the
one call, just after Redis came back, that goes out on a connection from before it went
(the players were told "out of reach" then "back" twice over)."""
CODE_TAKEN = (
    "That table closed before it opened: while Redis was out of reach, its code went to"
    " another host's table. Please set it again."
)

MAX_TABLES = 64
TABLES_PER_PLAYER = 2
"""Open tables one player may have set (their unstarted one among them)."""
EMPTY_AFTER = 60.0
"""Seconds a started table nobody follows (no player, no spectator) stays open."""
AWAY_AFTER_LOOKS = 2
ON_THE_WAY = 10.0
"""Seconds after a table starts in which nobody seated at it counts as away for not yet
following it: each player's screen is on its way from the waiting room, and a busy host
may take seconds to put it up ("has left the table" then "is back" would be noise). A
player whose connection ends is away at once all the same."""
FOLLOW_BLOCK_MS = 1000
"""How long one blocking read of the streams waits before it looks again (well under the
client's socket timeout)."""
BEAT = 1.0
"""Seconds between a host's beats: who follows its tables, its leases kept."""
PEOPLE = "lobby"
"""The presence room (beside each table's, under `RedisStore.here_key`) of everyone
connected to any host of a shared lobby: not a table's code (those are upper-case)."""
HOST_VOICE = "cantina:host"
"""The identity of what the host itself says in a chat room."""
CHAT_QUEUE = 1000
"""Lines said here that may wait for a Redis away before the oldest are let go."""
CODE_POOL = MAX_TABLES
"""Join codes a host of a shared lobby holds in Redis ahead of its next tables: as many
as it may open, so a crowd arriving at once is never refused for want of one before a
beat tops the pool up (with 16, twenty players setting up tables in the same second had
four of them refused)."""
CODE_RENEW = RESERVE_MS / 3000
"""Seconds between a host's renewals of its whole pool of codes (a third of how long a
code stays held unrenewed): renewed at every beat, a pool of 64 was 64 scripts a second
to Redis from each host, idle or not. A code drawn is held from then; one whose table's
record is on its way is renewed every beat still (they are few)."""
CODE_ROUNDS = 4
"""Rounds of draws a beat makes at most to top its pool up (each round draws what is
missing at once; a code another host holds, or a table has, is drawn again next round)."""
LEASE_DEFER = 3.0
"""Seconds a host waits, after another host's table starts, before it reaches for the
lease on its AI seats, unless a screen of its own follows the table: the host of the
table's players takes it first (its AI moves then need no trip through Redis to be seen
there, and each host of `--workers N` plays the AI of its own players' tables, not one
host every table's). Once past it, any host takes a lease that lapsed."""
HELD_NEW = 5.0
"""Seconds a table another host opened is not swept here as left by its people: the
other host says who follows it at its next beat."""
"""Looks in a row (one a second) that find a player's table on none of their screens
before they count as away: a moment between two screens is not leaving."""


class Lobby:
    """Every shared table of this host, by join code, and who is connected."""

    def __init__(
        self,
        *,
        away_grace: float = 60.0,
        pace: Pace | None = None,
        tables_per_player: int = TABLES_PER_PLAYER,
        empty_after: float = EMPTY_AFTER,
        rejoin_tries: int = REJOIN_TRIES,
        store: TableStore | None = None,
    ) -> None:
        self.tables: dict[str, SharedTable] = {}
        self.store: TableStore = store if store is not None else InProcessStore()
        """Where the tables are kept: only the host's memory, by default."""
        self.store.on_status(self._store_status)
        self.away_grace = away_grace
        """Seconds an absent player's seat waits before the stand-in AI plays it."""
        self.pace = pace if pace is not None else Pace()
        """How long what happens stays on show at every table of this host."""
        self.tables_per_player = tables_per_player
        """Open tables one player may have set: one address leaving holds no more."""
        self.empty_after = empty_after
        """Seconds a started table with nobody at it (no player, no spectator) stays."""
        self.rejoin_tries = rejoin_tries
        self.connected: dict[str, int] = {}
        """Sessions open now, by identity."""
        self.chat_rates = ChatRates()
        """How often each person may speak, in the lobby and at every table."""
        self.chat = ChatRoom(self.chat_rates)
        """The lobby's own room: everyone connected."""
        self.people: dict[str, Player] = {}
        """Who is connected now, by identity (the name of their newest session)."""
        self.wrong_codes: dict[str, int] = {}
        """Wrong rejoin codes entered, by identity, while connected."""
        self.wrong_from: dict[str, tuple[float, int]] = {}
        """Wrong rejoin codes by address: since when, how many (for REJOIN_WINDOW)."""
        self.shared: RedisStore | None = self.store if isinstance(self.store, RedisStore) else None
        """The store every host shares the lobby through, if any (a Redis)."""
        self.host_id = f"{os.getpid()}-{new_id()}"
        """This host, for the leases it holds (its process first, for whoever looks)."""
        self.elsewhere: dict[str, dict[str, str]] = {}
        """Who follows each table from any host (by the last beat), by code: their
        identities and names."""
        self.everyone: dict[str, str] = {}
        """Who is connected to any host of a shared lobby (by the last beat): identities
        and names, this host's people among them."""
        self._gone: dict[str, float] = {}
        """Who left this host lately, and until when (monotonic) the presence it said of
        them may still be in the store: not among `everyone` meanwhile."""
        self._tasks: list[asyncio.Task[None]] = []
        self._claims: set[asyncio.Task[None]] = set()
        self._catching: set[asyncio.Task[None]] = set()
        """Catch-ups of tables a screen came to (`_screen_came`)."""
        self._stale: set[str] = set()
        self._dealt_elsewhere: dict[str, float] = {}
        """Tables started by another host, by code: when this host's dealer began
        following them (for LEASE_DEFER)."""
        self._claiming: dict[str, int] = {}
        """Seat claims of this host on their way to the store, by table."""
        """Tables to read again once this host's own record of them has been written."""
        self._lobby_id = "0-0"
        self._heard_again = 0.0
        self._store_up = True
        self._told_away = False
        """Whether the tables were told the store is out of reach (and not yet back)."""
        self._telling: asyncio.TimerHandle | None = None
        """The telling of the store's going away, due once it has been away STORE_QUIET."""
        """When (monotonic) every host has said again who is with it, after Redis was
        away: presence read before then is not trusted to find anyone away (`_seen`)."""
        self._following: set[str] = set()
        """The tables whose log the last blocking read asked for (`_worth_following`)."""
        self._leases: set[str] = set()
        """The tables whose AI lease this host held at its last beat."""
        self._beaten = asyncio.Event()
        self.draw_code: Callable[[], str] = draw_code
        """Where new join codes come from (tests force clashes through it)."""
        self._codes: list[str] = []
        """Join codes this host holds in the shared store for its next tables (`_reserve`):
        another host drawing one of them draws again."""
        self._renew_at = 0.0
        """When (monotonic) `_reserve` renews the whole pool next (0: at once, as after
        Redis was away: what it held may have lapsed or gone to another host)."""
        self._lost: dict[str, list[tuple[int, Player]]] = {}
        """Seats given here that Redis gave to someone else, by table: their people are
        told once this host has the table as Redis has it."""
        self._chat_ids: dict[str, str] = {}
        """How far this host has read each room's shared chat ("" the lobby's)."""
        self._chat_out: asyncio.Queue[tuple[str, ChatLine]] = asyncio.Queue(CHAT_QUEUE)
        """Lines said through this host, on their way to the other hosts."""
        if self.shared is not None:
            self.chat.publish = self._sender("")
            self.shared.host = self.host_id
            self.shared.on_taken(self._code_taken)

    # --- people ----------------------------------------------------------------------------

    def player(self, identity: str, name: str, address: str = "") -> Player:
        """The person behind a new session. Their name is cleaned and, when someone else
        here goes by it already (two guests, two keys that log in as ana), numbered
        ("ana 2"), so nobody's lines, seat or name in a list can pass for another's. A
        person with a session here already keeps the name they have."""
        if identity in self.people:
            return replace(self.people[identity], address=address)
        wanted = clean_name(name, "Player")
        taken = {p.name.casefold() for p in self.here_now() if p.identity != identity}
        unique, n = wanted, 2
        while unique.casefold() in taken:
            suffix = f" {n}"
            unique = wanted[: MAX_NAME - len(suffix)].rstrip() + suffix
            n += 1
        return Player(identity, unique, address)

    def arrived(self, player: Player) -> None:
        self.connected[player.identity] = self.connected.get(player.identity, 0) + 1
        self.people[player.identity] = player
        self._gone.pop(player.identity, None)

    def here_now(self) -> list[Player]:
        """Everyone connected to the host, by name; with a shared lobby, to any of its
        hosts (those on others as of the last beat; one who left here is gone at once)."""
        people = dict(self.people)
        for identity, name in self.everyone.items():
            if identity not in people and not self._gone_lately(identity):
                people[identity] = Player(identity, name)
        return sorted(people.values(), key=lambda p: (p.name.casefold(), p.identity))

    def _gone_lately(self, identity: str) -> bool:
        until = self._gone.get(identity)
        if until is None:
            return False
        if until > time.monotonic():
            return True
        del self._gone[identity]
        return False

    def name_of(self, identity: str) -> str:
        person = self.people.get(identity)
        if person is not None:
            return person.name
        if identity in self.everyone:
            return self.everyone[identity]
        for there in self.elsewhere.values():  # connected to another host
            if identity in there:
                return there[identity]
        return "someone"

    def left(self, player: Player) -> None:
        """A session of this person ended; with their last one, they are away from every
        table they sit at (and a seat at a table not yet started is free again)."""
        count = self.connected.get(player.identity, 0) - 1
        if count > 0:
            self.connected[player.identity] = count
            return
        self.connected.pop(player.identity, None)
        self.people.pop(player.identity, None)
        self._gone[player.identity] = time.monotonic() + HERE_MS / 1000 + BEAT
        self.wrong_codes.pop(player.identity, None)
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            table.watchers.pop(player.identity, None)
            seat = table.seat_of(player.identity)
            if seat is None:
                continue
            if table.dealer is None:
                self.leave_unstarted(table, player)
            else:
                table.dealer.set_away(seat, now)

    def here(self, identity: str) -> bool:
        return identity in self.connected

    def _seen(self, table: SharedTable) -> bool:
        """Whether this host knows who follows the table from every host (a shared lobby
        learns it at its next beat, and again after Redis was away: what each host said
        of its people has lapsed there meanwhile, and a host that beats first would find
        nobody said for the others): until then nobody there is away, nor the table left."""
        if self.shared is None:
            return True
        return table.code in self.elsewhere and time.monotonic() >= self._heard_again

    def _there(self, table: SharedTable, identity: str) -> bool:
        """Whether this person follows the table from some host (by the last beat)."""
        return identity in self.elsewhere.get(table.code, ())

    def check_presence(self) -> None:
        """Look at who is at each started table (the host does, every second): a player
        none of whose screens has followed it for two looks in a row is away, and the
        stand-in plays their seat after the grace; coming back to it, they are back."""
        for table in list(self.tables.values()):  # a finished campaign lets its save go
            if table.campaign is not None and table.campaign.campaign.over:
                self.close(table)
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            dealer = table.dealer
            if dealer is None or not self._seen(table):
                continue
            for seat, player in table.seated.items():
                if dealer.watching(player.identity) or self._there(table, player.identity):
                    table.absent.pop(seat, None)
                    table.arrived.add(seat)
                    dealer.set_back(seat)
                    continue
                if seat not in table.arrived and now < table.on_the_way_until:
                    continue
                looks = table.absent[seat] = table.absent.get(seat, 0) + 1
                if looks >= AWAY_AFTER_LOOKS:
                    dealer.set_away(seat, now)

    # --- tables ----------------------------------------------------------------------------

    def open_tables(self) -> list[SharedTable]:
        return sorted(self.tables.values(), key=lambda t: (t.started, t.code))

    def table_of(self, identity: str) -> SharedTable | None:
        """The table where this person has a seat (the newest, if several)."""
        found = [t for t in self.tables.values() if t.seat_of(identity) is not None]
        return found[-1] if found else None

    def tables_of(self, identity: str) -> list[SharedTable]:
        """The open tables this person set (or was passed as creator)."""
        return [t for t in self.tables.values() if t.creator.identity == identity]

    def create(
        self,
        setup: TableSetup,
        creator: Player,
        stand_in: str = "Cautious",
        campaign: OpenCampaign | None = None,
    ) -> SharedTable:
        """A new table with its creator in its first human seat (ValueError when the host
        has as many tables as it keeps, the creator as many as one player may, or the
        setup has no seat for a person). With `campaign`, the table plays that open
        campaign's next round (or the one under way) and closes it when the table closes.
        A table of theirs not yet started closes: one waiting table per creator."""
        started = [t for t in self.tables_of(creator.identity) if t.started]
        if len(started) >= self.tables_per_player:
            raise ValueError(
                f"you have {len(started)} tables open, the most one player may;"
                " join one, or wait until one closes"
            )
        if len(self.tables) >= MAX_TABLES:
            raise ValueError("the host has as many tables as it keeps; join one instead")
        temperament(stand_in)  # ValueError for an unknown temperament
        table = SharedTable(self._new_code(), setup, creator, stand_in, campaign=campaign)
        table.chat = self._room(table)
        if not table.human_seats:
            raise ValueError("mark at least one seat Human: this table is for people")
        for other in self.tables_of(creator.identity):  # one unstarted table per creator
            if not other.started:
                self.close(other)
        self._sit(table, table.human_seats[0], creator)
        self.tables[table.code] = table
        self._keep(table, new=True)
        self._claim(table, table.human_seats[0], "sit", creator)
        self._wake_beat()
        return table

    def _sit(self, table: SharedTable, seat: int, player: Player) -> None:
        """Seat `player`; a guest's seat gets its rejoin code."""
        table.seated[seat] = player
        table.seated_here.add(player.identity)
        table.watchers.pop(player.identity, None)
        if player.guest:
            table.rejoin[seat] = self._new_rejoin_code()

    def find(self, code: str) -> SharedTable | None:
        return self.tables.get(code.strip().upper())

    def join(self, table: SharedTable, player: Player) -> int:
        """Sit `player` at a free human seat (or their own); the seat's number."""
        seat = table.seat_of(player.identity)
        if seat is not None:
            return seat
        if table.started:
            raise ValueError("that table is already playing; you may watch it")
        if not table.free_seats:
            raise ValueError("that table has no free seat; you may watch it")
        seat = table.free_seats[0]
        self._sit(table, seat, player)
        self._keep(table)
        self._claim(table, seat, "sit", player)
        return seat

    def watch(self, table: SharedTable, player: Player) -> None:
        """A screen of `player` watches the table before its start (`unwatch` when it
        goes); once it starts, the table's dealer knows who follows it."""
        table.watchers[player.identity] = table.watchers.get(player.identity, 0) + 1

    def unwatch(self, table: SharedTable, player: Player) -> None:
        count = table.watchers.get(player.identity, 0) - 1
        if count > 0:
            table.watchers[player.identity] = count
        else:
            table.watchers.pop(player.identity, None)

    def rejoin_code(self, table: SharedTable, identity: str) -> str | None:
        """The code that puts this person back in their seat at `table`, if a guest's."""
        seat = table.seat_of(identity)
        return table.rejoin.get(seat) if seat is not None else None

    def rejoin(self, player: Player, code: str) -> SharedTable:
        """Put `player` (a new connection) in the seat whose rejoin code this is: the
        seat is theirs from now on, under the name it had, and the code stays the seat's
        for the next drop. ValueError for a wrong code; after `rejoin_tries` wrong ones
        (or REJOIN_TRIES_PER_ADDRESS from their address lately), for every code: nobody
        guesses at others' seats."""
        now = asyncio.get_running_loop().time()
        since, wrong_here = self.wrong_from.get(player.address, (now, 0))
        if now - since > REJOIN_WINDOW:
            since, wrong_here = now, 0
        if self.wrong_codes.get(player.identity, 0) >= self.rejoin_tries:
            raise ValueError("too many wrong rejoin codes from this connection")
        if player.address and wrong_here >= REJOIN_TRIES_PER_ADDRESS:
            raise ValueError("too many wrong rejoin codes from your address; try again later")
        wanted = code.strip().upper().encode()
        for table in self.tables.values():
            for seat, known in table.rejoin.items():
                if hmac.compare_digest(known.encode(), wanted):
                    return self._reseat(table, seat, player)
        self.wrong_codes[player.identity] = self.wrong_codes.get(player.identity, 0) + 1
        if player.address:
            self.wrong_from[player.address] = (since, wrong_here + 1)
            for address, (began, _) in list(self.wrong_from.items()):  # old ones go
                if now - began > REJOIN_WINDOW:
                    del self.wrong_from[address]
        left = self.rejoin_tries - self.wrong_codes[player.identity]
        more = f"{left} more {'try' if left == 1 else 'tries'}" if left else "no more tries"
        raise ValueError(f"no seat has that rejoin code ({more})")

    def _reseat(self, table: SharedTable, seat: int, player: Player) -> SharedTable:
        before = table.seated[seat]
        if before.identity == player.identity:
            return table
        if table.seat_of(player.identity) is not None:
            raise ValueError("you sit at that table already, in another seat")
        table.seated[seat] = Player(player.identity, before.name)
        table.seated_here.add(player.identity)
        self._claim(table, seat, "reseat", table.seated[seat], before=before.identity)
        if table.dealer is not None:  # the old connection's screen acts for it no more
            table.dealer.owners[seat] = player.identity
        table.watchers.pop(player.identity, None)
        table.absent.pop(seat, None)
        if table.creator.identity == before.identity:
            table.creator = table.seated[seat]
        self._keep(table)
        return table

    def leave_unstarted(self, table: SharedTable, player: Player) -> None:
        """Free this player's seat at a table not yet started; the table closes when the
        last person leaves it, and passes to the next seated person when its creator
        leaves (someone must be able to start it)."""
        seat = table.seat_of(player.identity)
        if seat is None or table.started:
            return
        del table.seated[seat]
        table.rejoin.pop(seat, None)
        self._claim(table, seat, "leave", player)
        if not table.seated or (
            table.campaign is not None and player.identity == table.creator.identity
        ):
            self.close(table)  # a campaign is its owner's: nobody else may start it
        else:
            if table.creator.identity == player.identity:
                table.creator = table.seated[min(table.seated)]
            self._keep(table)

    def sweep(self, empty_after: float | None = None) -> None:
        """Close the tables nobody holds (the host looks every second): one not started
        whose seated players have all left the host, at once; one started that no screen
        has followed (no player at it, no spectator) for `empty_after` seconds (by
        default the lobby's own). One person leaving does not hold tables for long."""
        wait = self.empty_after if empty_after is None else empty_after
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            if not self._seen(table):
                continue
            if table.dealer is None:
                if now < table.held_until:
                    continue
                if not any(
                    self.here(p.identity) or self._there(table, p.identity)
                    for p in table.seated.values()
                ):
                    self.close(table)
            elif table.dealer.followed or self.elsewhere.get(table.code):
                table.empty_since = None
            elif table.empty_since is None:
                table.empty_since = now
            elif now - table.empty_since >= wait:
                self.close(table)

    def start(self, table: SharedTable, by: Player) -> Dealer:
        """The creator starts: the people take their seats under their own names, and the
        stand-in AI fills every human seat left empty."""
        if by.identity != table.creator.identity:
            raise ValueError("only the table's creator starts it")
        if table.dealer is not None:
            return table.dealer
        if table.campaign is not None:
            live = self._campaign_table(table)
        else:
            live = LiveTable(self._seat_people(table))
        table.setup = live.setup
        table.on_the_way_until = asyncio.get_running_loop().time() + ON_THE_WAY
        kept = self.store.durable and table.campaign is None
        dealer = table.dealer = Dealer(
            live,
            pace=self.pace,
            grace=self.away_grace,
            stand_in=table.stand_in,
            journal=Journal(self.store, table.code) if kept else None,
        )
        dealer.owners = {seat: player.identity for seat, player in table.seated.items()}
        if kept and self.shared is not None:
            dealer.plays_ai = False  # until this host holds the table's lease (next beat)
            self._share()
            self._wake_beat()
        self._keep(table)
        if table.campaign is not None:
            table.campaign.on_error = lambda err: dealer.notice(
                f"The campaign could not be saved ({explain(err)}); the next move tries again."
            )
            for seat in table.free_seats:  # nobody took it: the stand-in plays it
                dealer.stand_in_for(seat)
        return dealer.start()

    def _campaign_table(self, table: SharedTable) -> LiveTable:
        """A campaign keeps its roster's names (ValueError when the campaign is over)."""
        assert table.campaign is not None
        return table.campaign.campaign.table()

    def _seat_people(self, table: SharedTable) -> TableSetup:
        """The setup as played: people under their own names, the stand-in in free seats."""
        seats: list[Seat] = []
        names: list[str] = []
        for i, spec in enumerate(table.setup.seats):
            if spec.human and i in table.seated:
                name = table.seated[i].name
                seat = Seat(name)
            elif spec.human:
                name = f"{table.stand_in} {i + 1}"
                seat = Seat(name, table.stand_in)
            else:
                name, seat = spec.name, spec
            if name in names:  # two people called alike: tell them apart
                seat = msgspec.structs.replace(seat, name=clean_name(f"{name} {i + 1}"))
            names.append(seat.name)
            seats.append(seat)
        return msgspec.structs.replace(table.setup, seats=tuple(seats))

    def close(self, table: SharedTable, *, keep: bool = False) -> None:
        """Close a table here; the store forgets it too, unless `keep` (the host stops,
        and starts again with it)."""
        self.tables.pop(table.code, None)
        self._lost.pop(table.code, None)
        self._dealt_elsewhere.pop(table.code, None)
        if not keep and self.store.durable:
            self.store.drop(table.code)
        if table.dealer is not None:
            table.dealer.close()
        if table.campaign is not None:  # saved after every move; let other cantinas at it
            table.campaign.close()
            table.campaign = None

    def close_all(self) -> None:
        """The host stops: every table ends here, and one kept in a durable store stays
        there, for the host to take up again when it starts."""
        if self._telling is not None:
            self._telling.cancel()
        for task in [*self._tasks, *self._claims, *self._catching]:
            task.cancel()
        self._tasks.clear()
        for table in list(self.tables.values()):
            self.close(table, keep=True)

    # --- the store -------------------------------------------------------------------------

    def _keep(self, table: SharedTable, *, new: bool = False) -> None:
        """Keep the table's setup and seats in a durable store (a campaign's table is
        kept by its own save, after every decision, and not here)."""
        if self.store.durable and table.campaign is None:
            self.store.save(record_of(table), new=new)

    def _store_status(self, available: bool) -> None:
        """Tell every table kept in the store that it went away, once it has been away
        STORE_QUIET, and that it is back, if they were told (and, back, judge nobody away
        until every host has had a beat to say who is with it)."""
        self._store_up = available
        if not available:
            if not self._told_away and self._telling is None:
                loop = asyncio.get_running_loop()
                self._telling = loop.call_later(STORE_QUIET, self._tell_away)
            return
        self._heard_again = time.monotonic() + 2 * BEAT
        if self._telling is not None:
            self._telling.cancel()
            self._telling = None
        if self._told_away:
            self._told_away = False
            self._tell_tables(STORE_BACK)

    def _tell_away(self) -> None:
        self._telling = None
        if not self._store_up:
            self._told_away = True
            self._tell_tables(STORE_AWAY)

    def _tell_tables(self, notice: str) -> None:
        """Tell the people at every table kept in the store (and so waiting on it)."""
        for table in self.tables.values():
            if table.dealer is not None and table.dealer.journal is not None:
                table.dealer.notice(notice)

    async def restore(self) -> list[str]:
        """Read back the open tables of a durable store, each started one rebuilt from
        its seed and its decisions, its dealer going on where it stood (StoreAway when the
        store cannot be reached; StoreRefused when a Redis refuses this host). A table that
        cannot be rebuilt is logged and left. The codes of the tables restored."""
        if not self.store.durable:
            return []
        if self.shared is not None:
            await self.shared.ping()
            self._lobby_id = await self.shared.lobby_id()
            await self._reserve(self.shared)
        held = asyncio.get_running_loop().time() + self.empty_after
        for stored in await self.store.load():
            try:
                table = self._rebuilt(stored)
            except (ValueError, IllegalAction) as err:
                log.warning(
                    "table %s cannot be rebuilt from the store: %s", stored.record.code, err
                )
                continue
            table.held_until = held
            self.tables[table.code] = table
            if table.dealer is not None:
                table.dealer.start()
        self._share()
        return list(self.tables)

    def _rebuilt(self, stored: StoredTable) -> SharedTable:
        record = stored.record
        setup = decode_setup(record.setup)
        creator = Player(record.creator.identity, record.creator.name)
        table = SharedTable(record.code, setup, creator, record.stand_in)
        table.chat = self._room(table)
        table.seated = seated_of(record, setup)
        table.rejoin = dict(record.rejoin)
        if not record.started:
            return table
        live = LiveTable(setup)
        for entry in stored.entries:
            apply_entry(live, entry)
        journal = Journal(self.store, record.code, len(stored.entries))
        dealer = table.dealer = Dealer(
            live, pace=self.pace, grace=self.away_grace, stand_in=table.stand_in, journal=journal
        )
        dealer.owners = {seat: player.identity for seat, player in table.seated.items()}
        dealer.caught_up()
        if self.shared is not None:
            dealer.plays_ai = False  # until this host holds the table's lease
            dealer.on_follow = partial(self._screen_came, record.code)
        return table

    # --- many hosts ------------------------------------------------------------------------

    def _claim(
        self, table: SharedTable, seat: int, mode: str, player: Player, before: str = ""
    ) -> None:
        """Claim (or free, or pass on) a seat in the shared store, for every host: if
        another host gave it to someone first, this host takes the table as Redis has it."""
        if self.shared is None or table.campaign is not None:
            return
        who = Seating(player.identity, player.name, table.rejoin.get(seat, ""))
        shared = self.shared

        async def claim() -> None:
            try:
                for _ in range(20):
                    try:
                        done = await shared.seat(table.code, seat, mode, who, before)
                        break
                    except StoreAway:
                        stop_if_cancelled()
                        await asyncio.sleep(0.5)
                else:
                    return
            finally:
                self._claiming[table.code] -= 1
                if not self._claiming[table.code]:
                    del self._claiming[table.code]
            if not done:
                log.info("seat %d of table %s went to someone else", seat, table.code)
            if not done and mode != "leave":
                self._lost.setdefault(table.code, []).append((seat, player))
            await self._refresh(table.code)

        self._claiming[table.code] = self._claiming.get(table.code, 0) + 1

        task = asyncio.get_running_loop().create_task(claim())
        self._claims.add(task)
        task.add_done_callback(self._claims.discard)

    def _code_taken(self, code: str) -> None:
        """A table set here while Redis was out of reach found its code gone to another
        host's table when Redis came back (the store wrote nothing of it): it closes here,
        its people told why, and the code's table, the other host's, is read instead."""
        table = self.tables.get(code)
        if table is None or table.campaign is not None:
            return
        table.closed_why = CODE_TAKEN
        self.close(table, keep=True)  # keep: what Redis has under the code is not ours
        self._stale.add(code)

    def _seat_lost(self, table: SharedTable, seat: int, player: Player) -> None:
        """Tell the person a seat given here went to someone else through another host, in
        one line of the table's chat on this host (their waiting room shows it): they are
        not left looking at a seat that is not theirs."""
        if table.seat_of(player.identity) is not None:
            return
        winner = table.seated.get(seat)
        by = f" to {winner.name}" if winner is not None else ""
        table.chat.hear(
            ChatLine(
                HOST_VOICE,
                "Cantina",
                f"{player.name}: seat {seat + 1} went{by} a moment before you, through"
                " another host; you may watch, or leave for another table.",
            )
        )

    def _share(self) -> None:
        """Follow the shared lobby and beat, from now on (a lobby on a Redis store)."""
        if self.shared is not None and not self._tasks:
            loop = asyncio.get_running_loop()
            self._tasks = [
                loop.create_task(self._follow(self.shared), name="lobby-follow"),
                loop.create_task(self._beat(self.shared), name="lobby-beat"),
                loop.create_task(self._send_chat(self.shared), name="lobby-chat"),
            ]

    def _room(self, table: SharedTable) -> ChatRoom:
        """A table's chat room: shared with every host, unless its campaign keeps the
        table to this host."""
        room = ChatRoom(self.chat_rates)
        if self.shared is not None and table.campaign is None:
            room.publish = self._sender(table.code)
        return room

    def _sender(self, room: str) -> Callable[[ChatLine], None]:
        def send(line: ChatLine) -> None:
            try:
                self._chat_out.put_nowait((room, line))
            except asyncio.QueueFull:
                log.warning("chat: a line said here was not sent on (Redis away too long)")

        return send

    async def _send_chat(self, shared: RedisStore) -> None:
        """Send each line said here to the other hosts, in order; while Redis is away,
        try again every half second."""
        while True:
            room, line = await self._chat_out.get()
            said = Said(self.host_id, line.identity, line.name, line.text, line.watching)
            while True:
                try:
                    await shared.say(room, said)
                    break
                except StoreAway:
                    await asyncio.sleep(0.5)

    def _heard(self, room: str, lines: list[Said]) -> None:
        """Lines said in a room through other hosts (this host's own are shown already)."""
        if room:
            table = self.tables.get(room)
            chat = table.chat if table is not None else None
        else:
            chat = self.chat
        if chat is None:
            return
        for said in lines:
            if said.host != self.host_id:
                chat.hear(ChatLine(said.identity, said.name, said.text, said.watching))

    def _wake_beat(self) -> None:
        self._beaten.set()

    def _worth_following(self) -> set[str]:
        """The started tables whose log this host reads: one a screen of its own shows,
        one whose AI lease it holds, one its own people sit at (connected here, or seated
        through this host). Another host's decisions at any other table wake nothing
        here; its dealer stands where it was, and reads on from there once the table is
        worth following (`_catch_up`)."""
        return {
            code
            for code, table in self.tables.items()
            if table.dealer is not None
            and (
                table.dealer.followed
                or code in self._leases
                or any(
                    who in table.seated_here or self.here(who)
                    for who in (player.identity for player in table.seated.values())
                )
            )
        }

    async def _follow(self, shared: RedisStore) -> None:
        """Follow the lobby's changes and the logs of the started tables worth following
        (`_worth_following`), in one blocking read: a changed table is read again, a
        logged decision applied by its dealer. A table that becomes worth following first
        catches up from the version its dealer stands at (`_catch_up`): nothing is
        missed, and what went by unread is applied at once, not shown step by step."""
        away = False
        while True:
            try:
                if away:  # back after a gap: read every table again
                    away = False
                    for code in (await shared.codes()) | set(self.tables):
                        await self._refresh(code)
                worth = self._worth_following()
                for code in sorted(worth - self._following):  # newly: what it missed, at once
                    await self._catch_up(shared, code)
                logs = {
                    code: table.dealer.journal.version
                    for code, table in self.tables.items()
                    if code in worth
                    and table.dealer is not None
                    and table.dealer.journal is not None
                }
                self._following = set(logs)
                rooms = [""] + [c for c, t in self.tables.items() if t.campaign is None]
                chat = {room: self._chat_ids.get(room, "0-0") for room in rooms}
                self._chat_ids = chat  # a closed table's room is read no more
                changes = await shared.follow(self._lobby_id, logs, FOLLOW_BLOCK_MS, chat)
                self._lobby_id = changes.lobby_id
                for room, (read, lines) in changes.chat.items():
                    self._chat_ids[room] = read
                    self._heard(room, lines)
                for code in sorted(changes.tables | self._stale):
                    await self._refresh(code)
                for code, items in changes.logs.items():
                    table = self.tables.get(code)
                    if table is not None and table.dealer is not None:
                        await table.dealer.absorb(items)
            except StoreAway:
                stop_if_cancelled()
                away = True
                self._renew_at = 0.0  # its codes too, at the first beat Redis answers
                await asyncio.sleep(0.5)
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad table must not stop this host following the rest
                stop_if_cancelled()
                log.exception("following the shared lobby failed")
                await asyncio.sleep(0.5)

    async def _refresh(self, code: str) -> None:
        """Take a table as the shared store has it now: new here, changed (seats, its
        creator, started), or gone (closed by another host) (StoreAway)."""
        assert self.shared is not None
        table = self.tables.get(code)
        if table is not None and table.campaign is not None:
            return  # a campaign's table is its host's alone
        if self.shared.pending(code) or code in self._claiming:
            self._stale.add(code)  # this host's own change is on its way: read it after
            return
        self._stale.discard(code)
        stored = await self.shared.table(code, entries=False)
        if stored is None:
            if table is not None:
                self.close(table, keep=True)  # the store has forgotten it already
            return
        record = stored.record
        if table is None:
            if len(self.tables) >= MAX_TABLES:
                return
            entries = await self.shared.entries(code) if record.started else []
            try:
                table = self._rebuilt(StoredTable(record, entries))
            except (ValueError, IllegalAction) as err:
                log.warning("table %s cannot be rebuilt from the store: %s", code, err)
                return
            if code in self.tables:  # made here meanwhile
                return
            now = asyncio.get_running_loop().time()
            table.held_until = now + HELD_NEW
            self.tables[code] = table
            if table.dealer is not None:
                self._dealt_elsewhere[code] = now
                table.dealer.start()
            return
        if record.started and table.dealer is None:
            table.setup = decode_setup(record.setup)  # as played
        table.creator = Player(record.creator.identity, record.creator.name)
        table.seated = seated_of(record, table.setup)
        table.rejoin = dict(record.rejoin)
        for seat, player in self._lost.pop(code, []):
            self._seat_lost(table, seat, player)
        if table.dealer is not None:
            table.dealer.owners = {seat: p.identity for seat, p in table.seated.items()}
            return
        if record.started:
            entries = await self.shared.entries(code)
            if table.dealer is not None or self.tables.get(code) is not table:
                return
            live = LiveTable(table.setup)
            journal = Journal(self.store, code)
            dealer = Dealer(live, pace=self.pace, grace=self.away_grace, stand_in=table.stand_in)
            dealer.journal = journal
            dealer.owners = {seat: p.identity for seat, p in table.seated.items()}
            dealer.plays_ai = False
            dealer.on_follow = partial(self._screen_came, code)
            for entry in entries:  # begun a moment ago: shown from its start here
                apply_entry(live, entry)
                journal.version += 1
            table.dealer = dealer
            now = asyncio.get_running_loop().time()
            table.on_the_way_until = now + ON_THE_WAY
            self._dealt_elsewhere[code] = now
            dealer.start()

    async def _beat(self, shared: RedisStore) -> None:
        """Each second: say who follows each table from this host, learn who does from
        any, and take or keep the lease on the AI seats of the started tables."""
        while True:
            self._beaten.clear()
            here: dict[str, dict[str, str]] = {}
            for code, table in self.tables.items():
                if table.dealer is not None:
                    who_here = table.dealer.present()
                else:
                    seated = {p.identity for p in table.seated.values()}
                    who_here = {who for who in seated if self.here(who)} | set(table.watchers)
                here[code] = {who: self.name_of(who) for who in who_here}
            here[PEOPLE] = {identity: person.name for identity, person in self.people.items()}
            now = asyncio.get_running_loop().time()
            leases = [
                code
                for code, table in self.tables.items()
                if table.dealer is not None
                and table.dealer.journal is not None
                and (
                    table.dealer.followed
                    or now >= self._dealt_elsewhere.get(code, now - LEASE_DEFER) + LEASE_DEFER
                )
            ]
            try:
                await self._reserve(shared)
                present, held = await shared.beat(self.host_id, here, leases)
                self.everyone = present.pop(PEOPLE, {})
                self.elsewhere = present
            except StoreAway:
                stop_if_cancelled()
                held = set()
                self._renew_at = 0.0  # the whole pool again once Redis is back
            for code, table in self.tables.items():
                table.elsewhere = set(self.elsewhere.get(code, ()))
                if table.dealer is not None:
                    table.dealer.elsewhere = table.elsewhere
            for code in leases:
                dealer = self.tables[code].dealer if code in self.tables else None
                if dealer is None:
                    continue
                if code in held and not dealer.plays_ai and code not in self._following:
                    await self._catch_up(shared, code)  # taken over: from where it stands
                dealer.set_plays_ai(code in held)
            self._leases = held
            with contextlib.suppress(TimeoutError):  # not wait_for: see stop_if_cancelled
                async with asyncio.timeout(BEAT):
                    await self._beaten.wait()
            stop_if_cancelled()

    def _screen_came(self, code: str) -> None:
        """A screen here began to follow a table: if this host was not reading its log,
        it catches up at once, so the screen shows the table as it stands (the blocking
        read under way would come round to it only when it ends, up to a second on)."""
        if self.shared is None or code in self._following:
            return
        task = asyncio.get_running_loop().create_task(self._catch_up(self.shared, code))
        self._catching.add(task)
        task.add_done_callback(self._catching.discard)

    async def _catch_up(self, shared: RedisStore, code: str) -> None:
        """Apply at once what a table's log holds past its dealer here (a table this host
        did not follow: a screen came to it, or it takes its AI lease), and count it as
        shown: its viewers and its AI take the table as it is now (StoreAway: left to
        the next blocking read, which reads the table on from its dealer's version)."""
        table = self.tables.get(code)
        dealer = table.dealer if table is not None else None
        if dealer is None or dealer.journal is None:
            return
        after = dealer.journal.version
        try:
            missed = await shared.entries(code, after)
        except StoreAway:
            stop_if_cancelled()
            return
        if await dealer.absorb([(after + 1 + i, e) for i, e in enumerate(missed)]):
            dealer.caught_up()

    async def _reserve(self, shared: RedisStore) -> None:
        """Keep holding this host's join codes for its next tables (every CODE_RENEW) and
        those of its new tables whose record is still on its way (every beat), and draw
        more until it holds CODE_POOL: a code a table has, or another host holds, is drawn
        again (StoreAway). One round trip for each, and none for a pool full and not due."""
        waiting = [code for code in self.tables if shared.pending(code)]
        now = time.monotonic()
        if now >= self._renew_at:
            held = await shared.reserve(self.host_id, [*self._codes, *waiting])
            self._codes = [code for code in self._codes if code in held]
            self._renew_at = now + CODE_RENEW
        elif waiting:
            await shared.reserve(self.host_id, waiting)
        for _ in range(CODE_ROUNDS):
            drawn: list[str] = []
            for _ in range(CODE_POOL - len(self._codes)):
                code = self.draw_code()
                if code not in self.tables and code not in self._codes and code not in drawn:
                    drawn.append(code)
            if not drawn:
                break
            held = await shared.reserve(self.host_id, drawn)
            self._codes += [code for code in drawn if code in held]

    def _new_code(self) -> str:
        """A join code no open table has: with a shared lobby this host follows (since
        `restore`), one it holds in the store (ValueError when it holds none just now)."""
        if self.shared is not None and self._tasks:
            while self._codes:
                code = self._codes.pop(0)
                if code not in self.tables:
                    self._wake_beat()  # draw the next one
                    return code
            self._wake_beat()
            raise ValueError("no table code is free just now (is Redis away?); try again")
        while True:
            code = self.draw_code()
            if code not in self.tables:
                return code

    def _new_rejoin_code(self) -> str:
        return new_rejoin_code(
            {code for table in self.tables.values() for code in table.rejoin.values()}
        )


def stop_if_cancelled() -> None:
    """End the task running this if it was asked to stop. A call to Redis cut short by
    the cancel can come out as a lost connection (StoreAway), and Python 3.11's
    `wait_for` can drop a cancel that meets its timeout: the lobby's loops, which go on
    when Redis is away, would then go on for ever after the host stopped them (and hold
    up the host's exit)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
