"""The store's scripts against a real redis-server: what a beat, a pool's renewal and a
decision send (INFO commandstats), that a Redis started again without the scripts
still runs them all, and what a start and a player's going away do there."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import msgspec
import redis
from redis_server import RedisServer, needs_redis, redis_server  # noqa: F401
from test_store import duel

from cantina.games.table import Move
from cantina.store.memory import Journal, StoreAway
from cantina.store.records import SeatedRecord, TableRecord, encode_setup, move_entry
from cantina.store.redis_store import RedisStore, Seating

pytestmark = needs_redis

ANA = Seating("key:ana", "Ana")


def calls(admin: redis.Redis) -> dict[str, int]:
    """The script commands Redis ran since its counts were reset (the commands the scripts
    run are counted there too, so are left out)."""
    stats: Any = admin.info("commandstats")
    return {
        name: stat["calls"]
        for name, stat in ((n.removeprefix("cmdstat_"), s) for n, s in stats.items())
        if name.startswith(("eval", "script"))
    }


def table(code: str) -> TableRecord:
    return TableRecord(
        code=code,
        setup=encode_setup(duel()),
        creator=SeatedRecord(ANA.identity, ANA.name),
        stand_in="Cautious",
        started=True,
    )


async def opened(store: RedisStore, code: str) -> Journal:
    """A table written to Redis, and its journal."""
    store.save(table(code), new=True)
    await store.flush()
    return Journal(store, code)


async def test_a_beat_a_renewal_and_a_decision_send_their_scripts_and_nothing_else(
    redis_server,  # noqa: F811
):
    """A beat (who is here at two tables, two leases) is one EVALSHA a script, in one
    round trip, and a renewal of three join codes three: redis-py, running a pipeline's
    scripts, asked Redis first whether it had them (SCRIPT EXISTS), a round trip more at
    every beat. A decision is one EVALSHA."""
    store = RedisStore.from_url(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)
    try:
        await store.ping()
        journal = await opened(store, "ABCD")
        admin.config_resetstat()
        here = {"ABCD": {"key:ana": "Ana"}, "EFGH": {"key:bo": "Bo"}}
        present, held = await store.beat("h1", here, ["ABCD", "EFGH"])
        assert present == here and held == {"ABCD", "EFGH"}
        assert calls(admin) == {"evalsha": 4}

        admin.config_resetstat()
        assert await store.reserve("h1", ["WXYZ", "QRST", "ABCD"]) == {"WXYZ", "QRST"}
        assert calls(admin) == {"evalsha": 3}

        admin.config_resetstat()
        entry = move_entry(Move(1, "val"), None)
        assert await journal.record(entry) == ([entry], True)
        assert calls(admin) == {"evalsha": 1}
    finally:
        admin.close()
        await store.close()


async def test_a_redis_started_again_without_the_scripts_still_runs_them(tmp_path):
    """Redis stopped and started again (its data kept, its scripts not): the next beat,
    decision, seat and renewal each get through, and the first that finds a script
    missing loads them all (one SCRIPT LOAD each), so the others do not find one missing.
    Before, every pipeline's scripts were checked first (SCRIPT EXISTS)."""
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url)
    try:
        await store.ping()
        journal = await opened(store, "ABCD")
        server.stop()
        server.start()
        with contextlib.suppress(StoreAway):  # its connection was lost: said once
            await store.lobby_id()
        admin = redis.Redis.from_url(server.url)
        try:
            assert admin.script_exists(store._append.sha) == [False]
            admin.config_resetstat()
            present, held = await store.beat("h1", {"ABCD": {"key:ana": "Ana"}}, ["ABCD"])
            assert present == {"ABCD": {"key:ana": "Ana"}} and held == {"ABCD"}
            entry = move_entry(Move(1, "val"), None)
            assert await journal.record(entry) == ([entry], True)
            assert await store.reserve("h1", ["WXYZ"]) == {"WXYZ"}
            assert await store.seat("ABCD", 1, "reseat", Seating("key:bo", "Bo"), "") is False
            stats = calls(admin)
            assert stats["script|load"] == len(store._scripts), stats
            assert "script|exists" not in stats, stats
            assert stats["evalsha"] == 2 + 2 + 1 + 1 + 1, stats  # the beat's two sent twice
            assert await store.entries("ABCD") == [entry]
        finally:
            admin.close()
    finally:
        await store.close()
        server.stop()


async def test_a_start_goes_through_only_on_the_seats_redis_holds(redis_server):  # noqa: F811
    """START (issue 15): a start dealt for seats Redis no longer holds (Bo sat down through
    another host meanwhile) is refused, with nothing written; dealt for the seats it holds,
    it starts the table once; a claim after it is refused by SEAT; a table not there is
    not started."""
    store = RedisStore.from_url(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)
    ana, bo = SeatedRecord(ANA.identity, ANA.name), SeatedRecord("key:bo", "Bo")
    try:
        await store.ping()
        store.save(msgspec.structs.replace(table("ABCD"), started=False), new=True)
        await store.flush()
        assert await store.seat("ABCD", 0, "sit", ANA)
        assert await store.seat("ABCD", 1, "sit", Seating(bo.identity, bo.name))
        for_ana = msgspec.structs.replace(table("ABCD"), seated={0: ana})
        assert await store.start(for_ana) == -2
        assert admin.hget(store.table_key("ABCD"), "started") is None
        for_both = msgspec.structs.replace(table("ABCD"), seated={0: ana, 1: bo})
        assert await store.start(for_both) == 1
        assert admin.hget(store.table_key("ABCD"), "started") == b"1"
        assert await store.start(for_both) == 0
        assert await store.seat("ABCD", 2, "sit", Seating("key:cy", "Cy")) is False
        stored = await store.table("ABCD", entries=False)
        assert stored is not None and stored.record == for_both
        assert await store.start(msgspec.structs.replace(for_both, code="WXYZ")) == -1
        assert not admin.exists(store.table_key("WXYZ"))
    finally:
        admin.close()
        await store.close()


async def test_when_a_player_went_away_is_kept_on_redis_clock_earliest_first(
    redis_server,  # noqa: F811
):
    """AWAY: a seat's moment is kept as the earliest any host said, read back as seconds
    ago; a player back clears it; a table not in Redis gets none."""
    store = RedisStore.from_url(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)

    async def written() -> None:
        while store._gone or (store._gone_writer is not None and not store._gone_writer.done()):
            await asyncio.sleep(0.01)

    try:
        await store.ping()
        await opened(store, "ABCD")
        now = asyncio.get_running_loop().time()
        store.seat_away("ABCD", 1, now - 30)
        await written()
        store.seat_away("ABCD", 1, now - 10)  # another host, later: the first moment stays
        store.seat_away("NONE", 0, now)
        await written()
        stored = await store.table("ABCD", entries=False)
        assert stored is not None and list(stored.away) == [1] and 30 <= stored.away[1] < 31
        assert not admin.exists(store.away_key("NONE"))
        store.seat_away("ABCD", 1, None)
        await written()
        stored = await store.table("ABCD", entries=False)
        assert stored is not None and stored.away == {}
    finally:
        admin.close()
        await store.close()
