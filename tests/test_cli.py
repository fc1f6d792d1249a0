"""The `cantina` command line, run as a real subprocess: sim, watch, temperaments, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cantina.games import events as common
from cantina.narration import Narrator


def cantina(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cantina", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"},
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
        (("sim", "chess", "--seats", "Expert"), "invalid choice"),
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
    from cantina.campaign.series import Campaign
    from cantina.campaign.store import Store
    from cantina.games.valdes import ValDesSettings
    from cantina.seating import seats_from_text

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
    from cantina.games.table import play_moves

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
