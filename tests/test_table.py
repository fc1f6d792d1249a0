"""The contract every game keeps: one seedable random source, exact JSON round trips, and
clear refusals of illegal actions and damaged saves."""

from __future__ import annotations

import json
import random

import pytest

from cantina.games.dice import Dice, ScriptedDice, ScriptExhausted
from cantina.games.events import Event
from cantina.games.table import Action, CorruptState, Move, play_moves
from cantina.games.vigo import SetStake, VigoGame, VigoSettings


def test_same_seed_same_rolls_and_restored_state_continues():
    a, b = Dice(42), Dice(42)
    assert [a.d6() for _ in range(50)] == [b.d6() for _ in range(50)]
    saved = a.state()
    ahead = [a.cube() for _ in range(20)] + [a.d12() for _ in range(20)]
    again = Dice.from_state(saved)
    assert [again.cube() for _ in range(20)] + [again.d12() for _ in range(20)] == ahead


def test_dice_are_fair_enough():
    """Every face turns up near 1/n of the time: catches an off-by-one in `below`."""
    dice = Dice(1)
    for sides, roll in ((6, dice.d6), (12, dice.d12)):
        counts = [0] * (sides + 1)
        for _ in range(12_000):
            counts[roll()] += 1
        assert counts[0] == 0
        assert all(abs(c - 12_000 / sides) < 0.15 * 12_000 / sides for c in counts[1:])
    reds = sum(dice.cube() == "red" for _ in range(10_000))
    assert 4_700 < reds < 5_300


def test_scripted_dice_refuse_a_roll_of_the_wrong_kind():
    dice = ScriptedDice(["red", 7])
    assert dice.cube() == "red"
    with pytest.raises(ScriptExhausted, match="roll 2 is 7, but the game rolled a d6"):
        dice.d6()
    with pytest.raises(ScriptExhausted, match="ran out"):
        ScriptedDice([]).cube()


def test_json_round_trip_is_exact_and_replay_matches():
    """A finished table saves and loads byte for byte, and seed + decisions replay it."""
    chooser = random.Random(5)
    game = VigoGame.new(VigoSettings(mercy=True), Dice(5))
    moves, events = [], []
    while game.pending:
        moves.append(Move(game.pending.seat, chooser.choice(game.pending.options)))
        events += game.apply(moves[-1].seat, moves[-1].action)
    data = game.to_json()
    assert VigoGame.from_json(data).to_json() == data
    replayed = VigoGame.new(VigoSettings(mercy=True), Dice(5))
    assert play_moves(replayed, moves) == events
    assert replayed.to_json() == data


def test_another_seed_gives_other_rolls():
    moves = [Move(0, SetStake(3))]
    rolls = [play_moves(VigoGame.new(VigoSettings(), Dice(seed)), moves) for seed in range(8)]
    assert len({repr(r) for r in rolls}) > 1


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d["state"].update(banks="lots"), "$.state.banks"),
        (lambda d: d["state"]["settings"].update(seats=12), "$.state.settings.seats"),
        (lambda d: d["state"].update(banks=[1, 2]), "$.state.banks"),
        (lambda d: d["state"].update(vigo=7), "$.state.vigo"),
        (lambda d: d["state"].update(phase="bribe"), "$.state.phase"),
        (lambda d: d["dice"].update(internal=[1, 2, 3]), "$.dice"),
        (lambda d: d.update(game="victim"), "$.game"),
    ],
)
def test_damaged_snapshot_is_refused_naming_the_field(mutate, where):
    data = json.loads(VigoGame.new(VigoSettings(), Dice(1)).to_json())
    mutate(data)
    with pytest.raises(CorruptState, match=f"at `{where.replace('$', '[$]')}"):
        VigoGame.from_json(json.dumps(data))


def test_truncated_snapshot_is_refused():
    data = VigoGame.new(VigoSettings(), Dice(1)).to_json()
    with pytest.raises(CorruptState, match=r"truncated|malformed|Input data"):
        VigoGame.from_json(data[: len(data) // 2])


def all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *all_subclasses(sub)]
    return found


@pytest.mark.parametrize("base", [Event, Action])
def test_tags_are_unique_across_games(base):
    """Events and actions of all three games decode from one namespace: no tag twice."""
    import cantina.games  # noqa: F401  (loads every game's events and actions)

    ours = [sub for sub in all_subclasses(base) if sub.__module__.startswith("cantina.")]
    tags = [sub.__struct_config__.tag for sub in ours]
    assert len(tags) >= 8  # the games define at least eight kinds of each
    assert len(tags) == len(set(tags)), sorted(t for t in tags if tags.count(t) > 1)
