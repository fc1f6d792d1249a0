"""The `Lobby`: the one place a host's sessions ask for its shared tables, who is at
them and who is here.

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
seed and its decisions. Who is connected stays in the host. With a Redis store the lobby
is shared by every host using it (`cantina.lobby.hosts`).

The lobby coordinates: who is here is `presence`, the codes `codes` and `code_pool`, the
chat `rooms`, the store's away and back `notices`, who sits where `seats`, each table's
dealer `dealers`, the other hosts `hosts`. It owns each of them and tells them what they
need; none calls it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from cantina.ai.temperament import temperament
from cantina.chat import ChatRoom
from cantina.dealer import Dealer, Pace
from cantina.games.table import IllegalAction
from cantina.lobby.code_pool import CodePool
from cantina.lobby.codes import REJOIN_TRIES, WrongCodes, draw_code
from cantina.lobby.dealers import Dealers
from cantina.lobby.hosts import ManyHosts
from cantina.lobby.notices import StoreNotices
from cantina.lobby.presence import Presence
from cantina.lobby.rooms import ChatRooms
from cantina.lobby.seats import Seats
from cantina.lobby.table import MAX_TABLES, Player, SharedTable, keep_table
from cantina.seating import TableSetup
from cantina.store.memory import InProcessStore, TableStore
from cantina.store.records import new_id
from cantina.store.redis_store import RedisStore

if TYPE_CHECKING:
    from cantina.campaign.store import OpenCampaign

log = logging.getLogger("cantina.lobby")

TABLES_PER_PLAYER = 2
"""Open tables one player may have set (their unstarted one among them)."""
EMPTY_AFTER = 60.0
"""Seconds a started table nobody follows (no player, no spectator) stays open."""
LEFT_UNSTARTED = "That table was closed: {name} left it before it started."
"""What those watching a table not yet started hear when the one who could start it left
(the last seated, or a campaign's owner), not only that it closed."""


class Lobby:
    """Every shared table of this host, by join code, and who is connected."""

    def __init__(
        self,
        *,
        away_grace: float = 60.0,
        pace: Pace | None = None,
        tables_per_player: int = TABLES_PER_PLAYER,
        max_tables: int = MAX_TABLES,
        empty_after: float = EMPTY_AFTER,
        rejoin_tries: int = REJOIN_TRIES,
        store: TableStore | None = None,
    ) -> None:
        self.tables: dict[str, SharedTable] = {}
        self.store: TableStore = store if store is not None else InProcessStore()
        """Where the tables are kept: only the host's memory, by default."""
        self.away_grace = away_grace
        """Seconds an absent player's seat waits before the stand-in AI plays it."""
        self.pace = pace if pace is not None else Pace()
        """How long what happens stays on show at every table of this host."""
        self.tables_per_player = tables_per_player
        """Open tables one player may have set: one address leaving holds no more."""
        self.max_tables = max_tables
        """Open tables this host keeps (with a shared lobby, the whole cantina's)."""
        self.empty_after = empty_after
        """Seconds a started table with nobody at it (no player, no spectator) stays."""
        self.wrong = WrongCodes(rejoin_tries)
        """Wrong rejoin codes entered, by person and by address."""
        self.shared: RedisStore | None = self.store if isinstance(self.store, RedisStore) else None
        """The store every host shares the lobby through, if any (a Redis)."""
        self.host_id = f"{os.getpid()}-{new_id()}"
        """This host, for the leases it holds (its process first, for whoever looks)."""
        self.presence = Presence(shared=self.shared is not None)
        self.notices = StoreNotices(self.tables, self.presence)
        self.store.on_status(self.notices.status)
        self.rooms = ChatRooms(self.tables, self.shared, self.host_id)
        self.draw_code: Callable[[], str] = draw_code
        """Where new join codes come from (tests force clashes through it)."""
        self.pool = CodePool(self.tables, self.host_id, lambda: self.draw_code())  # as it is then
        self.dealers = Dealers(self.store, self.rooms, pace=self.pace, away_grace=self.away_grace)
        self.hosts = ManyHosts(
            self.tables,
            self.shared,
            self.host_id,
            presence=self.presence,
            rooms=self.rooms,
            pool=self.pool,
            dealers=self.dealers,
            notices=self.notices,
            max_tables=max_tables,
        )
        self.seats = Seats(self.tables, self.store, self.hosts, self.wrong)

    @property
    def chat(self) -> ChatRoom:
        """The lobby's own room: everyone connected."""
        return self.rooms.lobby

    @property
    def wrong_codes(self) -> dict[str, int]:
        """Wrong rejoin codes entered, by identity, while connected."""
        return self.wrong.by_identity

    @property
    def people(self) -> dict[str, Player]:
        """Who is connected now, by identity."""
        return self.presence.people

    @property
    def elsewhere(self) -> dict[str, dict[str, str]]:
        """Who follows each table from any host (by the last beat), by code."""
        return self.presence.elsewhere

    @property
    def _codes(self) -> list[str]:
        """The join codes this host holds ahead of its next tables (`CodePool.codes`)."""
        return self.pool.codes

    # --- people ----------------------------------------------------------------------------

    def player(self, identity: str, name: str, address: str = "") -> Player:
        """The person behind a new session (`Presence.player`)."""
        return self.presence.player(identity, name, address)

    def arrived(self, player: Player) -> None:
        self.presence.arrived(player)

    def here_now(self) -> list[Player]:
        """Everyone connected (`Presence.here_now`)."""
        return self.presence.here_now()

    def name_of(self, identity: str) -> str:
        return self.presence.name_of(identity)

    def here(self, identity: str) -> bool:
        return self.presence.here(identity)

    def left(self, player: Player) -> None:
        """A session of this person ended; with their last one, they are away from every
        table they sit at (and a seat at a table not yet started is free again)."""
        if not self.presence.went(player):
            return
        self.wrong.forget(player.identity)
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

    def check_presence(self) -> None:
        """Look at who is at each started table (the host does, every second): a player
        none of whose screens has followed it for two looks in a row is away, and the
        stand-in plays their seat after the grace; coming back to it, they are back."""
        for table in list(self.tables.values()):  # a finished campaign lets its save go
            if table.campaign is not None and table.campaign.campaign.over:
                self.close(table)
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            self.presence.look(table, now)

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
        if len(self.tables) >= self.max_tables:
            raise ValueError("the host has as many tables as it keeps; join one instead")
        temperament(stand_in)  # ValueError for an unknown temperament
        table = SharedTable(self._new_code(), setup, creator, stand_in, campaign=campaign)
        table.chat = self.rooms.room(table)
        if not table.human_seats:
            raise ValueError("mark at least one seat Human: this table is for people")
        for other in self.tables_of(creator.identity):  # one unstarted table per creator
            if not other.started:
                self.close(other)
        self.seats.sit(table, table.human_seats[0], creator)
        self.tables[table.code] = table
        keep_table(self.store, table, new=True)
        self.hosts.claim(table, table.human_seats[0], "sit", creator)
        self.hosts.wake_beat()
        log.info(
            "table %s set: %s, %d seats, by %r%s",
            table.code,
            setup.game,
            len(setup.seats),
            creator.name,
            " (a campaign)" if campaign is not None else "",
        )
        return table

    def find(self, code: str) -> SharedTable | None:
        return self.tables.get(code.strip().upper())

    def join(self, table: SharedTable, player: Player) -> int:
        """Sit `player` at a free human seat (or their own); the seat's number."""
        return self.seats.join(table, player)

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
        """Put `player` (a new connection) in the seat whose rejoin code this is
        (`Seats.rejoin`: ValueError for a wrong code, and for every code after too many)."""
        table = self.seats.rejoin(player, code)
        log.info(
            "table %s: seat %s taken back by its rejoin code as %r",
            table.code,
            table.seat_of(player.identity),
            player.name,
        )
        return table

    def leave_unstarted(self, table: SharedTable, player: Player) -> None:
        """Free this player's seat at a table not yet started; the table closes when the
        last person leaves it, and passes to the next seated person when its creator
        leaves (someone must be able to start it)."""
        seat = table.seat_of(player.identity)
        if seat is not None and not table.started and self.seats.leave(table, player, seat):
            table.closed_why = LEFT_UNSTARTED.format(name=player.name)
            self.close(table, why=f"{player.name!r} left it before it started")

    def sweep(self, empty_after: float | None = None) -> None:
        """Close the tables nobody holds (the host looks every second): one not started
        whose seated players have all left the host, at once; one started that no screen
        has followed (no player at it, no spectator) for `empty_after` seconds (by
        default the lobby's own). One person leaving does not hold tables for long."""
        wait = self.empty_after if empty_after is None else empty_after
        now = asyncio.get_running_loop().time()
        for table in self.presence.unheld(list(self.tables.values()), now, wait):
            self.close(table)

    def start(self, table: SharedTable, by: Player) -> Dealer | None:
        """The creator starts: the people take their seats under their own names, and the
        stand-in AI fills every human seat left empty. With a shared lobby the start goes
        to Redis first, checked there against the seats it holds (`ManyHosts.start`): the
        table starts here once Redis has it started (None until then; its waiting room
        follows it as it does)."""
        if by.identity != table.creator.identity:
            raise ValueError("only the table's creator starts it")
        if table.dealer is not None:
            return table.dealer
        if table.starting:
            return None
        if self.shared is not None and table.campaign is None:
            self.hosts.start(table, by, partial(self._deal, kept=True))
            return None
        return self._deal(table)

    async def started(self, table: SharedTable, by: Player) -> Dealer | None:
        """Start the table (`start`) and wait until it has: its dealer, or None if it did
        not start (closed meanwhile, or its creator asked to press s again)."""
        if self.start(table, by) is None:
            await self.hosts.started(table.code)
        return table.dealer

    def _deal(self, table: SharedTable, *, kept: bool = False) -> Dealer:
        """Deal a table starting here (`kept`: the shared store has its start already)."""
        dealer = self.dealers.starting(table)
        dealer.on_follow = partial(self.notices.came, table)  # its players' screens
        if dealer.journal is not None and self.shared is not None:
            dealer.plays_ai = False  # until this host holds the table's lease (next beat)
            self.hosts.share()
            self.hosts.wake_beat()
        if not kept:
            keep_table(self.store, table)
        log.info(
            "table %s started: %s",
            table.code,
            ", ".join(repr(p.name) for p in table.seated.values()),
        )
        return dealer.start()

    def close(self, table: SharedTable, *, keep: bool = False, why: str = "") -> None:
        """Close a table here; the store forgets it too, unless `keep` (the host stops,
        and starts again with it). `why` is for the host's log (its people are told
        `closed_why`)."""
        self.tables.pop(table.code, None)
        self.hosts.forget(table.code)
        if not keep and self.store.durable:
            self.store.drop(table.code)
        if not keep:
            why = why or table.closed_why
            log.info("table %s closed%s", table.code, f": {why}" if why else "")
        table.end()

    def close_all(self) -> None:
        """The host stops: every table ends here, and one kept in a durable store stays
        there, for the host to take up again when it starts."""
        self.notices.stop()
        self.hosts.stop()
        for table in list(self.tables.values()):
            self.close(table, keep=True)

    # --- the store -------------------------------------------------------------------------

    async def restore(self) -> list[str]:
        """Read back the open tables of a durable store, each started one rebuilt from
        its seed and its decisions, its dealer going on where it stood (StoreAway when the
        store cannot be reached; StoreRefused when a Redis refuses this host). A table that
        cannot be rebuilt is logged and left. The codes of the tables restored."""
        if not self.store.durable:
            return []
        await self.hosts.begin()
        now = asyncio.get_running_loop().time()
        held = now + self.empty_after
        for stored in await self.store.load():
            try:
                table = self.dealers.rebuilt(stored)
            except (ValueError, IllegalAction) as err:
                log.warning(
                    "table %s cannot be rebuilt from the store: %s", stored.record.code, err
                )
                continue
            self.hosts.adopt(table)
            table.held_until = held
            # Nobody holds it yet, as far as this host knows: the hold above is all the
            # wait its people get, whichever host they sat down through (`unheld`).
            table.empty_since = now
            self.tables[table.code] = table
            if table.dealer is not None:
                table.dealer.start()
        self.hosts.share()
        return list(self.tables)

    # --- codes -----------------------------------------------------------------------------

    def _new_code(self) -> str:
        """A join code no open table has: with a shared lobby this host follows (since
        `restore`), one it holds in the store (ValueError when it holds none just now)."""
        held = self.shared is not None and self.hosts.following
        if held:
            self.hosts.wake_beat()  # draw the next one
        return self.pool.new_code(held=held)
