"""Properties of every game over random seeds, settings and legal actions (hypothesis).

For each game: credits are conserved and never negative (VF-10), health stays in bounds and
no Supporter falls to the Neutral die (VI-6), it terminates, the same seed and decisions
replay it, and a save to JSON at any decision point, loaded again, continues with identical
events to an identical end (CA-2). CI plays 1,000 games of each; `-m slow` 20,000 of each.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import Game, Move, play_moves
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings

MAX_DECISIONS = 5_000
"""Far above any real game: a Victim! match averages about 20 decisions, a round fewer."""

SETTINGS = {
    "vigo": st.builds(
        VigoSettings,
        seats=st.integers(2, 8),
        stake_limit=st.integers(1, 6),
        starting_bank=st.integers(1, 30),  # 0 is refused as a new table (VF-2)
        rising_stakes=st.booleans(),
        house_vigo=st.booleans(),
        mercy=st.booleans(),
    ),
    "valdes": st.builds(
        ValDesSettings,
        seats=st.integers(2, 8),
        ante=st.integers(0, 5),
        starting_bank=st.integers(5, 30),
    ),
    "victim": st.builds(
        VictimSettings, starting_health=st.integers(1, 6), rematch_bonus=st.booleans()
    ),
}


def money_kept(game: Game[Any], total: int) -> None:
    """VF-10 (and the same for Val-Des antes): banks plus pot never change, none negative."""
    state = game.state
    assert sum(state.banks) + state.pot == total
    assert min(state.banks) >= 0 and state.pot >= 0


def health_kept(game: Game[Any], total: int) -> None:
    """VI-2, VI-6, VI-8: health within 0..6, and only the Victim can ever reach 0."""
    state = game.state
    assert all(0 <= h <= state.settings.starting_health + 1 for h in state.health)
    assert all(h > 0 for seat, h in enumerate(state.health) if seat != state.victim)


def money_total(game: Game[Any]) -> int:
    return sum(game.state.banks) + game.state.pot


INVARIANTS = {
    "vigo": (money_total, money_kept),
    "valdes": (money_total, money_kept),
    "victim": (lambda game: 0, health_kept),
}
"""Per game: what to measure at the start, and the check run after every decision."""


def new_table(game_id: str, table_settings: Any, seed: int) -> Game[Any]:
    return GAMES[game_id].new(table_settings, Dice(seed))


def play_recorded(
    game: Game[Any], chooser: random.Random, game_id: str
) -> tuple[list[Move], list[list]]:
    """Play to the end, checking the game's invariant after every decision; return each move
    and the events that move caused."""
    measure, check = INVARIANTS[game_id]
    start = measure(game)
    moves: list[Move] = []
    events: list[list] = []
    while game.pending is not None:
        assert len(moves) < MAX_DECISIONS, "the game did not terminate"
        decision = game.pending
        move = Move(decision.seat, chooser.choice(decision.options))
        moves.append(move)
        events.append(game.apply(move.seat, move.action))
        check(game, start)
    return moves, events


def check_game(game_id: str, table_settings: Any, seed: int, cut: float) -> None:
    chooser_seed = seed ^ 0x5EED
    game = new_table(game_id, table_settings, seed)
    moves, events = play_recorded(game, random.Random(chooser_seed), game_id)
    assert game.pending is None and game.result is not None
    final = game.to_json()

    # replay from seed + decisions
    replay = new_table(game_id, table_settings, seed)
    assert play_moves(replay, moves) == [e for step in events for e in step]
    assert replay.to_json() == final

    # save at a decision point, load in a fresh object, continue: the same events
    k = int(cut * len(moves))
    partial = new_table(game_id, table_settings, seed)
    play_moves(partial, moves[:k])
    saved = partial.to_json()
    loaded = type(partial).from_json(saved)
    assert loaded.to_json() == saved
    assert loaded.pending == partial.pending
    for move, expected in zip(moves[k:], events[k:], strict=True):
        assert loaded.apply(move.seat, move.action) == expected
    assert loaded.to_json() == final


def property_test(examples: int):
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=examples < 5_000,
    )
    @given(data=st.data(), seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
    def test(game_id: str, data: st.DataObject, seed: int, cut: float) -> None:
        check_game(game_id, data.draw(SETTINGS[game_id]), seed, cut)

    return test


_ci = property_test(1_000)
_slow = property_test(20_000)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_games_terminate_replay_and_resume_from_any_decision(game_id):
    """1,000 random games each: termination, replay, save/load at any point (CA-2)."""
    _ci(game_id)


@pytest.mark.slow
@pytest.mark.timeout(0)  # a long run on purpose: no 10-minute limit
@pytest.mark.parametrize("game_id", list(GAMES))
def test_many_games_terminate_replay_and_resume(game_id):
    """The same properties over 20,000 games of each game."""
    _slow(game_id)
