"""The campaign file's schema, checked by msgspec as it is read.

One human-readable JSON file per campaign. Its `format` says which schema it follows; this
module describes the current one (FORMAT) and `migrate.py` brings older ones up to it.
Every field a file can hold is typed and bounded here, so a damaged or hostile file is
refused by the decoder with the path of the field (`$.roster[2].name`), not deep in a rule.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import msgspec

from cantina.games import GAMES

FORMAT = 3
"""The save format this cantina writes, and the newest it reads."""

MAX_SEATS = 8
MAX_ROUNDS = 1000
MAX_MOVES = 5000
"""Per round: far beyond any real game (a Victim! match lasts tens of turns), yet a bound."""

GameId = Literal["vigo", "valdes", "victim"]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
Bank = Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)]
SeatNo = Annotated[int, msgspec.Meta(ge=0, lt=MAX_SEATS)]
MAX_SEED = 2**63 - 1
"""The largest seed a table or campaign takes (as `cantina play --seed` does)."""
Seed = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)]


class SeatRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
    temperament: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    """The AI's temperament, or null for a person."""


class Start(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How one round, game or match was set up; with its seed and moves, its replay."""

    number: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]
    seed: Seed
    banks: Annotated[list[Bank], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    vigo: SeatNo | None = None
    """Vigo's Favor: who holds the title this round."""
    scorekeeper: SeatNo | None = None
    """Val-Des: the Scorekeeper moves one seat clockwise each game."""
    previous_victim: SeatNo | None = None
    """Victim!: the last match's Victim, who gets the rematch bonus (VI-2)."""


class RoundRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A finished round, game or match: how it began, every move, and how it came out."""

    start: Start
    moves: msgspec.Raw
    """The decisions in order, `{"seat": n, "action": {...}}` each (decoded per game)."""
    banks: Annotated[list[Bank], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    """Every seat's bank after it."""
    winners: Annotated[list[SeatNo], msgspec.Meta(max_length=MAX_SEATS)]
    expected: Annotated[list[float], msgspec.Meta(max_length=MAX_SEATS)]
    """What the exact odds expected of each seat at the start (credits, or win chance)."""
    actual: Annotated[list[float], msgspec.Meta(max_length=MAX_SEATS)]
    """What each seat actually got, on the same scale: actual - expected is luck."""
    finished: Annotated[str, msgspec.Meta(max_length=40)]


class TableRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The round in progress, exactly: its start, the moves so far and the game's state
    with its dice, so resuming continues as if it had never stopped (CA-2). The AI seats'
    random source is not kept: each decision's is derived from the round's seed and the
    number of moves made (`series.ai_dice`), so nothing in the file can steer it."""

    start: Start
    moves: msgspec.Raw
    state: msgspec.Raw
    """The rules core's snapshot (`Game.to_json`), dice included."""


class Listing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the saves list shows of a campaign, first in its file, so a list of many large
    saves reads a few hundred bytes of each (`store.read_listing`), never their rounds. It
    is a copy of what the rest says: a save whose listing differs is refused on loading."""

    name: Name
    game: GameId
    roster: Annotated[list[SeatRecord], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]
    played: Annotated[int, msgspec.Meta(ge=0, le=MAX_ROUNDS)]
    over: bool
    laps: bool
    """Whether the campaign counts laps (Vigo's Favor without a House Vigo)."""
    banks: Annotated[list[int], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    """Every seat's bank as the record stands (mid-round, as the table does)."""


class CampaignFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    format: Annotated[int, msgspec.Meta(ge=1)]
    listing: Listing | None = None
    """Written first after the format (None only in memory, before the first save)."""
    name: Name
    game: GameId
    created: Annotated[str, msgspec.Meta(max_length=40)]
    updated: Annotated[str, msgspec.Meta(max_length=40)]
    roster: Annotated[list[SeatRecord], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    settings: msgspec.Raw
    """The game's table settings (decoded with the game's own settings type)."""
    rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]
    """How many rounds, games or matches the campaign plays."""
    match_stake: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 0
    """Victim!: what each seat pays into a match, all of it to the winner (CA-1)."""
    seed: Seed
    starting_bank: Bank
    """What every seat's bank was before the first round."""
    legacy_rounds: Annotated[int, msgspec.Meta(ge=0, le=MAX_ROUNDS)] = 0
    """How many rounds began under an older format, whose seeds are as that format had them,
    or before the campaign's seed was drawn again (as it was set at a shared table:
    `Campaign.reseed`), whose seeds came from the old one; every later round's seed is
    derived from the campaign's seed and what it is (roster, settings, rounds, stakes:
    `series.round_seed`)."""
    banks: Annotated[list[Bank], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    """Every seat's bank after the last finished round (the starting banks before any)."""
    finished: Annotated[list[RoundRecord], msgspec.Meta(max_length=MAX_ROUNDS)] = []
    table: TableRecord | None = None
    """The round in progress: there is one until the campaign is over."""
    ended: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    """Why the campaign stopped early (a seat could not pay, say), if it did."""


class Header(msgspec.Struct):
    """Just enough of any file to know which schema to read it with."""

    format: Annotated[int, msgspec.Meta(ge=1)]


@functools.cache
def move_type(game: str) -> type[msgspec.Struct]:
    """The type of one recorded move of `game`: its seat and its action."""
    actions: Any = GAMES[game].game.action_type
    return msgspec.defstruct(
        f"{game.title()}Move",
        [("seat", SeatNo), ("action", actions)],
        frozen=True,
        forbid_unknown_fields=True,
    )
