"""Narration that says why: real games played with scripted dice to the moment a player
could not otherwise explain, and the line the narrator gives for it.

Every table here is made the way a game begins (`new`), so the events are the ones the
rules emit; scripted dice force each roll (ints are d6/d12 results, colours are faces).
"""

from __future__ import annotations

from collections.abc import Sequence

from cantina.games.dice import ScriptedDice
from cantina.games.events import Event, GameOver, Rolled, SatOut
from cantina.games.table import Action, Game
from cantina.games.valdes import Call, ValDesGame, ValDesSettings
from cantina.games.victim import (
    AutomaticWin,
    BattleDice,
    BattleResult,
    Fallen,
    NeutralSpared,
    Plan,
    VictimGame,
    VictimSettings,
)
from cantina.games.vigo import SetStake, VigoGame, VigoSettings, VigoShort, Voted
from cantina.narration import Narrator
from cantina.pace import Pace

NAMES = ["Ana", "Bo", "Cy", "Di"]
narrate = Narrator(NAMES)


def told(events: Sequence[Event]) -> list[str]:
    """The lines a reader of the log sees for these events, in order."""
    return [line for line in map(narrate, events) if line]


def act(game: Game[object], action: Action) -> list[Event]:
    decision = game.pending
    assert decision is not None
    return game.apply(decision.seat, action)


def victim(script: list[str | int], health: int = 5) -> VictimGame:
    """A Victim! match whose initiative (6, 2, 1) makes Ana the Attacker, Bo the
    Supporter and Cy the Victim; `script` is the dice of the turns that follow."""
    game = VictimGame.new(VictimSettings(starting_health=health), ScriptedDice([6, 2, 1, *script]))
    assert (game.state.attacker, game.state.supporter, game.state.victim) == (0, 1, 2)
    return game


def used_up(game: Game[object]) -> bool:
    dice = game.dice
    assert isinstance(dice, ScriptedDice)
    return dice.remaining == 0


# --- Victim!: the battle dice, the Supporter's die, then the battle ------------------------


def test_victim_tells_each_sides_dice_before_support_then_the_die_then_the_battle() -> None:
    """Attacker 4+3 against Victim 5+1; Bo's Support die shows green and the d12 7 lifts
    Cy by 3: the dice as thrown come first, then what the die did, then the battle."""
    game = victim([4, 3, 5, 1, "green", 7])
    events = act(game, Plan(direction="left", die="support"))
    assert BattleDice(0, (4, 3), 2, (5, 1)) in events
    assert told(events) == [
        "Bo lays down two cards, face down.",
        "Attacker Ana rolls 4 and 3 (7); Victim Cy rolls 5 and 1 (6).",
        "Bo reveals left, support: aimed at Cy.",
        "Bo rolls the support die: green (add half a d12, rounded down).",
        "Bo rolls the d12: 7.",
        "Cy's total +3, now 9.",
        "Battle: Attacker 7 against Victim 9, no hit.",
        "Attacker Bo, Supporter Ana, Victim Cy.",
    ]
    assert used_up(game)


def test_the_four_battle_dice_tumble_in_pairs_and_are_told_in_one_line() -> None:
    """The four battle dice are not told one by one: each side's pair tumbles as one, and
    the summary after them stays one beat."""
    game = victim([6, 5, 2, 2, "white"])
    events = act(game, Plan(direction="right", die="sabotage"))
    first = next(i for i, e in enumerate(events) if isinstance(e, Rolled))
    battle = events[first : first + 5]
    assert [type(e) for e in battle] == [Rolled] * 4 + [BattleDice]
    assert [narrate(e) for e in battle[:4]] == [None] * 4
    pace = Pace(beat=1.0, roll=0.5)
    waits = [
        pace.after(e, after, narrate(e) is not None)
        for e, after in zip(battle, events[first + 1 : first + 6], strict=True)
    ]
    assert waits == [0.0, 0.5, 0.0, 0.5, 1.0]
    assert told(events)[1:4] == [
        "Attacker Ana rolls 6 and 5 (11); Victim Cy rolls 2 and 2 (4).",
        "Bo reveals right, sabotage: aimed at Ana.",
        "Bo rolls the sabotage die: white (no effect).",
    ]


def test_red_faces_and_ties_say_what_they_did() -> None:
    """A red Sabotage face takes half the d12, rounded up, off its target; equal totals
    are no hit, and the line says a tie is not enough."""
    game = victim([5, 4, 3, 3, "red", 5])
    events = act(game, Plan(direction="right", die="sabotage"))  # right of Bo: Ana
    assert told(events)[3:7] == [
        "Bo rolls the sabotage die: red (take off half a d12, rounded up).",
        "Bo rolls the d12: 5.",
        "Ana's total -3, now 6.",
        "Battle: Attacker 6 against Victim 6, no hit (a tie is not enough).",
    ]
    assert BattleResult(6, 6, False) in events


def test_an_automatic_win_says_the_support_die_cannot_change_it() -> None:
    game = victim([6, 6, 3, 4])
    events = act(game, Plan(direction="left", die="support"))
    assert told(events)[1:5] == [
        "Attacker Ana rolls 6 and 6 (12); Victim Cy rolls 3 and 4 (7).",
        "Automatic win for the Attacker: double six! No Support or Sabotage die can change that.",
        "Bo reveals left, support: aimed at Cy.",
        "Battle: Attacker 12 against Victim 7, a hit.",
    ]
    assert used_up(game)


# --- Victim!: the Neutral die and a Supporter at 1 health ----------------------------------


def test_a_supporter_at_one_health_takes_no_damage_from_red_twice_and_is_told_why() -> None:
    """VI-6: a second red would cost the Supporter a health, unless that is the last one.
    Everyone starts at 1 here, so Bo's red, red costs nothing, and the log says why."""
    game = victim([2, 2, 1, 3, "red", "red"], health=1)
    events = act(game, Plan(direction="left", die="neutral"))
    assert NeutralSpared(1, 1) in events
    assert game.state.health == [1, 1, 1]
    assert told(events)[2:6] == [
        "Bo reveals left, neutral: aimed at Cy.",
        "Bo rolls the neutral die: red (roll it once more).",
        "Bo rolls the neutral die again: red.",
        "Red twice, yet Bo takes no damage: the Neutral die never hurts a Supporter who"
        " has only 1 health left.",
    ]
    assert used_up(game)


def test_a_supporter_with_more_health_loses_one_and_is_not_spared() -> None:
    game = victim([2, 2, 1, 3, "red", "red"], health=2)
    events = act(game, Plan(direction="left", die="neutral"))
    assert not [e for e in events if isinstance(e, NeutralSpared)]
    assert "Bo loses 1 health (neutral die showed red twice): 1 left." in told(events)


def test_a_first_white_neutral_face_says_it_has_no_effect() -> None:
    game = victim([2, 2, 1, 3, "white"])
    events = act(game, Plan(direction="left", die="neutral"))
    assert "Bo rolls the neutral die: white (no effect)." in told(events)


# --- Victim!: the end names the winner and both losers ------------------------------------


def test_the_end_of_a_match_names_the_attacker_as_winner_and_victim_and_supporter_as_losers() -> (
    None
):
    """VI-8: Cy, the Victim, falls from 1 to 0, so Ana, the Attacker, wins; Cy and Bo, the
    Supporter, both lose, though Bo was never hurt. The log says so with the roles."""
    game = victim([5, 5, 2, 2, "white"], health=1)
    events = act(game, Plan(direction="left", die="support"))
    assert events[-2:] == [Fallen(victim=2, attacker=0, supporter=1), GameOver((0,), (2, 1))]
    assert told(events)[-4:] == [
        "Battle: Attacker 10 against Victim 4, a hit.",
        "Cy loses 1 health (lost the battle): 0 left.",
        "Victim Cy has no health left: Attacker Ana wins the match, and Victim Cy and"
        " Supporter Bo both lose it.",
        "It is over: Ana comes out ahead; Cy and Bo lose.",
    ]
    assert used_up(game)


def test_an_automatic_win_from_two_health_also_names_both_losers() -> None:
    """VI-4 and VI-8: double six against double one takes two health at once; the match
    ends the same way, with the Supporter among the losers."""
    game = victim([6, 6, 1, 1, "white"], health=2)
    events = act(game, Plan(direction="right", die="neutral"))
    lines = told(events)
    assert lines[-2:] == [
        "Victim Cy has no health left: Attacker Ana wins the match, and Victim Cy and"
        " Supporter Bo both lose it.",
        "It is over: Ana comes out ahead; Cy and Bo lose.",
    ]


def test_a_val_des_game_names_its_losers_too() -> None:
    """VD-6 names no losers, but the game reports the other seats taking part; the line
    names them after the winner."""
    game = ValDesGame.new(ValDesSettings(seats=3), ScriptedDice(["red"] * 7))
    events: list[Event] = []
    while game.pending is not None:
        events += act(game, Call("red" if game.pending.seat == 0 else "blue"))
    assert told(events)[-1] == "It is over: Ana comes out ahead; Bo and Cy lose."


# --- Vigo's Favor: a split without a vote (VF-9) ------------------------------------------


def vigo(script: list[str], banks: list[int]) -> VigoGame:
    """A round with Ana as the Vigo and scripted cubes (the favor first)."""
    return VigoGame.new(VigoSettings(seats=len(banks)), ScriptedDice(script), banks=banks)


def test_a_vigo_short_of_one_stake_per_survivor_pays_what_it_has_and_the_split_says_why() -> None:
    """VF-9: Bo and Cy survive a stake of 2, so Ana owes 4 but has 1: she pays it, and they
    split the pot at once. Nobody voted; the log says why there was no vote."""
    game = vigo(["red", "red", "red"], banks=[1, 10, 10])
    events = act(game, SetStake(2))
    assert VigoShort(vigo=0, due=4, paid=1, seats=(1, 2)) in events
    assert not [e for e in events if isinstance(e, Voted)]
    lines = told(events)
    start = lines.index("Ana puts 1 credit into the pot (one stake per survivor).")
    assert lines[start + 1 :] == [
        "Ana, the Vigo, owes 4 (one stake per survivor) but had only 1, so Bo and Cy split"
        " the pot at once, without a vote.",
        "Bo takes 2 credits from the pot (split).",
        "Cy takes 2 credits from the pot (split).",
        "Ana takes 1 credit from the pot (split remainder).",
        "It is over: Bo and Cy come out ahead.",
        "The title of Vigo passes to Bo.",
    ]
    assert used_up(game)


def test_a_broke_vigo_pays_nothing_and_the_survivors_still_split_without_a_vote() -> None:
    """VF-9 with an empty bank: no payment to tell, the reason is still told."""
    game = vigo(["blue", "blue", "blue", "blue"], banks=[0, 5, 5, 5])
    events = act(game, SetStake(1))
    assert VigoShort(vigo=0, due=3, paid=0, seats=(1, 2, 3)) in events
    assert (
        "Ana, the Vigo, owes 3 (one stake per survivor) but had nothing, so Bo, Cy and Di"
        " split the pot at once, without a vote." in told(events)
    )
    assert game.state.banks == [0, 5, 5, 5]


# --- sitting out for want of credits (VF-2, VD-6) -----------------------------------------


def test_a_vigo_player_who_cannot_cover_the_ante_is_told_to_sit_the_round_out_and_why() -> None:
    """VF-2: the ante is the stake; Bo's 2 credits and Cy's empty bank cannot cover 3."""
    game = vigo(["red", "red"], banks=[20, 2, 0, 5])
    events = act(game, SetStake(3))
    assert SatOut(1, "cannot cover the ante", ante=3, bank=2, span="round") in events
    lines = told(events)
    assert "Bo sits this round out: a bank of 2 cannot cover the ante of 3." in lines
    assert "Cy sits this round out: an empty bank cannot cover the ante of 3." in lines
    assert lines.index("Ana, the Vigo, sets the stake at 3.") < lines.index(
        "Bo sits this round out: a bank of 2 cannot cover the ante of 3."
    )


def test_a_val_des_seat_that_cannot_cover_the_ante_is_told_to_sit_the_game_out_and_why() -> None:
    """VD-6: the whole game, not a set; told among the opening events, before set 1."""
    game = ValDesGame.new(
        ValDesSettings(seats=4, ante=2), ScriptedDice(["red"] * 7), banks=[5, 1, 2, 5]
    )
    assert told(game.opening_events) == [
        "Ana puts 2 credits into the pot (ante).",
        "Bo sits this game out: a bank of 1 cannot cover the ante of 2.",
        "Cy puts 2 credits into the pot (ante).",
        "Di puts 2 credits into the pot (ante).",
        "Set 1: Cy shakes the cup.",
    ]


def test_a_moment_counted_keeps_its_count_on_what_happened_not_on_the_remark_after():
    """A result's key moment told twice read "… No Support or Sabotage die can change that
    (2 times).", counting the remark; the count goes on the automatic win itself."""
    narrate = Narrator(["Ana", "Bo", "Cy"])
    event = AutomaticWin(attacker_double_six=False, victim_double_one=True)
    assert narrate.moments([(event, 2)]) == [
        "Automatic win for the Attacker: double one (2 times)! No Support or Sabotage die "
        "can change that."
    ]
    assert narrate.moments([(event, 1)]) == [
        "Automatic win for the Attacker: double one! No Support or Sabotage die can change that."
    ]
