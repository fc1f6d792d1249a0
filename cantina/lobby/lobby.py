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

The lobby coordinates: who is here is `presence`, the codes `codes` and `code_pool`, the
chat `rooms`, the store's away and back `notices`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from cantina.ai.temperament import temperament
from cantina.campaign.errors import explain
from cantina.chat import ChatLine, ChatRoom
from cantina.dealer import Dealer, Pace, apply_entry
from cantina.games.table import IllegalAction
from cantina.live import LiveTable
from cantina.lobby.code_pool import CodePool
from cantina.lobby.codes import REJOIN_TRIES, WrongCodes, draw_code, new_rejoin_code
from cantina.lobby.notices import StoreNotices
from cantina.lobby.presence import BEAT, ON_THE_WAY, Presence
from cantina.lobby.rooms import HOST_VOICE, ChatRooms
from cantina.lobby.table import (
    MAX_TABLES,
    Player,
    SharedTable,
    campaign_table,
    record_of,
    seat_people,
    seated_of,
)
from cantina.seating import TableSetup
from cantina.store.memory import InProcessStore, Journal, StoreAway, TableStore
from cantina.store.records import StoredTable, decode_setup, new_id
from cantina.store.redis_store import RedisStore, Seating

if TYPE_CHECKING:
    from cantina.campaign.store import OpenCampaign

log = logging.getLogger("cantina.lobby")

TABLES_PER_PLAYER = 2
"""Open tables one player may have set (their unstarted one among them)."""
EMPTY_AFTER = 60.0
"""Seconds a started table nobody follows (no player, no spectator) stays open."""
CODE_TAKEN = (
    "That table closed before it opened: while Redis was out of reach, its code went to"
    " another host's table. Please set it again."
)
FOLLOW_BLOCK_MS = 1000
"""How long one blocking read of the streams waits before it looks again (well under the
client's socket timeout)."""
PEOPLE = "lobby"
"""The presence room (beside each table's, under `RedisStore.here_key`) of everyone
connected to any host of a shared lobby: not a table's code (those are upper-case)."""
LEASE_DEFER = 3.0
"""Seconds a host waits, after another host's table starts, before it reaches for the
lease on its AI seats, unless a screen of its own follows the table: the host of the
table's players takes it first (its AI moves then need no trip through Redis to be seen
there, and each host of `--workers N` plays the AI of its own players' tables, not one
host every table's). Once past it, any host takes a lease that lapsed."""
HELD_NEW = 5.0
"""Seconds a table another host opened is not swept here as left by its people: the
other host says who follows it at its next beat."""


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
        self.away_grace = away_grace
        """Seconds an absent player's seat waits before the stand-in AI plays it."""
        self.pace = pace if pace is not None else Pace()
        """How long what happens stays on show at every table of this host."""
        self.tables_per_player = tables_per_player
        """Open tables one player may have set: one address leaving holds no more."""
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
        self._start_hosts()
        if self.shared is not None:
            self.shared.host = self.host_id
            self.shared.on_taken(self._code_taken)

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
        if len(self.tables) >= MAX_TABLES:
            raise ValueError("the host has as many tables as it keeps; join one instead")
        temperament(stand_in)  # ValueError for an unknown temperament
        table = SharedTable(self._new_code(), setup, creator, stand_in, campaign=campaign)
        table.chat = self.rooms.room(table)
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
        self.wrong.check(player.identity, player.address, now)
        wanted = code.strip().upper().encode()
        for table in self.tables.values():
            for seat, known in table.rejoin.items():
                if hmac.compare_digest(known.encode(), wanted):
                    return self._reseat(table, seat, player)
        raise self.wrong.wrong(player.identity, player.address, now)

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
            if not self.presence.seen(table):
                continue
            if table.dealer is None:
                if now < table.held_until:
                    continue
                if not any(
                    self.presence.here(p.identity) or self.presence.there(table, p.identity)
                    for p in table.seated.values()
                ):
                    self.close(table)
            elif table.dealer.followed or self.presence.elsewhere.get(table.code):
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
            live = campaign_table(table)
        else:
            live = LiveTable(seat_people(table))
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
        self.notices.stop()
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
            await self.pool.reserve(self.shared)
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
        table.chat = self.rooms.room(table)
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

    def _new_code(self) -> str:
        """A join code no open table has: with a shared lobby this host follows (since
        `restore`), one it holds in the store (ValueError when it holds none just now)."""
        if self.shared is not None and self._tasks:
            code = self.pool.take()
            self._wake_beat()  # draw the next one
            if code is not None:
                return code
            raise ValueError("no table code is free just now (is Redis away?); try again")
        while True:
            code = self.draw_code()
            if code not in self.tables:
                return code

    def _new_rejoin_code(self) -> str:
        return new_rejoin_code(
            {code for table in self.tables.values() for code in table.rejoin.values()}
        )

    # --- many hosts ------------------------------------------------------------------------

    def _start_hosts(self) -> None:
        """This part's own state, set once by the lobby."""
        self._tasks: list[asyncio.Task[None]] = []
        """Following the lobby, beating and sending chat (`_share`), once begun."""
        self._claims: set[asyncio.Task[None]] = set()
        self._catching: set[asyncio.Task[None]] = set()
        """Catch-ups of tables a screen came to (`_screen_came`)."""
        self._stale: set[str] = set()
        """Tables to read again once this host's own record of them has been written."""
        self._dealt_elsewhere: dict[str, float] = {}
        """Tables started by another host, by code: when this host's dealer began
        following them (for LEASE_DEFER)."""
        self._claiming: dict[str, int] = {}
        """Seat claims of this host on their way to the store, by table."""
        self._lobby_id = "0-0"
        self._following: set[str] = set()
        """The tables whose log the last blocking read asked for (`_worth_following`)."""
        self._leases: set[str] = set()
        """The tables whose AI lease this host held at its last beat."""
        self._beaten = asyncio.Event()
        self._lost: dict[str, list[tuple[int, Player]]] = {}
        """Seats given here that Redis gave to someone else, by table: their people are
        told once this host has the table as Redis has it."""

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
                loop.create_task(self.rooms.send(self.shared), name="lobby-chat"),
            ]

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
                    who in table.seated_here or self.presence.here(who)
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
                chat = {room: self.rooms.read.get(room, "0-0") for room in rooms}
                self.rooms.read = chat  # a closed table's room is read no more
                changes = await shared.follow(self._lobby_id, logs, FOLLOW_BLOCK_MS, chat)
                self._lobby_id = changes.lobby_id
                for room, (read, lines) in changes.chat.items():
                    self.rooms.read[room] = read
                    self.rooms.heard(room, lines)
                for code in sorted(changes.tables | self._stale):
                    await self._refresh(code)
                for code, items in changes.logs.items():
                    table = self.tables.get(code)
                    if table is not None and table.dealer is not None:
                        await table.dealer.absorb(items)
            except StoreAway:
                stop_if_cancelled()
                away = True
                self.pool.renew_at = 0.0  # its codes too, at the first beat Redis answers
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
                    who_here = {who for who in seated if self.presence.here(who)}
                    who_here |= set(table.watchers)
                here[code] = {who: self.presence.name_of(who) for who in who_here}
            people = self.presence.people
            here[PEOPLE] = {identity: person.name for identity, person in people.items()}
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
                await self.pool.reserve(shared)
                present, held = await shared.beat(self.host_id, here, leases)
                self.presence.everyone = present.pop(PEOPLE, {})
                self.presence.elsewhere = present
            except StoreAway:
                stop_if_cancelled()
                held = set()
                self.pool.renew_at = 0.0  # the whole pool again once Redis is back
            for code, table in self.tables.items():
                table.elsewhere = set(self.presence.elsewhere.get(code, ()))
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


def stop_if_cancelled() -> None:
    """End the task running this if it was asked to stop. A call to Redis cut short by
    the cancel can come out as a lost connection (StoreAway), and Python 3.11's
    `wait_for` can drop a cancel that meets its timeout: the lobby's loops, which go on
    when Redis is away, would then go on for ever after the host stopped them (and hold
    up the host's exit)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
