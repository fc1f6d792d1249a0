"""Older save formats, brought up to the current one when they are read.

Format 1 was the first draft of the campaign file: players instead of a roster, each
round only its seed and moves, and no table state. A format-1 file is read with its own
schema and then played through again round by round, so the migrated campaign is exactly
what the current code would have saved (banks, titles, the table and its dice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

import msgspec

from cantina.campaign.errors import Damaged
from cantina.campaign.model import CampaignFile, GameId, Name, Seed, TableRecord
from cantina.campaign.series import Campaign, decode_moves
from cantina.games import GAMES
from cantina.live import LiveTable
from cantina.seating import Seat


class PlayerV1(msgspec.Struct, frozen=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
    ai: Annotated[str, msgspec.Meta(max_length=32)] | None = None


class RoundV1(msgspec.Struct, frozen=True):
    seed: Seed
    moves: msgspec.Raw


class CampaignV1(msgspec.Struct, kw_only=True):
    format: Literal[1]
    name: Name
    game: GameId
    players: Annotated[list[PlayerV1], msgspec.Meta(min_length=2, max_length=8)]
    settings: msgspec.Raw
    rounds: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    seed: Seed
    starting_bank: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 20
    history: Annotated[list[RoundV1], msgspec.Meta(max_length=1000)] = []
    current: RoundV1 | None = None
    saved: Annotated[str, msgspec.Meta(max_length=40)]


def from_v1(raw: bytes) -> CampaignFile:
    old = msgspec.json.decode(raw, type=CampaignV1)
    seats = [Seat(p.name, p.ai) for p in old.players]
    try:
        settings = msgspec.json.decode(old.settings, type=GAMES[old.game].settings)
    except msgspec.ValidationError as err:
        raise Damaged("", "$.settings", str(err)) from None
    try:
        campaign = Campaign.new(
            old.name,
            old.game,
            seats,
            settings,
            rounds=old.rounds,
            seed=old.seed,
            starting_bank=old.starting_bank,
        )
    except ValueError as err:
        raise Damaged("", "$.settings", str(err)) from None
    rounds = [(f"$.history[{i}]", r, True) for i, r in enumerate(old.history)]
    if old.current is not None:
        rounds.append(("$.current", old.current, False))
    for at, record, finished in rounds:
        start = msgspec.structs.replace(campaign.next_start(), seed=record.seed)
        try:
            game = campaign.start_game(start)
            campaign.data.table = TableRecord(
                start=start, moves=msgspec.Raw(b"[]"), state=msgspec.Raw(game.to_json())
            )
            table = LiveTable(campaign.setup(), game, keeper=campaign)
            for move in decode_moves(old.game, record.moves):
                table.submit(move.seat, move.action)
        except (ValueError, msgspec.DecodeError) as err:
            raise Damaged("", f"{at}.moves", str(err)) from None
        if finished != (table.game.pending is None):
            state = "does not finish its round" if finished else "finishes a round in progress"
            raise Damaged("", f"{at}.moves", state)
    campaign.data.created = campaign.data.updated = old.saved
    return campaign.data


MIGRATIONS: dict[int, Callable[[bytes], CampaignFile]] = {1: from_v1}
"""Each older format's reader, by format number."""
