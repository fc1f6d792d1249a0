"""`cantina tournament` (cantina/tournament.py): every seating played, a seed per game so
the results are the same on any number of processes, ratings that find the stronger
player, Ctrl-C reporting the games played so far, and bad arguments refused in one line."""

from __future__ import annotations

import json
import math
import os
import pty
import random
import re
import signal
import subprocess
import sys
import time

import pytest
from pty_output import PtyOutput

from cantina.ai.temperament import temperament, temperaments
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.tournament import (
    BATCH_GAMES,
    ELO,
    MAX_CHUNK,
    Outcome,
    batches,
    fit_ratings,
    game_seed,
    plan,
    seatings,
    tournament,
)


def cantina(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cantina", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin", "PYTHONPATH": os.getcwd()},
    )


def players(*names: str):
    return [temperament(name) for name in names]


# --- the plan: every seating, every game once --------------------------------------------


def test_every_game_is_played_once_at_its_seating():
    four = players("Expert", "Bold", "Rookie", "Cautious")
    for games in (1, 23, 24, 25, 24 * MAX_CHUNK + 7):
        tables, tasks = plan("vigo", VigoSettings(seats=3), four, games, seed=4)
        assert len(tables) == 4 * 3 * 2 and len(set(tables)) == len(tables)
        indices = sorted(i for task in tasks for i in task.indices)
        assert indices == list(range(games))
        for task in tasks:
            assert len(task.indices) <= MAX_CHUNK
            assert all(i % len(tables) == task.seating for i in task.indices)
            assert task.players == tuple(four[e] for e in tables[task.seating])


def test_worker_batches_keep_the_order_start_big_and_end_with_single_tasks():
    """Few batches (each costs the parent's threads time the workers need on two cores),
    none over BATCH_GAMES, and the last ones single tasks so the processes end together."""
    every = list(temperaments().values())
    for games, jobs in ((8000, 2), (100_000, 2), (50, 2), (8000, 4)):
        _, tasks = plan("vigo", VigoSettings(seats=3), every, games, seed=1)
        found = batches(tasks, jobs)
        assert [task for batch in found for task in batch] == tasks
        sizes = [sum(len(task.indices) for task in batch) for batch in found]
        assert max(sizes) <= max(BATCH_GAMES, max(len(t.indices) for t in tasks))
        assert len(found[-1]) == 1
        if len(tasks) > 40 * jobs:
            assert len(found) < len(tasks) / 3
            assert len(found[0]) > len(found[-1])


def test_seatings_are_every_ordered_choice():
    assert seatings(3, 3) == [
        (0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)
    ]  # fmt: skip
    assert len(seatings(8, 3)) == 336


def test_a_game_seed_depends_on_the_seed_and_the_index_alone():
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(1000)}) == 1000
    assert game_seed(7, 3) != game_seed(8, 3)


# --- the same results for any number of processes ------------------------------------------


def test_the_same_seed_gives_the_same_results_on_one_process_or_two():
    entered = players("Expert", "Bold", "Rookie", "Reckless")
    settings = VictimSettings()
    one = tournament("victim", entered, 150, 21, settings, jobs=1)
    two = tournament("victim", entered, 150, 21, settings, jobs=2)
    assert one.games == two.games == 150
    assert one.to_json() == two.to_json()
    assert [o.index for o in one.outcomes] == list(range(150))
    other = tournament("victim", entered, 150, 22, settings, jobs=1)
    assert other.to_json() != one.to_json()


def test_the_command_prints_the_same_json_for_jobs_1_and_2():
    args = ("tournament", "vigo", "--games", "120", "--seed", "9", "--json")
    one = cantina(*args, "--jobs", "1")
    two = cantina(*args, "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stderr == two.stderr == ""  # no progress bar with --json
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["games"] == 120 and data["seatings"] == 336 and data["table_seats"] == 3
    names = [r["temperament"] for r in data["ratings"]]
    assert sorted(names) == sorted(temperaments())
    assert sum(r["games"] for r in data["ratings"]) == 3 * 120
    for r in data["ratings"]:
        low, high = r["rating_ci95"]
        assert low < r["rating"] < high


# --- ratings ---------------------------------------------------------------------------------


def luce_games(strengths: list[float], games: int, seed: int) -> list[Outcome]:
    """Games at 3-seat tables won as the Luce model says, for strengths known in advance."""
    rng = random.Random(seed)
    tables = seatings(len(strengths), 3)
    outcomes = []
    for index in range(games):
        seated = tables[index % len(tables)]
        weights = [math.exp(strengths[e]) for e in seated]
        winner = rng.choices(range(3), weights)[0]
        outcomes.append(Outcome(index, index % len(tables), winner, (2, -1, -1)))
    return outcomes


def test_the_fit_finds_known_strengths_within_its_intervals():
    strengths = [0.6, 0.2, 0.0, -0.3, -0.5]
    names = ["A", "B", "C", "D", "E"]
    tables = seatings(5, 3)
    ratings = fit_ratings(names, tables, luce_games(strengths, 6000, seed=1))
    mean = sum(strengths) / len(strengths)
    for rating, strength in zip(ratings, strengths, strict=True):
        truth = ELO * (strength - mean)
        assert rating.low < truth < rating.high, (rating, truth)
        assert rating.high - rating.low < 80  # 6,000 games pin each to within ±40
    assert [r.temperament for r in sorted(ratings, key=lambda r: -r.rating)] == names
    assert abs(sum(r.rating for r in ratings)) < 1e-6  # 0 is the field's average


def test_more_games_narrow_the_intervals_and_a_shutout_stays_finite():
    names = ["A", "B", "C"]
    tables = seatings(3, 3)
    few = fit_ratings(names, tables, luce_games([0.5, 0.0, -0.5], 60, seed=2))
    many = fit_ratings(names, tables, luce_games([0.5, 0.0, -0.5], 6000, seed=2))
    for a, b in zip(few, many, strict=True):
        assert b.high - b.low < (a.high - a.low) / 5
    shutout = [Outcome(i, i % 6, tables[i % 6].index(0), (2, -1, -1)) for i in range(30)]
    ratings = fit_ratings(names, tables, shutout)  # A won every game
    assert all(math.isfinite(r.rating) and math.isfinite(r.high) for r in ratings)
    assert ratings[0].rating > 200 and ratings[0].low > 0


def test_games_without_a_sole_winner_count_in_games_but_not_in_ratings():
    names = ["A", "B", "C"]
    tables = seatings(3, 3)
    ties = [Outcome(i, i % 6, None, (0, 0, 0)) for i in range(12)]
    ratings = fit_ratings(names, tables, ties)
    assert [r.games for r in ratings] == [12, 12, 12]
    assert all(abs(r.rating) < 1e-9 for r in ratings)


# --- the command -----------------------------------------------------------------------------


def test_the_command_prints_a_table_of_ratings():
    done = cantina(
        "tournament", "valdes", "--games", "60", "--temperaments", "Expert,Bold,Rookie",
        "--seed", "4", "--jobs", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Val-Des tournament: 60 games, 6 seatings of 3, seed 4" in done.stdout
    for words in ("Expert", "Bold", "Rookie", "95% interval", "Elo points"):
        assert words in done.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--games", "10", "--temperaments", "Expert,Bold"), "needs at least 3"),
        (("--games", "10", "--temperaments", "Expert,Expert,Bold"), "names Expert more than"),
        (("--games", "10", "--temperaments", "Expert,,Bold"), "has an empty entry"),
        (("--games", "10", "--temperaments", "Expert,Wookiee,Bold"), "no temperament 'Wookiee'"),
        (("--games", "10", "--temperaments", " "), "names no temperaments"),
        (("--games", "0"), "--games must be 1 to 1,000,000, not 0"),
        (("--games", "lots"), "--games must be a whole number"),
        (("--games", "10", "--jobs", "0"), "--jobs must be 1 to 256, not 0"),
        (("--games", "10", "--jobs", "9999"), "--jobs must be 1 to 256"),
        (("--games", "10", "--seed", "-1"), "--seed must be 0 to"),
        (("--games", "10", "--ante", "3"), "--ante applies to Val-Des only"),
        (("--games", "10", "--stake-limit", "500"), "--stake-limit must be 1 to 100"),
        (("--games", "10", "--variants", "bribes"), "unknown variant 'bribes'"),
        (("--games", "10", "--json", "--plot"), "--plot shows a chart"),
        (("--games", "3", "--jobs", "1", "--plot"), "--plot draws its chart on the terminal"),
        (("--temperaments", "Expert,Bold,Rookie"), "required: --games"),
    ],
)
def test_bad_arguments_get_one_line_and_status_2(args, says):
    done = cantina("tournament", "vigo", *args, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cantina: ") and says in lines[0], lines


# --- Ctrl-C ----------------------------------------------------------------------------------


def interrupt_after_progress(command: list[str], total: str) -> tuple[int, str]:
    """Run `cantina` on a terminal, wait until its progress bar shows games done, send
    SIGINT, and return its status and what the terminal showed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", *command],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "COLUMNS": "120",
            "LINES": "40",
            "PYTHONPATH": os.getcwd(),
        },
        start_new_session=True,
    )
    os.close(slave)
    shown = PtyOutput(master)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the progress bar shows games done
            shown.read(0.2)
            counts = re.findall(rb"([\d,]+)/" + total.encode(), shown.data)
            if counts and int(counts[-1].replace(b",", b"")) > 0:
                break
        else:
            raise AssertionError(f"no progress shown: {shown.data[-500:]!r}")
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
        started = time.monotonic()
        while time.monotonic() < started + 60 and shown.read(0.5):
            pass
        status = process.wait(60)
        took = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    text = shown.text()
    assert took < 30, f"{took:.1f}s from Ctrl-C to the end"
    return status, text


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_reports_the_games_played_so_far(jobs):
    """Ctrl-C (to the whole process group, as a terminal sends it, so the workers get it
    too) during a long tournament: the games under way end, the ratings of those played
    are printed, one line says how many of how many, status 130, no traceback."""
    command = ["tournament", "victim", "--games", "1000000", "--seed", "1", "--jobs", jobs]
    status, text = interrupt_after_progress(command, "1000000")
    assert status == 130, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    said = re.search(
        r"cantina: stopped by Ctrl-C after ([\d,]+) of 1,000,000 matches; "
        r"the results are for those ([\d,]+)",
        text,
    )
    assert said and said[1] == said[2], text[-2000:]
    assert f"Victim! tournament: {said[1]} matches (stopped; 1,000,000 asked for)" in text
    for name in temperaments():
        assert name[:10] in text


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (utime + stime, from /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_with_json_prints_the_partial_result():
    """--json shows no progress: on one process, wait until it has played for a CPU
    second (hundreds of games), then Ctrl-C; the JSON is of the games played."""
    command = ["tournament", "vigo", "--games", "1000000", "--seed", "2", "--json"]
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", *command, "--jobs", "1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": os.getcwd()},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while cpu_seconds(process.pid) < 1.5 and time.monotonic() < deadline:
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    data = json.loads(out)
    assert data["stopped"] == {"requested": 1_000_000}
    assert 0 < data["games"] < 1_000_000
    assert sum(r["games"] for r in data["ratings"]) == 3 * data["games"]
    assert err.decode().startswith("cantina: stopped by Ctrl-C after ")


def test_games_that_do_not_cover_the_seatings_evenly_are_said_to():
    """Games not a multiple of the seatings play some seatings once more than the others
    (or not at all), so the temperaments meet unevenly: 60 Victim! matches of all eight
    seated the Expert in 50 and the Rookie in 15, and nothing but the games column said
    so. The report says it under the table; a multiple of the seatings says nothing."""
    three = ("--temperaments", "Expert,Bold,Rookie", "--seed", "1", "--jobs", "1")
    done = cantina("tournament", "victim", "--games", "20", *three, timeout=120)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert (
        "2 of the 6 seatings were played 4 times and the rest 3 times, so the temperaments "
        "met unevenly; 6 matches (or a multiple) play every seating alike." in said
    ), done.stdout
    done = cantina("tournament", "victim", "--games", "4", *three, timeout=120)
    assert "were played once and the rest not at all" in " ".join(done.stdout.split())
    done = cantina("tournament", "victim", "--games", "12", *three, timeout=120)
    assert done.returncode == 0 and "seatings were played" not in done.stdout, done.stdout
