"""The host's shared tables: who sits where, who is away, and who plays the AI seats.

Nothing here draws anything. Each SSH session's screens read this state and submit their
own seat's choices to the table's one `LiveTable`; the table's dealer, a task in the
host's event loop, plays every AI seat (and a seat whose player has been away too long),
so exactly one party moves for the AI, whoever is watching.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from cantina.ai.temperament import temperament
from cantina.live import LiveTable
from cantina.seating import Seat, TableSetup, clean_name

if TYPE_CHECKING:
    from cantina.campaign.store import Session

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Join codes: no 0/O, 1/I/L to misread."""
CODE_LENGTH = 4
MAX_TABLES = 64


@dataclass(frozen=True)
class Player:
    identity: str
    """The key's fingerprint: the same person on every connection."""
    name: str
    """A display name only (cleaned of control characters, length-limited)."""


@dataclass
class SharedTable:
    """One table several sessions play at: its setup, its players, then its game."""

    code: str
    setup: TableSetup
    creator: Player
    stand_in: str = "Cautious"
    """The temperament that plays an absent player's seat, and fills empty seats."""
    seated: dict[int, Player] = field(default_factory=dict)
    live: LiveTable | None = None
    standing_in: set[int] = field(default_factory=set)
    """Human seats the stand-in AI plays now (their player is away)."""
    away_since: dict[int, float] = field(default_factory=dict)
    absent: dict[int, int] = field(default_factory=dict)
    """Human seats whose player was not at the table, by how many looks in a row."""
    notices: list[str] = field(default_factory=list)
    """Things every watcher is told (who left, who came back, who plays for whom)."""
    dealer: asyncio.Task[None] | None = None
    campaign: Session | None = None
    """The saved campaign this table plays (locked while the table is open), if any: its
    roster sets the seats, and every decision is saved as at a local campaign."""

    @property
    def human_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.setup.seats) if seat.human]

    @property
    def free_seats(self) -> list[int]:
        return [i for i in self.human_seats if i not in self.seated]

    @property
    def started(self) -> bool:
        return self.live is not None

    def seat_of(self, identity: str) -> int | None:
        for seat, player in self.seated.items():
            if player.identity == identity:
                return seat
        return None

    def seat_label(self, seat: int) -> str:
        """Who is at a seat, for the lobby and the waiting room."""
        spec = self.setup.seats[seat]
        if not spec.human:
            return f"{spec.name} (AI, {spec.temperament})"
        player = self.seated.get(seat)
        if player is None:
            return "(free seat)"
        return player.name + (" (away)" if seat in self.away_since else "")

    def tell(self, notice: str) -> None:
        self.notices.append(notice)


class Lobby:
    """Every shared table of this host, by join code, and who is connected."""

    def __init__(self, *, away_grace: float = 60.0, ai_pace: float = 0.8) -> None:
        self.tables: dict[str, SharedTable] = {}
        self.away_grace = away_grace
        """Seconds an absent player's seat waits before the stand-in AI plays it."""
        self.ai_pace = ai_pace
        """Seconds an AI seat waits before it acts, so people can follow."""
        self.connected: dict[str, int] = {}
        """Sessions open now, by identity."""
        self.at_table: Callable[[str, SharedTable], bool] | None = None
        """Whether this person has the table on screen now (the host knows its sessions);
        without it, only a dropped connection counts as away."""
        self.on_notice: Callable[[SharedTable, str], None] | None = None
        """Called with each notice, to show it to the table's watchers."""
        self._wakers: dict[str, asyncio.Event] = {}

    # --- people ----------------------------------------------------------------------------

    def player(self, identity: str, name: str) -> Player:
        return Player(identity, clean_name(name, "Player"))

    def arrived(self, player: Player) -> None:
        self.connected[player.identity] = self.connected.get(player.identity, 0) + 1
        for table in self.tables.values():
            seat = table.seat_of(player.identity)
            if seat is not None and seat in table.away_since:
                del table.away_since[seat]
                self._back(table, seat)

    def left(self, player: Player) -> None:
        count = self.connected.get(player.identity, 0) - 1
        if count > 0:
            self.connected[player.identity] = count
            return
        self.connected.pop(player.identity, None)
        loop = asyncio.get_running_loop()
        for table in list(self.tables.values()):
            seat = table.seat_of(player.identity)
            if seat is None:
                continue
            if not table.started:
                self.leave_unstarted(table, player)  # an unstarted seat is simply free again
                continue
            table.away_since[seat] = loop.time()
            self._notice(table, f"{player.name} has left the table; their seat waits.")
            self._wake(table)

    def here(self, identity: str) -> bool:
        return identity in self.connected

    def check_presence(self) -> None:
        """Look at who is at each started table (the host does, every second): a player
        away from it twice in a row (left for the lobby, say) is away, and the stand-in
        will play their seat after the grace; one back at it is back."""
        for table in list(self.tables.values()):  # a finished campaign lets its save go
            if table.campaign is not None and table.campaign.campaign.over:
                self.close(table)
        if self.at_table is None:
            return
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            if not table.started:
                continue
            for seat, player in table.seated.items():
                if self.here(player.identity) and self.at_table(player.identity, table):
                    table.absent.pop(seat, None)
                    if seat in table.away_since:
                        del table.away_since[seat]
                        self._back(table, seat)
                    continue
                looks = table.absent[seat] = table.absent.get(seat, 0) + 1
                if looks >= 2 and seat not in table.away_since:
                    table.away_since[seat] = now
                    self._notice(table, f"{player.name} has left the table; their seat waits.")
                    self._wake(table)

    # --- tables ----------------------------------------------------------------------------

    def open_tables(self) -> list[SharedTable]:
        return sorted(self.tables.values(), key=lambda t: (t.started, t.code))

    def table_of(self, identity: str) -> SharedTable | None:
        """The table where this person has a seat (the newest, if several)."""
        found = [t for t in self.tables.values() if t.seat_of(identity) is not None]
        return found[-1] if found else None

    def create(
        self,
        setup: TableSetup,
        creator: Player,
        stand_in: str = "Cautious",
        campaign: Session | None = None,
    ) -> SharedTable:
        """A new table with its creator in its first human seat (ValueError when the host
        has as many tables as it keeps, or the setup has no seat for a person). With
        `campaign`, the table plays that open campaign's next round (or the one under way)
        and closes it when the table closes."""
        if len(self.tables) >= MAX_TABLES:
            raise ValueError("the host has as many tables as it keeps; join one instead")
        temperament(stand_in)  # ValueError for an unknown temperament
        table = SharedTable(self._new_code(), setup, creator, stand_in, campaign=campaign)
        if not table.human_seats:
            raise ValueError("mark at least one seat Human: this table is for people")
        for other in list(self.tables.values()):  # one unstarted table per creator
            if other.creator.identity == creator.identity and not other.started:
                self.close(other)
        table.seated[table.human_seats[0]] = creator
        self.tables[table.code] = table
        return table

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
        table.seated[seat] = player
        return seat

    def leave_unstarted(self, table: SharedTable, player: Player) -> None:
        """Free this player's seat at a table not yet started; the table closes when the
        last person leaves it, and passes to the next seated person when its creator
        leaves (someone must be able to start it)."""
        seat = table.seat_of(player.identity)
        if seat is None or table.started:
            return
        del table.seated[seat]
        if not table.seated or (
            table.campaign is not None and player.identity == table.creator.identity
        ):
            self.close(table)  # a campaign is its owner's: nobody else may start it
        elif table.creator.identity == player.identity:
            table.creator = table.seated[min(table.seated)]

    def sweep(self, abandoned_after: float) -> None:
        """Close started tables none of whose players has been here for a while, so the
        lobby does not fill with games nobody will come back to."""
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            if not table.started or any(self.here(p.identity) for p in table.seated.values()):
                continue
            last = max(table.away_since.values(), default=now)
            if now - last > abandoned_after:
                self.close(table)

    def start(self, table: SharedTable, by: Player) -> LiveTable:
        """The creator starts: the people take their seats under their own names, and the
        stand-in AI fills every human seat left empty."""
        if by.identity != table.creator.identity:
            raise ValueError("only the table's creator starts it")
        if table.started:
            assert table.live is not None
            return table.live
        if table.campaign is not None:
            self._start_campaign(table)
        else:
            self._start_table(table)
        assert table.live is not None
        table.live.listen(lambda events: self._wake(table))
        table.dealer = asyncio.get_running_loop().create_task(
            self._deal(table), name=f"dealer {table.code}"
        )
        return table.live

    def _start_campaign(self, table: SharedTable) -> None:
        """A campaign keeps its roster's names; a human seat nobody took is played by the
        stand-in, as for a player who is away (ValueError when the campaign is over)."""
        assert table.campaign is not None
        session = table.campaign
        table.live = session.campaign.table()
        table.setup = table.live.setup
        session.on_error = lambda err: self._notice(
            table, f"The campaign could not be saved ({err}); the next move tries again."
        )
        for seat in table.free_seats:
            self._stand_in(table, seat)

    def _start_table(self, table: SharedTable) -> None:
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
        table.setup = msgspec.structs.replace(table.setup, seats=tuple(seats))
        table.live = LiveTable(table.setup)

    def close(self, table: SharedTable) -> None:
        self.tables.pop(table.code, None)
        self._wakers.pop(table.code, None)
        if table.dealer is not None:
            table.dealer.cancel()
        if table.campaign is not None:  # saved after every move; let other cantinas at it
            table.campaign.close()
            table.campaign = None

    def close_all(self) -> None:
        for table in list(self.tables.values()):
            self.close(table)

    # --- the dealer: the AI seats and the stand-ins ----------------------------------------

    def _wake(self, table: SharedTable) -> None:
        self._event(table).set()

    def _event(self, table: SharedTable) -> asyncio.Event:
        return self._wakers.setdefault(table.code, asyncio.Event())

    async def _deal(self, table: SharedTable) -> None:
        """Play whatever the table waits for that no person here will: AI seats after the
        pace, an away player's seat after the grace, until the table closes."""
        assert table.live is not None
        live = table.live
        loop = asyncio.get_running_loop()
        woken = self._event(table)
        while True:
            woken.clear()
            decision = live.game.pending
            wait: float | None = None
            if decision is not None:
                seat = decision.seat
                if seat in table.away_since and seat not in table.standing_in:
                    left = table.away_since[seat] + self.away_grace - loop.time()
                    if left <= 0:
                        self._stand_in(table, seat)
                    else:
                        wait = left
                if not table.setup.seats[seat].human or seat in table.standing_in:
                    await self._ai_move(table, live)
                    continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), wait)

    async def _ai_move(self, table: SharedTable, live: LiveTable) -> None:
        before = (live.game, len(live.moves))
        await asyncio.sleep(self.ai_pace)
        if (live.game, len(live.moves)) != before or live.game.pending is None:
            return  # overtaken (a player came back and chose)
        seat = live.game.pending.seat
        try:
            action = await asyncio.get_running_loop().run_in_executor(None, live.ai_move)
        except Exception as error:  # one table's fault must not end the host's loop
            self._notice(table, f"The AI failed at this table: {error}")
            await asyncio.sleep(5)
            return
        if (live.game, len(live.moves)) == before and live.game.pending is not None:
            live.submit(seat, action)

    def _stand_in(self, table: SharedTable, seat: int) -> None:
        assert table.live is not None
        table.standing_in.add(seat)
        table.live.ai.temperaments[seat] = temperament(table.stand_in)
        name = table.setup.seats[seat].name
        self._notice(table, f"{name} is away: a {table.stand_in} AI plays their seat.")

    def _back(self, table: SharedTable, seat: int) -> None:
        name = table.setup.seats[seat].name
        if seat in table.standing_in and table.live is not None:
            table.standing_in.discard(seat)
            table.live.ai.temperaments[seat] = None
        self._notice(table, f"{name} is back at the table.")
        self._wake(table)

    def _notice(self, table: SharedTable, text: str) -> None:
        table.tell(text)
        if self.on_notice is not None:
            self.on_notice(table, text)

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if code not in self.tables:
                return code


def seat_summary(table: SharedTable) -> str:
    taken = len(table.seated)
    humans = len(table.human_seats)
    return f"{taken}/{humans} seats taken" + (", playing" if table.started else "")
