"""Campaign autosave cost: one decision's save (encode, temporary file, fsync, rename, fsync
of the folder) as campaigns grow, and the size of the file; and the saves list of a folder
of the largest saves.

An autosave runs on the UI thread after every decision, so it must stay well inside a
frame. Campaigns of AI seats are played to a given number of finished rounds, then
decisions of the next rounds are timed one by one, save included.

The list: one campaign as long as the format allows (1,000 games of Val-Des at eight
seats, the largest save a campaign reaches) is played, saved, loaded whole once (what
opening it costs), and copied under 1,000 names; then a fresh process lists the folder
(`Store.entries`, as `cantina campaigns` and the saves screen do), timed, with its memory.

    .venv/bin/python benchmarks/bench_saves.py [--decisions 200] [--dir saves]
    .venv/bin/python benchmarks/bench_saves.py --list-only [--copies 1000] [--dir saves]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, encode, load
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


LISTER = """
import json, resource, sys, time
from pathlib import Path
from cantina.campaign.store import Store
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
entries = Store(Path(sys.argv[1])).entries()
seconds = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
listed = sum(e.campaign is not None for e in entries)
print(json.dumps([seconds, before, after, listed, len(entries)]))
"""


def largest_save(folder: Path) -> Path:
    """A Val-Des campaign of eight AI seats played through all 1,000 games it may have."""
    seats = "Expert,Bold,Cautious,Reckless,Expert,Bold,Cautious,Reckless"
    campaign = Campaign.new(
        "Listing 0000",
        "valdes",
        seats_from_text(seats),
        ValDesSettings(seats=8),
        rounds=1000,
        seed=1,
    )
    table = campaign.table()
    while not campaign.over:
        if table.game.pending is None:
            table.next_game()
            continue
        table.submit(table.game.pending.seat, table.ai_move())
    return Store(folder).create(campaign)


def measure_list(folder: Path, copies: int) -> None:
    start = time.perf_counter()
    source = largest_save(folder)
    made = time.perf_counter() - start
    raw = source.read_bytes()
    start = time.perf_counter()
    whole = load(source)
    opened = time.perf_counter() - start
    print(
        f"  one save: {whole.played} games, {whole.decisions} decisions, "
        f"{len(raw) / 2**20:.1f} MiB (played in {made:.0f} s); loading it whole, "
        f"checked by replay (what opening it costs): {opened:.2f} s",
        flush=True,
    )
    source.unlink()
    for n in range(copies):  # the same campaign under another name each (listing included)
        name = f'"Listing {n:04}"'.encode()
        (folder / f"listing-{n:04}.json").write_bytes(raw.replace(b'"Listing 0000"', name))
    done = subprocess.run(
        [sys.executable, "-c", LISTER, str(folder)], capture_output=True, text=True, check=True
    )
    seconds, before, after, listed, count = json.loads(done.stdout)
    print(
        f"  listing {count} such saves ({count * len(raw) / 2**30:.1f} GiB): {seconds:.3f} s, "
        f"{listed} listed; process peak {after / 1024:.0f} MiB "
        f"({(after - before) / 1024:.0f} MiB more than after its imports)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument(
        "--dir", type=Path, default=ROOT / "saves", help="where to write (the disk matters)"
    )
    parser.add_argument("--copies", type=int, default=1000, help="saves in the listed folder")
    parser.add_argument("--list-only", action="store_true", help="only the saves list")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if not args.list_only:
        print(f"A decision with its autosave (AI choice excluded), saved under {args.dir}")
        with tempfile.TemporaryDirectory(prefix="bench-", dir=args.dir) as folder:
            for game in GAMES:
                for rounds in (0, 20, 100):
                    print(measure(game, rounds, args.decisions, Path(folder)), flush=True)
    print(f"The saves list of a folder of the largest saves, under {args.dir}")
    with tempfile.TemporaryDirectory(prefix="bench-list-", dir=args.dir) as folder:
        measure_list(Path(folder), args.copies)


if __name__ == "__main__":
    main()
