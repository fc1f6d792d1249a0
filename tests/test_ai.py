"""AI seats: temperaments as data, every decision covered, replayable choices, the Expert's
edge and each temperament's character."""

from __future__ import annotations

import math

import msgspec
import pytest

from cantina.ai.player import TableAI
from cantina.ai.policy import distribution
from cantina.ai.temperament import Temperament, temperament, temperaments
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import Kind
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.sim import mean_interval, play, simulate

ALL = list(temperaments().values())


def test_at_least_six_temperaments_each_with_a_description():
    assert len(ALL) >= 6
    assert {"Expert", "Cautious", "Bold", "Reckless", "Superstitious", "Treacherous"} <= {
        t.name for t in ALL
    }
    for t in ALL:
        assert 10 < len(t.description) < 90 and "\n" not in t.description


def test_a_temperament_is_data_checked_by_schema():
    """A new temperament is a table in the data file; out-of-range numbers are refused."""
    made = msgspec.convert({"name": "Gambler", "description": "x", "risk": 0.9}, Temperament)
    assert made.risk == 0.9 and made.noise == 0.0
    with pytest.raises(msgspec.ValidationError, match="risk"):
        msgspec.convert({"name": "Mad", "description": "x", "risk": 3}, Temperament)
    with pytest.raises(msgspec.ValidationError, match="temper"):
        msgspec.convert({"name": "Typo", "description": "x", "temper": 1}, Temperament)
    assert temperament("  reckless ").name == "Reckless"
    with pytest.raises(ValueError, match="choose from Expert"):
        temperament("Wookiee")


def test_distribution_is_softmax_and_argmax_shares_ties():
    assert distribution([1.0, 3.0, 3.0], 0) == [0.0, 0.5, 0.5]
    probs = distribution([0.0, math.log(3)], 1.0)
    assert probs == pytest.approx([0.25, 0.75])


SETTINGS = {
    "vigo": VigoSettings(seats=4, mercy=True),
    "valdes": ValDesSettings(seats=3, ante=1),
    "victim": VictimSettings(),
}
KINDS = {
    "vigo": {Kind.SET_STAKE, Kind.VOTE, Kind.CLAIM_OR_CHALLENGE, Kind.CHOOSE_RAISE, Kind.MERCY},
    "valdes": {Kind.CALL},
    "victim": {Kind.PLAN},
}


@pytest.mark.parametrize("game_id", list(GAMES))
@pytest.mark.parametrize("name", [t.name for t in ALL])
def test_every_temperament_makes_every_decision(game_id, name):
    """Each temperament, seated opposite Rookies (who challenge and refuse splits at random,
    so every situation arises), makes every kind of decision the game has, always legally."""
    under_test, rookie = temperament(name), temperament("Rookie")
    count = 3 if game_id == "victim" else SETTINGS[game_id].seats
    seats = [under_test if seat % 2 == 0 else rookie for seat in range(count)]
    made: set[Kind] = set()

    def record(game, seat, action):
        assert action in game.pending.options
        if seats[seat] is under_test:
            made.add(game.pending.kind)

    for seed in range(200):
        settings = SETTINGS[game_id]
        if game_id == "vigo" and seed % 2:  # with mercy, lone survivors are rare
            settings = msgspec.structs.replace(settings, mercy=False)
        game = GAMES[game_id].new(settings, Dice(seed))
        ai = TableAI(seats)
        for _ in play(game, ai, record):
            pass
        if game_id == "vigo":  # a second round, with the title passed on
            for _ in play(game.next_round(), ai, record):
                pass
        if made >= KINDS[game_id]:
            break
    assert made >= KINDS[game_id]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_ai_draws_only_from_the_table_dice_so_saves_resume_exactly(game_id):
    """An AI game saved mid-way and resumed with fresh AI objects continues identically:
    every AI random choice came from the saved table source (CA-2)."""
    names = {"vigo": "Reckless,Bold,Rookie,Expert", "valdes": "Superstitious,Rookie,Expert"}
    seats = [temperament(n) for n in names.get(game_id, "Rookie,Treacherous,Expert").split(",")]
    settings = SETTINGS[game_id]
    if game_id != "victim":
        settings = msgspec.structs.replace(settings, seats=len(seats))
    for seed in range(50):
        whole = GAMES[game_id].new(settings, Dice(seed))
        ai = TableAI(seats)
        snapshots, events = [], []
        while whole.pending:
            snapshots.append((whole.to_json(), len(events)))
            events += whole.apply(whole.pending.seat, ai.choose(whole))
        if len(snapshots) >= 3:
            break
    saved, done = snapshots[len(snapshots) // 2]
    resumed = type(whole).from_json(saved)
    ai_again = TableAI(seats)
    rest = []
    while resumed.pending:
        rest += resumed.apply(resumed.pending.seat, ai_again.choose(resumed))
    assert rest == events[done:]
    assert resumed.to_json() == whole.to_json()


def test_valdes_has_no_edge():
    """Val-Des: each call is worth exactly 1/2; the Expert calls at random."""
    game = GAMES["valdes"].new(ValDesSettings(seats=2), Dice(1))
    ai = TableAI([temperament("Expert")] * 2)
    assert ai.values(game) == (0.5, 0.5)
    result = simulate("valdes", [temperament("Expert")] * 2, 300, 5, ValDesSettings(seats=2))
    chase = result.to_json()["seats"][0]["behaviour"]["chase_rate"]
    assert 0.4 < chase < 0.6


OTHERS = [t for t in ALL if not t.best_response]
Z_ONE_SIDED = 1.645
"""A rival 'beats' the Expert when it is ahead at the 5% level, one-sided."""


def rivals_ahead(result) -> tuple[float, float]:
    """The rivals' mean lead over the Expert (entry 0) per game, and the lower end of its
    one-sided 95% bound: paired per game, since every game is zero-sum among its seats."""
    diffs = [sum(game[1:]) / (len(game) - 1) - game[0] for game in result.game_nets]
    mean, low, _ = mean_interval(diffs, z=Z_ONE_SIDED)
    return mean, low


@pytest.mark.parametrize("other", [t.name for t in OTHERS])
def test_expert_not_beaten_at_victim(other):
    """Expert against two of each temperament, 3-seat Victim!, 1,500 matches, fixed seed: the
    rivals' win rate is not significantly above the Expert's. (A match's net at stake 1 is
    +2 for the winner and -1 for each loser, so net per game measures wins exactly.)"""
    rival = temperament(other)
    result = simulate(
        "victim", [temperament("Expert"), rival, rival], 1500, 2026, SETTINGS["victim"]
    )
    lead, low = rivals_ahead(result)
    assert low <= 0, f"{other} beats the Expert by {lead:.3f} a match"


@pytest.mark.parametrize("other", [t.name for t in OTHERS])
def test_expert_not_out_earned_at_vigo(other):
    """Expert against three of each temperament, 4-seat Vigo's Favor, 1,500 laps, fixed seed.
    The Expert maximises expected credits, so credits, not the top bank, are its measure."""
    rival = temperament(other)
    result = simulate(
        "vigo", [temperament("Expert"), rival, rival, rival], 1500, 2026, VigoSettings(seats=4)
    )
    lead, low = rivals_ahead(result)
    assert low <= 0, f"{other} out-earns the Expert by {lead:.2f} credits a lap"


def rates(game_id, names, games=400, settings=None):
    seats = [temperament(n) for n in names]
    result = simulate(game_id, seats, games, 7, settings or SETTINGS[game_id])
    return [seat["behaviour"] for seat in result.to_json()["seats"]]


def test_reckless_challenges_and_rolls_again_far_more_than_cautious():
    reckless, cautious, *_ = rates(
        "vigo", ["Reckless", "Cautious", "Expert", "Bold"], settings=VigoSettings(seats=4)
    )
    assert reckless["challenge_rate"] > cautious["challenge_rate"] + 0.5
    assert reckless["roll_again_rate"] > cautious["roll_again_rate"] + 0.3
    assert reckless["mean_stake"] > cautious["mean_stake"] + 1


def test_superstitious_chases_the_last_colour():
    superstitious, expert = rates(
        "valdes", ["Superstitious", "Expert"], 300, ValDesSettings(seats=2)
    )
    assert superstitious["chase_rate"] > 0.75
    assert 0.4 < expert["chase_rate"] < 0.6


def test_treacherous_sinks_the_victim_and_loyal_backs_it():
    treacherous, loyal, _ = rates("victim", ["Treacherous", "Loyal", "Rookie"])
    assert treacherous["help_victim_rate"] < 0.2
    assert loyal["help_victim_rate"] > 0.8
