"""The store's scripts against a real redis-server: what a beat, a pool's renewal and a
decision send (INFO commandstats), and that a Redis started again without the scripts
still runs them all."""

from __future__ import annotations

import contextlib
from typing import Any

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
