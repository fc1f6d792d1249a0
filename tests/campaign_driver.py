"""Plays a campaign from the command line, for tests that need a real, killable process.

    python tests/campaign_driver.py create DIR GAME SEED ROUNDS   prints the save's path
    python tests/campaign_driver.py play FILE N                   N decisions (-1: to the end)
    python tests/campaign_driver.py stop FILE N                   N decisions, then wait to be
                                                                  killed (lock held, no close)

`play` opens the save (locked, autosaving after each decision, as the app does), lets
every seat's AI choose, and after each decision prints one line: the number of decisions
the campaign holds, then the events as JSON. Nothing here is a test double: it is the
campaign code the app uses, driven without a screen.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from cantina.campaign.series import Campaign, decode_moves
from cantina.campaign.store import Store
from cantina.games import GAMES
from cantina.live import LiveTable
from cantina.seating import seats_from_text

SEATS = {
    "vigo": "Expert,Bold,Cautious",
    "valdes": "Expert,Reckless,Rookie",
    "victim": "Expert,Bold,Loyal",
}


def new_campaign(game: str, seed: int, rounds: int) -> Campaign:
    seats = seats_from_text(SEATS[game])
    settings = GAMES[game].settings() if game == "victim" else GAMES[game].settings(seats=3)
    if game == "valdes":
        settings = msgspec.structs.replace(settings, ante=1)
    return Campaign.new(
        f"{game} {seed}", game, seats, settings, rounds=rounds, seed=seed, match_stake=1
    )


def decisions(campaign: Campaign) -> int:
    """How many decisions a campaign's record holds, finished rounds and table together."""
    d = campaign.data
    done = sum(len(decode_moves(d.game, r.moves)) for r in d.finished)
    return done + (len(decode_moves(d.game, d.table.moves)) if d.table is not None else 0)


def drive(campaign: Campaign, n: int, out: Callable[[int, bytes], None]) -> None:
    """Play up to `n` decisions (all, if negative), reporting each with its events; a new
    round's opening events go with its first decision. As the app does, one table plays
    the whole campaign, each round after the first begun by its "Play on" (next_game)."""
    made = 0
    table: LiveTable | None = None
    while n < 0 or made < n:
        opening: list[Any] = []
        try:
            if table is None:
                table = campaign.table()
                opening = [] if table.moves else list(table.game.opening_events)
            elif table.game.pending is None:
                opening = table.next_game()
        except ValueError:
            return  # the campaign is over
        decision = table.game.pending
        assert decision is not None
        events = table.submit(decision.seat, table.ai_move())
        made += 1
        out(decisions(campaign), msgspec.json.encode(opening + events))


def main(argv: list[str]) -> int:
    if argv[0] == "create":
        folder, game, seed, rounds = argv[1:]
        path = Store(Path(folder)).create(new_campaign(game, int(seed), int(rounds)))
        print(path, flush=True)
        return 0
    path, n = Path(argv[1]), int(argv[2])
    with Store(path.parent).open(path) as session:
        print("ready", flush=True)

        def out(count: int, events: bytes) -> None:
            sys.stdout.write(f"{count} {events.decode()}\n")
            sys.stdout.flush()

        drive(session.campaign, n, out)
        if argv[0] == "stop":
            print("stopped", flush=True)
            time.sleep(600)  # the test kills it here
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
