"""Val-Des: one test per ruling (VD-1 to VD-6), illegal actions, saves, and a random-play property.

Scripted games force the reveals with `ScriptedDice`: every cube in the script is red unless a
test says otherwise, so a call of red is a correct call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantina.games.dice import Colour, Dice, ScriptedDice
from cantina.games.events import POT, Event, GameOver, Rolled, SatOut, Scored, Transfer
from cantina.games.table import Action, CorruptState, IllegalAction, Kind
from cantina.games.valdes import (
    Call,
    Called,
    SetStarted,
    TieBreak,
    ValDesGame,
    ValDesSettings,
    call_name,
    longest_run,
)

R: Colour = "red"
B: Colour = "blue"


def scripted(
    cubes: Sequence[Colour],
    *,
    seats: int,
    scorekeeper: int = 0,
    ante: int = 0,
    banks: list[int] | None = None,
) -> ValDesGame:
    table = ValDesSettings(seats=seats, scorekeeper=scorekeeper, ante=ante)
    return ValDesGame.new(table, ScriptedDice(cubes), banks)


def play_set(game: ValDesGame, calls: Mapping[int, Colour]) -> list[Event]:
    """Play one set: each seat asked calls what `calls` says; an unlisted seat fails the test."""
    events: list[Event] = []
    for _ in range(len(game.state.callers)):
        decision = game.pending
        assert decision is not None
        assert decision.seat in calls, f"seat {decision.seat} was asked to call"
        events += game.apply(decision.seat, Call(calls[decision.seat]))
    assert any(isinstance(e, Rolled) for e in events), "the set did not end in a reveal"
    return events


def play_pattern(game: ValDesGame, patterns: Mapping[int, str]) -> list[list[Event]]:
    """Play one set per letter: `patterns[seat]` spells that seat's calls, R or B per set."""
    sets = len(next(iter(patterns.values())))
    return [
        play_set(game, {seat: R if calls[i] == "R" else B for seat, calls in patterns.items()})
        for i in range(sets)
    ]


E = TypeVar("E", bound=Event)


def of(kind: type[E], events: Sequence[Event]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def hits(pattern: str) -> int:
    """The regulation record of a seat that called `pattern` while every cube showed red."""
    return sum(1 << i for i, call in enumerate(pattern) if call == "R")


def call_next(game: ValDesGame, colour: Colour) -> list[Event]:
    """The seat whose turn it is calls `colour`."""
    assert game.pending is not None
    return game.apply(game.pending.seat, Call(colour))


# --- the rulings ---------------------------------------------------------------------------


def test_vd1_caster_left_of_scorekeeper_and_passes_clockwise() -> None:
    """VD-1: the first Caster sits left of the Scorekeeper, then the cup passes left each set,
    skipping a seat that sat out."""
    game = scripted([R] * 7, seats=5, scorekeeper=3, ante=1, banks=[3, 0, 3, 3, 3])
    assert game.opening_events[-1] == SetStarted(1, 4, False)
    casters = [game.state.caster]
    for _ in range(6):
        events = play_set(game, dict.fromkeys((0, 2, 3, 4), R))
        casters.append(of(SetStarted, events)[0].caster)
    assert casters == [4, 0, 2, 3, 4, 0, 2]  # seat 1 could not ante and never casts
    # the Scorekeeper's own seat still plays
    assert 3 in game.state.players


def test_vd1_first_caster_wraps_round_the_table() -> None:
    """VD-1: left of the last seat is seat 0."""
    game = scripted([R], seats=4, scorekeeper=3)
    assert game.state.caster == 0
    assert game.pending is not None and game.pending.seat == 1


def test_vd2_calls_clockwise_from_casters_left_caster_last_announced() -> None:
    """VD-2: calls run clockwise from the Caster's left, the Caster calls last, each call is
    announced as it is made, and only then is the cube revealed."""
    game = scripted([B, R], seats=4, scorekeeper=1)  # Caster for set 1 is seat 2
    asked: list[int] = []
    events: list[Event] = []
    calls = {3: R, 0: B, 1: R, 2: B}
    for _ in range(4):
        decision = game.pending
        assert decision is not None
        assert decision.kind is Kind.CALL
        assert set(decision.options) == {Call(R), Call(B)}
        # every earlier call is on the table for the seat about to call
        assert game.state.callers[: len(game.state.calls)] == asked
        assert game.state.calls == [calls[seat] for seat in asked]
        asked.append(decision.seat)
        new = game.apply(decision.seat, Call(calls[decision.seat]))
        assert new[0] == Called(decision.seat, calls[decision.seat])
        events += new
    assert asked == [3, 0, 1, 2]
    assert events[4] == Rolled(2, "cube", B, "reveal")
    assert of(Scored, events) == [Scored(0, 1, 1, "correct call"), Scored(2, 1, 1, "correct call")]
    assert of(SetStarted, events) == [SetStarted(2, 3, False)]
    assert game.pending is not None and game.pending.seat == 0  # left of the new Caster


def test_vd2_cube_is_drawn_at_the_reveal_not_before() -> None:
    """VD-2: nothing about the cube exists until the last call, so no state can leak it."""
    dice = ScriptedDice([R])
    game = ValDesGame.new(ValDesSettings(seats=3), dice)
    call_next(game, R)
    call_next(game, B)
    assert dice.remaining == 1
    call_next(game, R)
    assert dice.remaining == 0


def test_vd3_exactly_seven_regulation_sets() -> None:
    """VD-3: seven sets are played even when the lead cannot be caught, and no more."""
    dice = ScriptedDice([R] * 7)
    game = ValDesGame.new(ValDesSettings(seats=2), dice)
    sets = play_pattern(game, {0: "RRRRRR", 1: "BBBBBB"})  # 6 to 0 with one set to go
    assert not game.over and game.state.set_number == 7
    sets += play_pattern(game, {0: "R", 1: "B"})
    started = [e for events in sets for e in of(SetStarted, events)]
    assert started == [SetStarted(n, n % 2, False) for n in range(2, 8)]
    assert game.over and dice.remaining == 0
    assert sets[-1][-1] == GameOver(winners=(0,), losers=(1,))
    assert game.result is not None and game.result.points == (7 + 2, 0)


def test_vd4_streak_bonus_once_after_regulation() -> None:
    """VD-4: two separate runs of three earn the 2 bonus points once, after set 7 only."""
    game = scripted([R] * 7, seats=2)
    sets = play_pattern(game, {0: "RRRBRRR", 1: "BBRRBBB"})
    bonus = [
        (i + 1, e)
        for i, events in enumerate(sets)
        for e in events
        if getattr(e, "why", None) == "streak bonus"
    ]
    assert bonus == [(7, Scored(0, 2, 8, "streak bonus"))]
    last = sets[-1]
    assert last.index(bonus[0][1]) > last.index(Rolled(1, "cube", R, "reveal"))
    assert game.state.record == [hits("RRRBRRR"), hits("BBRRBBB")]
    assert [longest_run(bits) for bits in game.state.record] == [3, 2]
    assert game.result is not None
    assert game.result.points == (8, 2)
    assert game.result.bonus_seats == (0,)


def test_vd4_run_of_two_earns_nothing() -> None:
    """VD-4: the bonus needs three correct calls in a row; two runs of two are not enough."""
    game = scripted([R] * 7, seats=2)
    play_pattern(game, {0: "RRBRRBR", 1: "BBBBBBB"})
    assert game.result is not None
    assert game.result.points == (5, 0)
    assert game.result.bonus_seats == ()


def test_vd4_no_bonus_for_tie_break_streaks() -> None:
    """VD-4 and VD-5: correct calls in tie-break sets never count towards the bonus, even
    when they extend a run from the regulation sets."""
    game = scripted([R] * 11, seats=2)
    regulation = play_pattern(game, {0: "RBRBBRR", 1: "RRBRRBB"})  # 4 all, best runs 2
    assert regulation[-1][-2:] == [TieBreak((0, 1)), SetStarted(8, 0, True)]
    tie_break = play_pattern(game, {0: "RRRR", 1: "RRRB"})
    assert all(getattr(e, "why", None) != "streak bonus" for ev in tie_break for e in ev)
    assert game.state.record == [hits("RBRBBRR"), hits("RRBRRBB")]  # regulation only
    assert [longest_run(bits) for bits in game.state.record] == [2, 2]
    assert game.result is not None
    assert game.result.points == (8, 7)
    assert game.result.bonus_seats == ()
    assert tie_break[-1][-1] == GameOver(winners=(0,), losers=(1,))


def test_vd5_tie_break_only_among_leaders_after_bonuses() -> None:
    """VD-5: the lead is judged after the bonuses; only the seats sharing it play on, one set
    at a time, with the cup passing between them, until one leads."""
    game = scripted([R] * 7 + [B, B], seats=3)
    # before bonuses 0/1/2 have 3/5/4; seat 0's run of three makes it 5/5/4
    regulation = play_pattern(game, {0: "RRRBBBB", 1: "RBRRBRR", 2: "RBRBRBR"})
    assert regulation[-1][-3:] == [
        Scored(0, 2, 5, "streak bonus"),
        TieBreak((0, 1)),
        SetStarted(8, 0, True),  # set 7's Caster was seat 1; the next contender is seat 0
    ]
    assert game.state.callers == [1, 0]
    set8 = play_set(game, {1: R, 0: R})  # seat 2 is never asked
    assert of(Called, set8) == [Called(1, R), Called(0, R)]
    assert set8[-2:] == [TieBreak((0, 1)), SetStarted(9, 1, True)]
    set9 = play_set(game, {0: B, 1: R})
    assert of(Called, set9) == [Called(0, B), Called(1, R)]
    assert set9[-2:] == [Scored(0, 1, 6, "correct call"), GameOver(winners=(0,), losers=(1, 2))]
    assert game.result is not None and game.result.points == (6, 5, 4)


def test_vd5_three_way_tie_narrows_and_fallen_seats_stop() -> None:
    """VD-5: leaders are judged again after each tie-break set; a seat that falls behind
    stops calling and casting."""
    game = scripted([R] * 7 + [R, B], seats=4)
    regulation = play_pattern(game, {0: "RBRBRBR", 1: "RBRBRBR", 2: "RBRBRBR", 3: "BBBBBBB"})
    assert regulation[-1][-2:] == [TieBreak((0, 1, 2)), SetStarted(8, 0, True)]
    set8 = play_set(game, {0: R, 1: R, 2: B})
    assert [e.seat for e in of(Called, set8)] == [1, 2, 0]
    assert set8[-2:] == [TieBreak((0, 1)), SetStarted(9, 1, True)]
    assert game.state.callers == [0, 1]
    set9 = play_set(game, {0: R, 1: B})  # seat 2 would fail the test if asked
    assert set9[-1] == GameOver(winners=(1,), losers=(0, 2, 3))
    assert game.result is not None and game.result.points == (5, 6, 4, 0)


def test_vd6_ante_paid_and_winner_takes_pot() -> None:
    """VD-6: every seat pays the ante before set 1, and the winner takes the whole pot."""
    game = scripted([R] * 7, seats=3, ante=3)
    assert game.opening_events[:3] == [Transfer(seat, POT, 3, "ante") for seat in range(3)]
    assert game.state.banks == [17, 17, 17] and game.state.pot == 9
    sets = play_pattern(game, {0: "BBBBBBB", 1: "RRRRRRR", 2: "RBRBRBR"})
    assert sets[-1][-2:] == [Transfer(POT, 1, 9, "won the pot"), GameOver((1,), (0, 2))]
    assert game.state.banks == [17, 26, 17] and game.state.pot == 0
    assert game.result is not None and game.result.pot_won == 9


def test_vd6_short_bank_sits_out() -> None:
    """VD-6: a seat that cannot cover the ante sits the whole game out, untouched."""
    game = scripted([R] * 7, seats=4, ante=2, banks=[5, 1, 2, 5])
    assert SatOut(1, "cannot cover the ante", ante=2, bank=1, span="game") in game.opening_events
    assert game.state.players == [0, 2, 3]
    assert game.state.banks == [3, 1, 0, 3] and game.state.pot == 6
    sets = play_pattern(game, {0: "RRRRRRR", 2: "BBBBBBB", 3: "BBBBBBB"})
    assert all(e.seat != 1 for events in sets for e in of(Called, events))
    assert sets[-1][-1] == GameOver((0,), (2, 3))
    assert game.state.banks == [9, 1, 0, 3]


def test_vd6_no_ante_everyone_plays_and_no_pot() -> None:
    """VD-6: with no ante even an empty bank plays, and no credits move."""
    game = scripted([R] * 7, seats=2, banks=[0, 4])
    assert game.state.players == [0, 1]
    assert not of(Transfer, game.opening_events)
    sets = play_pattern(game, {0: "BBBBBBB", 1: "RRRRRRR"})
    assert not any(of(Transfer, events) for events in sets)
    assert game.state.banks == [0, 4] and game.result is not None and game.result.pot_won == 0


def test_vd6_needs_two_seats_that_can_ante() -> None:
    """VD-6: a game where at most one seat can cover the ante cannot start."""
    with pytest.raises(ValueError, match="two seats"):
        ValDesGame.new(ValDesSettings(seats=3, ante=2), Dice(1), [5, 1, 0])


# --- setup, illegal actions and saves -------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "banks", "message"),
    [
        (ValDesSettings(seats=9), None, r"\$\.seats"),
        (ValDesSettings(seats=3, ante=-1), None, r"\$\.ante"),
        (ValDesSettings(seats=3, scorekeeper=3), None, "Scorekeeper"),
        (ValDesSettings(seats=3), [5, 5], "2 banks given for 3 seats"),
        (ValDesSettings(seats=3), [5, -1, 5], "negative"),
    ],
)
def test_new_rejects_inconsistent_tables(
    table: ValDesSettings, banks: list[int] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ValDesGame.new(table, Dice(1), banks)


class ForeignAction(Action, frozen=True, tag="test-valdes-foreign"):
    """An action from no game at all."""


def test_illegal_actions_raise_and_change_nothing() -> None:
    """Wrong seat, a colour the cube lacks, or a foreign action: refused, state untouched."""
    game = ValDesGame.new(ValDesSettings(seats=3, ante=1), Dice(42))
    game.apply(2, Call(R))  # the Caster is seat 1, so seat 2 calls first
    before = game.to_json()
    assert game.pending is not None and game.pending.seat == 0
    for seat, action in [(1, Call(R)), (2, Call(B)), (0, Call("green")), (0, ForeignAction())]:
        with pytest.raises(IllegalAction):
            game.apply(seat, action)  # type: ignore[arg-type]
        assert game.to_json() == before


def test_no_action_after_the_game_is_over() -> None:
    game = ValDesGame.new(ValDesSettings(seats=2), Dice(5))
    while (decision := game.pending) is not None:  # opposite calls: a tie cannot last
        game.apply(decision.seat, Call(R if decision.seat == 0 else B))
    before = game.to_json()
    with pytest.raises(IllegalAction, match="over"):
        game.apply(0, Call(R))
    assert game.to_json() == before


def test_call_names() -> None:
    assert (call_name(R), call_name(B)) == ("Val", "Des")
    assert (Call(R).label, Call(B).label) == ("Val", "Des")


@pytest.mark.parametrize(
    ("record", "run"), [(0, 0), (0b1, 1), (0b1010101, 1), (0b0110110, 2), (0b1110111, 3), (127, 7)]
)
def test_longest_run(record: int, run: int) -> None:
    """The bonus check reads runs of correct calls from a seat's bit record (VD-4)."""
    assert longest_run(record) == run


def test_save_at_every_decision_resumes_identically() -> None:
    """A table saved and loaded at every decision plays exactly like one never saved."""
    straight = ValDesGame.new(ValDesSettings(seats=5, ante=2), Dice(2024))
    resumed = ValDesGame.from_json(straight.to_json())
    trail: list[Event] = []
    while (decision := straight.pending) is not None:
        action = straight.dice.choice(decision.options)
        assert resumed.pending == decision
        assert resumed.dice.choice(decision.options) == action
        events = straight.apply(decision.seat, action)
        assert resumed.apply(decision.seat, action) == events
        trail += events
        assert resumed.to_json() == straight.to_json()
        resumed = ValDesGame.from_json(resumed.to_json())
        assert resumed.to_json() == straight.to_json()
    assert resumed.over and resumed.result == straight.result
    assert isinstance(trail[-1], GameOver)


def _doctored(game: ValDesGame, field: str, value: object) -> bytes:
    data = msgspec.json.decode(game.to_json())
    data["state"][field] = value
    return msgspec.json.encode(data)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("banks", [18, 18, 18], "banks has 3 entries for 4 seats - at `$.state.banks`"),
        ("banks", [18, -1, 18, 18], "at `$.state.banks[1]`"),
        ("pot", -3, "at `$.state.pot`"),
        ("pot", 5, "where the antes make 8 - at `$.state.pot`"),
        ("settings", {"seats": 9}, "at `$.state.settings.seats`"),
        ("settings", {"seats": 4, "scorekeeper": 5, "ante": 2}, "`$.state.settings.scorekeeper`"),
        ("caster", 3, "seat 1 calls last, so it is the Caster, not seat 3 - at `$.state.caster`"),
        ("turn", 0, "seat 3 calls next, not seat 0 - at `$.state.turn`"),
        ("calls", ["red", "blue", "red", "blue"], "4 calls in a set of 4 callers"),
        ("calls", ["green"], "at `$.state.calls[0]`"),
        ("players", [0, 0, 1, 2], "at `$.state.players`"),
        ("callers", [2, 3, 1], "every player calls in a regulation set - at `$.state.callers`"),
        ("callers", [2, 0, 3, 1], "not in clockwise order"),
        ("callers", [2, 3, 0, 1, 2], "two or more different seats"),
        ("set_number", 8, "at `$.state.set_number`"),
        ("set_number", 0, "at `$.state.set_number`"),
        ("tie_break", True, "at `$.state.tie_break`"),
        ("scores", [0, 0, 0], "at `$.state.scores`"),
        ("record", [0, 1, 0, 0], "a set not yet revealed - at `$.state.record`"),
        ("record", [0, 128, 0, 0], "at `$.state.record[1]`"),
    ],
)
def test_hostile_saves_fail_naming_the_field(field: str, value: object, message: str) -> None:
    game = ValDesGame.new(ValDesSettings(seats=4, ante=2), Dice(9))
    assert game.state.turn == 2
    game.apply(2, Call(R))  # seat 3 calls next
    with pytest.raises(CorruptState) as err:
        ValDesGame.from_json(_doctored(game, field, value))
    assert message in str(err.value)


def test_save_from_another_game_is_refused() -> None:
    game = ValDesGame.new(ValDesSettings(), Dice(3))
    data = msgspec.json.decode(game.to_json())
    data["game"] = "vigo"
    with pytest.raises(CorruptState, match=r"\$\.game"):
        ValDesGame.from_json(msgspec.json.encode(data))


# --- random play ------------------------------------------------------------------------------


def _oracle(events: Sequence[Event], players: list[int], seats: int) -> list[int]:
    """Score the game again from its events alone, checking who called in each set.

    Rebuilds VD-2 to VD-5 independently of the module: correct calls, the regulation runs,
    the bonus after set 7, and that each tie-break set is called by exactly the leaders.
    """
    scores = [0] * seats
    run = [0] * seats
    best = [0] * seats
    calls: list[tuple[int, Colour]] = []
    set_number = 1
    for event in events:
        if isinstance(event, SetStarted):
            set_number = event.set_number
            callers = players
            if event.tie_break:
                top = max(scores[seat] for seat in players)
                callers = [seat for seat in players if scores[seat] == top]
            rotated = callers.index(event.caster) + 1
            expected_order = callers[rotated:] + callers[:rotated]
        elif isinstance(event, Called):
            calls.append((event.seat, event.colour))
        elif isinstance(event, Rolled):
            assert [seat for seat, _ in calls] == expected_order
            for seat, colour in calls:
                hit = colour == event.face
                scores[seat] += hit
                if set_number <= 7:
                    run[seat] = run[seat] + 1 if hit else 0
                    best[seat] = max(best[seat], run[seat])
            calls = []
            if set_number == 7:
                for seat in players:
                    scores[seat] += 2 if best[seat] >= 3 else 0
    return scores


@settings(max_examples=1000, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ante=st.integers(0, 5),
    scorekeeper=st.integers(0, 7),
    banks=st.lists(st.integers(0, 12), min_size=2, max_size=8),
)
def test_random_play_conserves_credits_and_crowns_the_top_scorer(
    seed: int, ante: int, scorekeeper: int, banks: list[int]
) -> None:
    """Any seat count, ante and banks: credits are conserved and never negative at any
    step, every position saves and loads, the game ends, and the winner is the one top
    scorer by an independent count."""
    seats = len(banks)
    table = ValDesSettings(seats=seats, scorekeeper=scorekeeper % seats, ante=ante)
    if sum(bank >= ante for bank in banks) < 2:
        with pytest.raises(ValueError, match="two seats"):
            ValDesGame.new(table, Dice(seed), banks)
        return
    game = ValDesGame.new(table, Dice(seed), banks)
    state = game.state
    total = sum(banks)
    players = [seat for seat in range(seats) if banks[seat] >= ante]
    assert state.players == players
    log = list(game.opening_events)
    for _ in range(5_000):
        decision = game.pending
        if decision is None:
            break
        log += game.apply(decision.seat, game.dice.choice(decision.options))
        assert sum(state.banks) + state.pot == total
        assert min(state.banks) >= 0 and state.pot >= 0
        saved = game.to_json()  # every reachable position loads back as it was
        assert ValDesGame.from_json(saved).to_json() == saved
    else:
        pytest.fail("the game did not end within 5000 decisions")
    result = game.result
    assert result is not None
    scores = _oracle(log, players, seats)
    assert list(result.points) == scores
    top = max(scores)
    assert scores.count(top) == 1 and scores[result.winner] == top
    expected_banks = [bank - ante if seat in players else bank for seat, bank in enumerate(banks)]
    expected_banks[result.winner] += ante * len(players)
    assert state.banks == expected_banks
    assert log[-1] == GameOver((result.winner,), tuple(p for p in players if p != result.winner))
