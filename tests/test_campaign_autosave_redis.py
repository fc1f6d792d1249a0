"""A campaign's autosave to a real Redis, made on a running event loop (as a session's
app makes it): the loop goes on serving while the save is on its way (Redis paused with
CLIENT PAUSE), the saves land in order, each once, and a failure is told as before. While
Redis is stopped (SIGSTOP), the autosaves of one campaign are merged, the newest taking
the place of the one waiting, and an older write that reaches Redis late never lands
over a newer one."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from functools import partial
from pathlib import Path
from typing import NamedTuple

import pytest
import redis
import waiting
from redis_server import needs_redis, redis_server  # noqa: F401

from cantina.campaign.errors import explain
from cantina.campaign.store import OpenCampaign, encode
from cantina.store.campaigns import RETRY, CampaignKeeper, RedisCampaigns

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign

until = partial(waiting.until, timeout=5.0)  # its limit here, as before

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


class Autosaving(NamedTuple):
    """A player's new campaign, open, whose autosave failures are collected."""

    store: RedisCampaigns
    path: Path
    session: OpenCampaign
    failures: list[OSError]


def autosaving(keeper: CampaignKeeper, seed: int) -> Autosaving:
    store = keeper.player("p1")
    path = store.create(new_campaign("valdes", seed, 3))
    session = store.open(path)
    failures: list[OSError] = []
    session.on_error = failures.append
    return Autosaving(store, path, session, failures)


async def saved_once(session: OpenCampaign) -> None:
    """One decision made and its autosave landed."""
    drive(session.campaign, 1, lambda *_: None)
    await until(lambda: session.saves == 1)


async def test_the_loop_serves_while_an_autosave_waits_on_a_paused_redis(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    store, path, session, failures = autosaving(keeper, 7)
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
        await until(lambda: session.unsaved == 0 or bool(failures))
    finally:
        other.cancel()
    assert 3 in seen, "the loop went on while all three saves were on their way"
    assert not failures and session.saved
    # the first went out at once; the next two, made while it waited, went as one
    assert session.saves == 2 and session.unsaved == 0, "each write landed, once"
    assert _doc(store, path) == encode(session.campaign), "the last one last"
    session.close()
    assert decisions(store.load(path)) == 3


async def test_an_autosave_that_fails_on_the_loop_is_told_and_made_good_later(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    store, path, session, failures = autosaving(keeper, 4)
    await saved_once(session)
    assert session.saves == 1 and not failures
    redis_server.stop()
    try:
        drive(session.campaign, 2, lambda *_: None)  # the game goes on
        await until(lambda: len(failures) >= 1)
        assert session.unsaved == 2 and not session.saved
        assert explain(failures[0]) == "the campaign store cannot be reached"
        assert not session.settle()
        # the second autosave went with the first's write, or after it, on its own
        assert len(failures) in (1, 2)
    finally:
        redis_server.start()
    assert session.settle() and session.saved, "all of it written when Redis is back"
    assert decisions(store.load(path)) == 3
    session.close()


def _calls(client: redis.Redis, command: str) -> int:
    stats = client.info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


async def test_autosaves_while_redis_is_stopped_are_merged_and_the_newest_is_kept(
    redis_server,  # noqa: F811
) -> None:
    """redis-server stopped (SIGSTOP) while ten decisions are made, a tenth of a second
    apart: each write waits TIMEOUT (0.5 s) and is given up on, and the autosaves made
    meanwhile wait as one (the newest), so a few writes go out, not ten; once Redis runs
    again (SIGCONT) the writes given up on, which it still held, run too, and the document
    kept is the newest: every decision, none older over a newer."""
    keeper = CampaignKeeper.from_url(redis_server.url, lease_ms=60_000)  # no renewal here
    admin = redis.Redis.from_url(redis_server.url)
    try:
        store, path, session, failures = autosaving(keeper, 7)
        await saved_once(session)
        admin.config_resetstat()
        assert redis_server.process is not None
        os.kill(redis_server.process.pid, signal.SIGSTOP)
        try:
            for _ in range(10):
                drive(session.campaign, 1, lambda *_: None)
                await asyncio.sleep(0.1)
            await until(lambda: len(failures) >= 2)
            await asyncio.sleep(0.8)  # the last write under way is given up on too
        finally:
            os.kill(redis_server.process.pid, signal.SIGCONT)
        assert session.unsaved == 10 and not session.saved
        assert session.settle() and session.saved, "written whole once Redis runs again"
        await asyncio.sleep(0.2)
        assert _doc(store, path) == encode(session.campaign), "the newest is kept"
        written = _calls(admin, "evalsha")
        assert written <= 5, f"{written} writes for ten autosaves (one each before)"
        session.close()
        assert decisions(store.load(path)) == 11
    finally:
        admin.close()
        keeper.close()


async def test_a_write_that_reaches_redis_after_a_newer_one_is_dropped(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    """A write the host gave up on (no answer in TIMEOUT) may be run by Redis after the
    next one, which went on a new connection: here the older write's very call is made
    again after the newer landed, and Redis keeps the newer (before, the older landed)."""
    store = keeper.player("p1")
    path = store.create(new_campaign("valdes", 4, 3))
    session = store.open(path)
    sent: list[tuple[list[str], list[object]]] = []
    write = keeper.write

    def recorded(*, keys: list[str], args: list[object]) -> object:
        sent.append((list(keys), list(args)))
        return write(keys=keys, args=args)

    keeper.write = recorded  # type: ignore[method-assign]
    await saved_once(session)
    older = encode(session.campaign)
    drive(session.campaign, 1, lambda *_: None)
    await until(lambda: session.saves == 2)
    newer = encode(session.campaign)
    assert _doc(store, path) == newer and len(sent) == 2
    keys, args = sent[0]
    assert args[3] == older
    assert write(keys=keys, args=args) == 2, "refused as older than what is there"
    assert _doc(store, path) == newer
    session.close()
    assert decisions(store.load(path)) == 2


async def test_an_autosave_that_failed_lands_once_redis_is_back_with_no_other_decision(
    redis_server,  # noqa: F811
    keeper: CampaignKeeper,
) -> None:
    """Redis stopped as a decision is made: its autosave fails, told once, and is tried
    again quietly every RETRY seconds; Redis started again, the decision is written with
    no other decision made and nothing asked of the campaign (a player thinking over
    their next call, or a host killed before it, lost it until then)."""
    store, path, session, failures = autosaving(keeper, 5)
    await saved_once(session)
    redis_server.stop()
    try:
        drive(session.campaign, 1, lambda *_: None)
        await until(lambda: bool(failures))
        await asyncio.sleep(2.5 * RETRY)  # tried again meanwhile, in vain
        assert len(failures) == 1, "told once, not at each try"
        assert session.unsaved == 1 and not session.saved
    finally:
        redis_server.start()
    await until(lambda: session.saved and session.unsaved == 0, timeout=10)
    assert decisions(store.load(path)) == 2
    session.close()
