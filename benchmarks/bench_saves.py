"""Campaign autosave cost: one decision's save (encode, temporary file, fsync, rename, fsync
of the folder) as campaigns grow, and the size of the file.

An autosave runs on the UI thread after every decision, so it must stay well inside a
frame. Campaigns of AI seats are played to a given number of finished rounds, then
decisions of the next rounds are timed one by one, save included.

    .venv/bin/python benchmarks/bench_saves.py [--decisions 200] [--dir saves]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, encode
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import seats_from_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = {
    "vigo": (VigoSettings(seats=4), "Expert,Bold,Cautious,Reckless"),
    "valdes": (ValDesSettings(seats=4), "Expert,Bold,Cautious,Reckless"),
    "victim": (VictimSettings(), "Expert,Bold,Cautious"),
}


def play(session, decisions: int) -> list[float]:
    """Make `decisions` AI decisions; the seconds each took with its autosave."""
    campaign = session.campaign
    try:
        table = campaign.table()
    except ValueError:  # over (a Vigo's Favor campaign ends when one seat has it all)
        return []
    timings = []
    while len(timings) < decisions and not campaign.over:
        if table.game.pending is None:
            try:
                table.next_game()
            except ValueError:
                break
            continue
        action = table.ai_move()
        start = time.perf_counter()
        table.submit(table.game.pending.seat, action)  # the autosave runs in here
        timings.append(time.perf_counter() - start)
    return timings


def measure(game: str, rounds_before: int, decisions: int, folder: Path) -> str:
    settings, seats = GAMES[game]
    campaign = Campaign.new(
        f"{game}-{rounds_before}",
        game,
        seats_from_text(seats),
        settings,
        rounds=1000,
        seed=rounds_before + 1,
        match_stake=0,
    )
    store = Store(folder)
    with store.open(store.create(campaign)) as session:
        while session.campaign.played < rounds_before:
            if not play(session, 1):
                break
        played = session.campaign.played
        saves = session.saves
        timings = play(session, decisions)
        size = len(encode(session.campaign))
        assert session.saves - saves >= len(timings), "every decision was saved"
    if not timings:
        return f"  {game:<7} the campaign ended after {played} rounds (one seat had it all)"
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    return (
        f"  {game:<7} from round {played + 1:>3}  {len(timings):>4} decisions"
        f"  file {size / 1024:6.1f} KiB"
        f"   median {statistics.median(timings) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument(
        "--dir", type=Path, default=ROOT / "saves", help="where to write (the disk matters)"
    )
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"A decision with its autosave (AI choice excluded), saved under {args.dir}")
    with tempfile.TemporaryDirectory(prefix="bench-", dir=args.dir) as folder:
        for game in GAMES:
            for rounds in (0, 20, 100):
                print(measure(game, rounds, args.decisions, Path(folder)), flush=True)


if __name__ == "__main__":
    main()
