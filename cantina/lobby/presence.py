"""Who is here: the people connected to this host (with a shared lobby, to any of its
hosts, by the last beat), and which seated players count as away from a started table
after missed looks."""

from __future__ import annotations

import time
from dataclasses import replace

from cantina.lobby.table import Player, SharedTable
from cantina.seating import MAX_NAME, clean_name
from cantina.store.redis_store import HERE_MS

BEAT = 1.0
"""Seconds between a host's beats: who follows its tables, its leases kept."""
AWAY_AFTER_LOOKS = 2
"""Looks in a row (one a second) that find a player's table on none of their screens
before they count as away: a moment between two screens is not leaving."""
ON_THE_WAY = 10.0
"""Seconds after a table starts in which nobody seated at it counts as away for not yet
following it: each player's screen is on its way from the waiting room, and a busy host
may take seconds to put it up ("has left the table" then "is back" would be noise). A
player whose connection ends is away at once all the same."""


class Presence:
    """Who is connected, here and (by the beat) on the other hosts of a shared lobby."""

    def __init__(self, *, shared: bool) -> None:
        self.shared = shared
        """Whether other hosts share the lobby (then the beat says who is with them)."""
        self.connected: dict[str, int] = {}
        """Sessions open now, by identity."""
        self.people: dict[str, Player] = {}
        """Who is connected now, by identity (the name of their newest session)."""
        self.elsewhere: dict[str, dict[str, str]] = {}
        """Who follows each table from any host (by the last beat), by code: their
        identities and names."""
        self.everyone: dict[str, str] = {}
        """Who is connected to any host of a shared lobby (by the last beat): identities
        and names, this host's people among them."""
        self.gone: dict[str, float] = {}
        """Who left this host lately, and until when (monotonic) the presence it said of
        them may still be in the store: not among `everyone` meanwhile."""
        self.heard_again = 0.0
        """When (monotonic) every host has said again who is with it, after Redis was
        away: presence read before then is not trusted to find anyone away (`seen`)."""

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
        self.gone.pop(player.identity, None)

    def went(self, player: Player) -> bool:
        """A session of this person ended: whether it was their last one here."""
        count = self.connected.get(player.identity, 0) - 1
        if count > 0:
            self.connected[player.identity] = count
            return False
        self.connected.pop(player.identity, None)
        self.people.pop(player.identity, None)
        self.gone[player.identity] = time.monotonic() + HERE_MS / 1000 + BEAT
        return True

    def here_now(self) -> list[Player]:
        """Everyone connected to the host, by name; with a shared lobby, to any of its
        hosts (those on others as of the last beat; one who left here is gone at once)."""
        people = dict(self.people)
        for identity, name in self.everyone.items():
            if identity not in people and not self.gone_lately(identity):
                people[identity] = Player(identity, name)
        return sorted(people.values(), key=lambda p: (p.name.casefold(), p.identity))

    def gone_lately(self, identity: str) -> bool:
        until = self.gone.get(identity)
        if until is None:
            return False
        if until > time.monotonic():
            return True
        del self.gone[identity]
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

    def here(self, identity: str) -> bool:
        return identity in self.connected

    def seen(self, table: SharedTable) -> bool:
        """Whether this host knows who follows the table from every host (a shared lobby
        learns it at its next beat, and again after Redis was away: what each host said
        of its people has lapsed there meanwhile, and a host that beats first would find
        nobody said for the others): until then nobody there is away, nor the table left."""
        if not self.shared:
            return True
        return table.code in self.elsewhere and time.monotonic() >= self.heard_again

    def there(self, table: SharedTable, identity: str) -> bool:
        """Whether this person follows the table from some host (by the last beat). Not
        one whose last session here ended lately (`gone`): what this host said of them
        may still be in the store, and their seat, away at once, would be back at the
        next look and away again as that lapsed, its grace begun anew seconds late."""
        return identity in self.elsewhere.get(table.code, ()) and not self.gone_lately(identity)

    def look(self, table: SharedTable, now: float) -> None:
        """One look at a started table (the host looks every second): a player none of
        whose screens has followed it for AWAY_AFTER_LOOKS looks in a row is away, and
        the stand-in plays their seat after the grace; coming back to it, they are back."""
        dealer = table.dealer
        if dealer is None or not self.seen(table):
            return
        for seat, player in table.seated.items():
            if dealer.watching(player.identity) or self.there(table, player.identity):
                table.absent.pop(seat, None)
                table.arrived.add(seat)
                dealer.set_back(seat)
                continue
            if seat not in table.arrived and now < table.on_the_way_until:
                continue
            looks = table.absent[seat] = table.absent.get(seat, 0) + 1
            if looks >= AWAY_AFTER_LOOKS:
                dealer.set_away(seat, now)

    def unheld(
        self, tables: list[SharedTable], now: float, empty_after: float
    ) -> list[SharedTable]:
        """The tables nobody holds, to close: one not started whose seated players have
        all left (every host), at once if each of them sat down through this host, else
        after `empty_after` seconds; one started that no screen has followed (no player
        at it, no spectator, from any host) for `empty_after` seconds. A table is held
        while this host does not yet know who follows it (`seen`).

        Another host's people are known here only by that host's beats, which lapse when
        it is swamped (a crowd logging in at once) and when it dies, and this host may
        not yet know that the table started there: such a table is left to its own host,
        which closes it the moment its people leave, and closed here only if it stays
        unheld as long as a started one (its host gone). Two workers of `--workers 2`
        with 72 players each closed each other's tables mid-game."""
        unheld = []
        for table in tables:
            if not self.seen(table):
                continue
            if table.dealer is None:
                if now < table.held_until:
                    continue
                people = table.seated.values()
                if any(self.here(p.identity) or self.there(table, p.identity) for p in people):
                    table.empty_since = None
                elif all(p.identity in table.seated_here for p in people):
                    unheld.append(table)  # its people left this host: at once
                elif table.empty_since is None:
                    table.empty_since = now
                elif now - table.empty_since >= empty_after:
                    unheld.append(table)
            elif table.dealer.followed or self.elsewhere.get(table.code):
                table.empty_since = None
            elif table.empty_since is None:
                table.empty_since = now
            elif now - table.empty_since >= empty_after:
                unheld.append(table)
        return unheld
