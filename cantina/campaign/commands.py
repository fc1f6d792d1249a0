"""`cantina campaigns` and `cantina replay`: campaign files read from the terminal."""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path

from cantina.campaign.errors import Damaged
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
        print(f"  {c.name:<24} {_title(c):<13} {c.where():<30} {when}")
        print(f"  {'':<24} {c.summary()}")
    return 0


def _title(campaign: Campaign) -> str:
    return GAMES[campaign.game].title


def replay(folder: Path, name: str, number: int | None, delay: float) -> int:
    """One round of a campaign narrated again, event by event, from its seed and moves."""
    store = Store(folder)
    try:
        path = store.find(name)
    except LookupError as err:
        raise SystemExit(f"cantina: {err}") from None
    try:
        campaign = load(path)
    except Damaged as err:
        raise SystemExit(f"cantina: cannot replay a damaged save: {err}") from None
    if number is None:
        number = campaign.played or 1
    try:
        game, moves = campaign.replay(number)
    except ValueError as err:
        raise SystemExit(f"cantina: {err}") from None
    narrate = Narrator([seat.name for seat in campaign.seats])
    unit = GAMES[campaign.game].unit
    print(f"{campaign.name}, {unit} {number}: " + ", ".join(s.name for s in campaign.seats))
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
        print(f"(the {unit} is still in progress)")
    sys.stdout.flush()
    return 0
