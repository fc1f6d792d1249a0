"""Campaigns kept in a real Redis (`--store redis://…`): the same bytes as a save file, the
same checks (a damaged document is refused with its name and field, and left as it was),
a lease instead of a flock (a second host is refused; a host killed with -9 lets go when
its lease expires), and any host sees every campaign of a player."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import asyncssh
import pytest
from redis_server import needs_redis, redis_server  # noqa: F401
from ssh_clients import HAVE_OPENSSH, OpenSSH, connect, make_key, plain

from cantina.campaign.errors import CampaignError, Damaged, InUse, NameTaken, explain
from cantina.campaign.store import Store, load
from cantina.ssh.keys import fingerprint, load_or_create_host_key, read_authorized_keys
from cantina.ssh.server import Host, HostOptions, player_name
from cantina.store.campaigns import CampaignKeeper, RedisCampaigns

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign

pytestmark = needs_redis

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def keepers(redis_server):  # noqa: F811
    """Two hosts' links to one Redis, with a short lease (to see it expire)."""
    made = [CampaignKeeper.from_url(redis_server.url, lease_ms=600) for _ in range(2)]
    yield made
    for keeper in made:
        keeper.close()


def _keys(folder: Path) -> tuple[Path, Path, Path]:
    player = make_key(folder / "player")
    authorized = folder / "authorized_keys"
    authorized.write_text(player.with_suffix(".pub").read_text())
    return player, folder / "host_key", authorized


async def _start(keys: tuple[Path, Path, Path], url: str, saves: Path) -> Host:
    _, host_key, authorized = keys
    options = HostOptions(
        save_dir=saves, port=0, host_key=host_key, authorized_keys=authorized, store=url
    )
    host = Host(options, read_authorized_keys(authorized))
    await host.start(load_or_create_host_key(host_key))
    return host


def _doc(store: RedisCampaigns, path: Path) -> bytes:
    raw = store.client.get(store._doc(path.name))
    assert isinstance(raw, bytes)
    return raw


def timeless(document: bytes) -> bytes:
    """A campaign's JSON with its times as one: the two stores each stamp their own copy as
    it is made or saved, and a second can turn between them (a busy CI machine's did)."""
    return re.sub(rb'"(created|updated)": "[^"]*"', rb'"\1": "T"', document)


def test_a_campaign_in_redis_is_the_save_files_bytes(tmp_path: Path, keepers) -> None:
    files = Store(tmp_path / "files")
    redis = keepers[0].player("p1")
    on_disk = files.create(new_campaign("valdes", 7, 3))
    in_redis = redis.create(new_campaign("valdes", 7, 3))
    assert in_redis.name == on_disk.name == "valdes-7.json"
    assert timeless(_doc(redis, in_redis)) == timeless(on_disk.read_bytes())
    for store, path in ((files, on_disk), (redis, in_redis)):
        with store.open(path) as session:
            drive(session.campaign, 9, lambda *_: None)
            assert session.saves == 9 and session.saved
    assert timeless(_doc(redis, in_redis)) == timeless(on_disk.read_bytes())
    assert decisions(redis.load(in_redis)) == 9
    (entry,) = redis.entries()
    assert entry.path == in_redis and entry.problem is None and entry.campaign is not None
    assert entry.campaign.name == "valdes 7"
    # Export gives the usual file: the same bytes, which the file store opens.
    exported = redis.export(in_redis, tmp_path)
    assert exported == tmp_path / "valdes-7.json"
    assert timeless(exported.read_bytes()) == timeless(on_disk.read_bytes())
    assert decisions(load(exported)) == 9
    # And a save file comes in as it is (its name numbered: this one is taken).
    imported = redis.import_file(exported)
    assert (imported.name, imported.was) == ("valdes 7 2", "valdes 7")
    assert [e.campaign.name for e in redis.entries() if e.campaign] == ["valdes 7 2", "valdes 7"]


def played_and_edited(redis: RedisCampaigns, path: Path) -> bytes:
    """The campaign at `path` played 4 moves, then its banks edited by hand in Redis: the
    document as it now stands."""
    with redis.open(path) as session:
        drive(session.campaign, 4, lambda *_: None)
    doc = json.loads(_doc(redis, path))
    doc["banks"] = [999] * len(doc["banks"])
    damaged = json.dumps(doc, indent=1).encode()
    redis.client.set(redis._doc(path.name), damaged)
    return damaged


def test_a_damaged_document_is_refused_by_name_and_field_and_left_as_it_was(keepers) -> None:
    redis = keepers[0].player("p1")
    path = redis.create(new_campaign("vigo", 3, 4))
    damaged = played_and_edited(redis, path)

    with pytest.raises(Damaged) as refused:
        redis.open(path)
    assert refused.value.file == "vigo-3.json" and refused.value.field == "$.banks"
    with pytest.raises(Damaged, match=r"vigo-3\.json: \$\.banks: edited"):
        redis.rename(path, "Another")
    assert _doc(redis, path) == damaged, "never written over or renamed"
    assert redis.client.exists(redis._lease(path.name)) == 0, "a refused opening holds nothing"

    # Not JSON at all: the list says why, with the document's name.
    redis.client.set(redis._doc(path.name), b'{"format": 3, "listing": ')
    (entry,) = redis.entries()
    assert entry.campaign is None and entry.problem is not None
    assert entry.file == "vigo-3.json" and "not a cantina save" in str(entry.problem)


def test_a_damaged_document_is_deleted_once_its_player_is_sure_under_its_lease(
    keepers,
) -> None:
    """It can never be played, so its player may want it gone (as a damaged save file):
    deleting it takes only its lease, not its campaign; and not while another host holds
    that lease."""
    a, b = (keeper.player("p1") for keeper in keepers)
    path = a.create(new_campaign("vigo", 3, 4))
    kept = a.create(new_campaign("valdes", 7, 3))
    damaged = played_and_edited(a, path)
    with pytest.raises(Damaged, match=r"\$\.banks: edited"):
        b.open(path)

    # Held by another host (its lease, as `Lease.acquire` takes it): refused, left whole.
    a.client.set(a._lease(path.name), "elsewhere:4242:abc", px=60_000)
    with pytest.raises(InUse, match=r"open in another cantina \(host elsewhere, process 4242\)"):
        b.delete(path)
    assert _doc(a, path) == damaged
    a.client.delete(a._lease(path.name))

    b.delete(path)
    assert a.client.exists(a._doc(path.name), a._written(path.name)) == 0
    assert a.client.exists(a._lease(path.name)) == 0, "its lease is let go"
    assert [e.path for e in a.entries()] == [kept], "the other campaign stays"
    assert decisions(a.load(kept)) == 0

    # Too garbled to name, or gone: the same.
    garbled = a.create(new_campaign("victim", 2, 2))
    a.client.set(a._doc(garbled.name), b'{"format": 3, "listing": ')
    a.delete(garbled)
    assert [e.path for e in b.entries()] == [kept]
    with pytest.raises(CampaignError, match="no campaign called"):
        a.delete(garbled)


def test_a_second_host_is_refused_while_the_lease_is_renewed(keepers) -> None:
    a, b = (keeper.player("p1") for keeper in keepers)
    path = a.create(new_campaign("valdes", 5, 3))
    with a.open(path) as session:
        with pytest.raises(InUse, match=r"'valdes 5' is open in another cantina \(host "):
            b.open(path)
        time.sleep(1.5)  # more than two leases: renewed meanwhile
        with pytest.raises(InUse):
            b.open(path)
        drive(session.campaign, 2, lambda *_: None)
    with b.open(path) as session:  # closed on A: free at once
        assert decisions(session.campaign) == 2, "B sees what A played"
        drive(session.campaign, 1, lambda *_: None)
    assert decisions(a.load(path)) == 3


def test_both_hosts_list_and_change_the_same_campaigns(keepers) -> None:
    a, b = (keeper.player("p1") for keeper in keepers)
    other = keepers[1].player("p2")
    first = a.create(new_campaign("vigo", 1, 3))
    second = b.create(new_campaign("vigo", 1, 3))
    assert (first.name, second.name) == ("vigo-1.json", "vigo-1-2.json")
    assert [e.campaign.name for e in a.entries() if e.campaign] == ["vigo 1 2", "vigo 1"]
    with pytest.raises(NameTaken):
        a.rename(second, "VIGO 1")
    b.rename(second, "Second")
    assert {e.campaign.name for e in a.entries() if e.campaign} == {"vigo 1", "Second"}
    a.delete(first)
    assert [e.path for e in b.entries()] == [second]
    assert other.entries() == [], "another player's campaigns are not these"


def test_a_host_that_lost_its_lease_never_writes_over_anothers_play(keepers) -> None:
    a, b = (keeper.player("p1") for keeper in keepers)
    path = a.create(new_campaign("valdes", 9, 3))
    session = a.open(path)
    failures: list[OSError] = []
    session.on_error = failures.append
    drive(session.campaign, 1, lambda *_: None)
    # Its lease lapses (Redis away longer than a lease) and nobody wrote since: the next
    # save takes it back.
    a.client.delete(a._lease(path.name))
    drive(session.campaign, 1, lambda *_: None)
    assert not failures and decisions(b.load(path)) == 2
    # It lapses again, and host B opens the campaign and plays: A's saves are refused.
    a.client.delete(a._lease(path.name))
    with b.open(path) as other:
        drive(other.campaign, 3, lambda *_: None)
        drive(session.campaign, 1, lambda *_: None)
        assert len(failures) == 1 and not session.saved
        assert "another cantina has opened the campaign" in str(failures[0])
        assert decisions(b.load(path)) == 5, "B's play stands"
        session.close()
        with pytest.raises(InUse):
            a.open(path)  # A's close let go of nothing of B's


def test_a_redis_away_is_said_and_play_goes_on_when_it_returns(redis_server, keepers) -> None:  # noqa: F811
    store = keepers[0].player("p1")
    path = store.create(new_campaign("valdes", 4, 3))
    session = store.open(path)
    failures: list[OSError] = []
    session.on_error = failures.append
    drive(session.campaign, 1, lambda *_: None)
    redis_server.stop()
    try:
        (entry,) = store.entries()  # the list says why, in one row (no exception)
        assert entry.campaign is None and entry.problem is not None
        assert str(entry.problem) == (
            "Redis: cannot be reached (ConnectionError); try again in a moment"
        )
        with pytest.raises(CampaignError, match="cannot be reached"):
            store.open(path)
        drive(session.campaign, 2, lambda *_: None)  # the game goes on, unsaved
        assert len(failures) == 2 and session.unsaved == 2
        assert explain(failures[0]) == "the campaign store cannot be reached"
        assert not session.settle()
    finally:
        redis_server.start()
    assert session.settle() and session.saved, "all of it written when Redis is back"
    assert decisions(keepers[1].player("p1").load(path)) == 3
    session.close()


def _folder_of_saves(folder: Path) -> tuple[list[Path], dict[str, bytes]]:
    """A player's folder as a host kept it before Redis: two whole saves (one played a
    little) and two damaged ones; its files' bytes, to see them left as they were."""
    files = Store(folder)
    whole = [files.create(new_campaign("valdes", 7, 3)), files.create(new_campaign("vigo", 2, 3))]
    with files.open(whole[1]) as session:
        drive(session.campaign, 5, lambda *_: None)
    edited = json.loads(whole[0].read_bytes())
    edited["banks"] = [999] * len(edited["banks"])
    (folder / "edited.json").write_text(json.dumps(edited, indent=1))
    (folder / "cut.json").write_bytes(b'{"format": 3, "listing": ')
    return whole, {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_players_saves_in_the_hosts_folder_are_brought_into_redis_once(
    tmp_path: Path, keepers
) -> None:
    folder = tmp_path / "players" / "p1"
    folder.mkdir(parents=True)
    whole, before = _folder_of_saves(folder)
    redis = keepers[0].player("p1", folder)
    # Played in Redis before the host listed the folder: a campaign of that file name.
    taken = keepers[0].player("p1").create(new_campaign("victim", 1, 3))
    assert taken.name == "victim-1.json"
    (folder / "victim-1.json").write_bytes(_doc(redis, taken).replace(b"victim 1", b"other 1"))
    before["victim-1.json"] = (folder / "victim-1.json").read_bytes()

    entries = redis.entries()
    shown = {e.file: e.campaign.name for e in entries if e.campaign is not None}
    assert shown == {
        "valdes-7.json": "valdes 7",
        "vigo-2.json": "vigo 2",
        "victim-1.json": "victim 1",
        "victim-1-2.json": "other 1",  # the file, beside the document that had its name
    }
    # A damaged file is not copied; it is listed as damaged, with its name and field, in
    # the very words the file store refuses it with.
    damaged = {e.file: e.problem for e in entries if e.problem is not None}
    assert set(damaged) == {"edited.json", "cut.json"}
    for file, problem in damaged.items():
        with pytest.raises(Damaged) as refused:
            Store(folder).load(folder / file)
        assert str(problem) == str(refused.value)
    assert damaged["edited.json"].field == "$.banks"
    assert str(damaged["cut.json"]).startswith("cut.json: not a cantina save")
    with pytest.raises(CampaignError, match=r"no campaign called 'edited\.json'"):
        redis.load(Path("edited.json"))
    assert [e.modified for e in entries] == sorted((e.modified for e in entries), reverse=True)
    # The same bytes, through the same checks: played on from where the file was.
    for path in whole:
        assert _doc(redis, Path(path.name)) == before[path.name]
    assert _doc(redis, Path("victim-1-2.json")) == before["victim-1.json"]
    assert decisions(redis.load(Path(whole[1].name))) == 5
    # Brought once: listed again (here, on another host), nothing is copied twice, and a
    # campaign deleted from Redis does not come back from its file.
    other = keepers[1].player("p1", folder)
    assert [e.file for e in other.entries()] == [e.file for e in entries]
    other.delete(Path(whole[0].name))
    assert whole[0].name not in {e.file for e in redis.entries()}
    assert redis.client.zcard(redis.index) == 3
    with redis.open(Path(whole[1].name)) as session:
        drive(session.campaign, 2, lambda *_: None)
    # The files are left as they were, every one of them.
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_two_hosts_listing_at_once_bring_each_save_once(tmp_path: Path, keepers) -> None:
    folder = tmp_path / "saves"
    files = Store(folder)
    made = [files.create(new_campaign("vigo", seed, 3)) for seed in range(12)]
    stores = [keeper.player("p1", folder) for keeper in keepers]
    start = threading.Barrier(len(stores))
    listed: list[list[str]] = []

    def list_them(store: RedisCampaigns) -> None:
        start.wait()
        listed.append(sorted(e.file for e in store.entries() if e.problem is None))

    threads = [threading.Thread(target=list_them, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    names = sorted(path.name for path in made)
    assert listed == [names, names]
    assert stores[0].client.zcard(stores[0].index) == 12, "no save brought twice"
    for path in made:
        assert _doc(stores[0], Path(path.name)) == path.read_bytes()


def test_the_host_gives_a_keyed_players_folder_to_their_campaigns_in_redis(
    redis_server,  # noqa: F811
    tmp_path: Path,
) -> None:
    options = HostOptions(save_dir=tmp_path, port=0, store=redis_server.url)
    host = Host(options, None)
    try:
        store = host.player_campaigns("SHA256:abc")
        assert store is not None and store.files == host.player_saves("SHA256:abc")
        assert store.files == tmp_path / "players" / player_name("SHA256:abc")
        assert host.player_campaigns("guest:1") is None
    finally:
        assert host.campaign_keeper is not None
        host.campaign_keeper.close()


def test_a_redis_gone_while_a_damaged_document_is_read_whole_is_one_row(
    redis_server,  # noqa: F811
    keepers,
    monkeypatch,
) -> None:
    """The list reads a document with no listing whole, after the index: Redis stopped
    between the two is said in one row, as when it is away from the start."""
    store = keepers[0].player("p1")
    path = store.create(new_campaign("vigo", 8, 3))
    store.client.set(store._doc(path.name), b'{"format": 3, "listing": ')
    heads = store._heads

    def then_stop() -> list:
        found = heads()
        redis_server.stop()
        return found

    monkeypatch.setattr(store, "_heads", then_stop)
    try:
        (entry,) = store.entries()
        assert entry.campaign is None and entry.problem is not None
        assert str(entry.problem) == (
            "Redis: cannot be reached (ConnectionError); try again in a moment"
        )
        assert not redis_server.process
    finally:
        redis_server.start()
    monkeypatch.undo()
    (entry,) = store.entries()
    assert entry.file == "vigo-8.json" and "not a cantina save" in str(entry.problem)


KEEP_OPEN = """
import sys, time
from pathlib import Path
from cantina.store.campaigns import CampaignKeeper
store = CampaignKeeper.from_url(sys.argv[1], lease_ms=1500).player("p1")
session = store.open(Path(sys.argv[2]))
print("open", flush=True)
time.sleep(60)
"""


def test_a_host_killed_with_minus_9_lets_go_when_its_lease_expires(redis_server, keepers) -> None:  # noqa: F811
    store = keepers[0].player("p1")
    path = store.create(new_campaign("victim", 2, 3))
    host = subprocess.Popen(
        [sys.executable, "-c", KEEP_OPEN, redis_server.url, str(path)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert host.stdout is not None and host.stdout.readline() == b"open\n"
        with pytest.raises(InUse, match=f"process {host.pid}"):
            store.open(path)
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)
        with pytest.raises(InUse):
            store.open(path)  # its lease has not expired yet
        deadline = time.monotonic() + 10
        while True:
            try:
                session = store.open(path)
                break
            except InUse:
                assert time.monotonic() < deadline, "the dead host's lease never expired"
                time.sleep(0.1)
        with session:
            drive(session.campaign, 1, lambda *_: None)
        assert decisions(store.load(path)) == 1
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(10)


async def test_a_campaign_begun_on_one_host_is_resumed_on_another_over_ssh(
    redis_server,  # noqa: F811
    tmp_path: Path,
    monkeypatch,
) -> None:
    """Two hosts on one Redis, a real SSH client: a campaign started on host A is kept in
    Redis (no file), listed on host B, refused there while A plays it, and opened on B
    once the player has left A."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    keys = _keys(tmp_path)
    saves = tmp_path / "saves"
    hosts = [await _start(keys, redis_server.url, saves) for _ in range(2)]
    try:
        key = asyncssh.read_private_key(keys[0])
        conn_a, chan_a, screen_a = await connect(hosts[0].port, key)
        await screen_a.expect("shared tables")
        for typed, words in (("m", "Resume a campaign"), ("c", "which game"), ("d", "Ante")):
            mark = len(screen_a.output)
            chan_a.write(typed.encode())
            await screen_a.expect(words, since=mark)
        mark = len(screen_a.output)
        chan_a.write(b"\x13")  # ctrl+s: start the campaign
        await screen_a.expect("game 1 of 5", since=mark)
        assert not list(saves.rglob("*.json")), "no save file: the campaign is in Redis"
        store = CampaignKeeper.from_url(redis_server.url).player(player_name(fingerprint(key)))
        (entry,) = store.entries()
        assert entry.path.name == "campaign.json" and entry.campaign is not None

        conn_b, chan_b, screen_b = await connect(hosts[1].port, key)
        await screen_b.expect("shared tables")
        for typed, words in (("m", "Resume a campaign"), ("u", "Val-Des, game 1 of 5")):
            mark = len(screen_b.output)
            chan_b.write(typed.encode())
            await screen_b.expect(words, since=mark)
        await asyncio.sleep(0.3)  # the list has the focus
        mark = len(screen_b.output)
        chan_b.write(b"\r")
        await screen_b.expect("Cannot open the campaign", since=mark)
        assert "open in" in plain(bytes(screen_b.output[mark:]))

        conn_a.close()
        for _ in range(100):  # the session on A ends, and lets the campaign go
            if not store.client.exists(store._lease("campaign.json")):
                break
            await asyncio.sleep(0.1)
        chan_b.write(b"\r")
        (session,) = hosts[1].sessions
        for _ in range(100):
            if session.app is not None and session.app.campaign_session is not None:
                break
            await asyncio.sleep(0.1)
        assert session.app is not None and session.app.campaign_session is not None
        assert session.app.campaign_session.campaign.name == "Campaign"
        assert store.client.exists(store._lease("campaign.json")), "B holds it now"
        conn_b.close()
        store.keeper.close()
    finally:
        for host in hosts:
            await asyncio.wait_for(host.close(), 10)


async def _standings(ssh: OpenSSH) -> str:
    """The campaign's standings as the player's screen shows them (t, at the table)."""
    mark = ssh.mark()
    ssh.send("t")
    await ssh.expect("Bank", since=mark)
    await asyncio.sleep(0.5)  # every row drawn
    return plain(bytes(ssh.output[mark:]))


def _banks_shown(screen: str, pattern: str, store: RedisCampaigns, path: Path) -> dict[str, int]:
    """Each seat's bank on `screen`, found by `pattern` (NAME: the seat's name, as kept in
    Redis; the figure, its group), the last time it was drawn."""
    shown = {}
    for standing in store.load(path).standings():
        found = re.findall(pattern.replace("NAME", re.escape(standing.name)), screen)
        assert found, f"no bank for {standing.name} on the screen:\n{screen[-1500:]}"
        shown[standing.name] = int(found[-1])
    return shown


RESULT_ROW = r"NAME\s+\d+ points?\s+bank\s+(-?\d+)"
"""A seat's line on a Val-Des game's result (`screens/valdes.py`)."""
STANDINGS_ROW = r"NAME\s+(-?\d+)\s"
"""A seat's line on the standings: name, then bank (`screens/standings.py`)."""


@pytest.mark.skipif(not HAVE_OPENSSH, reason="OpenSSH's ssh client is not installed")
async def test_a_campaign_begun_over_openssh_on_one_host_resumes_on_another_with_its_banks(
    redis_server,  # noqa: F811
    tmp_path: Path,
    monkeypatch,
) -> None:
    """Two hosts on one Redis, OpenSSH's own client: a keyed player begins a campaign on
    host A, plays its first game out (the result's banks are the record's) and begins the
    second, drops the connection, and resumes it on host B, whose standings show the same
    banks as A's did, as Redis holds them."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "preferences.json").write_text('{"animation": "off", "pace": 0}')
    keys = _keys(tmp_path)
    hosts = [await _start(keys, redis_server.url, tmp_path / "saves") for _ in range(2)]
    key = asyncssh.read_private_key(keys[0])
    store = CampaignKeeper.from_url(redis_server.url).player(player_name(fingerprint(key)))
    path = Path("campaign.json")
    a = await OpenSSH.start(keys[0], hosts[0].port, "-tt")
    b: OpenSSH | None = None
    try:
        await a.expect("shared tables")
        for typed, words in (("m", "Resume a campaign"), ("c", "which game"), ("d", "Ante")):
            mark = a.mark()
            a.send(typed)
            await a.expect(words, since=mark)
        mark = a.mark()
        a.send(b"\x13")  # ctrl+s: start the campaign
        await a.expect("game 1 of 5", since=mark)
        begun = a.mark()
        deadline = time.monotonic() + 90
        while not store.load(path).data.finished:  # the player's calls, until game 1 ends
            assert time.monotonic() < deadline, a.text[-1500:]
            a.send("1")
            await asyncio.sleep(0.2)
        # Saved as finished with its last decision; the result opens by itself once the
        # table has shown the game's end (racing the footer's "Result" key, which it may
        # cover before that is drawn: waiting for the key failed now and then).
        await a.expect("points   bank", since=begun)
        await asyncio.sleep(0.5)  # drawn whole
        start = list(store.load(path).data.finished[0].start.banks)
        on_a = _banks_shown(plain(bytes(a.output[begun:])), RESULT_ROW, store, path)
        campaign = store.load(path)
        names = [seat.name for seat in campaign.seats]
        kept = dict(zip(names, campaign.data.finished[0].banks, strict=True))
        assert on_a == kept and list(kept.values()) != start, "game 1 moved the banks"
        # Game 2 begun (its antes paid): the standings, as they stand mid-round.
        mark = a.mark()
        a.send("n")
        await a.expect("call Val or Des", since=mark)
        on_a = _banks_shown(await _standings(a), STANDINGS_ROW, store, path)
        kept = {s.name: s.bank for s in store.load(path).standings()}
        assert on_a == kept, "what A shows is what Redis keeps"
        a.kill()  # the player drops the connection
        await asyncio.sleep(0.2)
        for _ in range(100):  # host A's session ends, and lets the campaign go
            if not store.client.exists(store._lease(path.name)):
                break
            await asyncio.sleep(0.1)

        b = await OpenSSH.start(keys[0], hosts[1].port, "-tt")
        await b.expect("shared tables")
        for typed, words in (("m", "Resume a campaign"), ("u", "Val-Des, game ")):
            mark = b.mark()
            b.send(typed)
            await b.expect(words, since=mark)
        await asyncio.sleep(0.3)  # the list has the focus
        mark = b.mark()
        b.send("\r")
        await b.expect("Val-Des", since=mark)
        (session,) = hosts[1].sessions
        for _ in range(100):
            if session.app is not None and session.app.campaign_session is not None:
                break
            await asyncio.sleep(0.1)
        assert session.app is not None and session.app.campaign_session is not None
        assert store.client.exists(store._lease(path.name)), "B holds it now"
        on_b = _banks_shown(await _standings(b), STANDINGS_ROW, store, path)
        assert on_b == on_a, "the same banks on B as on A"
        b.send("q")
    finally:
        a.kill()
        if b is not None:
            b.kill()
        store.keeper.close()
        for host in hosts:
            await asyncio.wait_for(host.close(), 10)
