"""Vigo's Favor: the worked example and one test per ruling (VF-1 to VF-14)."""

from __future__ import annotations

import pytest

from cantina.games.dice import Dice, ScriptedDice
from cantina.games.events import POT, Eliminated, Event, Rolled, SatOut, Transfer
from cantina.games.table import IllegalAction, Kind
from cantina.games.vigo import (
    Challenge,
    Claim,
    InFavor,
    Mercy,
    Raise,
    RollAgain,
    SetStake,
    TitlePassed,
    VigoGame,
    VigoSettings,
    Vote,
)

R, B = "red", "blue"


def table(
    script: list[str], seats: int = 5, banks: list[int] | None = None, vigo: int = 0, **variants
) -> VigoGame:
    return VigoGame.new(
        VigoSettings(seats=seats, **variants), ScriptedDice(script), vigo=vigo, banks=banks
    )


def act(game: VigoGame, action) -> list[Event]:
    """Apply `action` for whichever seat the game is waiting on."""
    return game.apply(game.pending.seat, action)


def transfers(events: list[Event], why: str) -> list[Transfer]:
    return [e for e in events if isinstance(e, Transfer) and e.why == why]


def credits(game: VigoGame) -> int:
    return sum(game.state.banks) + game.state.pot


def test_worked_example_five_seats():
    """The rule text's example: pot 4, 6 after the Vigo pays, 8 after the challenge raise;
    the Vigo takes 8 and the title passes to Player 1."""
    # favor, P1..P4, roll again P1 and P4, challenge favor, P1's challenge roll
    game = table([R, R, B, B, R, R, B, R, B], seats=5)
    events = act(game, SetStake(1))
    assert sum(t.amount for t in transfers(events, "ante")) == 4
    assert transfers(events, "one stake per survivor") == [
        Transfer(0, POT, 2, "one stake per survivor")
    ]
    assert game.pending.kind is Kind.VOTE and game.pending.seat == 1
    assert game.state.survivors == [1, 4]
    assert game.state.pot == 6

    act(game, Vote(split=True))
    assert game.pending.seat == 4
    events = act(game, Vote(split=False))
    assert RollAgain(seats=(1, 4), stake=1) in events
    assert [e.seat for e in events if isinstance(e, Eliminated)] == [4]
    assert game.pending.kind is Kind.CLAIM_OR_CHALLENGE and game.pending.seat == 1
    assert game.state.pot == 6

    act(game, Challenge())
    assert game.pending.kind is Kind.CHOOSE_RAISE and game.pending.seat == 0
    events = act(game, Raise(1))
    assert [t.amount for t in transfers(events, "challenge raise")] == [1]
    assert [t.amount for t in transfers(events, "challenge match")] == [1]
    assert transfers(events, "challenge lost") == [Transfer(POT, 0, 8, "challenge lost")]
    assert game.pending is None
    assert game.result.outcome == "challenge lost"
    assert game.result.next_vigo == 1
    assert TitlePassed(0, 1) in events
    assert game.state.banks == [25, 18, 19, 19, 19]
    assert game.next_round().state.vigo == 1


def test_vf1_vigo_never_antes_or_rolls_for_survival():
    """VF-1: the Vigo pays no ante and only ever rolls the favor."""
    game = VigoGame.new(VigoSettings(seats=8), Dice(7), vigo=3)
    events = act(game, SetStake(2))
    while game.pending:
        events += act(game, game.pending.options[-1])
    assert all(t.source != 3 for t in transfers(events, "ante"))
    assert len(transfers(events, "ante")) == 7
    vigo_rolls = [e.why for e in events if isinstance(e, Rolled) and e.seat == 3]
    assert set(vigo_rolls) <= {"favor", "challenge favor"}


@pytest.mark.parametrize("seats", [1, 9])
def test_vf1_table_is_two_to_eight_seats(seats):
    """VF-1: a Vigo and 1 to 7 players."""
    with pytest.raises(ValueError, match="seats"):
        VigoGame.new(VigoSettings(seats=seats), Dice(1))


def test_vf2_stake_from_one_to_the_limit_and_short_banks_sit_out():
    """VF-2: stakes 1..limit; a player who cannot cover the ante sits the round out."""
    game = table([R, R, R], seats=4, banks=[10, 3, 2, 5], stake_limit=3)
    assert game.pending.options == (SetStake(1), SetStake(2), SetStake(3))
    events = act(game, SetStake(3))
    assert SatOut(2, "cannot cover the ante", ante=3, bank=2, span="round") in events
    assert game.state.order == [1, 3]
    assert not any(isinstance(e, Rolled) and e.seat == 2 for e in events)
    with pytest.raises(IllegalAction):
        VigoGame.new(VigoSettings(stake_limit=3), Dice(1)).apply(0, SetStake(4))


def test_vf2_a_new_table_whose_players_could_never_ante_is_refused():
    """VF-2: with a starting bank of 0 every player sits out every round (the least stake
    is 1), so such a table is refused as it is set; banks carried to 0 in a later round
    are the game's own (a round with all but the Vigo sitting out is played)."""
    with pytest.raises(ValueError, match="starting bank of at least 1"):
        VigoGame.new(VigoSettings(starting_bank=0), Dice(1))
    carried = VigoGame.new(VigoSettings(seats=3), Dice(1), banks=[30, 0, 0])
    assert carried.pending.options[0] == SetStake(1)


def test_vf3_favor_holds_for_roll_again():
    """VF-3: one favor roll per round; roll-agains are matched against the same colour."""
    game = table([B, B, B, B, R], seats=3)
    events = act(game, SetStake(1))
    act(game, Vote(True))
    events += act(game, Vote(False))
    favors = [e for e in events if isinstance(e, Rolled) and e.why == "favor"]
    assert len(favors) == 1
    # second pass: seat 1 blue (stays), seat 2 red (out) against the same blue favor
    assert game.state.survivors == [1]
    assert game.pending.kind is Kind.CLAIM_OR_CHALLENGE


def test_vf4_players_roll_clockwise_from_the_vigos_left():
    """VF-4: rolling starts left of the Vigo; a mismatch is eliminated."""
    game = table([R, R, B, R, B], seats=5, vigo=2)
    events = act(game, SetStake(1))
    rollers = [e.seat for e in events if isinstance(e, Rolled) and e.why == "seeking favor"]
    assert rollers == [3, 4, 0, 1]
    assert [e.seat for e in events if isinstance(e, Eliminated)] == [4, 1]
    assert [e.seat for e in events if isinstance(e, InFavor)] == [3, 0]


def test_vf5_no_survivors_vigo_takes_the_pot():
    """VF-5: with nobody in favor the Vigo takes the whole pot."""
    game = table([R, B, B, B], seats=4)
    events = act(game, SetStake(2))
    assert transfers(events, "no survivors") == [Transfer(POT, 0, 6, "no survivors")]
    assert game.result.outcome == "no survivors"
    assert game.state.banks == [26, 18, 18, 18]


def test_vf6_single_survivor_claims():
    """VF-6: the last one standing may claim the pot, ending the round."""
    game = table([R, R, B], seats=3)
    act(game, SetStake(3))
    assert game.pending.options == (Claim(), Challenge())
    events = act(game, Claim())
    assert transfers(events, "claim") == [Transfer(POT, 1, 6, "claim")]
    assert game.state.banks == [20, 23, 17]


@pytest.mark.parametrize(("challenge_roll", "banks"), [(R, [16, 26, 18]), (B, [28, 14, 18])])
def test_vf6_challenge_is_decided_by_a_fresh_favor(challenge_roll, banks):
    """VF-6: raise, match, the Vigo re-rolls the favor, the player's roll takes the pot."""
    # favor red: seat 1 stays, seat 2 is out; the challenge favor is red again
    game = table([R, R, B, R, challenge_roll], seats=3)
    act(game, SetStake(2))
    act(game, Challenge())
    assert game.pending.options == (Raise(1), Raise(2), Raise(3))
    events = act(game, Raise(2))  # 4 credits each way: the pot of 4 becomes 12
    assert [e.why for e in events if isinstance(e, Rolled)] == ["challenge favor", "challenge"]
    assert game.state.banks == banks
    assert game.result.outcome == ("challenge won" if challenge_roll == R else "challenge lost")


def test_vf6_raises_limited_to_what_both_can_cover():
    """VF-6: only raises both banks cover are offered; with none, the survivor can only claim."""
    game = table([R, R, B], seats=3, banks=[5, 7, 20])
    act(game, SetStake(2))  # Vigo 5 left, survivor 5 left after ante: covers 2 stakes of 2
    act(game, Challenge())
    assert game.pending.options == (Raise(1), Raise(2))

    poor = table([R, R, B], seats=3, banks=[1, 9, 9])
    act(poor, SetStake(2))  # the Vigo cannot cover even one stake of 2
    assert poor.pending.options == (Claim(),)
    with pytest.raises(IllegalAction, match="claim or challenge"):
        act(poor, Challenge())


def test_vf7_vigo_pays_per_survivor_and_one_refusal_rolls_everyone_again():
    """VF-7: one stake per survivor into the pot; a split needs every vote."""
    game = table([R, R, R, R, R, R, B], seats=4)
    events = act(game, SetStake(2))
    assert transfers(events, "one stake per survivor") == [
        Transfer(0, POT, 6, "one stake per survivor")
    ]
    assert game.state.pot == 12
    act(game, Vote(True))
    events = act(game, Vote(False))
    assert RollAgain(seats=(1, 2, 3), stake=2) in events
    # the vote stopped at the refusal: seat 3 never voted
    assert game.state.survivors == [1, 2] and game.pending.kind is Kind.VOTE
    assert game.state.pot == 16  # a second payment for the two survivors of the second pass


def test_vf8_split_remainder_goes_to_the_vigo():
    """VF-8: equal shares, the indivisible remainder to the Vigo."""
    game = table([R, R, R, B], seats=4)  # pot 3 from antes + 2 from the Vigo = 5
    act(game, SetStake(1))
    act(game, Vote(True))
    events = act(game, Vote(True))
    assert transfers(events, "split") == [
        Transfer(POT, 1, 2, "split"),
        Transfer(POT, 2, 2, "split"),
    ]
    assert transfers(events, "split remainder") == [Transfer(POT, 0, 1, "split remainder")]
    assert game.result.outcome == "split" and game.state.pot == 0


def test_vf9_vigo_short_of_the_payment_pays_what_it_has_and_pot_splits():
    """VF-9: a Vigo who cannot pay one stake per survivor pays all it has; the pot splits."""
    game = table([R, R, R], seats=3, banks=[1, 10, 10])
    events = act(game, SetStake(2))
    assert transfers(events, "one stake per survivor") == [
        Transfer(0, POT, 1, "one stake per survivor")
    ]
    assert game.pending is None and game.result.outcome == "split"
    assert game.state.banks == [1, 10, 10]  # pot 5: 2 each, remainder 1 back to the Vigo
    assert min(game.state.banks) >= 0


def test_vf10_credits_conserved_through_a_long_round():
    """VF-10: banks plus pot never change, checked after every decision of many rounds."""
    for seed in range(200):
        game = VigoGame.new(
            VigoSettings(seats=6, rising_stakes=True, mercy=True), Dice(seed), banks=[9] * 6
        )
        while game.pending:
            act(game, game.dice.choice(game.pending.options))
            assert credits(game) == 54
            assert min(game.state.banks) >= 0 and game.state.pot >= 0
        assert game.state.pot == 0


def test_vf11_title_passes_to_the_first_player_who_rolled():
    """VF-11: the next Vigo is the first player who rolled, skipping a seat that sat out."""
    game = table([R, B, B], seats=4, banks=[20, 0, 20, 20], vigo=0)
    events = act(game, SetStake(1))
    assert SatOut(1, "cannot cover the ante", ante=1, bank=0, span="round") in events
    assert game.result.next_vigo == 2
    nxt = game.next_round()
    assert nxt.state.vigo == 2 and nxt.state.round == 2
    assert nxt.state.banks == game.state.banks
    assert nxt.pending.seat == 2 and nxt.pending.kind is Kind.SET_STAKE


def test_vf12_rising_stakes_raise_each_roll_again():
    """VF-12: every roll-again adds the opening stake; payments and raises use it."""
    game = table([R, R, R, R, B, R, R], seats=3, rising_stakes=True)
    events = act(game, SetStake(2))
    assert transfers(events, "one stake per survivor")[0].amount == 4
    act(game, Vote(True))
    events = act(game, Vote(False))
    assert RollAgain(seats=(1, 2), stake=4) in events
    assert game.state.stake == 4
    act(game, Challenge())
    assert game.pending.options == (Raise(1), Raise(2), Raise(3))
    events = act(game, Raise(1))
    assert transfers(events, "challenge raise")[0].amount == 4


def test_vf13_house_vigo_keeps_the_title():
    """VF-13: a House Vigo never passes the title."""
    game = table([R, B, B], seats=3, vigo=2, house_vigo=True)
    events = act(game, SetStake(1))
    assert game.result.next_vigo == 2
    assert not any(isinstance(e, TitlePassed) for e in events)
    assert game.next_round().state.vigo == 2


def test_vf14_mercy_pays_the_vigos_bank_each_time():
    """VF-14: a missed roll may be bought back for one stake, paid to the Vigo, each time."""
    game = table([R, B, R, R, B], seats=3, mercy=True)
    act(game, SetStake(2))
    assert game.pending.kind is Kind.MERCY and game.pending.seat == 1
    events = act(game, Mercy(pay=True))
    assert transfers(events, "mercy") == [Transfer(1, 0, 2, "mercy")]
    assert InFavor(1, mercy=True) in events
    assert game.state.pot == 8  # antes 4 + the Vigo's 2 stakes for two survivors
    act(game, Vote(True))
    act(game, Vote(False))  # second pass: seat 1 red stays, seat 2 blue misses again
    assert game.pending.kind is Kind.MERCY and game.pending.seat == 2
    events = act(game, Mercy(pay=False))
    assert Eliminated(2, "missed the favor") in events
    assert game.pending.kind is Kind.CLAIM_OR_CHALLENGE


def test_vf14_no_mercy_without_the_stake_or_in_a_challenge():
    """VF-14: no offer when the bank cannot cover it, and never for the Challenge roll."""
    game = table([R, R, B, R, B], seats=3, banks=[20, 20, 2], mercy=True)
    events = act(game, SetStake(2))  # seat 2 has nothing left after its ante
    assert Eliminated(2, "missed the favor") in events
    assert game.pending.kind is Kind.CLAIM_OR_CHALLENGE
    act(game, Challenge())
    events = act(game, Raise(1))  # seat 1 could cover a stake, yet the lost roll is final
    assert Eliminated(1, "lost the challenge") in events
    assert game.pending is None and game.result.outcome == "challenge lost"


def test_illegal_action_names_what_was_expected_and_changes_nothing():
    game = VigoGame.new(VigoSettings(), Dice(3))
    before = game.to_json()
    with pytest.raises(IllegalAction, match="waiting for seat 0 to set the stake"):
        game.apply(1, SetStake(1))
    with pytest.raises(IllegalAction, match="not a legal option"):
        game.apply(0, Vote(True))
    assert game.to_json() == before
