"""Each shared table's dealer: made as its creator starts the table, or made again from
what a durable store kept (a host starting again, or a table another host opened), with
the lobby's pace, grace and store. The lobby and the other hosts' follower
(`cantina.lobby.hosts`) both use it; it calls neither."""

from __future__ import annotations

import asyncio

from cantina.campaign.errors import explain
from cantina.dealer import Dealer, Pace, apply_entry
from cantina.live import LiveTable
from cantina.lobby.presence import ON_THE_WAY
from cantina.lobby.rooms import ChatRooms
from cantina.lobby.table import Player, SharedTable, campaign_table, seat_people, seated_of
from cantina.store.memory import Journal, TableStore
from cantina.store.records import Entry, StoredTable, decode_setup


class Dealers:
    """Makes the dealers of one lobby's tables (none of them started: the lobby starts
    each once it has the table)."""

    def __init__(
        self, store: TableStore, rooms: ChatRooms, *, pace: Pace, away_grace: float
    ) -> None:
        self.store = store
        self.rooms = rooms
        self.pace = pace
        self.away_grace = away_grace

    def starting(self, table: SharedTable) -> Dealer:
        """The dealer of a table its creator starts: the people take their seats under
        their own names, and the stand-in AI fills every human seat left empty (a
        campaign's table: its roster's names; ValueError when the campaign is over). Its
        decisions are recorded in a durable store, but a campaign's, which its own save
        keeps."""
        live = (
            campaign_table(table) if table.campaign is not None else LiveTable(seat_people(table))
        )
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
        dealer.owners = owners(table)
        if table.campaign is not None:
            table.campaign.on_error = lambda err: dealer.notice(
                f"The campaign could not be saved ({explain(err)}); the next move tries again."
            )
            for seat in table.free_seats:  # nobody took it: the stand-in plays it
                dealer.stand_in_for(seat)
        return dealer

    def replayed(
        self, table: SharedTable, entries: list[Entry], away: dict[int, float] | None = None
    ) -> Dealer:
        """The dealer of a started table the store kept, its logged decisions applied
        (shown from the table's start, unless the caller counts them as seen), with the
        seats whose player was away, since when (`StoredTable.away`)."""
        live = LiveTable(table.setup)
        for entry in entries:
            apply_entry(live, entry)
        journal = Journal(self.store, table.code, len(entries))
        dealer = table.dealer = Dealer(
            live, pace=self.pace, grace=self.away_grace, stand_in=table.stand_in, journal=journal
        )
        dealer.owners = owners(table)
        dealer.went_away(away or {})
        return dealer

    def rebuilt(self, stored: StoredTable) -> SharedTable:
        """A table again from what the store kept of it, a started one with its dealer
        where it stood, its players having seen it all before (ValueError or IllegalAction
        when it cannot be rebuilt)."""
        record = stored.record
        setup = decode_setup(record.setup)
        creator = Player(record.creator.identity, record.creator.name)
        table = SharedTable(record.code, setup, creator, record.stand_in)
        table.chat = self.rooms.room(table)
        table.seated = seated_of(record, setup)
        table.rejoin = dict(record.rejoin)
        if record.started:
            self.replayed(table, stored.entries, stored.away).caught_up()
        return table


def owners(table: SharedTable) -> dict[int, str]:
    """Whose screen acts for each seated player's seat: their own."""
    return {seat: player.identity for seat, player in table.seated.items()}
