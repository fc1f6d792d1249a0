"""The join codes a host of a shared lobby holds in Redis ahead of its next tables, so
that two hosts never give one code to two tables, and a crowd setting up tables at once
is not kept waiting for Redis."""

from __future__ import annotations

import time
from collections.abc import Callable

from cantina.lobby.table import MAX_TABLES, SharedTable
from cantina.store.redis_store import BEAT_CHUNK, RESERVE_MS, RedisStore

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


class CodePool:
    """This host's held join codes, drawn by `draw` and kept in the shared store."""

    def __init__(
        self, tables: dict[str, SharedTable], host_id: str, draw: Callable[[], str]
    ) -> None:
        self.tables = tables
        self.host_id = host_id
        self.draw = draw
        self.codes: list[str] = []
        """Join codes this host holds in the shared store for its next tables (`reserve`):
        another host drawing one of them draws again."""
        self.renew_at = 0.0
        """When (monotonic) `reserve` renews the whole pool next (0: at once, as after
        Redis was away: what it held may have lapsed or gone to another host)."""

    async def reserve(self, shared: RedisStore) -> None:
        """Keep holding this host's join codes for its next tables (every CODE_RENEW) and
        those of its new tables whose record is still on its way (every beat), and draw
        more until it holds CODE_POOL: a code a table has, or another host holds, is drawn
        again (StoreAway). A round trip for each BEAT_CHUNK codes (`_held`), and none for a
        pool full and not due."""
        waiting = [code for code in self.tables if shared.pending(code)]
        now = time.monotonic()
        if now >= self.renew_at:
            held = await self._held(shared, [*self.codes, *waiting])
            self.codes = [code for code in self.codes if code in held]
            self.renew_at = now + CODE_RENEW
        elif waiting:
            await self._held(shared, waiting)
        for _ in range(CODE_ROUNDS):
            drawn: list[str] = []
            for _ in range(CODE_POOL - len(self.codes)):
                code = self.draw()
                if code not in self.tables and code not in self.codes and code not in drawn:
                    drawn.append(code)
            if not drawn:
                break
            held = await self._held(shared, drawn)
            self.codes += [code for code in drawn if code in held]

    async def _held(self, shared: RedisStore, codes: list[str]) -> set[str]:
        """Hold these codes for this host: those it holds now (StoreAway). BEAT_CHUNK
        codes a round trip, the loop running between them: the whole pool's answers, read
        in one step, held every keystroke back for as long."""
        held: set[str] = set()
        for start in range(0, len(codes), BEAT_CHUNK):
            held |= await shared.reserve(self.host_id, codes[start : start + BEAT_CHUNK])
        return held

    def take(self) -> str | None:
        """A held code no open table has, out of the pool (None when it holds none)."""
        while self.codes:
            code = self.codes.pop(0)
            if code not in self.tables:
                return code
        return None

    def new_code(self, *, held: bool) -> str:
        """A join code no open table has: with `held` (a shared lobby, followed), one out
        of the pool (ValueError when it holds none just now), else one drawn."""
        if held:
            code = self.take()
            if code is not None:
                return code
            raise ValueError("no table code is free just now (is Redis away?); try again")
        while True:
            code = self.draw()
            if code not in self.tables:
                return code
