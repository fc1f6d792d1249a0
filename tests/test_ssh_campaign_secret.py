"""A campaign set at a shared table, played by real OpenSSH clients: its owner, who chose
or saw its seed (and with it would know every roll and AI choice of the rounds to come),
knows nothing of the dice the others play; a round under way that its owner may know is
played by them alone."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import asyncssh
import test_ssh
import test_ssh_tables
from campaign_driver import decisions
from ssh_clients import OpenSSH, plain
from test_ssh import Keys, needs_openssh, start_host
from test_ssh_tables import answer, session_of, table_screen
from waiting import until

from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, load
from cantina.games.valdes import ValDesSettings
from cantina.lobby import SharedTable
from cantina.seating import seats_from_text
from cantina.ssh.keys import fingerprint
from cantina.ssh.server import Host
from screens.standings import StandingsScreen

pytestmark = needs_openssh

keys = test_ssh.keys
own_config = test_ssh.own_config
assert test_ssh_tables.keys is keys

SEED = 5
"""The seed the owner chose (as the new-campaign screen lets them)."""


def night() -> Campaign:
    """Two seats for people and an AI: what the owner made, and can make again at home."""
    return Campaign.new(
        "Shared Night",
        "valdes",
        seats_from_text("you,you,Expert"),
        ValDesSettings(seats=3),
        rounds=2,
        seed=SEED,
    )


def saved_night(host: Host, keys: Keys) -> Path:
    """The campaign, saved in the owner's (the `player` key's) folder at the host."""
    folder = host.player_saves(fingerprint(asyncssh.read_private_key(keys.player)))
    assert folder is not None
    return Store(folder).create(night())


async def set_the_campaign(ann: OpenSSH, host: Host) -> SharedTable:
    """The owner sets their campaign at a shared table (`c`, then Enter on it)."""
    await ann.expect("shared tables")
    mark = ann.mark()
    ann.send("c")
    await ann.expect("Shared Night", since=mark)
    await asyncio.sleep(0.3)  # the list has the focus
    ann.send("\r")
    await ann.expect("Press s to start", since=mark)
    (table,) = host.lobby.tables.values()
    return table


async def join(bob: OpenSSH, code: str) -> int:
    await bob.expect("shared tables")
    mark = bob.mark()
    bob.send("j")
    await asyncio.sleep(0.5)  # keys typed ahead would reach the list, before the focus moves
    bob.send(code.lower() + "\r")
    return mark


async def test_a_hosted_campaigns_dice_to_come_are_told_to_no_one(keys: Keys, tmp_path):
    """The owner sets their campaign (seed 5, which they chose) at a shared table and bob
    joins: the round is dealt again from a secret seed of 63 bits, not the one that seed
    deals at home; after moves by both, neither's standings offer a replay of the round
    under way (it would tell its seed), nor does typing its number open one, nor do the
    owner's from the saves list of another session; no screen says the seed; and the
    save, checked as every save is, holds the new seed, the round's moves and its dice."""
    host = await start_host(keys, save_dir=tmp_path / "saves")
    path = saved_night(host, keys)
    at_home = night().data.table
    assert at_home is not None
    ann = await OpenSSH.start(keys.player, host.port, "-tt", user="ann")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    clients = {"ann": ann, "bob": bob}
    try:
        table = await set_the_campaign(ann, host)
        mark = await join(bob, table.code)
        await bob.expect("Waiting for ann to start the table", since=mark)
        ann.send("s")
        await until(lambda: table.live is not None, "the table to start")
        assert sorted(p.name for p in table.seated.values()) == ["ann", "bob"]
        seed = table.live.setup.seed
        assert seed != at_home.start.seed, "the owner could deal these dice at home"
        assert seed >= 2**32  # 63 bits (a false alarm once in 2^31 runs)
        await answer(host, table, clients, lambda: len(table.live.moves) >= 3)

        for name, client in clients.items():
            mark = client.mark()
            client.send("t")
            await until(
                lambda n=name: isinstance(session_of(host, n).app.screen, StandingsScreen),
                f"{name}'s standings",
            )
            standings = session_of(host, name).app.screen
            assert standings.rounds() == [], "round 1 is under way: no replay of it"
            client.send("p")  # nothing to choose from
            await asyncio.sleep(0.5)
            assert session_of(host, name).app.screen is standings
            standings.replay("1")  # as if typed where a finished round would be asked
            await client.expect("is under way", since=mark)
            assert session_of(host, name).app.screen is standings
            client.send("\x1b")
            await until(lambda n=name: table_screen(host, n) is not None, f"{name} back")

        # Nor from the saves list, in another session of the owner's (the same key).
        again = await OpenSSH.start(keys.player, host.port, "-tt", user="ann2")
        clients["ann2"] = again
        await again.expect("t Ranks")  # a new session of hers follows her table: leave it
        mark = again.mark()
        again.send("\x1b")
        await again.expect("Leave the table?", since=mark)
        again.send("y")
        await again.expect("shared tables", since=mark)
        mark = again.mark()
        again.send("m")  # play alone: the menu
        await again.expect("Resume a campaign", since=mark)
        again.send("u")
        await again.expect("Shared Night", since=mark)
        await asyncio.sleep(0.3)  # the list has the focus
        again.send("t")
        await until(
            lambda: isinstance(session_of(host, "ann2").app.screen, StandingsScreen),
            "the standings from the saves list",
        )
        standings = session_of(host, "ann2").app.screen
        assert standings.campaign.data.table is not None, "the round under way, as saved"
        assert standings.rounds() == []
        standings.replay("1")
        await again.expect("is under way", since=mark)

        for name, client in clients.items():
            told = plain(bytes(client.output))
            assert not re.search(rf"\b{seed}\b", told), f"{name} was told the round's seed"
        kept = load(path)
        assert kept.data.seed not in (SEED, seed) and kept.data.seed >= 2**32
        assert kept.data.legacy_rounds == 0, "no round had begun: all are from the new seed"
        assert kept.data.table is not None and kept.data.table.start.seed == seed
        assert decisions(kept) == len(table.live.moves) >= 3
    finally:
        for client in clients.values():
            client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_campaign_whose_round_under_way_has_begun_is_its_owners_alone(keys: Keys, tmp_path):
    """The owner played two moves of its round alone, seeing its seed: at a shared table
    that round's dice are theirs to know, so bob is told he may only watch, its other
    seat for a person is the stand-in's (so the waiting room says), and the campaign
    keeps its seed."""
    host = await start_host(keys, save_dir=tmp_path / "saves")
    path = saved_night(host, keys)
    with Store(path.parent).open(path) as session:
        played = session.campaign.table()
        for _ in range(2):  # as the owner's keys would, alone at the host
            decision = played.game.pending
            assert decision is not None
            played.submit(decision.seat, decision.options[0])
        assert decisions(session.campaign) == 2 and session.saved
    ann = await OpenSSH.start(keys.player, host.port, "-tt", user="ann")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        table = await set_the_campaign(ann, host)
        await ann.expect("Cautious, standing in")
        await ann.expect("the stand-in plays the other seats")  # not "when everyone is here"
        mark = await join(bob, table.code)
        await bob.expect("campaign's round under way", since=mark)
        assert [p.name for p in table.seated.values()] == ["ann"]
        assert "its owner's alone" in table.summary()
        ann.send("s")
        await until(lambda: table.live is not None, "the table to start")
        assert table.dealer is not None and table.dealer.standing_in == {1}
        assert load(path).data.seed == SEED
    finally:
        ann.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)
