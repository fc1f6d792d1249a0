"""Expected credits of Vigo's Favor options: hand-worked positions and the real engine.

Every expected value asserted here is worked out by hand in the test (the arithmetic is
in the docstring), measured by playing the real engine many times with seeded dice, or
rebuilt one step at a time from the engine's own transitions (every way the dice can
fall, replayed with scripted dice); none is the module's output simply fed back.
"""

from __future__ import annotations

import math
import statistics

import pytest

from cantina.ai import vigo_odds
from cantina.ai.vigo_odds import choice, is_exact, option_values, values_for
from cantina.games.dice import Dice, ScriptedDice, ScriptExhausted
from cantina.games.table import Kind
from cantina.games.vigo import (
    Challenge,
    Claim,
    Mercy,
    Raise,
    SetStake,
    VigoGame,
    VigoSettings,
    Vote,
)

R, B = "red", "blue"


@pytest.fixture(autouse=True)
def fresh_memo():
    """Each test solves from nothing, so no test leans on another's solved states."""
    vigo_odds.clear_memo()
    yield
    vigo_odds.clear_memo()


def table(script: list[str], seats: int, banks: list[int], **variants) -> VigoGame:
    settings = VigoSettings(seats=seats, **variants)
    return VigoGame.new(settings, ScriptedDice(script), banks=banks)


def act(game: VigoGame, action) -> None:
    game.apply(game.pending.seat, action)


def approx(values) -> tuple:
    return tuple(pytest.approx(v, abs=1e-9) for v in values)


def conserved(game: VigoGame) -> None:
    """VF-10: whatever happens, the pot as it stands ends up with the seats, so one
    option's worths over every seat add up to the pot (0 before the antes)."""
    seats = game.state.settings.seats
    per_seat = [values_for(game, seat) for seat in range(seats)]
    for i in range(len(game.pending.options)):
        total = sum(per_seat[seat][i] for seat in range(seats))
        assert total == pytest.approx(game.state.pot, abs=1e-9)


# --- hand-worked positions ----------------------------------------------------------------


def test_one_survivor_claims_the_pot_and_a_challenge_is_worth_half_whatever_the_raise():
    """VF-6. Three seats at stake 2: seat 1 matches, seat 2 misses, so the pot is 4.

    Claim: the survivor takes 4, the Vigo nothing. Challenge with a raise of k stakes:
    both pay 2k, the pot becomes 4 + 4k and one fair roll gives it to one of them, so
    each expects (4 + 4k) / 2 - 2k = 2, whatever k. The survivor claims; the Vigo is
    indifferent between its raises and names the smallest."""
    game = table([R, R, B], seats=3, banks=[20, 20, 20])
    act(game, SetStake(2))
    assert game.pending.kind is Kind.CLAIM_OR_CHALLENGE and game.state.pot == 4
    assert option_values(game) == approx([4.0, 2.0])
    assert values_for(game, 0) == approx([0.0, 2.0])
    assert values_for(game, 2) == approx([0.0, 0.0])
    assert game.pending.options[choice(game)] == Claim()
    conserved(game)

    act(game, Challenge())
    assert game.pending.options == (Raise(1), Raise(2), Raise(3))
    assert option_values(game) == approx([2.0, 2.0, 2.0])
    assert values_for(game, 1) == approx([2.0, 2.0, 2.0])
    assert choice(game) == 0
    conserved(game)


def test_two_survivor_vote_worked_by_hand():
    """VF-7/VF-9. Three seats, stake 2, banks Vigo 5 and players 10. Both players match,
    the Vigo pays 2 x 2 = 4: pot 8, Vigo's bank 1.

    Split: 8 / 2 = 4 each, nothing left over for the Vigo.
    Roll again (same stake, same favor), each case 1/4:
      both match: the Vigo owes 4 but has 1, pays it (VF-9): pot 9 splits 4 + 4, and the
        odd credit goes back to the Vigo (VF-8), so the Vigo nets -1 + 1 = 0;
      only seat 1, or only seat 2, matches: that seat claims 8;
      nobody matches: the Vigo takes 8.
    A player's worth of rolling again: 4/4 + 8/4 = 3 < 4, so both split.
    The Vigo's: 0/4 + 8/4 = 2 (against 0 for the split).
    Each option sums to the pot: 4 + 4 + 0 = 3 + 3 + 2 = 8."""
    game = table([R, R, R], seats=3, banks=[5, 10, 10])
    act(game, SetStake(2))
    assert game.pending.kind is Kind.VOTE and game.pending.seat == 1
    assert game.state.pot == 8 and game.state.banks[0] == 1
    assert option_values(game) == approx([4.0, 3.0])
    assert values_for(game, 0) == approx([0.0, 2.0])
    assert values_for(game, 2) == approx([4.0, 3.0])
    assert game.pending.options[choice(game)] == Vote(True)
    conserved(game)

    act(game, Vote(True))
    assert game.pending.seat == 2
    assert option_values(game) == approx([4.0, 3.0])


def test_odd_credits_of_a_split_go_to_the_vigo():
    """VF-8. Four seats at stake 1, the Vigo has 2: seats 1 and 2 match, seat 3 misses.
    The Vigo pays 2: pot 5, its bank 0. Split: 2 each and the odd credit to the Vigo.
    Rolling again, each case 1/4: both match and the Vigo, with nothing, pays nothing,
    so 5 splits the same way (2, 2, Vigo 1); one matches and claims 5; nobody: the Vigo
    takes 5. A player: 2/4 + 5/4 = 1.75 < 2, so both split; the Vigo: 1/4 + 5/4 = 1.5."""
    game = table([R, R, R, B], seats=4, banks=[2, 10, 10, 10])
    act(game, SetStake(1))
    assert game.state.pot == 5 and game.state.banks[0] == 0
    assert option_values(game) == approx([2.0, 1.75])
    assert values_for(game, 0) == approx([1.0, 1.5])
    assert values_for(game, 3) == approx([0.0, 0.0])
    conserved(game)


def test_one_refusal_rolls_everyone_again_so_a_split_vote_is_worth_the_same():
    """VF-7 with mercy: at stake 2 with deep banks a survivor does better rolling again
    (misses can be bought back), so seat 2 will refuse. Seat 1's split vote then hands on
    a vote seat 2 refuses: both of seat 1's options lead to the same roll again. Seat 2,
    the last to vote, gets exactly half the pot of 8 if it splits."""
    game = table([R, R, R], seats=3, banks=[20, 20, 20], mercy=True)
    act(game, SetStake(2))
    assert game.state.pot == 8
    split, again = option_values(game)
    assert split == pytest.approx(again, abs=1e-9)
    conserved(game)
    act(game, Vote(True))
    split, again = option_values(game)
    assert split == pytest.approx(4.0, abs=1e-9)
    assert again > split
    assert game.pending.options[choice(game)] == Vote(False)


def test_mercy_decision_worked_by_hand():
    """VF-14 and VF-9. Three seats, stake 2, the Vigo's bank 0, players 10 (8 after the
    ante). Seat 1 matches, seat 2 misses and may pay 2 to the Vigo to stay.

    Pay: the Vigo now has 2 and owes 2 x 2 = 4, so it pays its 2 (VF-9) and the pot of
    4 + 2 = 6 splits 3 + 3. Seat 2 nets -2 + 3 = 1, seat 1 gets 3, the Vigo +2 - 2 = 0.
    Don't pay: seat 1 is the last survivor and claims 4; seat 2 gets 0, the Vigo 0."""
    game = table([R, R, B], seats=3, banks=[0, 10, 10], mercy=True)
    act(game, SetStake(2))
    assert game.pending.kind is Kind.MERCY and game.pending.seat == 2
    assert option_values(game) == approx([1.0, 0.0])
    assert values_for(game, 1) == approx([3.0, 4.0])
    assert values_for(game, 0) == approx([0.0, 0.0])
    assert game.pending.options[choice(game)] == Mercy(True)
    conserved(game)


def test_vigos_shortfall_at_each_stake_worked_by_hand():
    """VF-9 through the stake decision. Three seats: the Vigo has 2, players 10 each.
    With stake s both ante (pot 2s); per case of the two rolls:
      nobody matches (1/4): the Vigo takes 2s;
      one matches (1/2): that player claims 2s, the Vigo gets nothing;
      both match (1/4): the Vigo owes 2s. At s = 1 it can pay: pot 4, and the players
        split (rolling again is worth 2/4 + 4/4 = 1.5 < 2 to each), so the Vigo nets -2.
        At s >= 2 it is short, pays its 2 and the pot 2s + 2 splits evenly: again -2.
    The Vigo's worth: 2s/4 - 2/4 = (s - 1) / 2, i.e. 0, 0.5, 1, 1.5, 2 for s = 1..5.
    A player's: -s + 2s/4 (claims) + (s + 1)/4 (its share) = (1 - s) / 4."""
    game = table([], seats=3, banks=[2, 10, 10])
    assert option_values(game) == approx([(s - 1) / 2 for s in range(1, 6)])
    assert values_for(game, 1) == approx([(1 - s) / 4 for s in range(1, 6)])
    assert values_for(game, 2) == approx([(1 - s) / 4 for s in range(1, 6)])
    assert game.pending.options[choice(game)] == SetStake(5)
    conserved(game)


def test_stake_decision_at_a_two_seat_table_worked_by_hand():
    """VF-1/VF-2. The Vigo and one player with 3 credits. At stake s <= 3 the pot is s:
    the player matches (1/2) and claims s, or misses and the Vigo takes s: the Vigo
    expects s/2, the player -s + s/2 = -s/2. At s = 4 or 5 the player sits out and
    nothing happens: 0."""
    game = table([], seats=2, banks=[10, 3])
    assert option_values(game) == approx([0.5, 1.0, 1.5, 0.0, 0.0])
    assert values_for(game, 1) == approx([-0.5, -1.0, -1.5, 0.0, 0.0])
    assert game.pending.options[choice(game)] == SetStake(3)
    assert is_exact(game)
    conserved(game)


def test_mercy_that_buys_nothing_is_not_paid():
    """VF-14 at two seats: the lone player who misses could pay s to stay, but then it
    only claims the pot of s back, so paying is worth -s + s = 0, the same as leaving.
    The model never pays for nothing, so the stake values are still s/2 to the Vigo."""
    game = table([R, B], seats=2, banks=[20, 20], mercy=True)
    assert option_values(game) == approx([s / 2 for s in range(1, 6)])
    act(game, SetStake(2))
    assert game.pending.kind is Kind.MERCY
    assert option_values(game) == approx([0.0, 0.0])
    assert game.pending.options[choice(game)] == Mercy(False)


def test_rising_stakes_raise_the_vigos_payment_after_a_roll_again():
    """VF-12 by hand. Three seats, opening stake 1, the Vigo has 6, players 10. Both
    match: the Vigo pays 2, pot 4, its bank 4. Split: 2 each, nothing for the Vigo.
    Rolling again, each case 1/4:
      one matches: it claims 4; nobody matches: the Vigo takes 4;
      both match, Rising Stakes: the stake is 2, the Vigo pays its 4, pot 8, bank 0. The
        next vote splits 4 + 4 (rolling again at stake 3 is worth 4/4 + 8/4 = 3 < 4,
        the Vigo having nothing left to pay). So each player gets 4, the Vigo nets -4;
      both match, flat stake 1: the Vigo pays 2, pot 6, bank 2. That vote splits 3 + 3
        (rolling again is worth 2.5: pot 8 split 4 + 4 if both match, 6 if alone), so
        each player gets 3, the Vigo nets -2.
    Rising: a player's worth of rolling again is 4/4 + 4/4 = 2 (a tie with the split,
    so it splits), the Vigo's -4/4 + 4/4 = 0. Flat: 3/4 + 4/4 = 1.75, and -2/4 + 4/4 = 0.5.
    """
    for rising, player, vigo in ((True, [2.0, 2.0], [0.0, 0.0]), (False, [2.0, 1.75], [0.0, 0.5])):
        game = table([R, R, R], seats=3, banks=[6, 10, 10], rising_stakes=rising)
        act(game, SetStake(1))
        assert game.state.pot == 4 and game.state.banks[0] == 4
        assert option_values(game) == approx(player)
        assert values_for(game, 0) == approx(vigo)
        assert game.pending.options[choice(game)] == Vote(True)
        conserved(game)


# --- the real engine ---------------------------------------------------------------------


def play_out(game: VigoGame) -> None:
    """Finish the round with every decision taken as the model assumes."""
    while game.pending is not None:
        game.apply(game.pending.seat, game.pending.options[choice(game)])


def measured(game: VigoGame, option: int, runs: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of the deciding seat's bank change after `option`."""
    seat = game.pending.seat
    action = game.pending.options[option]
    changes = []
    for run in range(runs):
        copy = game.clone()
        copy.dice = Dice(seed * 100_003 + run)
        before = copy.state.banks[seat]
        copy.apply(seat, action)
        play_out(copy)
        changes.append(copy.state.banks[seat] - before)
    return statistics.fmean(changes), statistics.stdev(changes) / math.sqrt(runs)


def check_against_engine(game: VigoGame, runs: int, seed: int) -> None:
    assert is_exact(game)
    predicted = option_values(game)
    for option, value in enumerate(predicted):
        mean, error = measured(game, option, runs, seed + option)
        assert abs(mean - value) <= 4 * error + 1e-9, (option, value, mean, error)


def test_engine_agrees_with_the_stake_values_at_four_seats_with_mercy():
    game = VigoGame.new(VigoSettings(seats=4, starting_bank=8, mercy=True), Dice(1))
    check_against_engine(game, runs=700, seed=10)


def test_engine_agrees_with_the_stake_values_under_rising_stakes():
    game = VigoGame.new(VigoSettings(seats=5, rising_stakes=True), Dice(2))
    check_against_engine(game, runs=1000, seed=20)


def test_engine_agrees_mid_round_with_mercy_and_rising_stakes():
    """A mercy decision, then a three-survivor vote, with every variant on."""
    variants = {"mercy": True, "rising_stakes": True, "house_vigo": True}
    game = table([R, R, B], seats=4, banks=[12, 9, 9, 9], **variants)
    act(game, SetStake(1))
    assert game.pending.kind is Kind.MERCY and game.pending.seat == 2
    game.dice = Dice(0)  # clones need a random source that can be saved
    check_against_engine(game, runs=800, seed=30)

    game.dice = ScriptedDice([R])
    act(game, Mercy(True))
    assert game.pending.kind is Kind.VOTE and game.state.survivors == [1, 2, 3]
    game.dice = Dice(0)
    check_against_engine(game, runs=800, seed=40)


def outcomes(game: VigoGame, action) -> list[tuple[float, VigoGame]]:
    """Every way the dice can fall after `action` until the next decision or the end,
    each with its chance: every script of cube faces the engine asks for, replayed."""
    found = []
    scripts: list[list[str]] = [[]]
    while scripts:
        script = scripts.pop()
        copy = game.clone()
        copy.dice = ScriptedDice(script)
        try:
            copy.apply(game.pending.seat, action)
        except ScriptExhausted:
            scripts += [[*script, R], [*script, B]]
            continue
        found.append((0.5 ** len(script), copy))
    return found


def check_one_step(game: VigoGame) -> None:
    """Each option's worth to each seat is what the engine pays that seat on the way to
    the next decision, plus that decision's worth as the model plays it, averaged over
    every way the dice can fall. This checks the solver against the engine's own rules,
    one step at a time, including whom the model assumes pays or refuses on a tie."""
    assert is_exact(game)
    seats = range(game.state.settings.seats)
    worths = [values_for(game, seat) for seat in seats]
    for i, action in enumerate(game.pending.options):
        expected = [0.0 for _ in seats]
        for chance, after in outcomes(game, action):
            for seat in seats:
                gained = after.state.banks[seat] - game.state.banks[seat]
                later = values_for(after, seat)[choice(after)] if after.pending else 0.0
                expected[seat] += chance * (gained + later)
        for seat in seats:
            assert worths[seat][i] == pytest.approx(expected[seat], abs=1e-9), (action, seat)


@pytest.mark.parametrize(
    ("seats", "banks", "variants"),
    [
        (5, [1, 4, 4, 4, 4], {"mercy": True}),
        (4, [3, 6, 6, 6], {"mercy": True, "rising_stakes": True}),
        (4, [12, 5, 9, 2], {"mercy": True}),
        (3, [7, 10, 10], {"rising_stakes": True}),
        (5, [2, 4, 4, 4, 4], {}),
    ],
)
def test_every_decision_of_played_rounds_agrees_with_the_next_step(seats, banks, variants):
    """The one-step check at every decision of a few rounds played with seeded dice."""
    for seed in range(4):
        game = VigoGame.new(VigoSettings(seats=seats, **variants), Dice(seed), banks=banks)
        while game.pending is not None:
            check_one_step(game)
            game.apply(game.pending.seat, game.pending.options[choice(game)])


def test_values_of_a_round_sum_to_zero_over_the_seats():
    """VF-10 at the stake decision of a busy table: before any ante, what the seats
    expect to gain and lose cancels out, stake by stake."""
    game = VigoGame.new(VigoSettings(seats=6, mercy=True, rising_stakes=True), Dice(3))
    conserved(game)


def test_simplified_levels_stay_close_to_the_exact_values():
    """When the exact level runs out of budget the next, simpler level answers, says so,
    and stays near the exact values (4 seats, banks 8: within 0.03 measured)."""
    settings = VigoSettings(seats=4, mercy=True, starting_bank=8)
    exact = option_values(VigoGame.new(settings, Dice(1)))
    assert is_exact(VigoGame.new(settings, Dice(1)))
    vigo_odds.clear_memo()
    first, *rest = vigo_odds.LEVELS
    starved = first._replace(budget=10)
    try:
        vigo_odds.LEVELS = (starved, *rest)
        game = VigoGame.new(settings, Dice(1))
        simpler = option_values(game)
        assert not is_exact(game)
    finally:
        vigo_odds.LEVELS = (first, *rest)
    assert simpler != exact
    assert simpler == tuple(pytest.approx(v, abs=0.1) for v in exact)


def test_the_horizon_level_still_conserves_credits_and_says_it_is_not_exact():
    """The last-resort level (a short horizon, every bank treated as unlimited) still
    values every option consistently: worths add up to the pot, stake by stake."""
    saved = vigo_odds.LEVELS
    try:
        vigo_odds.LEVELS = (vigo_odds.Level(1, 1, horizon=0, combinations=None, budget=None),)
        game = VigoGame.new(VigoSettings(seats=6, mercy=True, starting_bank=50), Dice(4))
        assert not is_exact(game)
        conserved(game)
        act(game, SetStake(option_values(game).index(max(option_values(game))) + 1))
        while game.pending is not None:
            conserved(game)
            act(game, game.pending.options[choice(game)])
    finally:
        vigo_odds.LEVELS = saved


def test_the_round_over_has_nothing_to_value():
    game = table([R, B, B], seats=3, banks=[20, 20, 20])
    act(game, SetStake(1))
    assert game.pending is None
    with pytest.raises(ValueError, match="over"):
        option_values(game)
