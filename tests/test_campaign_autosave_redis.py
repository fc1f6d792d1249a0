"""A campaign's autosave to a real Redis, made on a running event loop (as a session's
app makes it): the loop goes on serving while the save is on its way (Redis paused with
CLIENT PAUSE), the saves land in order, each once, and a failure is told as before."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from redis_server import needs_redis, redis_server  # noqa: F401

from cantina.campaign.errors import explain
from cantina.campaign.store import encode
from cantina.store.campaigns import CampaignKeeper, RedisCampaigns

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign

pytestmark = needs_redis

PAUSE_MS = 300
"""How long Redis holds writes: less than the store's timeout (0.5 s), so a save that
waits on it lands after all."""


@pytest.fixture
def keeper(redis_server):  # noqa: F811
    made = CampaignKeeper.from_url(redis_server.url)
    yield made
    made.close()


def _doc(store: RedisCampaigns, path: Path) -> bytes:
    raw = store.client.get(store._doc(path.name))
    assert isinstance(raw, bytes)
    return raw


async def until(done: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let the loop run until `done()` (the saves on their way have landed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done():
        assert loop.time() < deadline, "an autosave never landed"
        await asyncio.sleep(0.01)


async def test_the_loop_serves_while_an_autosave_waits_on_a_paused_redis(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    store = keeper.player("p1")
    path = store.create(new_campaign("valdes", 7, 3))
    session = store.open(path)
    failures: list[OSError] = []
    session.on_error = failures.append
    seen: list[int] = []

    async def serving() -> None:  # another session's work, on the same loop
        while True:
            await asyncio.sleep(0.005)
            seen.append(session.unsaved)

    other = asyncio.create_task(serving())
    try:
        await asyncio.sleep(0.02)
        pauser = redis.Redis.from_url(redis_server.url)
        pauser.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
        pauser.close()
        seen.clear()
        drive(session.campaign, 3, lambda *_: None)
        assert session.unsaved == 3, "the decisions were made without waiting on Redis"
        await until(lambda: session.saves == 3 or bool(failures))
    finally:
        other.cancel()
    assert 3 in seen, "the loop went on while all three saves were on their way"
    assert not failures and session.saved
    assert session.saves == 3 and session.unsaved == 0, "each save landed, once"
    assert _doc(store, path) == encode(session.campaign), "the last one last"
    session.close()
    assert decisions(store.load(path)) == 3


async def test_an_autosave_that_fails_on_the_loop_is_told_and_made_good_later(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    store = keeper.player("p1")
    path = store.create(new_campaign("valdes", 4, 3))
    session = store.open(path)
    failures: list[OSError] = []
    session.on_error = failures.append
    drive(session.campaign, 1, lambda *_: None)
    await until(lambda: session.saves == 1)
    assert session.saves == 1 and not failures
    redis_server.stop()
    try:
        drive(session.campaign, 2, lambda *_: None)  # the game goes on
        await until(lambda: len(failures) == 2)
        assert len(failures) == 2 and session.unsaved == 2 and not session.saved
        assert explain(failures[0]) == "the campaign store cannot be reached"
        assert not session.settle()
    finally:
        redis_server.start()
    assert session.settle() and session.saved, "all of it written when Redis is back"
    assert decisions(store.load(path)) == 3
    session.close()
