"""What a shared table is: its setup, who sits where, its dealer once started, and
what a store keeps of it (`record_of`, read back by `seated_of`)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from cantina.chat import ChatRoom
from cantina.dealer import Dealer, Place
from cantina.live import LiveTable
from cantina.seating import Seat, TableSetup, clean_name
from cantina.store.memory import TableStore
from cantina.store.records import SeatedRecord, TableRecord, encode_setup

if TYPE_CHECKING:
    from cantina.campaign.store import OpenCampaign

MAX_TABLES = 64
"""The most tables a host keeps open, unless told otherwise (`cantina serve
--max-tables`). With a shared lobby every host keeps every table of the cantina, so this is
the whole cantina's; its hosts are all given the same."""
SEAT_TAKEN_BACK = (
    "{name}'s seat is played from another connection now (its rejoin code was entered"
    " there): the screen it left only watches."
)


@dataclass(frozen=True)
class Player:
    identity: str
    """The key's fingerprint: the same person on every connection."""
    name: str
    """A display name only (cleaned of control characters, length-limited)."""
    address: str = field(default="", compare=False)
    """Where this session connects from (to count wrong rejoin codes by), if known."""

    @property
    def guest(self) -> bool:
        """A keyless guest: a new identity each connection, so a rejoin code instead."""
        return self.identity.startswith("guest:")


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
    watchers: dict[str, int] = field(default_factory=dict)
    """People watching the table before its start, by identity: how many screens each."""
    rejoin: dict[int, str] = field(default_factory=dict)
    """Each guest's seat's rejoin code (a keyed player comes back by their key)."""
    empty_since: float | None = None
    """When the last screen stopped following the started table, if none follows now."""
    elsewhere: set[str] = field(default_factory=set)
    """Who follows the table from any host, by the lobby's last beat (many hosts only)."""
    held_until: float = 0.0
    """A table read back from the store as the host started is not swept as left by
    everyone before then: its people need a moment to come back."""
    closed_why: str = ""
    """Why the table closed, when its people should hear more than that it did."""
    on_the_way_until: float = 0.0
    """Until when its people's screens may still be on the way to the started table (loop
    time; see ON_THE_WAY)."""
    arrived: set[int] = field(default_factory=set)
    """Seats whose player has followed the started table (from this host's looks): they
    are no longer on the way, so leaving it counts at once."""
    seated_here: set[str] = field(default_factory=set)
    """Who took a seat at the table through this host (set it, joined, or rejoined), by
    identity: with many hosts, this host reads the log of a table its own people sit at
    (`ManyHosts._worth_following`)."""
    starting: bool = False
    """Its start is on its way to the shared store, which checks it against the seats it
    holds (`ManyHosts.start`): nobody sits down here meanwhile."""
    owners_alone: str = ""
    """Why nobody but its creator may sit at this campaign's table, if so (`seal`)."""

    def __post_init__(self) -> None:
        if self.campaign is not None:
            seal(self)

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

    def end(self) -> None:
        """The table closes here: its dealer stops, and its campaign (saved after every
        move) is let go, for other cantinas to take up."""
        if self.dealer is not None:
            self.dealer.close()
        if self.campaign is not None:
            self.campaign.close()
            self.campaign = None

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
        code = self.rejoin.get(seat, "")
        return Place(frozenset({seat}), player=True, who=player.identity, rejoin=code)

    def hand_seats(self) -> None:
        """The dealer's seats go to whoever sits in them now. A seat taken by its rejoin
        code from another connection, while a screen of the one who had it still follows
        the table (a guest's connection thought lost; on this host or another), is told
        at the table: that screen is left offering the seat's choices, which the dealer
        refuses, and without a word its player would not know why."""
        dealer = self.dealer
        if dealer is None:
            return
        before = dict(dealer.owners)
        dealer.owners = {seat: player.identity for seat, player in self.seated.items()}
        for seat, who in before.items():
            if dealer.owners.get(seat, who) != who and dealer.watching(who):
                dealer.notice(SEAT_TAKEN_BACK.format(name=self.seated[seat].name))

    def watching(self) -> list[str]:
        """Who watches the table without a seat, by identity: at the waiting room before
        its start, at the table's screens after."""
        seated = {p.identity for p in self.seated.values()}
        if self.dealer is None:
            there = [who for who in sorted(self.elsewhere) if who not in seated]
            return list(dict.fromkeys([*self.watchers, *there]))
        return list(dict.fromkeys(who for who in self.dealer.spectators() if who not in seated))

    def seat_label(self, seat: int) -> str:
        """Who is at a seat, for the lobby and the waiting room."""
        spec = self.setup.seats[seat]
        if not spec.human:  # an AI seat goes by its temperament's name unless given one
            same = spec.name == spec.temperament
            return f"{spec.name} (AI)" if same else f"{spec.name} (AI, {spec.temperament})"
        player = self.seated.get(seat)
        if player is None:
            return f"({self.stand_in}, standing in)" if self.owners_alone else "(free seat)"
        away = self.dealer is not None and seat in self.dealer.away_since
        return player.name + (" (away)" if away else "")

    def summary(self) -> str:
        """Seats taken, how many watch, and whether it plays: for the table list."""
        parts = [f"{len(self.seated)}/{len(self.human_seats)} seated"]
        watching = len(self.watching())
        if watching:
            parts.append(f"{watching} watching")
        if self.owners_alone:
            parts.append("its owner's alone")
        if self.started:
            parts.append("playing")
        return ", ".join(parts)


OWNERS_ALONE = (
    "this campaign's round under way began before it was set here, so its owner may know"
    " its dice: nobody else sits at this table (once that round is over, its owner may set"
    " the campaign again for the next)"
)


def seal(table: SharedTable) -> None:
    """A campaign set at a shared table plays on from a seed of 63 bits, from the system's
    secrets, that nobody is told: its owner chose or saw the one it had (the new-campaign
    screen, the seed line of a table played alone), and would know every roll and AI
    choice to come at a table the others join. Its round under way is dealt again from
    it, unless something was decided there: then that round's dice come from the old
    seed, and the table is its owner's alone (the stand-in in its other seats). Saved
    with the first decision; a table closed before then leaves the save as it was."""
    assert table.campaign is not None
    campaign = table.campaign.campaign
    if campaign.over:
        return  # no round to deal: the lobby refuses the table (`campaign_table`)
    if campaign.reseed(secrets.randbits(63)):
        table.setup = campaign.setup()
    else:
        table.owners_alone = OWNERS_ALONE


def seated_of(record: TableRecord, setup: TableSetup) -> dict[int, Player]:
    """Who sits where, by a record: at a started table, in the seats played by people
    only (one claimed on another host as the table started is the stand-in's)."""
    return {
        seat: Player(p.identity, p.name)
        for seat, p in record.seated.items()
        if not record.started or (seat < len(setup.seats) and setup.seats[seat].human)
    }


def record_of(
    table: SharedTable, setup: TableSetup | None = None, *, started: bool | None = None
) -> TableRecord:
    """What a store keeps of a table: its setup (as played, once started) and seats (a
    start on its way: the setup it is to be played with, and `started`)."""

    def seated(player: Player) -> SeatedRecord:
        return SeatedRecord(player.identity, player.name)

    return TableRecord(
        code=table.code,
        setup=encode_setup(setup if setup is not None else table.setup),
        creator=seated(table.creator),
        stand_in=table.stand_in,
        seated={seat: seated(p) for seat, p in table.seated.items()},
        rejoin=dict(table.rejoin),
        started=table.started if started is None else started,
    )


def keep_table(store: TableStore, table: SharedTable, *, new: bool = False) -> None:
    """Keep the table's setup and seats in a durable store (a campaign's table is kept
    by its own save, after every decision, and not here)."""
    if store.durable and table.campaign is None:
        store.save(record_of(table), new=new)


def campaign_table(table: SharedTable) -> LiveTable:
    """A campaign keeps its roster's names (ValueError when the campaign is over)."""
    assert table.campaign is not None
    return table.campaign.campaign.table()


def seat_people(table: SharedTable) -> TableSetup:
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
