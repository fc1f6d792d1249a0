"""`cantina campaigns`, `resume` and `replay`: campaign files from the terminal. What cannot
be done ends the command with one line saying why (SystemExit)."""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path
from typing import Any

from cantina.campaign.errors import Ambiguous, CampaignError, Damaged, NotFound, os_reason
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, load
from cantina.games import GAMES
from cantina.games.table import play_moves
from cantina.narration import Narrator


def list_campaigns(folder: Path) -> int:
    """Every save in `folder`, newest first; damaged ones flagged with file and reason."""
    entries = Store(folder).entries()
    print(f"Campaigns in {folder}:" if entries else f"No campaigns in {folder}.")
    for entry in entries:
        when = dt.datetime.fromtimestamp(entry.modified).strftime("%Y-%m-%d %H:%M")
        if entry.campaign is None:
            print(f"  DAMAGED  {entry.problem}")
            continue
        c = entry.campaign
        print(f"  {c.name:<24} {GAMES[c.game].title:<13} {c.where():<30} {when}")
        print(f"  {'':<24} {c.summary()}")
    return 0


def import_campaign(folder: Path, source: Path) -> int:
    """`cantina campaigns --import FILE`: a checked copy of a save, in the folder."""
    if source.is_dir():
        raise SystemExit(f"cantina: not imported: {str(source)!r} is a folder; give a save's file")
    if not source.exists():
        raise SystemExit(f"cantina: not imported: there is no file {str(source)!r}")
    if not source.is_file():  # a FIFO read would wait for a writer for ever
        raise SystemExit(
            f"cantina: not imported: {str(source)!r} is not a plain file (a pipe or a device);"
            " give a save's file"
        )
    try:
        imported = Store(folder).import_file(source)
    except Damaged as err:
        raise SystemExit(f"cantina: not imported, the save is damaged: {err}") from None
    except CampaignError as err:
        raise SystemExit(f"cantina: not imported: {err}") from None
    except OSError as err:
        raise SystemExit(f"cantina: not imported into {folder}: {os_reason(err)}") from None
    print(f"Imported {imported} into {folder}")
    return 0


def find_save(folder: Path, name: str) -> Path:
    """The save `name` means (its campaign's name or its file's), else why there is none:
    no such campaign, or several it could be."""
    try:
        return Store(folder).find(name)
    except Ambiguous as err:
        raise SystemExit(f"cantina: {err}") from None
    except NotFound as err:
        raise SystemExit(f"cantina: {err}; `cantina campaigns` lists them") from None


def check_playable(folder: Path, path: Path) -> None:
    """Before the app opens a save at its table: that it is whole and not in use."""
    try:
        Store(folder).open(path).close()
    except Damaged as err:
        raise SystemExit(f"cantina: cannot resume a damaged save: {err}") from None
    except CampaignError as err:
        raise SystemExit(f"cantina: cannot resume it: {err}") from None


def _title(campaign: Campaign) -> str:
    return GAMES[campaign.game].title


def round_to_replay(path: Path, number: int | None, doing: str) -> tuple[Campaign, int, Any, list]:
    """The campaign at `path`, the round asked for (when None, its latest with a move made:
    the one under way if begun, as the standings' replay offers, else the last finished),
    and that round's game at its start with its moves: what `replay` tells and `--analyse`
    weighs.
    `doing` ("replay", "analyse") names the command in the line that ends it."""
    try:
        campaign = load(path)
    except Damaged as err:
        raise SystemExit(f"cantina: cannot {doing} a damaged save: {err}") from None
    if number is None:
        number = (campaign.replayable() or [1])[-1]
    try:
        game, moves = campaign.replay(number)
    except ValueError as err:
        raise SystemExit(f"cantina: {err}") from None
    return campaign, number, game, list(moves)


def round_heading(campaign: Campaign, number: int) -> str:
    """`Name, game 3: ana, Expert, Bold`: the first line of a replayed round."""
    unit = GAMES[campaign.game].unit
    return f"{campaign.name}, {unit} {number}: " + ", ".join(s.name for s in campaign.seats)


def replay(path: Path, number: int | None, delay: float) -> int:
    """One round of a campaign narrated again, event by event, from its seed and moves."""
    campaign, number, game, moves = round_to_replay(path, number, "replay")
    narrate = Narrator([seat.name for seat in campaign.seats])
    print(round_heading(campaign, number))
    events = list(game.opening_events)
    for move in moves:
        events += play_moves(game, [move])
    for event in events:
        line = narrate(event)
        if line:
            print(line, flush=True)
            if delay:
                time.sleep(delay)
    if game.pending is not None:
        print(f"(the {GAMES[campaign.game].unit} is still in progress)")
    sys.stdout.flush()
    return 0
