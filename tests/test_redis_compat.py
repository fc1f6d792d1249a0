"""The private redis-py names the store relies on (`cantina/store/redis_compat.py`) are
still there, checked against a real redis-server: an upgrade that renames one fails
here, by name."""

from __future__ import annotations

import asyncio

from redis_server import RedisServer, needs_redis

from cantina.store import redis_compat
from cantina.store.redis_store import RedisStore

pytestmark = needs_redis


async def test_the_pool_keeps_its_idle_connections_where_take_idle_takes_them(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url)
    try:
        await asyncio.gather(*(store.codes() for _ in range(3)))
        pool = store.client.connection_pool
        idle = getattr(pool, redis_compat.IDLE)
        assert isinstance(idle, list) and len(idle) == 3
        taken = redis_compat.take_idle(pool)
        assert len(taken) == 3 and all(c.is_connected for c in taken)
        assert getattr(pool, redis_compat.IDLE) == [], "none left for a call to be handed"
        for connection in taken:
            await connection.disconnect()
        assert await store.codes() == set()  # the pool makes a new one
        assert len(getattr(pool, redis_compat.IDLE)) == 1
    finally:
        await store.close()
        server.stop()
