"""Reading a campaign file: the schema first (msgspec), then what only the rules can say.

msgspec refuses anything of the wrong shape or with a field it does not know, naming the
field (`$.roster[1].name`). What is well formed but not what play makes (a table state no
game reaches, moves that are not legal, banks, winners or luck that do not follow from the
rounds played, a round dealt other dice than its seed) is found by playing the campaign
again from its seed, roster, settings and moves through the rules core, so every check
is the rules' own rather than a second copy of them. A save proves itself this way; it
cannot prove who wrote it (README: what this does not stop).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from cantina.ai.temperament import temperament
from cantina.campaign.errors import Damaged
from cantina.campaign.migrate import MIGRATIONS
from cantina.campaign.model import FORMAT, CampaignFile, Header, Start
from cantina.campaign.series import Campaign, decode_moves, encode_moves
from cantina.games import GAMES
from cantina.games.table import Move, play_moves

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
    _check_settings(data, file)
    try:
        campaign = Campaign(data)
    except msgspec.ValidationError as err:
        raise Damaged(file, *_split(err, "$.settings")) from None
    except ValueError as err:
        raise Damaged(file, "$.settings", str(err)) from None
    check(campaign, file, dealt=header.format >= FORMAT)
    if header.format >= FORMAT and data.listing != campaign.listing():
        raise Damaged(file, "$.listing", "edited: differs from the campaign it lists")
    if campaign.data.table is None:  # an older format's save between rounds
        campaign.prepare_next()
    return campaign


def _check_settings(data: CampaignFile, file: str) -> None:
    """Settings with a key the game does not have are refused, not read as the default
    (a misspelt "stake_limt" would silently become the usual limit)."""
    try:
        given = msgspec.json.decode(bytes(data.settings))
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise Damaged(file, "$.settings", str(err)) from None
    if not isinstance(given, dict):
        raise Damaged(file, "$.settings", "should be an object")
    known = set(GAMES[data.game].settings.__struct_fields__)
    for key in given:
        if key not in known:
            raise Damaged(file, f"$.settings.{key}", "is not a setting of this game")


def check(campaign: Campaign, file: str, *, dealt: bool = True) -> None:
    """Everything the schema cannot say, checked by playing the campaign again from what
    it is (seed, roster, settings) and its moves: every round must begin as the rounds
    before it leave the campaign, with the seed derived for it, and end with the banks,
    winners and luck its moves give; the round in progress must stand where its moves
    lead. Anything else is an edit, and the file is refused (never changed). With `dealt`
    (the current format) a campaign that is not over must have its next round dealt."""
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
    if d.legacy_rounds > len(d.finished) + (d.table is not None):
        raise Damaged(file, "$.legacy_rounds", "more than the rounds begun")
    replay = Campaign(
        msgspec.structs.replace(
            d,
            finished=[],
            table=None,
            ended=None,
            banks=[d.starting_bank] * seats,
        )
    )
    for i, record in enumerate(d.finished):
        at = f"$.finished[{i}]"
        _check_start(replay, file, f"{at}.start", record.start)
        game, moves = _replay(replay, file, at, record.start, record.moves)
        if game.pending is not None:
            raise Damaged(file, f"{at}.moves", "the round they play is not finished")
        again = replay.summary_of(record.start, game, moves, record.finished)
        for field in ("banks", "winners", "expected", "actual"):
            if getattr(record, field) != getattr(again, field):
                raise Damaged(
                    file, f"{at}.{field}", f"edited: {field} differ from the replay of its moves"
                )
        replay.data.finished.append(record)
        replay.data.banks = record.banks
    if d.banks != replay.data.banks:
        raise Damaged(file, "$.banks", "edited: banks differ from the replay of its rounds")
    replay.prepare_next()
    if d.ended != replay.data.ended:
        raise Damaged(
            file,
            "$.ended",
            "edited: the replay of its rounds ends it otherwise"
            if replay.data.ended
            else "edited: the replay of its rounds does not end it",
        )
    if d.table is None:
        if dealt and replay.data.table is not None:
            raise Damaged(file, "$.table", "edited: missing, yet the campaign is not over")
        return
    if replay.data.table is None:
        raise Damaged(file, "$.table", "edited: a round in progress after the campaign ended")
    _check_start(replay, file, "$.table.start", d.table.start)
    game, _moves = _replay(replay, file, "$.table", d.table.start, d.table.moves)
    try:
        saved = msgspec.json.decode(bytes(d.table.state))
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise Damaged(file, "$.table.state", str(err)) from None
    if msgspec.json.encode(saved) != msgspec.json.encode(msgspec.json.decode(game.to_json())):
        raise Damaged(
            file,
            "$.table.state",
            "edited: the table (its dice included) is not where the replay of its moves leads",
        )
    if game.pending is None:
        raise Damaged(file, "$.table.moves", "finish the round, yet it is not recorded")


def _check_start(replay: Campaign, file: str, at: str, start: Start) -> None:
    """A round begins as the rounds before left the campaign: its number, banks, title,
    Scorekeeper or last Victim, and the seed derived for it (a round begun under an older
    format, or before the campaign's seed was drawn again, keeps the seed it was dealt:
    `legacy_rounds`)."""
    try:
        expected = replay.next_start()
    except ValueError as err:
        raise Damaged(file, at, f"edited: no round can begin here ({err})") from None
    if start.number <= replay.data.legacy_rounds:
        expected = msgspec.structs.replace(expected, seed=start.seed)
    if start == expected:
        return
    for field in start.__struct_fields__:
        if getattr(start, field) != getattr(expected, field):
            raise Damaged(
                file, f"{at}.{field}", "edited: differs from the replay of the rounds before"
            )


def _canonical(raw: msgspec.Raw | bytes) -> bytes:
    """JSON as msgspec writes it, whitespace aside: `1` and `true` stay apart (as Python's
    `==` would not keep them)."""
    return msgspec.json.encode(msgspec.json.decode(bytes(raw)))


def _replay(
    replay: Campaign, file: str, at: str, start: Start, moves: Any
) -> tuple[Any, list[Move]]:
    try:
        game = replay.start_game(start)
    except ValueError as err:
        raise Damaged(file, f"{at}.start", str(err)) from None
    try:
        recorded = decode_moves(replay.game, moves)
    except msgspec.ValidationError as err:
        raise Damaged(file, *_split(err, f"{at}.moves")) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise Damaged(file, f"{at}.moves", str(err)) from None
    if _canonical(moves) != _canonical(encode_moves(recorded)):
        raise Damaged(file, f"{at}.moves", "hold a field no move has")
    for n, move in enumerate(recorded):
        try:
            play_moves(game, [move])
        except ValueError as err:
            raise Damaged(file, f"{at}.moves[{n}]", str(err)) from None
    return game, recorded
