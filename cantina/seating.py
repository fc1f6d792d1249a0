"""Who sits at a table: names, human or AI (by temperament), the game and its seed.

Shared by the command line, the app's setup screen and, later, campaigns and remote
tables, so a table is described the same way wherever it is set up.
"""

from __future__ import annotations

import shlex
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


PERSON_WORDS = ("you", "human", "me")
"""The words of `--seats` that seat a person, not a temperament (`human:Name` too)."""


def seats_from_text(text: str) -> tuple[Seat, ...]:
    """`you,Expert,Bold` style: `you` or `human` (or `human:Name`; unnamed people are
    "Player N", since narration speaks of every seat in the third person), otherwise a
    temperament; AI seats are named after their temperament, numbered when repeated."""
    seats: list[Seat] = []
    for number, word in enumerate((w.strip() for w in text.split(",") if w.strip()), 1):
        kind, _, name = word.partition(":")
        if kind.lower() in PERSON_WORDS:
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


def play_command(setup: TableSetup) -> str | None:
    """The `cantina play` command that sits down at this table again, dealing the same
    dice to the same seats under the same settings: its seed, and its seats and settings
    where they differ from the command's own. None when its seats cannot be said as
    `--seats` words (a name with a comma)."""
    info = GAMES[setup.game]
    if any("," in seat.name for seat in setup.seats):
        return None
    places = list(enumerate(setup.seats, 1))
    words = [_seat_word(seat, named=not _usual_name(seat, n)) for n, seat in places]
    if seats_from_text(",".join(words)) != setup.seats:  # numbered otherwise: name them all
        words = [_seat_word(seat, named=True) for _, seat in places]
        if seats_from_text(",".join(words)) != setup.seats:
            return None
    parts = ["cantina", "play", setup.game, "--seed", str(setup.seed)]
    if seats_from_text(info.play_seats) != setup.seats:
        parts += ["--seats", ",".join(words)]
    usual = info.settings_for(len(setup.seats))
    variants = []
    for setting in info.choices():
        value = getattr(setup.settings, setting.name)
        if value == getattr(usual, setting.name):
            continue
        if setting.kind is bool:
            variants.append(setting.flag if value else f"no-{setting.flag}")
        else:
            parts += [f"--{setting.flag}", str(value)]
    if variants:
        parts += ["--variants", ",".join(variants)]
    return shlex.join(parts)


def _usual_name(seat: Seat, number: int) -> bool:
    """Whether `--seats` gives the seat its name unasked: `Player 3`, `Bold`, `Bold 2`."""
    if seat.temperament is None:
        return seat.name == f"Player {number}"
    base, _, count = seat.name.rpartition(" ")
    return seat.name == seat.temperament or (base == seat.temperament and count.isdigit())


def _seat_word(seat: Seat, *, named: bool) -> str:
    """A seat as `--seats` says it: `you` or `human:Name`, a temperament or
    `Temperament:Name`."""
    if seat.temperament is None:
        return f"human:{seat.name}" if named else "you"
    return f"{seat.temperament}:{seat.name}" if named else seat.temperament
