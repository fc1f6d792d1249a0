"""The host's lobby on its own (no SSH, no screens): seats, codes, starting, leaving, and
each started table's dealer playing the AI seats and standing in for absent players."""

from __future__ import annotations

import asyncio
import logging

import pytest

from cantina.dealer import ASKING
from cantina.games.table import IllegalAction
from cantina.games.valdes import ValDesSettings
from cantina.lobby import Lobby, Player
from cantina.lobby.codes import CODE_LENGTH, CODE_LETTERS, REJOIN_LENGTH, REJOIN_TRIES_PER_ADDRESS
from cantina.pace import Pace
from cantina.seating import Seat, TableSetup

INSTANT = Pace(beat=0, roll=0)
ALICE = Player("SHA256:alice", "alice")
BOB = Player("SHA256:bob", "bob")
CAROL = Player("SHA256:carol", "carol")
DAVE = Player("SHA256:dave", "dave")


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


async def test_an_ai_seat_is_labelled_by_its_temperament_once():
    """An AI seat named after its temperament is "Bold (AI)", not "Bold (AI, Bold)"; one
    given a name of its own keeps the temperament beside it."""
    seats = (Seat("Player 1"), Seat("Bold", "Bold"), Seat("Rex", "Expert"))
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=3), seats, 7), ALICE)
    assert [table.seat_label(seat) for seat in (1, 2)] == ["Bold (AI)", "Rex (AI, Expert)"]
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


async def test_a_started_table_nobody_follows_closes_after_a_while():
    """A table stays while any screen follows it, a spectator's too; once none does, it
    closes after `empty_after`, though its players are still connected (in the lobby)."""
    lobby = Lobby(pace=INSTANT, away_grace=60, empty_after=0.05)
    for player in (ALICE, BOB, CAROL):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, BOB)
    dealer = lobby.start(table, ALICE)
    unfollow = dealer.follow(lambda: None, table.place_of(CAROL))  # carol watches
    for _ in range(3):
        lobby.sweep()
        await asyncio.sleep(0.06)
    assert lobby.find(table.code) is table, "a spectator holds the table"
    unfollow()
    lobby.sweep()
    assert lobby.find(table.code) is table  # not yet
    await asyncio.sleep(0.1)
    lobby.sweep()
    assert lobby.find(table.code) is None
    assert dealer.task is not None
    await asyncio.wait_for(asyncio.wait([dealer.task]), 5)  # the dealer stops with it
    assert dealer.task.cancelled() and dealer.closed


async def test_a_table_followed_again_starts_its_wait_over():
    lobby = Lobby(pace=INSTANT, empty_after=0.1)
    lobby.arrived(ALICE)
    table = lobby.create(setup(humans=1), ALICE)
    dealer = lobby.start(table, ALICE)
    lobby.sweep()
    await asyncio.sleep(0.06)
    unfollow = dealer.follow(lambda: None, table.place_of(ALICE))
    lobby.sweep()
    unfollow()
    lobby.sweep()
    await asyncio.sleep(0.06)
    lobby.sweep()
    assert lobby.find(table.code) is table, "the wait began again when alice left"
    lobby.close_all()


async def test_an_unstarted_table_whose_people_all_left_closes_at_the_next_sweep():
    """Seated people who are no longer connected hold no waiting table; one connected
    person seated holds it."""
    lobby = Lobby()
    lobby.arrived(BOB)
    held = lobby.create(setup(), BOB)
    nobody = lobby.create(setup(), ALICE)  # alice is not connected
    lobby.sweep()
    assert lobby.find(held.code) is held and lobby.find(nobody.code) is None


async def test_a_host_keeps_at_most_its_max_tables_open():
    """`cantina serve --max-tables N`: the host keeps N tables open, and refuses the next
    in one line, whoever sets it; one closing makes room again."""
    lobby = Lobby(pace=INSTANT, max_tables=3)
    tables = [lobby.create(setup(humans=1), who) for who in (ALICE, BOB, CAROL)]
    with pytest.raises(ValueError, match="the host has as many tables as it keeps"):
        lobby.create(setup(humans=1), DAVE)
    lobby.close(tables[0])
    assert lobby.create(setup(humans=1), DAVE).creator == DAVE
    assert len(lobby.tables) == 3
    lobby.close_all()
    assert Lobby().max_tables == 64


async def test_tables_per_player():
    """A player may have two tables open; a third is refused, saying why. The waiting
    table they set is replaced by their next, not counted twice."""
    lobby = Lobby(pace=INSTANT)
    lobby.arrived(ALICE)
    first = lobby.create(setup(humans=1), ALICE)
    lobby.start(first, ALICE)
    waiting = lobby.create(setup(humans=1), ALICE)
    second = lobby.create(setup(humans=1), ALICE)
    assert lobby.find(waiting.code) is None
    lobby.start(second, ALICE)
    with pytest.raises(ValueError, match="2 tables open, the most one player may"):
        lobby.create(setup(humans=1), ALICE)
    assert lobby.create(setup(humans=1), BOB).creator == BOB, "bob has his own two"
    lobby.close(first)
    assert lobby.create(setup(humans=1), ALICE) in lobby.tables.values()
    lobby.close_all()
    assert Lobby(tables_per_player=5).tables_per_player == 5


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


async def test_a_failed_autosave_at_a_shared_table_is_said_in_plain_words(tmp_path):
    """The players are told why a hosted campaign could not be saved in a few words, as
    at a local table, never the system's `[Errno 28] No space left on device: '/…'`."""
    import errno

    _store, path, session = open_campaign(tmp_path)
    lobby = Lobby(pace=INSTANT, away_grace=0)
    table = lobby.create(session.campaign.setup(), ALICE, campaign=session)
    dealer = lobby.start(table, ALICE)
    assert session.on_error is not None
    session.on_error(OSError(errno.ENOSPC, "No space left on device", str(path)))
    assert dealer.notices[-1] == (
        "The campaign could not be saved (the disk is full); the next move tries again."
    )
    lobby.close_all()


# --- presence ---------------------------------------------------------------------------------


async def test_two_people_who_go_by_one_name_are_told_apart():
    """Two keys that log in as ana, and two guests, each get a name of their own; a second
    session of one person keeps their name; a long name is cut to make room."""
    lobby = Lobby(pace=INSTANT)
    arrived = []
    for identity, name in (
        ("key:a", "ana"),
        ("key:b", "Ana"),
        ("key:c", "ANA"),
        ("guest:1", "guest"),
        ("guest:2", "guest"),
        ("key:l1", "x" * 16),
        ("key:l2", "x" * 16),
    ):
        person = lobby.player(identity, name)
        lobby.arrived(person)
        arrived.append(person.name)
    assert arrived == ["ana", "Ana 2", "ANA 3", "guest", "guest 2", "x" * 16, "x" * 14 + " 2"]
    again = lobby.player("key:b", "bob", "10.0.0.2")
    assert (again.name, again.address) == ("Ana 2", "10.0.0.2")
    lobby.left(lobby.people["key:a"])
    assert lobby.player("key:d", "ana").name == "ana"  # free again


async def test_who_is_here_who_sits_and_who_watches():
    lobby = Lobby(pace=INSTANT)
    for player in (CAROL, ALICE, BOB):
        lobby.arrived(player)
    assert [p.name for p in lobby.here_now()] == ["alice", "bob", "carol"]
    table = lobby.create(setup(humans=3), ALICE)
    lobby.join(table, BOB)
    lobby.watch(table, CAROL)
    lobby.watch(table, CAROL)  # two screens of hers
    assert table.watching() == [CAROL.identity]
    assert table.summary() == "2/3 seated, 1 watching"
    lobby.unwatch(table, CAROL)
    assert table.watching() == [CAROL.identity]
    lobby.unwatch(table, CAROL)
    assert table.summary() == "2/3 seated"
    dealer = lobby.start(table, ALICE)
    dealer.follow(lambda: None, table.place_of(ALICE))
    dealer.follow(lambda: None, table.place_of(CAROL))
    dealer.follow(lambda: None, table.place_of(CAROL))
    assert table.watching() == [CAROL.identity] and lobby.name_of(CAROL.identity) == "carol"
    assert table.summary() == "2/2 seated, 1 watching, playing"  # the stand-in took one
    lobby.left(CAROL)
    assert [p.name for p in lobby.here_now()] == ["alice", "bob"]
    lobby.close_all()


async def test_the_countdown_before_the_stand_in_plays_an_away_seat():
    lobby = Lobby(pace=INSTANT, away_grace=60)
    for player in (ALICE, BOB):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, BOB)
    dealer = lobby.start(table, ALICE)
    now = asyncio.get_running_loop().time()
    assert dealer.countdowns(now) == []
    dealer.set_away(1, now - 18)
    ((seat, name, left, standing_in),) = dealer.countdowns(now)
    assert (seat, name, standing_in) == (1, "bob", False) and left == pytest.approx(42)
    assert dealer.countdowns(now + 100)[0].left == 0
    dealer.stand_in_for(1)
    assert dealer.countdowns(now)[0].standing_in
    dealer.set_back(1)
    assert dealer.countdowns(now) == []
    lobby.close_all()


# --- rejoin codes ------------------------------------------------------------------------------

GUEST = Player("guest:0a0a0a", "ana")
LATER = Player("guest:0b0b0b", "ana")
"""ana again, from a new connection: a new guest."""


async def test_a_guest_takes_back_their_seat_with_their_code():
    lobby = Lobby(pace=INSTANT)
    for player in (ALICE, GUEST):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    assert lobby.rejoin_code(table, ALICE.identity) is None, "a key is its own way back"
    seat = lobby.join(table, GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    assert code is not None and len(code) == REJOIN_LENGTH and set(code) <= set(CODE_LETTERS)
    assert table.place_of(GUEST).rejoin == code and table.place_of(ALICE).rejoin == ""
    dealer = lobby.start(table, ALICE)
    lobby.left(GUEST)
    assert seat in dealer.away_since
    lobby.arrived(LATER)
    assert lobby.rejoin(LATER, f" {code.lower()} ") is table
    assert table.seat_of(LATER.identity) == seat and table.seat_of(GUEST.identity) is None
    assert table.seated[seat].name == "ana"
    place = table.place_of(LATER)
    assert place.seats == {seat} and place.player and place.rejoin == code, "kept for next time"
    dealer.follow(lambda: None, place)
    assert seat not in dealer.away_since, "back at the table"

    again = Player("guest:0c0c0c", "ana")
    lobby.arrived(again)
    assert lobby.rejoin(again, code) is table and table.seat_of(again.identity) == seat
    lobby.close(table)
    with pytest.raises(ValueError, match="no seat has that rejoin code"):
        lobby.rejoin(LATER, code)  # the code went with the table


async def test_wrong_rejoin_codes_are_limited_per_connection():
    lobby = Lobby(pace=INSTANT, rejoin_tries=3)
    lobby.arrived(GUEST)
    table = lobby.create(setup(), GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    assert code is not None
    lobby.arrived(LATER)
    wrong = "".join(CODE_LETTERS[(CODE_LETTERS.index(c) + 1) % len(CODE_LETTERS)] for c in code)
    for left, last in (("2 more tries", "Y"), ("1 more try", "X"), ("no more tries", "W")):
        with pytest.raises(ValueError, match=left):
            lobby.rejoin(LATER, wrong[:-1] + last)  # a new guess each time
    with pytest.raises(ValueError, match="too many wrong rejoin codes"):
        lobby.rejoin(LATER, code)  # the right one, too late
    assert table.seat_of(LATER.identity) is None


async def test_a_wrong_rejoin_code_entered_again_counts_once():
    """Enter pressed twice, or a code sent again after "no seat has that rejoin code", is
    no new guess: a guest who did that ran out of tries for their own seat."""
    lobby = Lobby(pace=INSTANT, rejoin_tries=3)
    table = lobby.create(setup(), GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    assert code is not None
    lobby.arrived(LATER)
    for _ in range(4):
        with pytest.raises(ValueError, match="2 more tries"):
            lobby.rejoin(LATER, "ZZZZZZ")
    with pytest.raises(ValueError, match="2 more tries"):
        lobby.rejoin(LATER, " zzzzzz ")  # the same code, as the field sends it
    with pytest.raises(ValueError, match="1 more try"):
        lobby.rejoin(LATER, "ZZZZZY")
    assert lobby.wrong_codes[LATER.identity] == 2
    assert lobby.rejoin(LATER, code) is table, "a try left for the right one"


async def test_a_rejoin_code_does_not_give_a_second_seat_at_ones_own_table():
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(setup(humans=3), GUEST)
    lobby.join(table, BOB)
    code = lobby.rejoin_code(table, GUEST.identity)
    assert code is not None
    with pytest.raises(ValueError, match="another seat"):
        lobby.rejoin(BOB, code)
    assert lobby.rejoin(LATER, code).creator.identity == LATER.identity, "the creator's seat"


async def test_a_guest_leaving_a_waiting_table_frees_the_seat_and_its_code():
    lobby = Lobby()
    for player in (ALICE, GUEST):
        lobby.arrived(player)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    lobby.left(GUEST)
    assert table.rejoin == {} and code is not None
    with pytest.raises(ValueError):
        lobby.rejoin(LATER, code)


async def test_wrong_rejoin_codes_are_limited_per_address_too():
    """A new guest connection has tries of its own; its address does not, for a while."""
    lobby = Lobby(pace=INSTANT, rejoin_tries=5)
    table = lobby.create(setup(), ALICE)
    lobby.join(table, GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    assert code is not None
    for n in range(REJOIN_TRIES_PER_ADDRESS):
        guesser = Player(f"guest:{n // 5}", "eve", address="192.0.2.7")
        with pytest.raises(ValueError, match="no seat has that rejoin code"):
            lobby.rejoin(guesser, "ZZZZZ" + CODE_LETTERS[n])  # a new guess each time
    fresh = Player("guest:fresh", "eve", address="192.0.2.7")
    with pytest.raises(ValueError, match="from your address"):
        lobby.rejoin(fresh, code)
    elsewhere = Player("guest:elsewhere", "ana", address="198.51.100.1")
    assert lobby.rejoin(elsewhere, code) is table
    assert fresh == Player("guest:fresh", "eve"), "the address is not who they are"


async def test_after_a_rejoin_the_old_connection_acts_for_the_seat_no_more():
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(setup(humans=1, ais=2), GUEST)
    code = lobby.rejoin_code(table, GUEST.identity)
    dealer = lobby.start(table, GUEST)
    old_place = table.place_of(GUEST)
    assert code is not None and lobby.rejoin(LATER, code) is table
    new_place = table.place_of(LATER)
    for _ in range(300):  # the AI seats play up to ana's turn
        if dealer.turn.kind == ASKING and dealer.shown == len(table.live.log):
            break
        await asyncio.sleep(0.01)
    assert dealer.turn.kind == ASKING and dealer.turn.seat == 0
    option = dealer.turn.decision.options[0]
    with pytest.raises(IllegalAction, match="another connection"):
        dealer.pick(old_place, option)
    moves = len(table.live.moves)
    dealer.pick(new_place, option)
    assert len(table.live.moves) == moves + 1
    lobby.close_all()


async def test_players_on_their_way_to_a_started_table_are_not_away():
    """Starting a table sends each seated player's screen from its waiting room to the
    table, which a busy host may take seconds to put up: until ON_THE_WAY has passed, a
    player not yet following is not announced as gone. Once a player has followed it,
    leaving it counts at once; a player who never comes counts after the wait."""
    lobby = Lobby(pace=INSTANT, away_grace=60)
    table = lobby.create(setup(humans=2, ais=1), ALICE)
    lobby.join(table, BOB)
    lobby.arrived(ALICE)
    lobby.arrived(BOB)
    dealer = lobby.start(table, ALICE)
    for _ in range(3):  # three looks, a second apart on the host, before any screen is up
        lobby.check_presence()
    assert dealer.notices == [], "nobody has left: their screens are on the way"
    unfollow = dealer.follow(lambda: None, table.place_of(ALICE))  # alice's table is up
    lobby.check_presence()
    unfollow()  # and she goes back to the lobby
    lobby.check_presence()
    lobby.check_presence()
    assert dealer.notices == ["alice has left the table; their seat waits."]
    table.on_the_way_until = 0.0  # ON_THE_WAY has passed, and bob never came
    lobby.check_presence()
    lobby.check_presence()
    assert dealer.notices[-1] == "bob has left the table; their seat waits."
    lobby.close_all()


async def test_the_host_log_says_when_a_table_is_set_started_taken_back_and_closed(caplog):
    """The host's own view (issue 13): a table's life is in its log, one line each, as
    logins are; before, nothing said a table was set, started or closed."""
    caplog.set_level(logging.INFO, logger="cantina.lobby")
    lobby = Lobby(pace=INSTANT)
    table = lobby.create(setup(humans=2), ALICE)
    lobby.join(table, BOB)
    lobby.start(table, ALICE)
    lobby.close(table)
    other = lobby.create(setup(humans=2), CAROL)
    lobby.leave_unstarted(other, CAROL)
    code, closed = table.code, other.code
    assert [r.getMessage() for r in caplog.records if r.name == "cantina.lobby"] == [
        f"table {code} set: valdes, 3 seats, by 'alice'",
        f"table {code} started: 'alice', 'bob'",
        f"table {code} closed",
        f"table {closed} set: valdes, 3 seats, by 'carol'",
        f"table {closed} closed: 'carol' left it before it started",
    ]
    lobby.close_all()
