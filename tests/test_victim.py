"""Victim! rules core: one or more tests per ruling VI-1 to VI-9, plus saves and properties.

Scripted dice force every roll: ints are d6/d12 results, colour names are custom-die faces.
A script that is too long or too short fails the test, so each script states exactly which
dice the rules must roll.
"""

from __future__ import annotations

import re

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantina.games.dice import Dice, ScriptedDice
from cantina.games.events import Event, GameOver, HealthChanged, Rolled
from cantina.games.table import Action, CorruptState, IllegalAction, Kind
from cantina.games.victim import (
    NEUTRAL_DIE,
    PLANS,
    SABOTAGE_DIE,
    SUPPORT_DIE,
    AutomaticWin,
    BattleResult,
    Fallen,
    Modified,
    Plan,
    Planned,
    Revealed,
    RolesSet,
    VictimGame,
    VictimSettings,
    VictimState,
)

FIVE = VictimSettings()


def table(
    script: list[str | int],
    *,
    health: tuple[int, int, int] = (5, 5, 5),
    roles: tuple[int, int, int] = (0, 1, 2),
    turn: int = 1,
) -> VictimGame:
    """A game already under way with the given (attacker, supporter, victim) and health."""
    attacker, supporter, victim = roles
    state = VictimState(
        settings=FIVE,
        health=list(health),
        attacker=attacker,
        supporter=supporter,
        victim=victim,
        turn=turn,
    )
    return VictimGame(state, ScriptedDice(script))


def play(game: VictimGame, direction: str, die: str) -> list[Event]:
    """The pending Supporter plays one turn with the given plan."""
    assert game.pending is not None
    return game.apply(game.pending.seat, Plan(direction=direction, die=die))


def only(events: list[Event], kind: type[Event]) -> list[Event]:
    return [event for event in events if isinstance(event, kind)]


def roles(game: VictimGame) -> tuple[int, int, int]:
    return (game.state.attacker, game.state.supporter, game.state.victim)


def script_used_up(game: VictimGame) -> bool:
    dice = game.dice
    assert isinstance(dice, ScriptedDice)
    return dice.remaining == 0


# VI-1 ---------------------------------------------------------------------------------------


def test_vi1_highest_initiative_roll_attacks_and_roles_follow_clockwise() -> None:
    """The highest d6 is the first Attacker; Supporter and Victim follow it clockwise."""
    game = VictimGame.new(FIVE, ScriptedDice([2, 5, 3]))
    assert game.opening_events == [
        Rolled(0, "d6", 2, "initiative"),
        Rolled(1, "d6", 5, "initiative"),
        Rolled(2, "d6", 3, "initiative"),
        RolesSet(attacker=1, supporter=2, victim=0),
    ]
    assert roles(game) == (1, 2, 0)
    assert game.pending is not None
    assert game.pending.seat == 2
    assert game.pending.kind is Kind.PLAN
    assert script_used_up(game)


def test_vi1_tie_for_highest_rerolls_only_the_tied_seats() -> None:
    """Seats tied for the highest roll again, alone; a lower seat never rejoins."""
    # Seats 1 and 2 tie on 6 while seat 0 has 4; only they re-roll: 2 and 5, so seat 2 leads.
    game = VictimGame.new(FIVE, ScriptedDice([4, 6, 6, 2, 5]))
    rolls = only(game.opening_events, Rolled)
    assert [(r.seat, r.face, r.why) for r in rolls] == [
        (0, 4, "initiative"),
        (1, 6, "initiative"),
        (2, 6, "initiative"),
        (1, 2, "initiative re-roll"),
        (2, 5, "initiative re-roll"),
    ]
    assert roles(game) == (2, 0, 1)
    assert script_used_up(game)


def test_vi1_repeated_ties_narrow_down_step_by_step() -> None:
    """A three-way tie re-rolls everyone; a new tie among two re-rolls just those two."""
    game = VictimGame.new(FIVE, ScriptedDice([3, 3, 3, 5, 5, 1, 2, 4]))
    rerolled = [r.seat for r in only(game.opening_events, Rolled) if r.why != "initiative"]
    assert rerolled == [0, 1, 2, 0, 1]
    assert roles(game) == (1, 2, 0)
    assert script_used_up(game)


# VI-2 ---------------------------------------------------------------------------------------


def test_vi2_health_starts_at_five() -> None:
    game = VictimGame.new(FIVE, ScriptedDice([6, 1, 1]))
    assert game.state.health == [5, 5, 5]


def test_vi2_rematch_gives_the_previous_victim_six_and_continues_the_dice() -> None:
    """After a game ends, the rematch's new initiative uses the same dice; last Victim has 6."""
    # Attacker 11 against Victim 3 with a white Support face: seat 2 falls from 1 health.
    # Then the rematch's initiative: 1, 2, 3, so seat 2 attacks first.
    game = table([5, 6, 1, 2, "white", 1, 2, 3], health=(5, 4, 1))
    play(game, "left", "support")
    assert game.result is not None
    assert game.result.victim == 2
    rematch = game.rematch()
    assert rematch.dice is game.dice
    assert rematch.state.health == [5, 5, 6]
    assert roles(rematch) == (2, 0, 1)
    assert rematch.result is None
    assert script_used_up(rematch)


def test_vi2_rematch_bonus_can_be_switched_off_and_needs_a_finished_game() -> None:
    plain = VictimSettings(rematch_bonus=False)
    game = VictimGame.new(plain, ScriptedDice([6, 1, 1]), previous_victim=2)
    assert game.state.health == [5, 5, 5]
    with_bonus = VictimGame.new(FIVE, ScriptedDice([6, 1, 1]), previous_victim=1)
    assert with_bonus.state.health == [5, 6, 5]
    with pytest.raises(IllegalAction):
        with_bonus.rematch()
    with pytest.raises(ValueError, match="starting_health"):
        VictimGame.new(VictimSettings(starting_health=0), ScriptedDice([]))
    with pytest.raises(ValueError, match="previous_victim"):
        VictimGame.new(FIVE, ScriptedDice([]), previous_victim=3)


# VI-3 ---------------------------------------------------------------------------------------


def test_vi3_left_and_right_targets_follow_the_supporter_as_roles_move() -> None:
    """Left is the seat after the Supporter clockwise, Right the other; both move each turn."""
    # Three quiet turns: 2+2 against 2+2 is a tie, and the Neutral die shows white.
    game = table([2, 2, 2, 2, "white"] * 2)
    assert roles(game) == (0, 1, 2)
    assert (game.target_of("left"), game.role_of(game.target_of("left"))) == (2, "victim")
    assert (game.target_of("right"), game.role_of(game.target_of("right"))) == (0, "attacker")
    events = play(game, "left", "neutral")
    assert only(events, Revealed) == [Revealed(1, "left", "neutral", 2)]

    assert roles(game) == (1, 0, 2)
    assert (game.target_of("left"), game.role_of(game.target_of("left"))) == (1, "attacker")
    assert (game.target_of("right"), game.role_of(game.target_of("right"))) == (2, "victim")
    events = play(game, "left", "neutral")
    assert only(events, Revealed) == [Revealed(0, "left", "neutral", 1)]

    assert roles(game) == (2, 0, 1)
    assert (game.target_of("left"), game.role_of(game.target_of("left"))) == (1, "victim")
    assert (game.target_of("right"), game.role_of(game.target_of("right"))) == (2, "attacker")
    assert script_used_up(game)


def test_vi3_the_supporter_chooses_among_six_plans_and_the_choice_stays_hidden() -> None:
    """Two directions times three dice; only `Planned` (no content) comes before the battle."""
    game = table([3, 3, 4, 4, "white"])
    assert game.pending is not None
    assert game.pending.seat == 1
    assert set(game.pending.options) == {
        Plan(direction=d, die=c)
        for d in ("left", "right")
        for c in ("support", "sabotage", "neutral")
    }
    assert len(game.pending.options) == 6
    events = play(game, "right", "support")
    assert events[0] == Planned(1)
    assert events.index(Revealed(1, "right", "support", 0)) > 4  # after the four battle dice
    saved_fields = set(msgspec.json.decode(msgspec.json.encode(game.state)))
    assert saved_fields == {
        "settings",
        "health",
        "attacker",
        "supporter",
        "victim",
        "turn",
        "result",
    }


# VI-4 ---------------------------------------------------------------------------------------


def test_vi4_attacker_double_six_wins_and_sabotage_is_not_rolled() -> None:
    """Double six hits even against a higher plan; the Sabotage die is never rolled."""
    game = table([6, 6, 5, 5])  # nothing after the battle dice: any further roll would fail
    events = play(game, "right", "sabotage")  # right of seat 1 is the Attacker, seat 0
    assert only(events, AutomaticWin) == [AutomaticWin(True, False)]
    assert only(events, Revealed) == [Revealed(1, "right", "sabotage", 0)]
    assert [r.die for r in only(events, Rolled)] == ["d6"] * 4
    assert only(events, BattleResult) == [BattleResult(12, 10, True)]
    assert game.state.health == [5, 5, 4]
    assert script_used_up(game)


def test_vi4_victim_double_one_wins_for_the_attacker_even_on_equal_totals() -> None:
    """1+1 against 1+1 would be a tie, but the Victim's double one hands the Attacker a hit."""
    game = table([1, 1, 1, 1])
    events = play(game, "left", "support")
    assert only(events, AutomaticWin) == [AutomaticWin(False, True)]
    assert only(events, Modified) == []
    assert only(events, HealthChanged) == [HealthChanged(2, -1, 4, "lost the battle")]


def test_vi4_double_six_and_double_one_cost_two_health() -> None:
    game = table([6, 6, 1, 1])
    events = play(game, "left", "support")
    assert only(events, AutomaticWin) == [AutomaticWin(True, True)]
    assert [(h.seat, h.delta, h.health) for h in only(events, HealthChanged)] == [
        (2, -1, 4),
        (2, -1, 3),
    ]
    assert game.state.health == [5, 5, 3]


def test_vi4_neutral_die_is_still_rolled_on_an_automatic_win() -> None:
    """The Neutral card is revealed and rolled as usual; red twice still costs the Supporter."""
    game = table([6, 6, 3, 4, "red", "red"])
    events = play(game, "left", "neutral")
    neutral = [r.face for r in only(events, Rolled) if r.die == "neutral"]
    assert neutral == ["red", "red"]
    assert game.state.health == [5, 4, 4]
    assert script_used_up(game)


# VI-5 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "face", "direction", "target", "d12", "delta", "totals", "hit"),
    [
        # Attacker 3+4=7, Victim 4+4=8. Seat 1 supports: left = Victim (2), right = Attacker (0).
        ("support", "green", "right", 0, 7, 3, (10, 8), True),  # 7 // 2 = 3 lifts the Attacker
        ("support", "green", "left", 2, 7, 3, (7, 11), False),
        ("support", "red", "left", 2, 7, -4, (7, 4), True),  # ceil(7 / 2) = 4 off the Victim
        ("sabotage", "red", "right", 0, 1, -1, (6, 8), False),  # ceil(1 / 2) = 1
        ("sabotage", "green", "right", 0, 12, 6, (13, 8), True),
        ("sabotage", "red", "left", 2, 12, -6, (7, 2), True),
        ("support", "green", "right", 0, 1, 0, (7, 8), False),  # 1 // 2 = 0
    ],
)
def test_vi5_green_adds_half_down_and_red_subtracts_half_up_on_the_target(
    die: str,
    face: str,
    direction: str,
    target: int,
    d12: int,
    delta: int,
    totals: tuple[int, int],
    hit: bool,
) -> None:
    game = table([3, 4, 4, 4, face, d12])
    events = play(game, direction, die)
    assert only(events, Rolled)[-2:] == [
        Rolled(1, die, face, "support"),
        Rolled(1, "d12", d12, "add half" if face == "green" else "subtract half"),
    ]
    total = totals[0] if target == 0 else totals[1]
    assert only(events, Modified) == [Modified(target, delta, total)]
    assert only(events, BattleResult) == [BattleResult(*totals, hit)]
    assert game.state.health[2] == (4 if hit else 5)
    assert script_used_up(game)


@pytest.mark.parametrize("die", ["support", "sabotage"])
def test_vi5_white_face_changes_nothing_and_rolls_no_d12(die: str) -> None:
    game = table([5, 4, 3, 3, "white"])
    events = play(game, "left", die)
    assert only(events, Modified) == []
    assert only(events, BattleResult) == [BattleResult(9, 6, True)]
    assert script_used_up(game)


def test_vi5_die_faces_match_the_rulings() -> None:
    assert sorted(SUPPORT_DIE) == ["green"] * 4 + ["red", "white"]
    assert sorted(SABOTAGE_DIE) == ["green"] * 2 + ["red"] * 3 + ["white"]


# VI-6 ---------------------------------------------------------------------------------------


def test_vi6_neutral_red_twice_costs_the_supporter_one_health() -> None:
    """Red, then red again: the Supporter loses 1. Totals are never touched (4 vs 4, no hit)."""
    game = table([2, 2, 1, 3, "red", "red"])
    events = play(game, "left", "neutral")
    assert [(r.face, r.why) for r in only(events, Rolled) if r.die == "neutral"] == [
        ("red", "neutral"),
        ("red", "neutral again"),
    ]
    assert only(events, HealthChanged) == [HealthChanged(1, -1, 4, "neutral die showed red twice")]
    assert only(events, BattleResult) == [BattleResult(4, 4, False)]
    assert game.state.health == [5, 4, 5]


def test_vi6_neutral_cannot_hurt_a_supporter_with_exactly_one_health() -> None:
    game = table([2, 2, 1, 3, "red", "red"], health=(5, 1, 5))
    events = play(game, "right", "neutral")
    assert only(events, HealthChanged) == []
    assert game.state.health == [5, 1, 5]
    assert script_used_up(game)


def test_vi6_neutral_red_then_white_and_a_first_white_cost_nothing() -> None:
    """Red then white costs nothing; a first white ends the Neutral roll at once."""
    game = table([2, 2, 1, 3, "red", "white", 2, 2, 1, 3, "white"])
    first = play(game, "left", "neutral")
    second = play(game, "left", "neutral")
    assert [r.face for r in only(first, Rolled) if r.die == "neutral"] == ["red", "white"]
    assert [r.face for r in only(second, Rolled) if r.die == "neutral"] == ["white"]
    assert game.state.health == [5, 5, 5]
    assert sorted(NEUTRAL_DIE) == ["red"] * 3 + ["white"] * 3
    assert script_used_up(game)


# VI-7 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attack", "defence", "hit"),
    [((3, 4), (5, 2), False), ((3, 5), (5, 2), True), ((1, 2), (6, 6), False)],
)
def test_vi7_only_a_strictly_greater_attack_hits(
    attack: tuple[int, int], defence: tuple[int, int], hit: bool
) -> None:
    """Equal totals and lower attacks leave everyone's health alone; one pip more hits."""
    game = table([*attack, *defence, "white"])
    events = play(game, "left", "support")
    assert only(events, Rolled)[:4] == [
        Rolled(0, "d6", attack[0], "battle"),
        Rolled(0, "d6", attack[1], "battle"),
        Rolled(2, "d6", defence[0], "battle"),
        Rolled(2, "d6", defence[1], "battle"),
    ]
    assert only(events, BattleResult) == [BattleResult(sum(attack), sum(defence), hit)]
    assert game.state.health == [5, 5, 4 if hit else 5]


# VI-8 ---------------------------------------------------------------------------------------


def test_vi8_victim_at_zero_ends_the_game_for_that_turns_attacker() -> None:
    """Victim 2 drops from 1 to 0: Attacker 0 wins; Victim 2 and Supporter 1 lose (Fallen
    says so with the roles, before the GameOver every game reports)."""
    game = table([6, 5, 2, 2, "white"], health=(3, 2, 1), turn=9)
    events = play(game, "left", "sabotage")
    assert events[-3:] == [
        HealthChanged(2, -1, 0, "lost the battle"),
        Fallen(victim=2, attacker=0, supporter=1),
        GameOver(winners=(0,), losers=(2, 1)),
    ]
    assert only(events, RolesSet) == []  # no rotation after the last turn
    assert roles(game) == (0, 1, 2)
    result = game.result
    assert result is not None
    assert (result.winner, result.losers, result.victim, result.turns) == (0, (2, 1), 2, 9)
    assert game.pending is None and game.over
    with pytest.raises(IllegalAction):
        game.apply(1, PLANS[0])


def test_vi8_double_trigger_ends_the_game_from_two_health() -> None:
    game = table([6, 6, 1, 1], health=(5, 5, 2))
    events = play(game, "left", "support")
    assert [h.health for h in only(events, HealthChanged)] == [1, 0]
    assert only(events, GameOver) == [GameOver(winners=(0,), losers=(2, 1))]


def test_vi8_health_never_goes_below_zero_on_a_double_trigger_from_one() -> None:
    """From 1 health the extra point already ends it; the regular hit cannot go below 0."""
    game = table([6, 6, 1, 1, "white"], health=(5, 5, 1))
    events = play(game, "left", "neutral")
    assert only(events, HealthChanged) == [HealthChanged(2, -1, 0, "double six against double one")]
    assert game.state.health == [5, 5, 0]
    assert only(events, GameOver) == [GameOver(winners=(0,), losers=(2, 1))]


# VI-9 ---------------------------------------------------------------------------------------


def test_vi9_rotation_follows_the_rule_example_and_repeats_every_six_turns() -> None:
    """(P1,P2,P3) -> (P2,P1,P3) -> (P3,P1,P2) -> ... and back after six turns (P1 = seat 0)."""
    quiet_turn = [2, 2, 2, 2, "white"]  # a tie with a white Neutral face: nobody is hurt
    game = VictimGame.new(FIVE, ScriptedDice([6, 1, 1, *quiet_turn * 6]))
    seen = [roles(game)]
    for _ in range(6):
        events = play(game, "left", "neutral")
        (rotated,) = only(events, RolesSet)
        seen.append((rotated.attacker, rotated.supporter, rotated.victim))
        assert seen[-1] == roles(game)
    assert seen == [(0, 1, 2), (1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0), (2, 1, 0), (0, 1, 2)]
    for role in range(3):  # every seat holds every role exactly twice in a cycle
        assert sorted(triple[role] for triple in seen[:6]) == [0, 0, 1, 1, 2, 2]
    assert game.state.turn == 7
    assert game.state.health == [5, 5, 5]
    assert script_used_up(game)


# The contract: illegal actions, saves ----------------------------------------------------------


class Shout(Action, frozen=True):
    """An action no Victim! decision offers."""


def test_illegal_actions_raise_and_leave_the_state_unchanged() -> None:
    game = VictimGame.new(FIVE, Dice(1234))
    assert game.pending is not None
    before = game.to_json()
    supporter = game.pending.seat
    with pytest.raises(IllegalAction):
        game.apply((supporter + 1) % 3, PLANS[0])
    with pytest.raises(IllegalAction):
        game.apply(supporter, Shout())
    assert game.to_json() == before


def test_a_save_mid_game_round_trips_and_continues_identically() -> None:
    game = VictimGame.new(FIVE, Dice(99))
    for _ in range(4):
        assert game.pending is not None
        game.apply(game.pending.seat, game.dice.choice(game.pending.options))
    saved = game.to_json()
    copy = VictimGame.from_json(saved)
    assert copy.state == game.state
    assert copy.to_json() == saved
    while not game.over:
        assert game.pending is not None and copy.pending == game.pending
        plan = game.dice.choice(game.pending.options)
        assert copy.dice.choice(copy.pending.options) == plan
        assert copy.apply(copy.pending.seat, plan) == game.apply(game.pending.seat, plan)
    assert copy.result == game.result
    finished = VictimGame.from_json(game.to_json())
    assert finished.over and finished.result == game.result


def _edited(game: VictimGame, **changes: object) -> bytes:
    snapshot = msgspec.json.decode(game.to_json())
    snapshot["state"].update(changes)
    return msgspec.json.encode(snapshot)


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"health": [5, 5]}, "$.state.health"),
        ({"health": [5, -1, 5]}, "$.state.health[1]"),
        ({"attacker": 3}, "$.state.attacker"),
        ({"supporter": 0, "attacker": 0, "victim": 2}, "$.state.supporter"),
        ({"attacker": 0, "supporter": 1, "victim": 1}, "$.state.victim"),
        ({"health": [5, 9, 5]}, "$.state.health[1]"),
        ({"health": [6, 6, 5]}, "$.state.health"),
        ({"health": [5, 0, 5]}, "$.state.health[1]"),
        (
            {"settings": {"starting_health": 0, "rematch_bonus": True}},
            "$.state.settings.starting_health",
        ),
        ({"turn": 0}, "$.state.turn"),
    ],
)
def test_damaged_saves_fail_naming_the_field(changes: dict[str, object], where: str) -> None:
    game = VictimGame.new(FIVE, Dice(5))
    with pytest.raises(CorruptState, match=re.escape(f"at `{where}`")):
        VictimGame.from_json(_edited(game, **changes))


def test_a_finished_save_with_an_inconsistent_result_is_rejected() -> None:
    game = VictimGame.new(FIVE, Dice(8))
    while not game.over:
        assert game.pending is not None
        game.apply(game.pending.seat, game.dice.choice(game.pending.options))
    result = msgspec.to_builtins(game.result)
    result["winner"] = game.state.victim
    with pytest.raises(CorruptState, match=r"\$\.state\.result\.winner"):
        VictimGame.from_json(_edited(game, result=result))
    with pytest.raises(CorruptState, match="not 'victim'"):
        VictimGame.from_json(game.to_json().replace(b'"victim"', b'"vigo"', 1))


# Properties -------------------------------------------------------------------------------------

MAX_TURNS = 400
"""Far beyond any real game: each hit costs a health and at most 16 health exist."""


@settings(max_examples=1000, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), games=st.integers(1, 3))
def test_random_games_keep_every_rule_invariant(seed: int, games: int) -> None:
    """Whole games (and rematch chains) with random plans never break the invariants."""
    game = VictimGame.new(FIVE, Dice(seed))
    previous_victim: int | None = None
    for number in range(games):
        if number:
            previous_victim = game.state.victim
            game = game.rematch()
        expected = [5, 5, 5]
        if previous_victim is not None:
            expected[previous_victim] = 6
        assert game.state.health == expected
        for _ in range(MAX_TURNS):
            decision = game.pending
            if decision is None:
                break
            before = list(game.state.health)
            attacker, supporter, victim = roles(game)
            assert decision.seat == supporter
            assert len({attacker, supporter, victim}) == 3
            events = game.apply(supporter, game.dice.choice(decision.options))
            health = game.state.health
            assert all(0 <= h <= 6 for h in health)
            assert health[attacker] == before[attacker]
            assert health[supporter] >= 1  # the Neutral die never finishes a Supporter
            assert before[supporter] - 1 <= health[supporter] <= before[supporter]
            assert before[victim] - 2 <= health[victim] <= before[victim]
            if game.over:
                assert health[victim] == 0
                assert events[-1] == GameOver(winners=(attacker,), losers=(victim, supporter))
            else:
                assert min(health) >= 1
                assert only(events, GameOver) == []
        else:
            pytest.fail(f"no winner after {MAX_TURNS} turns")
        result = game.result
        assert result is not None
        assert {result.winner, *result.losers} == {0, 1, 2}
        assert [h == 0 for h in game.state.health].count(True) == 1
