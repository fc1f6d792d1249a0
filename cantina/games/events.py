"""Events that more than one game reports: dice, money, eliminations, health, scores, ends.

`apply` returns these so that screens can narrate and animate a decision's consequences
without re-deriving any rule. Each game adds its own events beside these in its module.
Events are frozen, tagged structs: they compare by value and encode to JSON as they are.
"""

from __future__ import annotations

from typing import Literal

import msgspec

POT: Literal["pot"] = "pot"
Account = int | Literal["pot"]
"""Where credits move from or to: a seat's bank (its index) or the table's pot."""


class Event(msgspec.Struct, frozen=True, tag=True):
    """Base of everything `apply` reports."""


class Rolled(Event, frozen=True):
    """A seat rolled one die. `face` is a colour, a number or a custom face's name."""

    seat: int
    die: str
    face: str | int
    why: str


class Transfer(Event, frozen=True):
    """Credits moved between a seat's bank and the pot (or another seat's bank)."""

    source: Account
    target: Account
    amount: int
    why: str


class SatOut(Event, frozen=True):
    """A seat takes no part, for example because its bank cannot cover the ante.

    For want of credits, `ante` and `bank` say how short it fell and `span` what it sits
    out ("round", "game"), so the log can say why without the reader doing sums."""

    seat: int
    why: str
    ante: int = 0
    bank: int = 0
    span: str = "one"


class Eliminated(Event, frozen=True):
    seat: int
    why: str


class HealthChanged(Event, frozen=True):
    seat: int
    delta: int
    health: int
    why: str


class Scored(Event, frozen=True):
    seat: int
    points: int
    total: int
    why: str


class GameOver(Event, frozen=True):
    """The round, game or match is over; `winners` is empty when nobody won outright."""

    winners: tuple[int, ...]
    losers: tuple[int, ...] = ()
