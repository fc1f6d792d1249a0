"""The host's lobby on its own (no SSH, no screens): seats, codes, starting, leaving, and
each started table's dealer playing the AI seats and standing in for absent players."""

from __future__ import annotations

import asyncio

import pytest

from cantina.games.valdes import ValDesSettings
from cantina.lobby import CODE_LENGTH, CODE_LETTERS, Lobby, Player
from cantina.pace import Pace
from cantina.seating import Seat, TableSetup

INSTANT = Pace(beat=0, roll=0)
ALICE = Player("SHA256:alice", "alice")
BOB = Player("SHA256:bob", "bob")
CAROL = Player("SHA256:carol", "carol")


def setup(humans: int = 2, ais: int = 1) -> TableSetup:
    seats = tuple(Seat(f"Player {i + 1}") for i in range(humans)) + tuple(
        Seat(f"AI {i + 1}", "Expert") for i in range(ais)
    )
    return TableSetup("valdes", ValDesSettings(seats=len(seats), ante=1), seats, 7)


async def test_codes_seats_and_the_creators_start():
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(setup(humans=3), ALICE)
    assert len(table.code) == CODE_LENGTH and set(table.code) <= set(CODE_LETTERS)
    assert lobby.find(table.code.lower()) is table
    assert lobby.join(table, BOB) == 1 and lobby.join(table, BOB) == 1  # once only
    with pytest.raises(ValueError, match="creator"):
        lobby.start(table, BOB)
    dealer = lobby.start(table, ALICE)
    assert [s.name for s in table.setup.seats] == ["alice", "bob", "Cautious 3", "AI 1"]
    assert [s.human for s in table.setup.seats] == [True, True, False, False]
    with pytest.raises(ValueError, match="already playing"):
        lobby.join(table, CAROL)
    assert dealer is table.dealer and dealer.table is table.live
    assert lobby.start(table, ALICE) is dealer, "started once"
    lobby.close_all()


async def test_a_full_table_and_a_table_for_no_one():
    lobby = Lobby()
    table = lobby.create(setup(humans=1, ais=2), ALICE)
    with pytest.raises(ValueError, match="no free seat"):
        lobby.join(table, BOB)
    with pytest.raises(ValueError, match="Human"):
        lobby.create(setup(humans=0, ais=3), BOB)


async def test_one_unstarted_table_per_creator():
    lobby = Lobby()
    first = lobby.create(setup(), ALICE)
    second = lobby.create(setup(), ALICE)
    assert lobby.find(first.code) is None and lobby.find(second.code) is second


async def test_the_creator_leaving_passes_the_table_on_and_the_last_closes_it():
    lobby = Lobby()
    for player in (ALICE, BOB):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, BOB)
    lobby.left(ALICE)
    assert table.creator == BOB and lobby.find(table.code) is table
    lobby.left(BOB)
    assert lobby.find(table.code) is None


async def test_a_table_everyone_left_closes_after_a_while():
    lobby = Lobby(pace=INSTANT, away_grace=60)
    for player in (ALICE, BOB):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, BOB)
    lobby.start(table, ALICE)
    lobby.left(ALICE)
    lobby.sweep(abandoned_after=0.05)
    assert lobby.find(table.code) is table  # bob is still here
    lobby.left(BOB)
    lobby.sweep(abandoned_after=0.05)
    assert lobby.find(table.code) is table  # not yet
    await asyncio.sleep(0.1)
    lobby.sweep(abandoned_after=0.05)
    assert lobby.find(table.code) is None
    assert table.dealer is not None and table.dealer.task is not None
    await asyncio.wait_for(asyncio.wait([table.dealer.task]), 5)  # the dealer stops with it
    assert table.dealer.task.cancelled() and table.dealer.closed


async def test_the_dealer_plays_the_ai_seats_and_waits_for_people():
    lobby = Lobby(pace=INSTANT)
    lobby.arrived(ALICE)
    table = lobby.create(setup(humans=1, ais=2), ALICE)
    live = lobby.start(table, ALICE).table
    for _ in range(200):
        decision = live.game.pending
        if decision is not None and decision.seat == 0:
            break
        await asyncio.sleep(0.01)
    assert live.game.pending.seat == 0  # the AIs moved up to alice's turn, and stopped
    moves = len(live.moves)
    await asyncio.sleep(0.1)
    assert len(live.moves) == moves
    lobby.close_all()


def open_campaign(tmp_path, rounds: int = 1):
    """A saved Val-Des campaign of two people and an AI, open (locked) as the host holds
    it for a shared table."""
    from cantina.campaign.series import Campaign
    from cantina.campaign.store import Store
    from cantina.seating import seats_from_text

    store = Store(tmp_path)
    campaign = Campaign.new(
        "Shared",
        "valdes",
        seats_from_text("you,you,Expert"),
        ValDesSettings(seats=3),
        rounds=rounds,
        seed=3,
    )
    path = store.create(campaign)
    return store, path, store.open(path)


async def test_a_campaign_table_is_its_owners(tmp_path):
    """Nobody but its owner may start a campaign's table: when the owner leaves before the
    start, the table closes and the campaign is let go, rather than passing to a guest."""
    store, path, session = open_campaign(tmp_path)
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(session.campaign.setup(), ALICE, campaign=session)
    lobby.join(table, BOB)
    lobby.leave_unstarted(table, ALICE)
    assert lobby.find(table.code) is None
    store.open(path).close()  # the lock was given back


async def test_a_finished_campaign_closes_its_table_and_lets_the_save_go(tmp_path):
    """Free human seats are played by the stand-in; once the campaign's last round is
    over, the host's next look closes the table and the save is free again."""
    store, path, session = open_campaign(tmp_path, rounds=1)
    lobby = Lobby(pace=INSTANT, away_grace=0)
    table = lobby.create(session.campaign.setup(), ALICE, campaign=session)
    live = lobby.start(table, ALICE).table
    assert table.dealer.standing_in == {1}, "the free seat for a person is stood in for"
    assert live.keeper is session.campaign
    for _ in range(400):
        decision = live.game.pending
        if decision is None:
            break
        if decision.seat == 0:
            live.submit(0, decision.options[0])
        await asyncio.sleep(0.01)
    assert live.game.pending is None and session.campaign.over
    lobby.check_presence()
    assert lobby.find(table.code) is None
    store.open(path).close()
