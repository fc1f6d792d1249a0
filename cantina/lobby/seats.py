"""Who sits where at a lobby's tables: a person seated, a guest back in their seat by its
rejoin code, a seat freed at a table not yet started. Each change is kept in a durable
store and claimed with the other hosts (`ManyHosts.claim`); the lobby decides what
follows (closing a table nobody is left to start)."""

from __future__ import annotations

import asyncio
import hmac

from cantina.lobby.codes import WrongCodes, new_rejoin_code
from cantina.lobby.hosts import ManyHosts
from cantina.lobby.table import Player, SharedTable, keep_table
from cantina.store.memory import TableStore


class Seats:
    """The seats of the lobby's tables (the lobby's own dict of them)."""

    def __init__(
        self,
        tables: dict[str, SharedTable],
        store: TableStore,
        hosts: ManyHosts,
        wrong: WrongCodes,
    ) -> None:
        self.tables = tables
        self.store = store
        self.hosts = hosts
        self.wrong = wrong

    def sit(self, table: SharedTable, seat: int, player: Player) -> None:
        """Seat `player`; a guest's seat gets its rejoin code."""
        table.seated[seat] = player
        table.seated_here.add(player.identity)
        table.watchers.pop(player.identity, None)
        if player.guest:
            table.rejoin[seat] = new_rejoin_code(
                {code for other in self.tables.values() for code in other.rejoin.values()}
            )

    def join(self, table: SharedTable, player: Player) -> int:
        """Sit `player` at a free human seat (or their own); the seat's number."""
        seat = table.seat_of(player.identity)
        if seat is not None:
            return seat
        if table.started:
            raise ValueError("that table is already playing; you may watch it")
        if table.starting:
            raise ValueError("that table is starting; you may watch it")
        if table.owners_alone:
            raise ValueError(f"{table.owners_alone}; you may watch it")
        if not table.free_seats:
            raise ValueError("that table has no free seat; you may watch it")
        seat = table.free_seats[0]
        self.sit(table, seat, player)
        keep_table(self.store, table)
        self.hosts.claim(table, seat, "sit", player)
        return seat

    def rejoin(self, player: Player, code: str) -> SharedTable:
        """Put `player` (a new connection) in the seat whose rejoin code this is: the
        seat is theirs from now on, under the name it had, and the code stays the seat's
        for the next drop. ValueError for a wrong code; after the lobby's `rejoin_tries`
        wrong ones (or REJOIN_TRIES_PER_ADDRESS from their address lately), for every
        code: nobody guesses at others' seats."""
        now = asyncio.get_running_loop().time()
        self.wrong.check(player.identity, player.address, now)
        wanted = code.strip().upper().encode()
        for table in self.tables.values():
            for seat, known in table.rejoin.items():
                if hmac.compare_digest(known.encode(), wanted):
                    return self._reseat(table, seat, player)
        raise self.wrong.wrong(player.identity, player.address, now, wanted.decode())

    def _reseat(self, table: SharedTable, seat: int, player: Player) -> SharedTable:
        before = table.seated[seat]
        if before.identity == player.identity:
            return table
        if table.seat_of(player.identity) is not None:
            raise ValueError("you sit at that table already, in another seat")
        table.seated[seat] = Player(player.identity, before.name)
        table.seated_here.add(player.identity)
        self.hosts.claim(table, seat, "reseat", table.seated[seat], before=before.identity)
        table.hand_seats()  # the old connection's screen acts for it no more
        table.watchers.pop(player.identity, None)
        table.absent.pop(seat, None)
        if table.creator.identity == before.identity:
            table.creator = table.seated[seat]
        keep_table(self.store, table)
        return table

    def leave(self, table: SharedTable, player: Player, seat: int) -> bool:
        """Free this player's seat at a table not yet started: whether nobody is left to
        start the table (the last person left, or a campaign's owner: nobody else may
        start it), for the lobby to close it. When its creator leaves, it passes to the
        next seated person."""
        del table.seated[seat]
        table.rejoin.pop(seat, None)
        self.hosts.claim(table, seat, "leave", player)
        if not table.seated or (
            table.campaign is not None and player.identity == table.creator.identity
        ):
            return True
        if table.creator.identity == player.identity:
            table.creator = table.seated[min(table.seated)]
        keep_table(self.store, table)
        return False
