"""A beat of a host with many tables, and a renewal of its whole pool of codes, against a
real redis-server: Redis gets the same scripts as ever, but in round trips of at most
BEAT_CHUNK, the host waiting for each answer before the next (every answer of one round
trip is read in one step of the host's event loop, holding every keystroke back)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import redis
from redis_server import needs_redis, redis_server  # noqa: F401

from cantina.lobby.code_pool import CODE_POOL, CodePool
from cantina.lobby.table import SharedTable
from cantina.store.redis_store import BEAT_CHUNK, RedisStore

pytestmark = needs_redis

TABLES = 40


def sent(admin: redis.Redis) -> tuple[int, int]:
    """The EVALSHAs Redis ran, and how many reads of its clients' sockets it made, since
    its counts were reset (less the one of this INFO)."""
    stats: Any = admin.info("commandstats", "stats")
    evalsha = stats.get("cmdstat_evalsha", {}).get("calls", 0)
    return int(evalsha), int(stats["total_reads_processed"]) - 1


async def test_a_beat_of_many_tables_goes_in_round_trips_of_a_few_scripts(
    redis_server,  # noqa: F811
):
    """40 tables (three people each), their 40 leases and the lobby's people: 81 scripts,
    each run once, in at least ceil(81 / BEAT_CHUNK) reads of Redis (sent at once, they
    were one), and the beat tells the same: who is at every table, every lease."""
    store = RedisStore.from_url(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)
    try:
        await store.ping()
        here = {f"T{n:03}": {f"key:{n}-{i}": f"P{n}-{i}" for i in range(3)} for n in range(TABLES)}
        here["lobby"] = {f"key:{n}-0": f"P{n}-0" for n in range(TABLES)}
        leases = [f"T{n:03}" for n in range(TABLES)]
        admin.config_resetstat()
        present, held = await store.beat("h1", here, leases)
        assert present == here and held == set(leases)
        evalsha, reads = sent(admin)
        assert evalsha == 2 * TABLES + 1
        assert reads >= math.ceil((2 * TABLES + 1) / BEAT_CHUNK)
    finally:
        admin.close()
        await store.close()


async def test_renewing_a_whole_pool_of_codes_goes_in_round_trips_of_a_few_scripts(
    redis_server,  # noqa: F811
):
    """A pool topped up from nothing (CODE_POOL codes) and renewed whole: each code held
    in Redis by this host, in at least ceil(CODE_POOL / BEAT_CHUNK) reads each time."""
    store = RedisStore.from_url(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)
    tables: dict[str, SharedTable] = {}
    numbers = itertools.count()
    pool = CodePool(tables, "h1", lambda: f"C{next(numbers):04}")
    try:
        await store.ping()
        admin.config_resetstat()
        await pool.reserve(store)
        evalsha, reads = sent(admin)
        assert len(pool.codes) == CODE_POOL and evalsha == CODE_POOL
        assert reads >= math.ceil(CODE_POOL / BEAT_CHUNK)
        other = await store.reserve("h2", pool.codes)
        assert other == set()  # every one is h1's

        pool.renew_at = 0.0
        admin.config_resetstat()
        await pool.reserve(store)
        evalsha, reads = sent(admin)
        assert len(pool.codes) == CODE_POOL and evalsha == CODE_POOL
        assert reads >= math.ceil(CODE_POOL / BEAT_CHUNK)
    finally:
        admin.close()
        await store.close()
