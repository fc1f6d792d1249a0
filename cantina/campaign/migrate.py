"""Older save formats, brought up to the current one when they are read.

Format 1 was the first draft of the campaign file: players instead of a roster, each
round only its seed and moves, and no table state. A format-1 file is read with its own
schema and then played through again round by round, so the migrated campaign is exactly
what the current code would have saved (banks, titles, the table and its dice).

Format 2 kept the AI seats' random source in the file and derived each round's seed from
the campaign's seed alone; a round could also be finished with the next one not dealt.
A format-2 file's rounds must have the seeds format 2 dealt; they keep them (as
`legacy_rounds`), its AI source is dropped (format 3 derives it for each decision), and
the next round, if none is in progress, is dealt as format 3 deals it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

import msgspec

from cantina.campaign.errors import Damaged
from cantina.campaign.model import (
    MAX_ROUNDS,
    MAX_SEATS,
    Bank,
    CampaignFile,
    GameId,
    Name,
    RoundRecord,
    SeatRecord,
    Seed,
    Start,
    TableRecord,
)
from cantina.campaign.series import Campaign, decode_moves, legacy_round_seed
from cantina.games import GAMES
from cantina.games.dice import DiceState
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
    campaign.data.legacy_rounds = len(rounds)
    return campaign.data


class TableRecordV2(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    start: Start
    moves: msgspec.Raw
    state: msgspec.Raw
    ai_dice: DiceState | None = None


class CampaignV2(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    format: Literal[2]
    name: Name
    game: GameId
    created: Annotated[str, msgspec.Meta(max_length=40)]
    updated: Annotated[str, msgspec.Meta(max_length=40)]
    roster: Annotated[list[SeatRecord], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    settings: msgspec.Raw
    rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]
    match_stake: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 0
    seed: Seed
    banks: Annotated[list[Bank], msgspec.Meta(min_length=2, max_length=MAX_SEATS)]
    finished: Annotated[list[RoundRecord], msgspec.Meta(max_length=MAX_ROUNDS)] = []
    table: TableRecordV2 | None = None
    ended: Annotated[str, msgspec.Meta(max_length=200)] | None = None


def from_v2(raw: bytes) -> CampaignFile:
    old = msgspec.json.decode(raw, type=CampaignV2)
    begun = [(f"$.finished[{i}]", r.start) for i, r in enumerate(old.finished)]
    if old.table is not None:
        begun.append(("$.table", old.table.start))
    for at, start in begun:
        if start.seed != legacy_round_seed(old.seed, start.number):
            raise Damaged("", f"{at}.start.seed", "edited: not the seed $.seed deals this round")
    try:
        settings = msgspec.json.decode(old.settings, type=GAMES[old.game].settings)
    except msgspec.ValidationError as err:
        raise Damaged("", "$.settings", str(err)) from None
    data = CampaignFile(
        format=3,
        name=old.name,
        game=old.game,
        created=old.created,
        updated=old.updated,
        roster=old.roster,
        settings=old.settings,
        rounds=old.rounds,
        match_stake=old.match_stake,
        seed=old.seed,
        # Victim! banks had no setting in format 2: every such campaign began at 20
        starting_bank=getattr(settings, "starting_bank", 20),
        legacy_rounds=len(begun),
        banks=old.banks,
        finished=old.finished,
        table=None
        if old.table is None
        else TableRecord(start=old.table.start, moves=old.table.moves, state=old.table.state),
        ended=old.ended,
    )
    return data  # between rounds, the next one is dealt once the file is checked


MIGRATIONS: dict[int, Callable[[bytes], CampaignFile]] = {1: from_v1, 2: from_v2}
"""Each older format's reader, by format number."""
