"""Who sits at a table: names, human or AI (by temperament), the game and its seed.

Shared by the command line, the app's setup screen and, later, campaigns and remote
tables, so a table is described the same way wherever it is set up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from cantina.ai.temperament import Temperament, temperament
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import Game, checked
from cantina.text import clean_text

MAX_NAME = 16


def clean_name(text: str, fallback: str = "Player", limit: int = MAX_NAME) -> str:
    """A display name safe to show anywhere: no control or format characters (ESC included;
    `clean_text`), single spaces, at most `limit` characters."""
    name = " ".join(clean_text(text).split())[:limit].strip()
    return name or fallback


class Seat(msgspec.Struct, frozen=True):
    name: str
    temperament: str | None = None
    """The AI's temperament by name, or None for a human seat."""

    @property
    def human(self) -> bool:
        return self.temperament is None


class TableSetup(msgspec.Struct, frozen=True):
    game: str
    settings: Any
    seats: tuple[Seat, ...]
    seed: int

    def temperaments(self) -> list[Temperament | None]:
        return [
            None if seat.temperament is None else temperament(seat.temperament)
            for seat in self.seats
        ]

    @property
    def names(self) -> list[str]:
        return [seat.name for seat in self.seats]

    @property
    def humans(self) -> int:
        return sum(seat.human for seat in self.seats)

    def new_game(self) -> Game[Any]:
        return GAMES[self.game].new(checked(self.settings), Dice(self.seed))


def seats_from_text(text: str) -> tuple[Seat, ...]:
    """`you,Expert,Bold` style: `you` or `human` (or `human:Name`; unnamed people are
    "Player N", since narration speaks of every seat in the third person), otherwise a
    temperament; AI seats are named after their temperament, numbered when repeated."""
    seats: list[Seat] = []
    for number, word in enumerate((w.strip() for w in text.split(",") if w.strip()), 1):
        kind, _, name = word.partition(":")
        if kind.lower() in ("you", "human", "me"):
            seats.append(Seat(clean_name(name, f"Player {number}")))
        else:
            t = temperament(kind)
            seats.append(Seat(clean_name(name, t.name), t.name))
    names = numbered([seat.name for seat in seats])
    return tuple(
        msgspec.structs.replace(seat, name=name) for seat, name in zip(seats, names, strict=True)
    )


def numbered(names: Sequence[str]) -> list[str]:
    """The names, each one that several seats share numbered in seat order ("Bold 1",
    "Bold 2"), the others as they are."""
    return [
        f"{name} {names[:i].count(name) + 1}" if names.count(name) > 1 else name
        for i, name in enumerate(names)
    ]
