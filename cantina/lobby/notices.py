"""What the players at the tables kept in the store hear when Redis goes away and comes
back: told once it has been away a moment, and that it is back only if they were told."""

from __future__ import annotations

import asyncio
import time

from cantina.lobby.presence import BEAT, Presence
from cantina.lobby.table import SharedTable

STORE_AWAY = (
    "The table store (Redis) is out of reach: the table waits for it, and no decision is lost."
)
STORE_BACK = "Redis is back: play goes on."
STORE_QUIET = 1.0
"""Seconds Redis is out of reach before the tables are told: not for a blip."""
SETTLING = 5.0
"""Seconds after Redis came back in which calls may still go out on pooled connections
from before it went, each failing once ("out of reach" again until the next call, a beat
later, answers): an outage then is told only once it has lasted SETTLING_QUIET."""
SETTLING_QUIET = 3 * BEAT
"""How long Redis is out of reach, just after it came back, before the tables are told
again: a failed call on a stale connection lasts about a beat, and at STORE_QUIET (one
second) one host's players in a play-test were told "out of reach" then "back" twice."""


class StoreNotices:
    """Tells the tables of the store's going away and coming back."""

    def __init__(self, tables: dict[str, SharedTable], presence: Presence) -> None:
        self.tables = tables
        self.presence = presence
        self.store_up = True
        self.told_away = False
        """Whether the tables were told the store is out of reach (and not yet back)."""
        self.telling: asyncio.TimerHandle | None = None
        """The telling of the store's going away, due once it has been away STORE_QUIET."""
        self.back_at = -SETTLING
        """When (monotonic) the store last came back."""

    def status(self, available: bool) -> None:
        """Tell every table kept in the store that it went away, once it has been away
        STORE_QUIET (SETTLING_QUIET just after it came back), and that it is back, if they
        were told (and, back, judge nobody away until every host has had a beat to say
        who is with it)."""
        self.store_up = available
        if not available:
            if not self.told_away and self.telling is None:
                settling = time.monotonic() < self.back_at + SETTLING
                quiet = SETTLING_QUIET if settling else STORE_QUIET
                self.telling = asyncio.get_running_loop().call_later(quiet, self._tell_away)
            return
        self.back_at = time.monotonic()
        self.presence.heard_again = self.back_at + 2 * BEAT
        if self.telling is not None:
            self.telling.cancel()
            self.telling = None
        if self.told_away:
            self.told_away = False
            self._tell_tables(STORE_BACK)

    def came(self, table: SharedTable) -> None:
        """A screen came to `table` while its store is out of reach, after the tables were
        told (a table started since, a player back through another host): it is told
        now, or a choice made there would wait with nothing said of why."""
        dealer = table.dealer
        if self.told_away and dealer is not None and dealer.journal is not None:
            dealer.notice(STORE_AWAY)

    def stop(self) -> None:
        """The host stops: nothing more is told."""
        if self.telling is not None:
            self.telling.cancel()

    def _tell_away(self) -> None:
        self.telling = None
        if not self.store_up:
            self.told_away = True
            self._tell_tables(STORE_AWAY)

    def _tell_tables(self, notice: str) -> None:
        """Tell the people at every table kept in the store (and so waiting on it)."""
        for table in self.tables.values():
            if table.dealer is not None and table.dealer.journal is not None:
                table.dealer.notice(notice)
