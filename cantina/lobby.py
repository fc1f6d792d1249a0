"""The shared tables of a host: who sits where, who is here, and each table's dealer.

Nothing here draws anything. Each SSH session's screens read this state and follow a
started table through its one `Dealer` (`cantina.dealer`), which plays the AI seats, the
stand-in for a player who is away, and paces what everyone sees; a person's pick goes to
it for their own seat only. The lobby decides who is present: a player is at a table
while a screen of theirs follows it.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from cantina.ai.temperament import temperament
from cantina.chat import ChatRates, ChatRoom
from cantina.dealer import Dealer, Pace, Place
from cantina.live import LiveTable
from cantina.seating import Seat, TableSetup, clean_name

if TYPE_CHECKING:
    from cantina.campaign.store import OpenCampaign

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Join codes: no 0/O, 1/I/L to misread."""
CODE_LENGTH = 4
MAX_TABLES = 64
AWAY_AFTER_LOOKS = 2
"""Looks in a row (one a second) that find a player's table on none of their screens
before they count as away: a moment between two screens is not leaving."""


@dataclass(frozen=True)
class Player:
    identity: str
    """The key's fingerprint: the same person on every connection."""
    name: str
    """A display name only (cleaned of control characters, length-limited)."""


@dataclass
class SharedTable:
    """One table several sessions play at: its setup, its players, then its dealer."""

    code: str
    setup: TableSetup
    creator: Player
    stand_in: str = "Cautious"
    """The temperament that plays an absent player's seat, and fills empty seats."""
    seated: dict[int, Player] = field(default_factory=dict)
    dealer: Dealer | None = None
    """The table in play, once started: its game, its story and who acts next."""
    absent: dict[int, int] = field(default_factory=dict)
    """Seats for people whose player was not at the table, by how many looks in a row."""
    campaign: OpenCampaign | None = None
    """The saved campaign this table plays (locked while the table is open), if any: its
    roster sets the seats, and every decision is saved as at a local campaign."""
    chat: ChatRoom = field(default_factory=ChatRoom)
    """What the players and spectators at this table say (the lobby's gives it the host's
    rates, so a person's pace is counted across rooms)."""

    @property
    def live(self) -> LiveTable | None:
        return self.dealer.table if self.dealer is not None else None

    @property
    def human_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.setup.seats) if seat.human]

    @property
    def free_seats(self) -> list[int]:
        return [i for i in self.human_seats if i not in self.seated]

    @property
    def started(self) -> bool:
        return self.dealer is not None

    def seat_of(self, identity: str) -> int | None:
        for seat, player in self.seated.items():
            if player.identity == identity:
                return seat
        return None

    def place_of(self, player: Player) -> Place:
        """Where this person is at the table: their seat, or a spectator's place."""
        seat = self.seat_of(player.identity)
        if seat is None:
            return Place(frozenset(), player=False, who=player.identity)
        return Place(frozenset({seat}), player=True, who=player.identity)

    def seat_label(self, seat: int) -> str:
        """Who is at a seat, for the lobby and the waiting room."""
        spec = self.setup.seats[seat]
        if not spec.human:
            return f"{spec.name} (AI, {spec.temperament})"
        player = self.seated.get(seat)
        if player is None:
            return "(free seat)"
        away = self.dealer is not None and seat in self.dealer.away_since
        return player.name + (" (away)" if away else "")

    def summary(self) -> str:
        """Seats taken, and whether it plays: one line for the table list."""
        taken = f"{len(self.seated)}/{len(self.human_seats)} seats taken"
        return taken + (", playing" if self.started else "")


class Lobby:
    """Every shared table of this host, by join code, and who is connected."""

    def __init__(self, *, away_grace: float = 60.0, pace: Pace | None = None) -> None:
        self.tables: dict[str, SharedTable] = {}
        self.away_grace = away_grace
        """Seconds an absent player's seat waits before the stand-in AI plays it."""
        self.pace = pace if pace is not None else Pace()
        """How long what happens stays on show at every table of this host."""
        self.connected: dict[str, int] = {}
        """Sessions open now, by identity."""
        self.chat_rates = ChatRates()
        """How often each person may speak, in the lobby and at every table."""
        self.chat = ChatRoom(self.chat_rates)
        """The lobby's own room: everyone connected."""

    # --- people ----------------------------------------------------------------------------

    def player(self, identity: str, name: str) -> Player:
        return Player(identity, clean_name(name, "Player"))

    def arrived(self, player: Player) -> None:
        self.connected[player.identity] = self.connected.get(player.identity, 0) + 1

    def left(self, player: Player) -> None:
        """A session of this person ended; with their last one, they are away from every
        table they sit at (and a seat at a table not yet started is free again)."""
        count = self.connected.get(player.identity, 0) - 1
        if count > 0:
            self.connected[player.identity] = count
            return
        self.connected.pop(player.identity, None)
        now = asyncio.get_running_loop().time()
        for table in list(self.tables.values()):
            seat = table.seat_of(player.identity)
            if seat is None:
                continue
            if table.dealer is None:
                self.leave_unstarted(table, player)
            else:
                table.dealer.set_away(seat, now)

    def here(self, identity: str) -> bool:
        return identity in self.connected

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
            if dealer is None:
                continue
            for seat, player in table.seated.items():
                if dealer.watching(player.identity):
                    table.absent.pop(seat, None)
                    dealer.set_back(seat)
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

    def create(
        self,
        setup: TableSetup,
        creator: Player,
        stand_in: str = "Cautious",
        campaign: OpenCampaign | None = None,
    ) -> SharedTable:
        """A new table with its creator in its first human seat (ValueError when the host
        has as many tables as it keeps, or the setup has no seat for a person). With
        `campaign`, the table plays that open campaign's next round (or the one under way)
        and closes it when the table closes."""
        if len(self.tables) >= MAX_TABLES:
            raise ValueError("the host has as many tables as it keeps; join one instead")
        temperament(stand_in)  # ValueError for an unknown temperament
        table = SharedTable(self._new_code(), setup, creator, stand_in, campaign=campaign)
        table.chat = ChatRoom(self.chat_rates)
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
            if table.dealer is None or any(self.here(p.identity) for p in table.seated.values()):
                continue
            last = max(table.dealer.away_since.values(), default=now)
            if now - last > abandoned_after:
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
        dealer = table.dealer = Dealer(
            live, pace=self.pace, grace=self.away_grace, stand_in=table.stand_in
        )
        if table.campaign is not None:
            table.campaign.on_error = lambda err: dealer.notice(
                f"The campaign could not be saved ({err}); the next move tries again."
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

    def close(self, table: SharedTable) -> None:
        self.tables.pop(table.code, None)
        if table.dealer is not None:
            table.dealer.close()
        if table.campaign is not None:  # saved after every move; let other cantinas at it
            table.campaign.close()
            table.campaign = None

    def close_all(self) -> None:
        for table in list(self.tables.values()):
            self.close(table)

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if code not in self.tables:
                return code
