"""The `cantina` command line, run as a real subprocess: sim, watch, temperaments, errors."""

from __future__ import annotations

import itertools
import json
import os
import pty
import re
import signal
import subprocess
import sys
import time

import pytest
import redis
from pty_output import PtyOutput
from redis_server import needs_redis, redis_server  # noqa: F401

from cantina.ai.temperament import temperament
from cantina.arguments import MAX_SESSIONS
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, load
from cantina.cli import NO_TERMINAL, build_parser
from cantina.games import events as common
from cantina.games.table import play_moves
from cantina.games.valdes import ValDesSettings
from cantina.games.vigo import VigoSettings
from cantina.narration import Narrator
from cantina.seating import seats_from_text
from cantina.sim import simulate
from cantina.sim_report import stopped_line
from cantina.ssh.limits import Limits


def cantina(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cantina", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"} if env is None else env,
    )


def test_version_and_help():
    done = cantina("--version")
    assert done.returncode == 0 and done.stdout.startswith("cantina ")
    done = cantina("--help")
    assert done.returncode == 0
    for command in ("sim", "watch", "temperaments", "campaigns", "resume", "replay"):
        assert command in done.stdout


def test_sim_json_is_one_object_with_the_promised_fields():
    done = cantina(
        "sim",
        "valdes",
        "--games",
        "60",
        "--seats",
        "Expert,Cautious,Reckless",
        "--seed",
        "4",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # the whole of stdout is one JSON object
    assert data["game"] == "valdes" and data["games"] == 60 and data["seed"] == 4
    assert [s["temperament"] for s in data["seats"]] == ["Expert", "Cautious", "Reckless"]
    assert sum(s["wins"] for s in data["seats"]) == 60  # Val-Des always has one winner
    for seat in data["seats"]:
        assert {"temperament", "wins", "win_rate", "net"} <= set(seat)
        low, high = seat["win_rate_ci95"]
        assert low <= seat["win_rate"] <= high
    assert sum(s["net"] for s in data["seats"]) == 0  # antes only change hands
    assert 0 < data["stats"]["mean_regulation_points"] < 7
    assert 0 <= data["stats"]["streak_bonus_rate"] <= 1


def test_sim_is_reproducible_from_its_seed():
    args = ("sim", "victim", "--games", "40", "--seats", "Rookie,Bold,Expert", "--json")
    first = json.loads(cantina(*args, "--seed", "9").stdout)
    again = json.loads(cantina(*args, "--seed", "9").stdout)
    other = json.loads(cantina(*args, "--seed", "10").stdout)
    assert first == again
    assert first["stats"] != other["stats"]


def test_sim_prints_tables_on_a_terminal():
    done = cantina(
        "sim", "vigo", "--games", "30", "--seats", "Expert,Reckless,Cautious", "--seed", "2"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Vigo's Favor: 30 laps, seed 2" in out
    for text in ("Reckless", "Cautious", "win rate", "challenge rate", "split rate"):
        assert text in out


EIGHT_TEMPERAMENTS = "Expert,Bold,Superstitious,Cautious,Reckless,Rookie,Loyal,Treacherous"


@pytest.mark.parametrize(
    ("command", "heading"),
    [
        (("sim", "vigo", "--seats", EIGHT_TEMPERAMENTS), "Vigo's Favor: 40 laps, seed 5"),
        (("sim", "victim", "--seats", "Superstitious,Treacherous,Expert"), "40 matches at"),
        (("tournament", "vigo", "--jobs", "1"), "Vigo's Favor tournament: 40 laps"),
    ],
)
def test_the_reports_fit_an_80_column_terminal_a_row_a_line(command, heading):
    """Eight seats, the longest name among them, on 80 columns: every seat's row is one
    line, its name whole and its intervals on it (rich wrapped each cell over three
    lines, and cut "Superstitious" short). A Victim! run says "matches", not "matchs"."""
    done = cantina(
        *command, "--games", "40", "--seed", "5", env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"}
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(heading in line for line in lines)
    assert all(len(line) <= 80 for line in lines)
    rows = [line for line in lines if "Superstitious" in line]
    assert rows and all("±" in line and "%" in line for line in rows[:1])
    assert not any("…" in line for line in lines)


def test_watch_narrates_a_whole_game():
    done = cantina(
        "watch", "victim", "--seats", "Expert,Treacherous,Loyal", "--seed", "3", "--delay", "0"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Victim!, seed 3: Expert (1), Treacherous (2), Loyal (3)")
    assert any("lays down two cards" in line for line in lines)
    assert lines[-1].startswith("It is over:")


def test_temperaments_lists_names_and_descriptions():
    done = cantina("temperaments")
    assert done.returncode == 0
    assert "Reckless" in done.stdout and "Plays the exact odds" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("sim", "victim", "--seats", "Expert,Bold"), "exactly 3 seats"),
        (("sim", "vigo", "--seats", "Expert,Wookiee"), "no temperament 'Wookiee'"),
        (("sim", "vigo", "--seats", "Expert,Bold", "--variants", "bribes"), "unknown variant"),
        (("sim", "vigo", "--seats", "Expert," * 9 + "Bold"), "seats"),
        (("sim", "chess", "--seats", "Expert"), "there is no game 'chess'"),
    ],
)
def test_bad_arguments_get_a_clear_error(args, message):
    done = cantina(*args)
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_every_event_has_a_narration():
    """Every kind of event the games can report has a sentence (except dice the battle
    summary covers), so the log never goes silent on something that happened."""
    import cantina.games  # noqa: F401  (loads every game's events)

    def kinds(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from kinds(sub)

    narrate = Narrator(["Ana", "Bo", "Cy"])
    samples = {
        common.Rolled: common.Rolled(0, "cube", "red", "favor"),
        common.Transfer: common.Transfer(1, "pot", 2, "ante"),
    }
    for kind in kinds(common.Event):
        if not kind.__module__.startswith("cantina."):
            continue
        event = samples.get(kind) or sample(kind)
        line = narrate(event)
        assert line and "{" not in line, kind.__name__
    assert (
        narrate(common.Transfer("pot", 2, 5, "claim")) == "Cy takes 5 credits from the pot (claim)."
    )


def sample(kind):
    """An instance of an event type with a plausible value for each field."""
    words = {"direction": "left", "die": "support"}
    fields = {}
    for name, annotation in kind.__annotations__.items():
        text = str(annotation)
        if "tuple" in text:
            fields[name] = (0, 1)
        elif "bool" in text:
            fields[name] = True
        elif "int" in text:
            fields[name] = 1
        else:
            fields[name] = words.get(name, "red")
    return kind(**fields)


def finished_campaign(folder, name: str = "Robots"):
    """A Val-Des campaign of AI seats with its first game played and saved."""

    store = Store(folder)
    campaign = Campaign.new(
        name, "valdes", seats_from_text("Expert,Bold"), ValDesSettings(seats=2), rounds=3, seed=4
    )
    with store.open(store.create(campaign)) as session:
        table = session.campaign.table()
        while table.game.pending is not None:
            table.submit(table.game.pending.seat, table.ai_move())
        return session.campaign


def test_campaigns_lists_saves_and_flags_damaged_ones(tmp_path):
    """`cantina campaigns`: each save with its game and standing; a damaged file by name
    with its reason, and left as it was."""
    finished_campaign(tmp_path)
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": 2, "name": 7}')
    done = cantina("campaigns", "--save-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "Robots" in done.stdout and "Val-Des" in done.stdout and "game 2 of 3" in done.stdout
    assert "DAMAGED  broken.json" in done.stdout
    assert bad.read_text() == '{"format": 2, "name": 7}'


def test_replay_narrates_a_finished_round_as_it_was_played(tmp_path):
    """`cantina replay NAME 1`: the round again from its seed and moves, line for line the
    narration of playing it."""

    campaign = finished_campaign(tmp_path)
    game, moves = campaign.replay(1)
    narrate = Narrator([seat.name for seat in campaign.seats])
    events = list(game.opening_events) + play_moves(game, moves)
    expected = [line for line in map(narrate, events) if line]
    done = cantina("replay", "Robots", "1", "--save-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Robots, game 1:")
    assert lines[1:] == expected and len(expected) > 5


def test_resume_of_an_unknown_campaign_says_how_to_list_them(tmp_path):
    done = cantina("resume", "nothing-here", "--save-dir", str(tmp_path))
    assert done.returncode != 0
    assert "no campaign called 'nothing-here'" in done.stderr and "cantina campaigns" in done.stderr


# --- every command, given hostile arguments ------------------------------------------------

COMMANDS = {
    "sim",
    "tournament",
    "watch",
    "temperaments",
    "analyse-temperaments",
    "play",
    "campaigns",
    "resume",
    "replay",
    "serve",
    "",
}
"""Every subcommand, and "" for the bare `cantina` (the menu)."""

HOSTILE: list[tuple[tuple[str, ...], str]] = [
    # (arguments, what the one line on stderr says); {saves}, {file}, {missing} and {tmp}
    # are paths made by the fixture. None of these may start a table, the menu or a host.
    (
        ("sim", "valdes", "--seats", "Expert,Bold", "--ante", "-4"),
        "--ante must be 0 to 100, not -4",
    ),
    (("sim", "vigo", "--seats", "Expert,Bold", "--stake-limit", "101"), "must be 1 to 100"),
    (("sim", "victim", "--seats", "Expert,Bold,Bold", "--starting-health", "0"), "must be 1"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--ante", "1"), "--ante applies to Val-Des only"),
    (("sim", "valdes", "--seats", "Expert,Bold", "--starting-bank", "0"), "cover the ante of 1"),
    (("watch", "valdes", "--seats", "Bold,Bold", "--ante", "30"), "cover the ante of 30; only 0"),
    (("play", "valdes", "--starting-bank", "2", "--ante", "3"), "cover the ante of 3; only 0"),
    (("tournament", "valdes", "--games", "3", "--starting-bank", "0"), "cover the ante of 1"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--starting-bank", "0"), "bank of at least 1"),
    (("watch", "vigo", "--seats", "Bold,Bold", "--starting-bank", "0"), "bank of at least 1"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--ante", "x"), "--ante must be a whole number"),
    (
        ("sim", "vigo", "--seats", "Expert,Bold", "--games", "99999999999999999999"),
        "--games must be 1 to 1,000,000, not 99999999999999999999",
    ),
    (("sim", "vigo", "--seats", "Expert,Bold", "--games", "0"), "--games must be 1 to"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--games", "-5", "--json"), "--games must be"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--games", "lots"), "must be a whole number"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--games"), "--games needs a value"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--seed", "-1"), "--seed must be 0 to"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--seed", "9" * 30), "--seed must be 0 to"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--seed", "1" * 5000), "must be a whole number"),
    (("sim", "vigo", "--seats", "Expert,,Bold"), "--seats 'Expert,,Bold': seat 2 of 3 has no"),
    (("sim", "vigo", "--seats", "Expert,Bold,"), "seat 3 of 3 has no name"),
    (("sim", "vigo", "--seats", " "), "--seats names no seats"),
    (("sim", "vigo", "--seats", "Expert,Wookiee"), "no temperament 'Wookiee'"),
    (("sim", "vigo", "--seats", "Expert\nBold,Bold"), "no temperament 'Expert\\nBold'"),
    (("sim", "vigo", "--seats", ",".join(["Bold"] * 9)), "2 to 8 seats, not 9"),
    (("sim", "vigo", "--seats", ",".join(["Bold"] * 5000)), "2 to 8 seats, not 5000"),
    (("sim", "victim", "--seats", "Expert,Bold"), "exactly 3 seats, not 2"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--variants", "bribes"), "unknown variant"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--variants", "mercy,,"), "an empty entry"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--variants", "mercy,no-mercy"), "both mercy"),
    (("sim", "chess", "--seats", "Expert"), "there is no game 'chess'"),
    (("sim", "vigo"), "required: --seats"),
    (("sim", "vigo", "--seats", "Expert,Bold", "--nonsense"), "unrecognized arguments"),
    (("tournament", "vigo"), "required: --games"),
    (("tournament", "vigo", "--games", "0"), "--games must be 1 to 1,000,000, not 0"),
    (("tournament", "vigo", "--games", "9", "--jobs", "0"), "--jobs must be 1 to 256, not 0"),
    (("tournament", "vigo", "--games", "9", "--temperaments", "Bold,Wookiee"), "'Wookiee'"),
    (("tournament", "vigo", "--games", "-1"), "--games must be 1 to 1,000,000, not -1"),
    (("tournament", "vigo", "--games", "9" * 30), "--games must be 1 to 1,000,000"),
    (("tournament", "vigo", "--games", "nine"), "--games must be a whole number"),
    (("tournament", "vigo", "--games", "9", "--jobs", "-1"), "--jobs must be 1 to 256, not -1"),
    (("tournament", "vigo", "--games", "9", "--jobs", "257"), "--jobs must be 1 to 256"),
    (("tournament", "vigo", "--games", "9", "--jobs", "all"), "--jobs must be a whole number"),
    (("tournament", "vigo", "--games", "9", "--seed", "-1"), "--seed must be 0 to"),
    (("tournament", "vigo", "--games", "9", "--stake-limit", "0"), "--stake-limit must be 1"),
    (("tournament", "vigo", "--games", "9", "--ante", "1"), "--ante applies to Val-Des only"),
    (("watch", "vigo", "--seats", "Expert,Bold", "--delay", "-1"), "--delay must be 0 to 60"),
    (("watch", "vigo", "--seats", "Expert,Bold", "--delay", "nan"), "--delay must be 0 to 60"),
    (("watch", "vigo", "--seats", "Expert,Bold", "--delay", "1e400"), "--delay must be 0 to 60"),
    (("watch", "vigo", "--seats", "Expert,Bold", "--delay", "soon"), "a number of seconds"),
    (("watch", "vigo", "--seats", "you,Bold"), "--seats 'you' is a person's seat: sim and watch"),
    (("sim", "vigo", "--seats", "Bold,Human:Ann"), "--seats 'Human:Ann' is a person's seat"),
    (("watch", "valdes", "--seats", "Expert,Bold", "--ante", "1000"), "--ante must be 0 to 100"),
    (("temperaments", "Expert"), "unrecognized arguments: Expert"),
    (("play", "chess"), "there is no game 'chess'"),
    (("play", "vigo", "--seats", "you,,Bold"), "seat 2 of 3 has no name"),
    (("play", "vigo", "--seats", "you,Wookiee"), "no temperament 'Wookiee'"),
    (("play", "victim", "--seats", "you,Expert"), "exactly 3 seats, not 2"),
    (("play", "vigo", "--seats", "99"), "not 1 (--seats '99': name each seat, comma-separated)"),
    (("play", "vigo", "--seed", "-1"), "--seed must be 0 to"),
    (("play", "vigo", "--stake-limit", "0"), "--stake-limit must be 1 to 100, not 0"),
    (("play", "vigo", "--stake-limit", "-1"), "--stake-limit must be 1 to 100, not -1"),
    (("play", "vigo", "--stake-limit", "9" * 30), "--stake-limit must be 1 to 100"),
    (("play", "vigo", "--stake-limit", "high"), "--stake-limit must be a whole number"),
    (("play", "valdes", "--ante", "101"), "--ante must be 0 to 100, not 101"),
    (("play", "valdes", "--stake-limit", "5"), "--stake-limit applies to Vigo's Favor only"),
    (("play", "victim", "--starting-health", "0"), "--starting-health must be 1"),
    (("play", "vigo", "--seed", "9" * 30), "--seed must be 0 to"),
    (("play", "vigo", "--seed", "soon"), "--seed must be a whole number"),
    (("play", "vigo", "--variants", "bribes"), "unknown variant 'bribes'"),
    (("play", "vigo", "--save-dir", "{file}"), "--save-dir {file} is not a folder"),
    (("play", "vigo", "--save-dir", ""), "--save-dir must not be empty"),
    (("campaigns", "--save-dir", "{file}"), "is not a folder"),
    (("campaigns", "--import", ""), "--import must not be empty"),
    (("campaigns", "--import"), "--import needs a value"),
    (("campaigns", "--import", "{saves}/broken.json", "--save-dir", "{tmp}/new"), "damaged"),
    (("campaigns", "--import", "{missing}", "--save-dir", "{tmp}/new"), "there is no file"),
    (
        ("campaigns", "--import", "{saves}", "--save-dir", "{tmp}/new"),
        "is a folder; give a save's file",
    ),
    (
        ("campaigns", "--import", "{pipe}", "--save-dir", "{tmp}/new"),
        "is not a plain file (a pipe or a device); give a save's file",
    ),
    (("resume", "nothing", "--save-dir", "{saves}"), "no campaign called 'nothing'"),
    (("resume", "broken", "--save-dir", "{saves}"), "cannot resume a damaged save: broken.json"),
    (("resume", "alpha", "--save-dir", "{saves}"), "'alpha' could be any of: "),
    (("resume", "robots", "--save-dir", "{file}"), "is not a folder"),
    (("resume",), "required: name"),
    (("resume", ""), "name must not be empty"),
    (("replay", " "), "name must not be empty"),
    (("replay", "robots", "x", "--save-dir", "{saves}"), "round must be a whole number"),
    (("replay", "robots", "9" * 30, "--save-dir", "{saves}"), "no game"),
    (("replay", "robots", "0", "--save-dir", "{saves}"), "round must be 1 or more, not 0"),
    (("replay", "robots", "7", "--save-dir", "{saves}"), "no game 7 to replay (there are: 1)"),
    (("replay", "robots", "-1", "--save-dir", "{saves}"), "round must be 1 or more, not -1"),
    (("replay", "robots", "--delay", "-1", "--save-dir", "{saves}"), "--delay must be 0"),
    (("replay", "broken", "--save-dir", "{saves}"), "cannot replay a damaged save"),
    (("replay", "alpha", "--save-dir", "{saves}"), "give the file name"),
    (("replay", "robots", "7", "--analyse", "--save-dir", "{saves}"), "no game 7 to replay"),
    (("replay", "broken", "--analyse", "--save-dir", "{saves}"), "cannot analyse a damaged save"),
    (("replay", "robots", "--analyse", "--delay", "0"), "--delay paces the story, which --analyse"),
    (("analyse-temperaments", "valdes"), "Val-Des has nothing to measure"),
    (("analyse-temperaments", "chess"), "no game 'chess' to measure; choose from vigo, victim"),
    (("analyse-temperaments", "vigo", "vigo"), "vigo named more than once"),
    (("analyse-temperaments", "--games", "0"), "--games must be 2"),
    (("analyse-temperaments", "--games", "-2"), "--games must be 2"),
    (("analyse-temperaments", "--games", "9" * 30), "--games must be 2"),
    (("analyse-temperaments", "--games", "many"), "--games must be a whole number"),
    (("analyse-temperaments", "--seed", "-1"), "--seed must be 0 to"),
    (("analyse-temperaments", "--seed", "9" * 30), "--seed must be 0 to"),
    (("analyse-temperaments", "--seed", "x"), "--seed must be a whole number"),
    (("analyse-temperaments", "--temperaments", "Expert,expert"), "names Expert more than once"),
    (("analyse-temperaments", "--temperaments", ""), "--temperaments: names no temperaments"),
    (("analyse-temperaments", "--temperaments", " , "), "names no temperaments"),
    (("analyse-temperaments", "--temperaments", "Expert,,Bold"), "has an empty entry"),
    (("analyse-temperaments", "--games", "1"), "--games must be 2"),
    (("analyse-temperaments", "--temperaments", "Nobody"), "no temperament 'Nobody'"),
    (("serve", "--open", "--port", "99999"), "--port must be 0 to 65,535, not 99999"),
    (("serve", "--open", "--port", "-1"), "--port must be 0 to 65,535, not -1"),
    (("serve", "--open", "--max-sessions", "-1"), "--max-sessions must be 1 to 128, not -1"),
    (("serve", "--open", "--max-sessions", "0"), "--max-sessions must be 1 to 128, not 0"),
    (("serve", "--open", "--max-sessions", "100000"), "--max-sessions must be 1 to 128"),
    (("serve", "--open", "--per-address", "0"), "--per-address must be 1 to 128, not 0"),
    (("serve", "--open", "--tables-per-player", "x"), "--tables-per-player must be a whole"),
    (("serve", "--open", "--max-tables", "0"), "--max-tables must be 1 to 1,024, not 0"),
    (("serve", "--open", "--max-tables", "1025"), "--max-tables must be 1 to 1,024, not 1025"),
    (("serve", "--open", "--away-grace", "-1"), "--away-grace must be 0 to 3600 seconds"),
    (("serve", "--open", "--idle-timeout", "nan"), "--idle-timeout must be 10 to 604800"),
    (("serve", "--open", "--max-startups", "9:30:5"), "--max-startups must have 1 <= START"),
    (("serve", "--open", "--max-startups", "5:130:9"), "must have a RATE of 0 to 100"),
    (("serve", "--open", "--session-share", "2"), "--session-share must be 0 to 1 (seconds a"),
    (("serve", "--open", "--session-share", "-0.1"), "--session-share must be 0 to 1"),
    (("serve", "--open", "--address-share", "0"), "--address-share must be 0.01 to 1 (seconds"),
    (("serve", "--open", "--address-share", "lots"), "--address-share must be a number of"),
    (("serve", "--open", "--burst", "inf"), "--burst must be 0.01 to 10 seconds, not inf"),
    (("serve", "--open", "--strikes", "-1"), "--strikes must be 0 to 100, not -1"),
    (("serve", "--open", "--strikes", "101"), "--strikes must be 0 to 100, not 101"),
    (("serve", "--open", "--strikes", "two"), "--strikes must be a whole number, not 'two'"),
    (("serve", "--open", "--strikes"), "--strikes needs a value"),
    (("serve", "--open", "--strike-wait", "0"), "--strike-wait must be 1 to 3600 seconds, not 0"),
    (("serve", "--open", "--strike-wait", "nan"), "--strike-wait must be 1 to 3600 seconds"),
    (("serve", "--open", "--strike-wait", "1e9"), "--strike-wait must be 1 to 3600 seconds"),
    (("serve", "--open", "--strike-wait", "soon"), "--strike-wait must be a number of seconds"),
    (("serve", "--authorized-keys", "{missing}"), "--authorized-keys {missing} is not there"),
    (("serve", "--open", "--host-key", "{saves}"), "--host-key {saves} is not a file"),
    (("serve", "--open", "--host-key", "{missing}/key"), "the folder {missing} is not there"),
    (("serve", "--open", "--host-key", "{file}/key"), "the folder {file} is not a folder"),
    (("serve", "--open", "--host", ""), "--host must not be empty"),
    (("serve", "--open", "--save-dir", "{file}"), "is not a folder"),
    (
        ("serve", "--authorized-keys", "{file}", "--host-key", "{tmp}/key", "--port", "0"),
        "{file}: No valid entries found",
    ),
    (("serve", "--open", "--host-key", "{file}", "--port", "0"), "{file}: Invalid private key"),
    (("serve",), "nobody could get in"),
    (("serve", "--open", "--store", "mysql://db"), "'mysql://db' is neither memory nor a redis"),
    (("serve", "--open", "--store", "redis://127.0.0.1:6379/abc"), "the DB must be a number"),
    (("serve", "--open", "--store", "redis://127.0.0.1/0?db=x"), "the DB must be a number"),
    (("serve", "--open", "--store", "redis://127.0.0.1:port/0"), "the port is not a port"),
    (
        (
            "serve",
            "--open",
            "--host-key",
            "{tmp}/key",
            "--port",
            "0",
            "--store",
            "redis://127.0.0.1:1/0",
        ),
        "--store redis://127.0.0.1:1/0: Redis cannot be reached",
    ),
    (("serve", "--open", "--workers", "0"), "--workers must be 1 to"),
    (("serve", "--open", "--workers", "-3"), "--workers must be 1 to"),
    (("serve", "--open", "--workers", "100000"), "--workers must be 1 to"),
    (("serve", "--open", "--workers", "two"), "--workers must be a whole number, not 'two'"),
    (("serve", "--open", "--workers", "2"), "--workers 2 needs --store redis://HOST:PORT/DB"),
    (
        (
            "serve",
            "--open",
            "--host-key",
            "{tmp}/key",
            "--port",
            "0",
            "--workers",
            "2",
            "--store",
            "redis://127.0.0.1:1/0",
        ),
        "--store redis://127.0.0.1:1/0: Redis cannot be reached",
    ),
    (("--save-dir", "{file}"), "--save-dir {file} is not a folder"),
    (("--bogus",), "unrecognized arguments: --bogus"),
    (("bogus",), "there is no command 'bogus'; choose from sim, tournament, watch"),
]


@pytest.fixture(scope="module")
def hostile_paths(tmp_path_factory):
    """A save folder with a good campaign (Robots, one game played), two saves an older
    cantina let share the name Alpha, and a damaged one; a plain file; a missing path."""

    tmp = tmp_path_factory.mktemp("hostile")
    saves = tmp / "saves"
    finished_campaign(saves)
    store = Store(saves)
    for _ in range(2):
        campaign = Campaign.new(
            "Alpha", "vigo", seats_from_text("you,Expert"), VigoSettings(seats=2), rounds=2, seed=1
        )
        path = store.create(campaign)
        raw = json.loads(path.read_text())
        raw["name"] = raw["listing"]["name"] = "Alpha"  # made as two the same, as before
        path.write_text(json.dumps(raw))
    (saves / "broken.json").write_text('{"format": 2, "name": "Broken", "banks": "lots"}')
    (tmp / "a-file").write_text("hello\n")
    os.mkfifo(tmp / "a-pipe")  # read, it would wait for a writer that never comes
    return {
        "saves": saves,
        "file": tmp / "a-file",
        "missing": tmp / "missing",
        "tmp": tmp,
        "pipe": tmp / "a-pipe",
    }


def test_hostile_arguments_cover_every_command():
    assert {args[0] if args[0] in COMMANDS else "" for args, _ in HOSTILE} == COMMANDS
    assert COMMANDS - {""} == set(build_commands())


def build_commands() -> list[str]:

    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    return list(commands.choices)


@pytest.mark.parametrize(
    ("args", "says"), HOSTILE, ids=[" ".join(args)[:60] or "bare" for args, _ in HOSTILE]
)
def test_every_bad_argument_gets_one_clear_line(args, says, hostile_paths, tmp_path):
    """Each command, given something it cannot use: a non-zero status and one line on
    stderr that starts "cantina:" and says what is wrong in its own words: no traceback,
    no usage block, nothing of the validator's ("Expected `int`"). Nothing starts: stdin
    is closed and there is a time limit, so a table, menu or host left running fails."""
    paths = {key: str(value) for key, value in hostile_paths.items()}
    argv = [arg.format(**paths) for arg in args]
    done = subprocess.run(
        [sys.executable, "-m", "cantina", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={
            "COLUMNS": "120",
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "CANTINA_CONFIG_DIR": str(tmp_path / "config"),
            "CANTINA_SAVE_DIR": str(tmp_path / "saves"),
        },
    )
    lines = done.stderr.splitlines()
    assert done.returncode != 0, done.stdout
    if given_on_the_command_line(args):
        assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("cantina: "), done.stderr
    assert "Traceback" not in done.stderr and "Expected `" not in done.stderr
    assert says.format(**paths) in lines[0]
    assert done.stdout == ""


def given_on_the_command_line(args: tuple[str, ...]) -> bool:
    """Whether a hostile row's fault is in the command line alone: no path the fixture
    made (a save missing or damaged, a folder that is a file is something found, status
    1) and not `serve` (whose host checks are another's). Such a refusal is status 2
    whichever check makes it, argparse's or the command's own (seats, settings, names)."""
    return bool(args) and args[0] != "serve" and not any("{" in arg for arg in args)


def test_most_hostile_rows_are_command_line_faults_with_status_2():
    """The status check above covers every local command, not a few rows."""
    rows = [args for args, _ in HOSTILE if given_on_the_command_line(args)]
    assert {args[0] for args in rows} & COMMANDS == COMMANDS - {"serve", ""}
    assert len(rows) > 60


def test_analyse_temperaments_speaks_of_the_games_asked_for_only():
    """`analyse-temperaments vigo` reports Vigo's Favor alone: no Victim! block and no
    word of Val-Des (its table once closed with a Val-Des note, whatever was asked)."""
    for game, title, other in (("vigo", "Vigo's Favor", "Victim!"), ("victim", "Victim!", "Vigo")):
        done = cantina(
            "analyse-temperaments", game, "--games", "2", "--temperaments", "Expert,Rookie"
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == (
            f"cantina analyse-temperaments {game} --games 2 --seed 1 --temperaments Expert,Rookie"
        )
        assert lines[1].startswith(f"{title}: equity given up per decision")
        assert [line.split()[0] for line in lines[3:]] == ["Expert", "Rookie"]
        assert "Val-Des" not in done.stdout and other not in done.stdout


def test_a_save_folder_from_the_environment_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "a-file").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "cantina", "campaigns"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "CANTINA_SAVE_DIR": str(tmp_path / "a-file")},
    )
    assert done.returncode == 1
    assert done.stderr == f"cantina: CANTINA_SAVE_DIR {tmp_path / 'a-file'} is not a folder\n"


def test_a_blank_save_folder_from_the_environment_is_refused(tmp_path):
    """CANTINA_SAVE_DIR of spaces named a folder of spaces in the current one (`campaigns`
    said "No campaigns in   ."), where `--save-dir " "` is refused; empty is unset."""
    for command in ("campaigns", "resume", "replay"):
        args = [command] if command == "campaigns" else [command, "Robots"]
        done = subprocess.run(
            [sys.executable, "-m", "cantina", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CANTINA_SAVE_DIR": "  "},
        )
        assert done.returncode == 1, done.stdout
        assert done.stderr == (
            "cantina: CANTINA_SAVE_DIR is blank: name a folder, or unset it for the user "
            "data folder\n"
        )
        assert list(tmp_path.iterdir()) == []


def test_resume_and_replay_of_an_ambiguous_name_list_the_candidates(hostile_paths):
    saves = hostile_paths["saves"]
    for command in ("resume", "replay"):
        done = cantina(command, "ALPHA", "--save-dir", str(saves))
        assert done.returncode == 1
        assert done.stderr in (
            f"cantina: 'ALPHA' could be any of: Alpha ({a}), Alpha ({b}); give the file name\n"
            for a, b in (("alpha.json", "alpha-2.json"), ("alpha-2.json", "alpha.json"))
        )
    done = cantina("replay", "alpha-2.json", "1", "--save-dir", str(saves))
    assert done.returncode == 1 and "no round 1 to replay (there are: none yet)" in done.stderr


def test_campaigns_import_copies_a_save_and_leaves_the_file_alone(tmp_path):

    source = tmp_path / "from-a-friend.json"
    campaign = finished_campaign(tmp_path / "theirs")
    source.write_bytes((tmp_path / "theirs" / "robots.json").read_bytes())
    before = source.read_bytes()
    mine = tmp_path / "mine"
    finished_campaign(mine)  # a Robots here already
    done = cantina("campaigns", "--import", str(source), "--save-dir", str(mine))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Imported 'Robots' as 'Robots 2' (robots-2.json) into {mine}\n"
    assert source.read_bytes() == before
    copy = load(mine / "robots-2.json")
    assert copy.name == "Robots 2"
    assert copy.played == campaign.played == 1
    finished = [json.loads(p.read_text())["finished"] for p in (source, mine / "robots-2.json")]
    assert finished[0] == finished[1]
    listed = cantina("campaigns", "--save-dir", str(mine)).stdout
    assert "Robots 2" in listed and "Robots " in listed


# --- Ctrl-C during `sim` ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "units"), [("vigo", "laps"), ("valdes", "games"), ("victim", "matches")]
)
def test_a_run_stopped_by_ctrl_c_names_what_it_played_in_the_games_words(game, units):
    """`sim` and `tournament` say the same line when stopped; a Victim! run said
    "matchs" (its unit with an s) where the registry has "matches"."""
    assert stopped_line(game, 1234, 100000) == (
        f"cantina: stopped by Ctrl-C after 1,234 of 100,000 {units}; "
        "the results are for those 1,234"
    )
    assert stopped_line(game, 0, 5).endswith(f"0 of 5 {units}, none to report")


def test_ctrl_c_during_sim_reports_the_games_played_so_far(tmp_path):
    """Ctrl-C on a long `sim`, on a terminal: it stops after the game in play, prints the
    results of those played (the title says how many were asked for), says on stderr how
    many of how many were played, and ends with status 130, without a traceback."""

    master, slave = pty.openpty()
    command = ["sim", "vigo", "--games", "1000000", "--seats", "Expert,Bold,Cautious"]
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", *command, "--seed", "1"],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "120", "LINES": "40"},
    )
    os.close(slave)
    shown = PtyOutput(master)

    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the progress bar shows games played
            shown.read(0.2)
            counts = re.findall(rb"(\d+)/1000000", shown.data)
            if counts and int(counts[-1]) > 0:
                break
        else:
            raise AssertionError(f"no progress shown: {shown.data[-500:]!r}")
        process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and shown.read(0.5):  # to the end of its output
            pass
        status = process.wait(60)
        errors = process.stderr.read().decode()
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    text = shown.text()
    assert status == 130, errors
    assert "Traceback" not in errors + text
    line = errors.splitlines()
    assert len(line) == 1, errors
    played = re.fullmatch(
        r"cantina: stopped by Ctrl-C after ([\d,]+) of 1,000,000 laps; "
        r"the results are for those ([\d,]+)",
        line[0],
    )
    assert played and played[1] == played[2], line
    assert f"Vigo's Favor: {played[1]} laps (stopped; 1,000,000 asked for), seed 1" in text
    for words in ("Expert", "Cautious", "win rate", "Game statistics"):
        assert words in text


def test_analyse_temperaments_shows_its_progress_on_a_terminal_and_stops_on_ctrl_c():
    """`--games` takes up to a million, hours of work: on a terminal a bar on stderr counts
    the games measured of all asked for; Ctrl-C ends it with one line, no traceback."""
    master, slave = pty.openpty()
    command = [
        "analyse-temperaments",
        "vigo",
        "--games",
        "1000000",
        "--temperaments",
        "Bold,Cautious",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "120", "LINES": "40"},
    )
    os.close(slave)
    shown = PtyOutput(master)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            shown.read(0.2)
            counts = re.findall(rb"Measuring.*?(\d+)/2000000", shown.data)
            if counts and int(counts[-1]) > 0:
                break
        else:
            raise AssertionError(f"no progress shown: {shown.data[-500:]!r}")
        process.send_signal(signal.SIGINT)
        status = process.wait(60)
        while shown.read(0.2):
            pass
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert status == 130
    assert "Traceback" not in shown.text()
    assert "cantina: interrupted" in shown.text()


def test_a_stopped_sim_is_a_whole_result_of_the_games_played():
    """What `sim` reports after Ctrl-C: only whole games, counted as played, with how
    many were asked for (in --json too)."""

    seats = [temperament("Expert"), temperament("Bold")]
    asked = itertools.count()  # asked before each game: the eighth time, it says stop
    result = simulate(
        "valdes", seats, 100, 3, ValDesSettings(seats=2), stop=lambda: next(asked) >= 7
    )
    assert result.games == 7 and result.requested == 100 and result.stopped
    assert sum(s.wins for s in result.seats) == 7 and len(result.game_nets) == 7
    data = result.to_json()
    assert data["games"] == 7 and data["stopped"] == {"requested": 100}
    whole = simulate("valdes", seats, 7, 3, ValDesSettings(seats=2))
    assert not whole.stopped and "stopped" not in whole.to_json()
    assert whole.to_json()["seats"] == data["seats"], "the same seven games"


def test_max_sessions_is_bounded_by_the_connections_the_host_takes():
    assert Limits().max_connections == MAX_SESSIONS


def serve_refused(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`cantina serve --open` on a free port, with `args` and `env`, expected to stop at
    once (stdin closed, a time limit)."""
    argv = ["serve", "--open", "--host-key", str(tmp_path / "key"), "--port", "0", *args]
    env = {**os.environ, "HOME": str(tmp_path), "CANTINA_CONFIG_DIR": str(tmp_path), **env}
    return cantina(*argv, env=env)


@needs_redis
def test_a_redis_that_refuses_the_host_is_one_line(redis_server, tmp_path):  # noqa: F811
    """A Redis that answers, but refuses the host: a DB it has not (99999 of 16), no
    password where it wants one, a wrong one. Each is one line saying why, status 1, no
    traceback, whether one host or workers start on it, and the password is not shown."""
    port = redis_server.port
    redis.Redis(port=port).config_set("requirepass", "sekrit")
    cases = [
        ((), f"redis://:sekrit@127.0.0.1:{port}/99999", "(DB index is out of range)"),
        (("--workers", "2"), f"redis://:sekrit@127.0.0.1:{port}/99999", "(DB index is out"),
        ((), f"redis://127.0.0.1:{port}/0", "(it wants a password: redis://:PASSWORD@HOST"),
        ((), f"redis://:wrong@127.0.0.1:{port}/0", "(invalid username-password pair"),
    ]
    for workers, url, why in cases:
        done = serve_refused(tmp_path, *workers, "--store", url)
        assert done.returncode == 1, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("cantina: --store redis://") and "Redis refused the host" in line
        assert why in line and "sekrit" not in line and "wrong" not in line


@pytest.mark.parametrize(
    ("store", "says"),
    [
        ("mysql://db", "cantina: CANTINA_STORE: 'mysql://db' is neither memory nor a redis"),
        ("redis://127.0.0.1:1/0", "cantina: --store redis://127.0.0.1:1/0: Redis cannot be"),
    ],
)
def test_the_store_may_come_from_the_environment(store, says, tmp_path):
    """CANTINA_STORE is the store when --store is not given (a password stays out of the
    process list): checked as --store is, and used (nothing listens on port 1)."""
    done = serve_refused(tmp_path, CANTINA_STORE=store)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(says)


@pytest.mark.parametrize("command", [(), ("play", "vigo", "--seed", "1")])
def test_the_app_with_no_terminal_says_so_in_one_line(command, tmp_path):
    """Seen playing: `cantina resume NAME > file` opened the whole app with no terminal,
    wrote its frames into the file and ran on, unseen, at most of a core, until killed. A
    command that opens the app and has no terminal for its input or output says so and
    stops (this test's commands have neither: output captured, input /dev/null)."""
    done = cantina(*command, "--save-dir", str(tmp_path))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"cantina: {NO_TERMINAL}\n"
