"""The command a local table's result gives to play its dice again (`play_command`):
read back by `cantina play`'s own parser, it sets the very same table, whatever its
seats, names and settings."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cantina.ai.temperament import temperaments
from cantina.cli import build_parser, play_setup
from cantina.games import GAMES
from cantina.seating import Seat, TableSetup, clean_name, play_command, seats_from_text


def replayed(command: str) -> TableSetup:
    words = shlex.split(command)
    assert words[:2] == ["cantina", "play"]
    return play_setup(build_parser().parse_args(words[1:]))


@pytest.mark.parametrize(
    ("game", "seats", "chosen", "expected"),
    [
        ("vigo", "you,Expert,Bold,Cautious", {}, "cantina play vigo --seed 7"),
        (
            "vigo",
            "human:Ann,Expert",
            {"mercy": True, "stake_limit": 3},
            "cantina play vigo --seed 7 --seats human:Ann,Expert --stake-limit 3 --variants mercy",
        ),
        ("vigo", "you,you,Bold,Bold", {}, "cantina play vigo --seed 7 --seats you,you,Bold,Bold"),
        (
            "victim",
            "human:Ann Lee,Cautious:Rex,Bold",
            {"rematch_bonus": False},
            "cantina play victim --seed 7 --seats 'human:Ann Lee,Cautious:Rex,Bold'"
            " --variants no-rematch-bonus",
        ),
        ("valdes", "you,Expert,Bold", {"ante": 0}, None),
    ],
)
def test_the_command_sets_the_same_table(game, seats, chosen, expected):
    """The seats and settings are said only where `cantina play` would not give them."""
    info = GAMES[game]
    parsed = seats_from_text(seats)
    setup = TableSetup(game, info.settings_for(len(parsed), **chosen), parsed, 7)
    command = play_command(setup)
    assert command is not None
    if expected is not None:
        assert command == expected
    assert replayed(command) == setup


NAMES = st.text(alphabet="Ab z'\"$;", min_size=1, max_size=8).map(clean_name)  # as set up


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([None, *temperaments()]), st.none() | NAMES),
        min_size=3,
        max_size=3,
    ),
    st.integers(0, 2**63 - 1),
)
def test_any_three_seats_are_said_so_that_they_come_back(seats, seed):
    """Any Victim! seats, named or not, with quotes and shell characters in their names
    (each its own, as a setup makes them): the command sets the same table."""
    made = []
    for number, (kind, name) in enumerate(seats, 1):
        if kind is None:
            made.append(Seat(name or f"Player {number}"))
        else:
            made.append(Seat(name or kind, kind))
    assume(len({seat.name for seat in made}) == 3)
    setup = TableSetup("victim", GAMES["victim"].settings_for(3), tuple(made), seed)
    command = play_command(setup)
    assert command is not None
    assert replayed(command) == setup


def test_a_name_with_a_comma_gives_no_command():
    """`--seats` splits at commas: such a name cannot be said, and no command is given
    rather than one that sets another table."""
    seats = (Seat("Ann, Bo"), Seat("Expert", "Expert"), Seat("Bold", "Bold"))
    assert play_command(TableSetup("victim", GAMES["victim"].settings_for(3), seats, 1)) is None
