"""Reading a campaign file: the schema first (msgspec), then what only the rules can say.

msgspec refuses anything of the wrong shape, naming the field (`$.roster[1].name`). What
is well formed but impossible (a table state no game reaches, moves that are not legal,
banks that do not follow from the rounds played) is found by replaying the record through
the rules core, so every check is the rules' own rather than a second copy of them.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from cantina.ai.temperament import temperament
from cantina.campaign.errors import Damaged
from cantina.campaign.migrate import MIGRATIONS
from cantina.campaign.model import FORMAT, CampaignFile, Header
from cantina.campaign.series import Campaign, decode_moves
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import CorruptState, play_moves

_AT = re.compile(r" - at `(\$[^`]*)`$")


def _split(err: Exception, prefix: str = "") -> tuple[str, str]:
    """msgspec's "Expected `int`, got `str` - at `$.banks[0]`" as (field, reason)."""
    text = str(err)
    match = _AT.search(text)
    if match:
        field = match.group(1)
        return (prefix + field.removeprefix("$") if prefix else field), text[: match.start()]
    return prefix or "$", text


def read_campaign(raw: bytes, file: str) -> Campaign:
    """The Campaign a file holds, migrated to the current format (Damaged if it cannot)."""
    try:
        header = msgspec.json.decode(raw, type=Header)
    except UnicodeDecodeError as err:
        raise Damaged(file, "", f"not a cantina save: not UTF-8 text ({err.reason})") from None
    except msgspec.DecodeError as err:
        field, reason = _split(err)
        if isinstance(err, msgspec.ValidationError):
            raise Damaged(file, field, reason) from None
        raise Damaged(file, "", f"not a cantina save: {reason}") from None
    if header.format > FORMAT:
        raise Damaged(
            file,
            "$.format",
            f"made by a newer cantina (format {header.format}; this one reads up to {FORMAT})",
        )
    try:
        if header.format < FORMAT:
            data = MIGRATIONS[header.format](raw)
        else:
            data = msgspec.json.decode(raw, type=CampaignFile)
    except msgspec.ValidationError as err:
        raise Damaged(file, *_split(err)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise Damaged(file, "", f"not a cantina save: {err}") from None
    except Damaged as err:
        raise Damaged(file, err.field, err.reason) from None
    try:
        campaign = Campaign(data)
    except msgspec.ValidationError as err:
        raise Damaged(file, *_split(err, "$.settings")) from None
    except ValueError as err:
        raise Damaged(file, "$.settings", str(err)) from None
    check(campaign, file)
    return campaign


def check(campaign: Campaign, file: str) -> None:
    """Everything the schema cannot say, checked by replaying the record."""
    d = campaign.data
    seats = len(d.roster)
    wanted = getattr(campaign.settings, "seats", 3)
    if seats != wanted:
        raise Damaged(file, "$.roster", f"{seats} seats, but the settings are for {wanted}")
    for i, seat in enumerate(d.roster):
        if seat.temperament is not None:
            try:
                temperament(seat.temperament)
            except ValueError as err:
                raise Damaged(file, f"$.roster[{i}].temperament", str(err)) from None
    if len(d.banks) != seats:
        raise Damaged(file, "$.banks", f"{len(d.banks)} banks for {seats} seats")
    if len(d.finished) > d.rounds:
        raise Damaged(file, "$.finished", f"{len(d.finished)} played of {d.rounds}")
    banks = None
    for i, record in enumerate(d.finished):
        at = f"$.finished[{i}]"
        _check_start(file, f"{at}.start", record.start, i + 1, seats, banks)
        game = _replay(campaign, file, at, record.start, record.moves)
        if game.pending is not None:
            raise Damaged(file, f"{at}.moves", "the round they play is not finished")
        if len(record.banks) != seats:
            raise Damaged(file, f"{at}.banks", f"{len(record.banks)} banks for {seats} seats")
        if campaign.banks_after(record.start, game) != record.banks:
            raise Damaged(file, f"{at}.banks", "do not follow from the moves played")
        banks = record.banks
    if banks is not None and banks != d.banks:
        raise Damaged(file, "$.banks", "differ from the last finished round's")
    if d.table is not None:
        if len(d.finished) >= d.rounds:
            raise Damaged(file, "$.table", "a round in progress after the last one")
        _check_start(file, "$.table.start", d.table.start, len(d.finished) + 1, seats, d.banks)
        game = _replay(campaign, file, "$.table", d.table.start, d.table.moves)
        try:
            saved = GAMES[d.game].game.from_json(bytes(d.table.state))
        except CorruptState as err:
            raise Damaged(file, *_split(err, "$.table.state")) from None
        if d.table.ai_dice is not None:
            try:
                Dice.from_state(d.table.ai_dice)
            except ValueError as err:
                raise Damaged(file, "$.table.ai_dice", str(err)) from None
        if saved.to_json() != game.to_json():
            raise Damaged(
                file, "$.table.state", "is not where $.table.start and $.table.moves lead"
            )
        if game.pending is None:
            raise Damaged(file, "$.table.moves", "finish the round, yet it is not recorded")


def _check_start(
    file: str, at: str, start: Any, number: int, seats: int, banks: list[int] | None
) -> None:
    if start.number != number:
        raise Damaged(file, f"{at}.number", f"is {start.number}, expected {number}")
    if len(start.banks) != seats:
        raise Damaged(file, f"{at}.banks", f"{len(start.banks)} banks for {seats} seats")
    if banks is not None and start.banks != banks:
        raise Damaged(file, f"{at}.banks", "differ from the banks the round before left")
    for key in ("vigo", "scorekeeper", "previous_victim"):
        seat = getattr(start, key)
        if seat is not None and seat >= seats:
            raise Damaged(file, f"{at}.{key}", f"seat {seat} of {seats}")


def _replay(campaign: Campaign, file: str, at: str, start: Any, moves: Any) -> Any:
    try:
        game = campaign.start_game(start)
    except ValueError as err:
        raise Damaged(file, f"{at}.start", str(err)) from None
    try:
        recorded = decode_moves(campaign.game, moves)
    except msgspec.ValidationError as err:
        raise Damaged(file, *_split(err, f"{at}.moves")) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise Damaged(file, f"{at}.moves", str(err)) from None
    for n, move in enumerate(recorded):
        try:
            play_moves(game, [move])
        except ValueError as err:
            raise Damaged(file, f"{at}.moves[{n}]", str(err)) from None
    return game
