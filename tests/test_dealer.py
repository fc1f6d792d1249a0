"""The turn driver of a table, with real games, real AI seats and real time.

What the dealer pins: nobody is asked before everything is shown, and the showing takes
the time the pace gives; only the seat's own place picks, and only when all is shown;
players (never spectators) hurry and start the next game, once; an away player's seat is
played by the stand-in after the grace and given back; a replay tells the recorded story;
a closed dealer plays no more; a fault stops a dealer with a notice, not silently.

Every wait is bounded (`until`, `asyncio.wait_for`), so a hang fails in seconds.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import random
import shutil
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from typing import Any

import pytest

from cantina.ai.temperament import temperament
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store
from cantina.dealer import ASKING, OVER, REPLAYED, SHOWING, THINKING, Dealer, Place, Turn
from cantina.games import GAMES
from cantina.games.events import Rolled, SatOut, Transfer
from cantina.games.table import Decision, IllegalAction, Move, play_moves
from cantina.games.valdes import Call, ValDesSettings
from cantina.games.vigo import SetStake
from cantina.live import LiveTable
from cantina.narration import Narrator
from cantina.pace import Pace
from cantina.seating import TableSetup, seats_from_text

INSTANT = Pace(beat=0, roll=0)
WAIT = 5.0
"""The longest any one wait in these tests may take before it counts as a hang."""
QUICK = 0.001
"""A think gap that lets AI-only games run in a moment."""

ALICE = Place(frozenset({0}), player=True, who="SHA256:alice")
BOB = Place(frozenset({1}), player=True, who="SHA256:bob")
SPECTATOR = Place(frozenset(), player=False, who="SHA256:carol")
WATCHER = Place(frozenset(), player=False, who="the test")
"""The place `until` follows from: it sits nowhere and is no player."""

AI_SEATS = {
    "vigo": "Expert,Bold,Cautious,Superstitious",
    "valdes": "Expert,Bold,Cautious",
    "victim": "Expert,Bold,Treacherous",
}
Deal = Callable[..., Dealer]


def table_of(game_id: str, seats: str, seed: int = 3, **chosen: Any) -> LiveTable:
    roster = seats_from_text(seats)
    settings = GAMES[game_id].settings_for(len(roster), **chosen)
    return LiveTable(TableSetup(game_id, settings, roster, seed))


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    """A dealer that spins without yielding is beyond any asyncio timeout: past 30 s, the
    test is interrupted where it spins (asyncio's runner takes a first interrupt as a
    cancel, a second raises KeyboardInterrupt there) rather than left to hang the run."""
    done = threading.Event()

    def watch() -> None:
        wait = 30.0
        while not done.wait(wait):
            _thread.interrupt_main()
            wait = 1.0

    threading.Thread(target=watch, name="watchdog", daemon=True).start()
    yield
    done.set()


@pytest.fixture
async def deal() -> AsyncIterator[Deal]:
    """Make dealers; every one is closed, and its task ended, when the test ends."""
    made: list[Dealer] = []

    def make(table: LiveTable, **options: Any) -> Dealer:
        dealer = Dealer(table, **options)
        made.append(dealer)
        return dealer

    yield make
    for dealer in made:
        dealer.close()
    tasks = [dealer.task for dealer in made if dealer.task is not None]
    if tasks:
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), WAIT)


async def until(dealer: Dealer, ready: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait until `ready()` holds, looking at every change the dealer reports (and every
    few milliseconds besides); TimeoutError after `timeout` seconds."""
    changed = asyncio.Event()

    def wake() -> None:
        changed.set()

    stop = dealer.follow(wake, WATCHER)

    async def watch() -> None:
        while not ready():
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 0.01)

    try:
        await asyncio.wait_for(watch(), timeout)
    finally:
        stop()


def asking(dealer: Dealer, seat: int | None = None) -> Callable[[], bool]:
    """Whether the dealer asks a person (this seat's) for the table's pending decision now:
    not still showing `ASKING` for a pick just made, whose events it has yet to show."""

    def ready() -> bool:
        turn, table = dealer.turn, dealer.table
        return (
            turn.kind == ASKING
            and seat in (None, turn.seat)
            and dealer.shown == len(table.log)
            and turn.decision is not None
            and turn.decision == table.game.pending
        )

    return ready


def asked_since(asked: list[tuple[float, int]], since: float) -> bool:
    return any(at >= since for at, _ in asked)


def showing_time(table: LiveTable, pace: Pace, steps: range) -> float:
    """What `Pace.after` gives for the events of these steps, each told or not as the
    narrator tells it: the last event of a step is shown before the next step exists."""
    narrate = Narrator(table.setup.names)
    bounds = [*table.steps, len(table.log)]
    total = 0.0
    for step in steps:
        events = table.log[bounds[step] : bounds[step + 1]]
        for i, event in enumerate(events):
            following = events[i + 1] if i + 1 < len(events) else None
            total += pace.after(event, following, narrate(event) is not None)
    return total


def pending(table: LiveTable) -> Decision:
    """The decision the table's game awaits (its game is not over)."""
    decision = table.game.pending
    assert decision is not None, "the game is over"
    return decision


def unchanged(table: LiveTable, dealer: Dealer) -> tuple[object, ...]:
    """What a refused pick must leave as it was."""
    return (table.game.to_json(), list(table.log), list(table.moves), dealer.shown, dealer.turn)


# --- the pace ----------------------------------------------------------------------------


def test_pace_after_a_die_a_pair_and_a_run() -> None:
    """A lone die tumbles `roll`; the first of a pair thrown together does not wait (the
    pair tumbles once); a told event stays a beat, one of a run of alike events half a
    beat; a told die waits the longer of the two; `Pace(0, 0)` waits for nothing."""
    pace = Pace(beat=0.2, roll=0.5)
    first, second = Rolled(0, "d6", 3, "battle"), Rolled(0, "d6", 5, "battle")
    other = Rolled(2, "d6", 1, "battle")
    ante, ante2 = Transfer(0, "pot", 1, "ante"), Transfer(1, "pot", 1, "ante")
    assert pace.after(first, second, told=False) == 0
    assert pace.after(second, other, told=False) == 0.5
    assert pace.after(other, None, told=False) == 0.5
    assert pace.after(first, second, told=True) == 0.1, "told, and alike: half a beat"
    assert pace.after(second, other, told=True) == 0.5
    assert pace.after(Rolled(0, "cube", "red", "reveal"), None, told=True) == 0.5
    assert pace.after(ante, ante2, told=True) == 0.1
    assert pace.after(ante2, SatOut(2, "broke"), told=True) == 0.2
    assert pace.after(ante, None, told=False) == 0
    for event, following in ((first, second), (second, other), (ante, ante2), (ante2, None)):
        assert INSTANT.after(event, following, told=True) == 0


@pytest.mark.parametrize("game_id", ["valdes", "victim"])
async def test_a_person_is_asked_only_after_the_paced_showing(deal: Deal, game_id: str) -> None:
    """With real time: a person is asked only once every event is shown, and never
    sooner than the waits `Pace.after` gives for the events since (dice tumbling, told
    events staying a beat) plus a beat for each AI seat that acted, from the start and
    from each of the person's picks."""
    pace = Pace(beat=0.02, roll=0.03)
    table = table_of(game_id, "you,Expert,Bold", seed=5)
    dealer = deal(table, pace=pace, think_gap=0.01)
    loop = asyncio.get_running_loop()
    asked: list[tuple[float, int]] = []
    early: list[tuple[int, int]] = []

    def seen() -> None:
        if dealer.turn.kind == ASKING:
            asked.append((loop.time(), len(table.moves)))
            if dealer.shown != len(table.log):
                early.append((dealer.shown, len(table.log)))

    dealer.follow(seen, SPECTATOR)
    since, first_step = loop.time(), 0  # from the start: the opening is step 0
    dealer.start()
    for _ in range(3):
        await until(dealer, partial(asked_since, asked, since))
        at, moves = next((t, n) for t, n in asked if t >= since)
        ai_moves = moves - first_step  # all but the pick (none from the start)
        least = showing_time(table, pace, range(first_step, moves + 1)) + ai_moves * pace.beat
        assert least > 0
        assert least - 1e-3 <= at - since <= least + 1.0, (least, at - since)
        assert dealer.turn == Turn(ASKING, 0, table.game.pending)
        since, first_step = loop.time(), len(table.moves) + 1  # the pick's step is next
        dealer.pick(ALICE, pending(table).options[0])
    assert early == [], "a person was asked while events were still to be shown"


async def test_no_pick_while_the_last_event_is_still_on_show(deal: Deal) -> None:
    """The opening's last event stays its beat before the first caller is asked; a pick
    in that beat is refused like any pick while the table is showing what happened."""
    table = table_of("valdes", "you,Expert", seed=2)  # seat 0 calls first
    dealer = deal(table, pace=Pace(beat=0.2, roll=0)).start()
    await until(dealer, lambda: dealer.shown == len(table.log))
    assert dealer.turn.kind == SHOWING, "the last event is on show for its beat"
    before = unchanged(table, dealer)
    with pytest.raises(IllegalAction):
        dealer.pick(ALICE, pending(table).options[0])
    assert unchanged(table, dealer) == before


@pytest.mark.parametrize("game_id", list(GAMES))
async def test_an_ai_only_game_runs_to_its_end_at_once(deal: Deal, game_id: str) -> None:
    """With `Pace(0, 0)` a table of AI seats plays its whole game in a moment, shows all
    of it (its moves replay the same log) and ends at OVER."""
    table = table_of(game_id, AI_SEATS[game_id], seed=11)
    dealer = deal(table, pace=INSTANT, think_gap=QUICK)
    loop = asyncio.get_running_loop()
    began = loop.time()
    dealer.start()
    await until(dealer, lambda: dealer.turn.kind == OVER)
    assert loop.time() - began < 3
    assert table.game.pending is None and table.moves
    assert dealer.shown == len(table.log) and dealer.state() is table.game.state
    replayed = table.setup.new_game()
    assert [*replayed.opening_events, *play_moves(replayed, table.moves)] == table.log


# --- who may do what ---------------------------------------------------------------------


async def test_a_pick_is_taken_only_from_the_pending_seats_place_once_all_is_shown(
    deal: Deal,
) -> None:
    """A pick for an AI seat, from a place without the pending seat, from a spectator, of
    an action not on offer, or while events are still shown raises IllegalAction and
    changes nothing; the pending seat's own place picks once everything is shown."""
    table = table_of("valdes", "you,you,Expert", seed=2)  # seat 2 calls first, then 0, 1
    dealer = deal(table, pace=Pace(beat=30, roll=30)).start()
    await until(dealer, lambda: dealer.shown > 0)
    assert dealer.turn.kind == SHOWING and pending(table).seat == 2
    call = pending(table).options[0]
    refusals: list[tuple[Place, Any, str]] = [
        (Place(frozenset({0, 1, 2})), call, "AI seat"),
        (ALICE, call, "not your turn"),
    ]
    for place, action, why in refusals:
        before = unchanged(table, dealer)
        with pytest.raises(IllegalAction, match=why):
            dealer.pick(place, action)
        assert unchanged(table, dealer) == before
    dealer.hurry(ALICE)
    await until(dealer, asking(dealer, 0))
    call = pending(table).options[0]
    for place, action, why in [
        (BOB, call, "not your turn"),
        (SPECTATOR, call, "not your turn"),
        (ALICE, SetStake(1), "not a legal option"),
    ]:
        before = unchanged(table, dealer)
        with pytest.raises(IllegalAction, match=why):
            dealer.pick(place, action)
        assert unchanged(table, dealer) == before
    dealer.pick(ALICE, call)
    assert table.moves[1:] == [Move(0, call)] and pending(table).seat == 1
    assert dealer.shown < len(table.log), "the pick's events are now shown at the pace"
    before = unchanged(table, dealer)
    with pytest.raises(IllegalAction, match="still showing"):
        dealer.pick(BOB, pending(table).options[0])
    assert unchanged(table, dealer) == before


async def play_people(dealer: Dealer, places: dict[int, Place]) -> None:
    """Make the people's picks (their first option) until the game is over."""
    while True:
        await until(dealer, lambda: asking(dealer)() or dealer.turn.kind == OVER)
        turn = dealer.turn
        if turn.kind == OVER:
            return
        assert turn.seat is not None and turn.decision is not None
        dealer.pick(places[turn.seat], turn.decision.options[0])


async def test_the_next_game_starts_once_and_only_for_players(deal: Deal) -> None:
    """A spectator cannot start the next game; a player cannot before the game is over;
    two players asking after game 1 start exactly one game 2 (the second hears False),
    which the dealer then shows from its opening."""
    table = table_of("valdes", "you,you,Expert", seed=6)
    dealer = deal(table, pace=INSTANT, think_gap=QUICK).start()
    await until(dealer, asking(dealer))
    with pytest.raises(ValueError, match="not over"):
        dealer.next_game(ALICE, after=1)
    await play_people(dealer, {0: ALICE, 1: BOB})
    assert dealer.turn == Turn(OVER) and dealer.shown == len(table.log)
    with pytest.raises(IllegalAction):
        dealer.next_game(SPECTATOR, after=1)
    assert table.number == 1 and table.game.pending is None
    told: list[tuple[int, int]] = []
    dealer.follow(lambda: told.append((table.number, dealer.shown)), SPECTATOR)
    assert dealer.next_game(ALICE, after=1) is True
    assert dealer.next_game(BOB, after=1) is False
    assert table.number == 2 and dealer.shown == 0 and told[0] == (2, 0)
    assert table.log == table.game.opening_events and table.moves == []
    await until(dealer, lambda: dealer.shown == len(table.log) and dealer.turn.kind != SHOWING)
    assert dealer.next_game(ALICE, after=1) is False and table.number == 2


async def test_no_next_game_from_a_screen_whose_seat_is_played_elsewhere_now(
    deal: Deal,
) -> None:
    """Alice's seat taken back by its rejoin code from another connection (`owners`):
    the screen she left holds no seat, and its `n` starts no game; the new one's does."""
    table = table_of("valdes", "you,you,Expert", seed=6)
    dealer = deal(table, pace=INSTANT, think_gap=QUICK).start()
    await play_people(dealer, {0: ALICE, 1: BOB})
    again = Place(frozenset({0}), player=True, who="guest:alice2")
    left_behind = dealer.follow(lambda: None, ALICE)
    dealer.owners = {0: again.who, 1: BOB.who}
    assert not dealer.holds(ALICE) and dealer.holds(again) and dealer.holds(BOB)
    assert dealer.spectators() == [ALICE.who], "the screen she left only watches now"
    left_behind()
    with pytest.raises(IllegalAction, match="another connection"):
        dealer.next_game(ALICE, after=1)
    assert table.number == 1
    assert dealer.next_game(again, after=1) is True and table.number == 2


async def test_a_finished_campaign_cannot_go_on(deal: Deal) -> None:
    """At the last round of a campaign, a player's next game is a ValueError and the
    table stays where it was."""
    campaign = Campaign.new(
        "Short",
        "valdes",
        seats_from_text(AI_SEATS["valdes"]),
        ValDesSettings(seats=3),
        rounds=1,
        seed=4,
    )
    table = campaign.table()
    dealer = deal(table, pace=INSTANT, think_gap=QUICK).start()
    await until(dealer, lambda: dealer.turn.kind == OVER)
    assert campaign.over
    with pytest.raises(ValueError, match="over"):
        dealer.next_game(ALICE, after=1)
    assert table.number == 1 and dealer.turn == Turn(OVER) and dealer.failure is None


async def test_hurry_lets_the_ai_act_at_once_until_a_person_is_asked(deal: Deal) -> None:
    """With a beat of 30 s, a spectator's hurry changes nothing; a player's shows all and
    lets the AI seats act at once up to the person's turn, and ends there: what the
    person's pick brings is shown at the pace again."""
    table = table_of("valdes", "you,Expert,Bold,Cautious", seed=8)  # seats 2 and 3 first
    dealer = deal(table, pace=Pace(beat=30, roll=30)).start()
    await until(dealer, lambda: dealer.shown > 0)
    dealer.hurry(SPECTATOR)
    assert not dealer.hurrying
    await asyncio.sleep(0.1)
    assert table.moves == [] and dealer.shown < len(table.log)
    dealer.hurry(ALICE)
    assert dealer.hurrying
    await until(dealer, asking(dealer, 0), timeout=3)
    assert [move.seat for move in table.moves] == [2, 3]
    assert dealer.shown == len(table.log) and not dealer.hurrying
    dealer.pick(ALICE, pending(table).options[0])
    await asyncio.sleep(0.2)
    assert dealer.turn.kind == SHOWING and not dealer.hurrying
    assert len(table.moves) == 3, "the next AI seat waits for the pace again"


# --- who is here -------------------------------------------------------------------------


async def test_an_away_seat_is_stood_in_for_after_the_grace_and_given_back(deal: Deal) -> None:
    """A seat set away is asked for until the grace passes, then the stand-in temperament
    plays it (and everyone is told so); `set_back` gives it back to its person, who is
    then asked again."""
    table = table_of("valdes", "you,Expert,Bold", seed=5)  # calls: seat 2, 0, then 1
    dealer = deal(table, pace=Pace(beat=0.05, roll=0), grace=0.05)
    loop = asyncio.get_running_loop()
    dealer.set_away(0, loop.time())
    assert dealer.notices == ["Player 1 has left the table; their seat waits."]
    dealer.start()
    await until(dealer, lambda: any(move.seat == 0 for move in table.moves))
    assert dealer.standing_in == {0} and table.ai.temperaments[0] == temperament("Cautious")
    assert dealer.notices[-1] == "Player 1 is away: a Cautious AI plays their seat."
    assert pending(table).seat == 1, "seat 1 calls before seat 0 is asked again"
    dealer.set_back(0)
    assert dealer.standing_in == set() and dealer.away_since == {}
    assert table.ai.temperaments[0] is None
    assert dealer.notices[-1] == "Player 1 is back at the table."
    await until(dealer, asking(dealer, 0))
    assert [move.seat for move in table.moves] == [2, 0, 1]
    assert dealer.failure is None and not any("failed" in text for text in dealer.notices)


async def test_a_player_who_follows_again_is_back(deal: Deal) -> None:
    """A player whose place follows the table is watching it, and a seat of theirs that
    was away (and stood in for) is theirs again; a spectator's following gives nothing
    back."""
    table = table_of("valdes", "you,Expert,Bold", seed=5)
    dealer = deal(table, pace=INSTANT, grace=60)
    dealer.set_away(0, 0.0)
    dealer.stand_in_for(0)
    assert not dealer.watching(ALICE.who)
    stop_watching = dealer.follow(lambda: None, SPECTATOR)
    assert dealer.standing_in == {0} and dealer.watching(SPECTATOR.who)
    stop = dealer.follow(lambda: None, ALICE)
    assert dealer.watching(ALICE.who) and dealer.away_since == {} and dealer.standing_in == set()
    assert table.ai.temperaments[0] is None
    assert dealer.notices[-1] == "Player 1 is back at the table."
    stop()
    stop_watching()
    assert not dealer.watching(ALICE.who) and not dealer.watching(SPECTATOR.who)


async def test_an_ai_choice_overtaken_by_a_persons_pick_is_dropped(deal: Deal) -> None:
    """While the stand-in thinks for an away seat, its person picks: the pick is the move,
    and the stand-in's choice (thought out meanwhile) is dropped, not played as well, even
    though the same seat is asked the very next decision (a stale choice would fit it)."""
    pace = Pace(beat=0, roll=0)
    table = table_of("valdes", "you,Expert", seed=5)  # calls: 0 1, 1 0, 0 1, ...
    dealer = deal(table, pace=pace, grace=0.05, think_gap=0.01).start()
    while len(table.moves) < 3:  # up to seat 0's call as set 2's Caster
        await until(dealer, asking(dealer, 0))
        if len(table.moves) < 3:
            dealer.pick(ALICE, pending(table).options[0])
    assert [move.seat for move in table.moves] == [0, 1, 1] and pending(table).seat == 0
    loop = asyncio.get_running_loop()
    pace.beat = 0.4  # a settings screen slows the table, as it may at any time
    ai_dice = table.ai_dice.state()
    dealer.set_away(0, loop.time() - 1)  # away for longer than the grace
    await until(dealer, lambda: dealer.turn == Turn(THINKING, 0))
    await asyncio.sleep(0.1)  # the stand-in has thought by now, and waits out its beat
    assert table.ai_dice.state() != ai_dice, "the stand-in chose"
    chosen = pending(table).options[-1]
    dealer.pick(ALICE, chosen)
    assert pending(table).seat == 0, "set 3 opens with seat 0's call"
    await asyncio.sleep(0.3)  # the pick's events take a beat each: nobody may move yet
    assert table.moves[3:] == [Move(0, chosen)]
    assert dealer.turn.kind == SHOWING and dealer.failure is None
    assert not any("failed" in text for text in dealer.notices)


async def test_a_player_back_during_the_stand_ins_think_gap_is_asked_at_once(
    deal: Deal,
) -> None:
    """A player back at the table just as the stand-in was about to think for their seat
    is asked for it at once, with no word of an AI failure."""
    table = table_of("valdes", "you,Expert,Bold", seed=5)
    dealer = deal(table, pace=INSTANT, grace=0, think_gap=0.2)
    dealer.set_away(0, asyncio.get_running_loop().time())
    dealer.start()
    await until(dealer, lambda: dealer.turn == Turn(THINKING, 0))
    dealer.set_back(0)
    await until(dealer, asking(dealer, 0), timeout=1)
    assert not any("failed" in text for text in dealer.notices), dealer.notices


# --- replays, closing, failing -----------------------------------------------------------


@pytest.mark.parametrize("game_id", list(GAMES))
async def test_a_replay_tells_the_same_story_and_takes_no_pick(deal: Deal, game_id: str) -> None:
    """A dealer given a finished game's moves plays them on a fresh table to the same
    log, moves and state, ends at REPLAYED, refuses every pick and has no next game."""
    seats = "you,Expert,Bold" + (",Cautious" if game_id == "vigo" else "")
    original = table_of(game_id, seats, seed=21)
    rng = random.Random(21)
    while (decision := original.game.pending) is not None:
        human = original.setup.seats[decision.seat].human
        action = rng.choice(decision.options) if human else original.ai_move()
        original.submit(decision.seat, action)
    table = LiveTable(original.setup)
    dealer = deal(table, pace=INSTANT, replay=original.moves, think_gap=QUICK).start()
    with pytest.raises(IllegalAction, match="replay"):
        dealer.pick(ALICE, pending(table).options[0])
    await until(dealer, lambda: dealer.turn.kind == REPLAYED)
    assert table.log == original.log and table.moves == original.moves
    assert table.game.to_json() == original.game.to_json()
    assert dealer.shown == len(table.log) and dealer.replay == []
    with pytest.raises(IllegalAction, match="replay"):
        dealer.pick(ALICE, Call("red"))
    with pytest.raises(ValueError, match="replay"):
        dealer.next_game(ALICE, after=1)
    assert table.number == 1


async def test_close_ends_the_task_tells_followers_and_plays_no_more(deal: Deal) -> None:
    """Closing while an AI seat thinks: the task ends, every follower is told (once more,
    seeing the dealer closed), the AI's choice is never played, and the table's later
    moves reach the closed dealer no more."""
    table = table_of("vigo", AI_SEATS["vigo"], seed=3)  # no opening: the Vigo sets a stake
    dealer = deal(table, pace=Pace(beat=0.3, roll=0), think_gap=0.01).start()
    told: list[bool] = []
    dealer.follow(lambda: told.append(dealer.closed), SPECTATOR)
    await until(dealer, lambda: dealer.turn.kind == THINKING)
    await asyncio.sleep(0.05)  # the AI is thinking, in its worker thread
    moves, shown = len(table.moves), dealer.shown
    dealer.close()
    assert told[-1] is True
    assert dealer.task is not None
    await asyncio.wait_for(asyncio.wait([dealer.task]), WAIT)
    assert dealer.task.cancelled() and dealer.closed
    await asyncio.sleep(0.4)
    assert len(table.moves) == moves, "the thinking AI was not heard"
    calls = len(told)
    dealer.close()
    table.submit(pending(table).seat, pending(table).options[0])
    assert len(told) == calls and dealer.shown == shown


async def test_a_closed_dealer_takes_no_pick(deal: Deal) -> None:
    """Once closed, a dealer refuses a person's pick: nothing more is played."""
    table = table_of("valdes", "you,Expert", seed=2)  # seat 0 calls first
    dealer = deal(table, pace=INSTANT).start()
    await until(dealer, asking(dealer, 0))
    dealer.close()
    with pytest.raises(IllegalAction):
        dealer.pick(ALICE, pending(table).options[0])
    assert table.moves == []


async def test_a_failed_save_stops_the_dealer_with_a_notice(deal: Deal, tmp_path: Any) -> None:
    """A campaign table whose save cannot be written (its folder is gone, no error
    handler): the AI's move raises in the dealer, which records the failure, tells every
    viewer, and ends its task rather than dying silently."""
    store = Store(tmp_path / "saves")
    campaign = Campaign.new(
        "Lost",
        "valdes",
        seats_from_text(AI_SEATS["valdes"]),
        ValDesSettings(seats=3),
        rounds=2,
        seed=4,
    )
    session = store.open(store.create(campaign))
    table = session.campaign.table()
    shutil.rmtree(tmp_path / "saves")
    dealer = deal(table, pace=INSTANT, think_gap=QUICK)
    told: list[int] = []
    dealer.follow(lambda: told.append(len(dealer.notices)), SPECTATOR)
    dealer.start()
    assert dealer.task is not None
    await asyncio.wait_for(asyncio.wait([dealer.task]), WAIT)
    assert isinstance(dealer.failure, OSError)
    assert not dealer.task.cancelled() and dealer.task.exception() is None
    assert dealer.notices[-1].startswith("Something went wrong at this table")
    assert told[-1] == len(dealer.notices), "the viewers were told of the notice"
    session.close()


async def test_a_failing_ai_is_told_and_tried_again(deal: Deal) -> None:
    """An AI seat whose temperament is broken (a name where a temperament belongs) fails
    in its thread: the viewers are told, the dealer lives on (no `failure`), and once the
    seat is mended a player's hurry has it tried again at once."""
    table = table_of("valdes", "you,Expert,Bold", seed=5)  # seat 2 calls first
    table.ai.temperaments[2] = "Bold"  # type: ignore[call-overload]
    dealer = deal(table, pace=INSTANT, think_gap=QUICK).start()
    await until(dealer, lambda: any("The AI failed" in text for text in dealer.notices))
    assert dealer.failure is None and dealer.task is not None and not dealer.task.done()
    assert table.moves == [] and dealer.turn == Turn(THINKING, 2)
    table.ai.temperaments[2] = temperament("Bold")
    dealer.hurry(ALICE)
    await until(dealer, asking(dealer, 0), timeout=2)
    assert [move.seat for move in table.moves] == [2]


async def test_a_failing_viewer_does_not_silence_the_others(deal: Deal) -> None:
    """A screen whose follower raises (a session gone mid-draw) neither stops the table
    nor keeps the others from being told: the game plays to its end, every other viewer
    hears each change, and the dealer has no failure of its own."""
    table = table_of("valdes", AI_SEATS["valdes"], seed=5)
    dealer = deal(table, pace=INSTANT, think_gap=QUICK)
    told: list[int] = []

    def broken() -> None:
        raise RuntimeError("screen gone")

    dealer.follow(broken, SPECTATOR)
    dealer.follow(lambda: told.append(dealer.shown), WATCHER)
    dealer.start()
    await until(dealer, lambda: dealer.turn.kind == OVER)
    assert dealer.failure is None and not dealer.closed
    assert told and told[-1] == len(table.log) == dealer.shown
