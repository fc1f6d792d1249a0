"""What a store keeps of a shared table, as JSON documents (msgspec, like the saves).

A table's record: its setup (as played, once started), who sits where, the guests'
rejoin codes. Its log: one entry per decision (or start of the next game), in order; the
entry's place in the log is the table's version after it. Replaying the log from the
setup's seed rebuilds the table exactly, its AI seats' own dice included.
"""

from __future__ import annotations

import functools
import secrets
from typing import Annotated, Any

import msgspec

from cantina.games import GAMES
from cantina.games.dice import DiceState
from cantina.games.table import Move
from cantina.seating import Seat, TableSetup

Code = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]


class SeatedRecord(msgspec.Struct, frozen=True):
    """Who sits at a seat: their identity (a key's fingerprint, or a guest's) and name."""

    identity: str
    name: str


class TableRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A shared table's setup and seats: everything but its decisions."""

    code: Code
    setup: msgspec.Raw
    """The `TableSetup` (as played, once started), its settings as the game's own type."""
    creator: SeatedRecord
    stand_in: str
    seated: dict[int, SeatedRecord] = {}
    rejoin: dict[int, str] = {}
    started: bool = False


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One decision as recorded: a seat's action, or (no seat) the start of the next game;
    with the AI seats' dice after it, so a rebuilt table's AI chooses as it would have."""

    id: str
    """Who made it, uniquely: a host that lost its answer from the store finds its own."""
    seat: int | None = None
    action: msgspec.Raw = msgspec.Raw(b"null")
    """The action, as the game's own type (`null` when it starts the next game)."""
    ai_dice: DiceState | None = None

    @property
    def next_game(self) -> bool:
        return self.seat is None


class _SetupRaw(msgspec.Struct, frozen=True):
    game: str
    settings: msgspec.Raw
    seats: tuple[Seat, ...]
    seed: int


def encode_setup(setup: TableSetup) -> msgspec.Raw:
    return msgspec.Raw(msgspec.json.encode(setup))


def decode_setup(raw: bytes | msgspec.Raw) -> TableSetup:
    """The setup of a record (ValueError when it names no game, or is damaged)."""
    try:
        loose = msgspec.json.decode(bytes(raw), type=_SetupRaw)
        if loose.game not in GAMES:
            raise ValueError(f"no game called {loose.game!r}")
        settings = msgspec.json.decode(bytes(loose.settings), type=GAMES[loose.game].settings)
    except msgspec.DecodeError as err:
        raise ValueError(f"a damaged table setup: {err}") from None
    return TableSetup(loose.game, settings, loose.seats, loose.seed)


def new_id() -> str:
    return secrets.token_hex(8)


def move_entry(move: Move, ai_dice: DiceState | None) -> Entry:
    action = msgspec.Raw(msgspec.json.encode(move.action))
    return Entry(id=new_id(), seat=move.seat, action=action, ai_dice=ai_dice)


def next_game_entry(ai_dice: DiceState | None) -> Entry:
    return Entry(id=new_id(), ai_dice=ai_dice)


@functools.cache
def _action_type(game: str) -> Any:
    return GAMES[game].game.action_type


def entry_move(game: str, entry: Entry) -> Move:
    """The move an entry records (ValueError when it is damaged)."""
    if entry.seat is None:
        raise ValueError("this entry starts the next game: it has no move")
    try:
        action = msgspec.json.decode(bytes(entry.action), type=_action_type(game))
    except msgspec.DecodeError as err:
        raise ValueError(f"a damaged move: {err}") from None
    return Move(entry.seat, action)


encode = msgspec.json.encode
_entry_decoder = msgspec.json.Decoder(Entry)
_record_decoder = msgspec.json.Decoder(TableRecord)


def decode_entry(data: bytes) -> Entry:
    return _entry_decoder.decode(data)


def decode_record(data: bytes) -> TableRecord:
    return _record_decoder.decode(data)


class StoredTable(msgspec.Struct, frozen=True):
    """A table as a store holds it: its record, its log so far, and how long ago each
    seat's player went away (seconds, as read; seats whose player is away only): a host
    that takes the table up counts the stand-in's grace from then, not from its start."""

    record: TableRecord
    entries: list[Entry]
    away: dict[int, float] = {}
