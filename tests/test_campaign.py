"""Campaigns (CA-1, CA-2): rounds in a series, carried banks, saves that resume exactly."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cantina.campaign.check import Damaged
from cantina.campaign.errors import Ambiguous, CampaignError, NameTaken, NotFound
from cantina.campaign.series import Campaign, constitution, round_seed, rounds_for
from cantina.campaign.store import InUse, Store, load
from cantina.games.table import play_moves
from cantina.games.vigo import VigoSettings
from cantina.seating import seats_from_text

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign

DRIVER = Path(__file__).parent / "campaign_driver.py"


def play_out(campaign: Campaign, n: int = -1) -> list[bytes]:
    events: list[bytes] = []
    drive(campaign, n, lambda _count, e: events.append(e))
    return events


def test_ca1_vigo_title_passes_each_round_and_banks_carry() -> None:
    """CA-1, VF-11: one lap of three seats: each seat is Vigo once, each round starts with
    the banks the last one left, and the campaign stops after the lap."""
    campaign = Campaign.new(
        "lap",
        "vigo",
        seats_from_text("Expert,Bold,Cautious"),
        VigoSettings(seats=3),
        rounds=3,
        seed=21,
    )
    play_out(campaign)
    rounds = campaign.data.finished
    assert campaign.over and len(rounds) == 3
    assert [r.start.vigo for r in rounds] == [0, 1, 2]
    assert rounds[0].start.banks == [20, 20, 20]
    for before, after in itertools.pairwise(rounds):
        assert after.start.banks == before.banks
    assert sum(rounds[-1].banks) == 60, "credits only move between seats"
    assert [s.vigo for s in campaign.standings()] == [1, 1, 1]
    with pytest.raises(ValueError, match="over"):
        campaign.table()


def test_ca1_house_vigo_keeps_the_title() -> None:
    """CA-1, VF-13: with a House Vigo the title never moves."""
    settings = VigoSettings(seats=3, house_vigo=True)
    seats = seats_from_text("Expert,Bold,Cautious")
    campaign = Campaign.new("house", "vigo", seats, settings, rounds=4, seed=5)
    play_out(campaign)
    assert [r.start.vigo for r in campaign.data.finished] == [0, 0, 0, 0]


def test_ca1_vigo_campaign_ends_when_only_one_seat_can_play() -> None:
    """CA-1, VF-11: a campaign also ends once only one seat has credits left."""
    campaign = Campaign.new(
        "broke",
        "vigo",
        seats_from_text("Reckless,Reckless"),
        VigoSettings(seats=2, starting_bank=2),
        rounds=200,
        seed=3,
    )
    play_out(campaign)
    assert campaign.over and len(campaign.data.finished) < 200
    assert sum(1 for bank in campaign.banks if bank) == 1
    assert "can still play" in (campaign.data.ended or "")


def test_ca1_val_des_ante_winnings_carry() -> None:
    """CA-1: each game's pot goes to its winner's bank, and the next game antes from it."""
    campaign = new_campaign("valdes", seed=8, rounds=3)
    play_out(campaign)
    games = campaign.data.finished
    assert len(games) == 3
    for record in games:
        winner = record.winners[0]
        pot = 3  # three seats ante 1
        assert record.banks[winner] == record.start.banks[winner] - 1 + pot
    assert [g.start.scorekeeper for g in games] == [0, 1, 2], "the Scorekeeper moves round"


def test_ca1_victim_match_stake_and_rematch_health() -> None:
    """CA-1, VI-2: all three pay the match stake, the winner takes it; the last match's
    Victim starts the next with one more health."""
    campaign = new_campaign("victim", seed=4, rounds=2)
    play_out(campaign)
    first, second = campaign.data.finished
    for record in (first, second):
        winner = record.winners[0]
        assert record.banks[winner] == record.start.banks[winner] + 2
        assert sorted(record.banks) == sorted(record.banks)  # three entries
        assert sum(record.banks) == sum(record.start.banks)
    game, _moves = campaign.replay(2)
    last_victim = campaign.replay(1)
    done, moves = last_victim
    play_moves(done, moves)
    assert game.state.health[done.result.victim] == 6
    assert sorted(game.state.health) == [5, 5, 6]


def test_luck_is_what_each_seat_got_beyond_the_odds() -> None:
    """Val-Des luck: correct calls minus half the calls made (no call has an edge)."""
    campaign = new_campaign("valdes", seed=2, rounds=1)
    play_out(campaign)
    record = campaign.data.finished[0]
    assert record.expected == [
        sum(1 for m in json.loads(bytes(record.moves)) if m["seat"] == s) / 2 for s in range(3)
    ]
    luck = [s.luck for s in campaign.standings()]
    assert luck == [a - e for a, e in zip(record.actual, record.expected, strict=True)]


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_every_finished_round_replays_from_its_seed_and_moves(game: str) -> None:
    campaign = new_campaign(game, seed=13, rounds=2)
    play_out(campaign)
    for record in campaign.data.finished:
        start, moves = campaign.replay(record.start.number)
        play_moves(start, moves)
        assert start.pending is None
        assert campaign.banks_after(record.start, start) == record.banks


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_ca2_resume_in_a_new_process_continues_exactly(game: str, tmp_path: Path) -> None:
    """CA-2: play some decisions in one process (autosaving), continue in another, and
    the events are those of a run that never saved; the AI too chooses as it would have."""
    rounds = 6 if game == "vigo" else 3
    never_saved = play_out(new_campaign(game, seed=31, rounds=rounds))
    assert len(never_saved) > 8
    path = Path(run_driver("create", tmp_path, game, "31", rounds).strip())
    first = run_driver("play", path, len(never_saved) // 2).splitlines()
    second = run_driver("play", path, "-1").splitlines()
    assert first[0] == second[0] == "ready"
    lines = first[1:] + second[1:]
    assert [line.split(" ", 1)[1].encode() for line in lines] == never_saved
    assert [int(line.split(" ", 1)[0]) for line in lines] == list(range(1, len(lines) + 1))
    assert load(path).over


def run_driver(*args: object) -> str:
    done = subprocess.run(
        [sys.executable, str(DRIVER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_second_process_cannot_open_a_campaign_in_play(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.create(new_campaign("valdes", seed=1, rounds=2))
    with store.open(path):
        done = subprocess.run(
            [sys.executable, str(DRIVER), "play", str(path), "1"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode != 0
        assert "open in another cantina" in done.stderr and str(os.getpid()) in done.stderr
        with pytest.raises(InUse):
            store.open(path)
    with store.open(path):  # released on close
        pass


def test_saves_are_readable_json_with_a_format(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.create(new_campaign("valdes", seed=6, rounds=3))
    with store.open(path) as session:
        drive(session.campaign, 4, lambda *_: None)
    data = json.loads(path.read_text())
    assert data["format"] == 3 and data["game"] == "valdes"
    assert [seat["name"] for seat in data["roster"]] == ["Expert", "Reckless", "Rookie"]
    assert data["table"]["state"]["dice"]["internal"], "the random source is saved"
    assert len(data["table"]["moves"]) == 4
    assert decisions(load(path)) == 4


def test_names_never_collide_and_damaged_files_are_left_alone(tmp_path: Path) -> None:
    store = Store(tmp_path)
    first = store.create(new_campaign("valdes", seed=1, rounds=1))
    second = store.create(new_campaign("valdes", seed=1, rounds=1))
    assert first != second and first.name == "valdes-1.json" and second.name == "valdes-1-2.json"
    broken = tmp_path / "broken.json"
    broken.write_bytes(first.read_bytes()[:-40])
    before = broken.read_bytes(), broken.stat().st_mtime_ns
    entries = store.entries()
    assert {e.path.name for e in entries if e.campaign} == {first.name, second.name}
    (bad,) = [e for e in entries if e.problem]
    assert bad.path == broken and "broken.json" in str(bad.problem)
    with pytest.raises(Damaged):
        store.open(broken)
    assert (broken.read_bytes(), broken.stat().st_mtime_ns) == before


def test_migrates_a_format_1_save(tmp_path: Path) -> None:
    """A hand-written format-1 file (players, seeds and moves, no table state) loads as
    the same campaign the current code builds, and is not rewritten by reading it."""
    fixture = Path(__file__).parent / "fixtures" / "campaign-format-1.json"
    path = tmp_path / fixture.name
    path.write_bytes(fixture.read_bytes())
    campaign = load(path)
    assert campaign.name == "Old friends" and campaign.game == "vigo"
    assert [s.name for s in campaign.seats] == ["Ana", "Expert", "Bold"]
    assert campaign.seats[0].human and campaign.seats[1].temperament == "Expert"
    assert campaign.played == 1 and campaign.data.table is not None
    first = campaign.data.finished[0]
    assert first.start.seed == 777 and first.start.vigo == 0
    assert sum(first.banks) == 60 and campaign.data.table.start.banks == first.banks
    table = campaign.table()
    assert table.game.state.round == 2 and len(table.moves) == 1
    assert path.read_bytes() == fixture.read_bytes()
    assert campaign.data.created == "2026-10-02T20:15:00+00:00"


def test_a_new_campaign_keeps_the_limits_a_save_is_loaded_with() -> None:
    """A campaign that could not be loaded again is refused when it is made."""
    with pytest.raises(ValueError, match="rounds"):
        Campaign.new(
            "Too long",
            "vigo",
            seats_from_text("you,Expert"),
            VigoSettings(seats=2),
            rounds=5000,
            seed=1,
        )


def test_vf11_a_lap_is_every_seat_once_and_vf13_house_vigo_counts_rounds() -> None:

    assert rounds_for("vigo", VigoSettings(seats=3), 3, 2) == 6
    assert rounds_for("vigo", VigoSettings(seats=3, house_vigo=True), 3, 2) == 2
    house = Campaign.new(
        "House",
        "vigo",
        seats_from_text("you,Expert,Bold"),
        VigoSettings(seats=3, house_vigo=True),
        rounds=2,
        seed=1,
    )
    assert house.where() == "round 1 of 2", "no laps when the title never passes"


def test_campaign_names_are_cleaned_when_made_and_renamed(tmp_path: Path) -> None:
    """Other players see a campaign's name (at a shared table): no control or format
    characters, whether it was typed at the start or in a rename."""
    store = Store(tmp_path)
    campaign = Campaign.new(
        "Bad\x1b[2J\u202ename",
        "vigo",
        seats_from_text("you,Expert"),
        VigoSettings(seats=2),
        rounds=2,
        seed=1,
    )
    assert campaign.name == "Bad[2Jname"
    path = store.create(campaign)
    store.rename(path, "x\x9b31m" + "y" * 60)
    renamed = load(path).name
    assert renamed.startswith("x31my") and len(renamed) == 40


# --- names in a folder, import and export ------------------------------------------------


def named(name: str) -> Campaign:
    return Campaign.new(
        name, "vigo", seats_from_text("you,Expert"), VigoSettings(seats=2), rounds=2, seed=1
    )


def files(folder: Path) -> dict[str, bytes]:
    """Every file in a folder (hidden ones too) and what it holds: what a refused change
    must leave exactly as it was."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_new_campaign_with_a_name_taken_is_numbered(tmp_path: Path) -> None:
    """Names are unique in a folder, in any case and after cleaning: a second "Campaign"
    (what the setup screen offers) is "Campaign 2", a third "Campaign 3"; files too."""
    store = Store(tmp_path)
    paths = [store.create(named(name)) for name in ("Campaign", "campaign", " CAMPAIGN\x1b ")]
    assert [load(p).name for p in paths] == ["Campaign", "campaign 2", "CAMPAIGN 3"]
    assert [p.name for p in paths] == ["campaign.json", "campaign-2.json", "campaign-3.json"]
    long = store.create(named("L" * 40))
    longer = store.create(named("L" * 40))
    assert load(longer).name == "L" * 38 + " 2" and longer != long


def test_a_damaged_save_keeps_its_name_when_it_can_be_read(tmp_path: Path) -> None:
    store = Store(tmp_path)
    (tmp_path / "broken.json").write_text('{"format": 2, "name": "Friday", "banks": "x"}')
    assert load(store.create(named("friday"))).name == "friday 2"


def test_renaming_to_a_name_taken_is_refused_and_changes_nothing(tmp_path: Path) -> None:

    store = Store(tmp_path)
    first = store.create(named("Friday Club"))
    second = store.create(named("Saturday"))
    before = files(tmp_path)
    with pytest.raises(NameTaken, match=r"another campaign is called 'friday club' \(friday"):
        store.rename(second, "  friday   club ")
    assert issubclass(NameTaken, CampaignError)
    assert files(tmp_path) == before
    store.rename(first, "FRIDAY CLUB")  # its own name, in another case, is no clash
    assert load(first).name == "FRIDAY CLUB"


def test_find_refuses_an_ambiguous_name_and_lists_the_candidates(tmp_path: Path) -> None:
    """Folders from before names were unique (or a file named like another campaign) can
    hold two saves a name fits: each is listed, and the file name picks one."""

    store = Store(tmp_path)
    first = store.create(named("Alpha"))
    second = store.create(named("Beta"))
    raw = json.loads(second.read_text())
    raw["name"] = raw["listing"]["name"] = "alpha"  # as an older cantina let it be
    second.write_text(json.dumps(raw))
    os.utime(first, (1_000_000, 1_000_000))  # listed after the other, newest first
    with pytest.raises(Ambiguous) as found:
        store.find("ALPHA")
    assert str(found.value) == (
        "'ALPHA' could be any of: alpha (beta.json), Alpha (alpha.json); give the file name"
    )
    assert store.find("alpha.json") == first and store.find("beta") == second
    with pytest.raises(NotFound):
        store.find("gamma")
    with pytest.raises(NotFound):
        store.find("  ")


def test_import_copies_a_checked_save_under_a_name_and_file_of_its_own(tmp_path: Path) -> None:
    """An import is checked like any save, numbered when its name is taken, gets a new
    file, and leaves the file it came from as it was."""
    folder, elsewhere = tmp_path / "saves", tmp_path / "elsewhere"
    store = Store(folder)
    store.create(named("Friday Club"))
    source = Store(elsewhere).create(named("Friday Club"))
    with Store(elsewhere).open(source) as session:
        session.campaign.table()  # a round in progress travels too
    before = source.read_bytes(), source.stat().st_mtime_ns
    imported = store.import_file(source)
    assert (imported.was, imported.name) == ("Friday Club", "Friday Club 2")
    assert imported.path == folder / "friday-club-2.json"
    assert str(imported) == "'Friday Club' as 'Friday Club 2' (friday-club-2.json)"
    copy = load(imported.path)
    assert copy.name == "Friday Club 2" and copy.data.table is not None
    assert copy.data.seed == load(source).data.seed
    assert (source.read_bytes(), source.stat().st_mtime_ns) == before
    again = store.import_file(source)
    assert again.name == "Friday Club 3" and again.path.name == "friday-club-3.json"


def test_import_migrates_an_older_save(tmp_path: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "campaign-format-1.json"
    imported = Store(tmp_path).import_file(fixture)
    assert imported.name == "Old friends" and imported.path.name == "old-friends.json"
    assert json.loads(imported.path.read_text())["format"] == 3
    assert load(imported.path).played == 1


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"format": 2, "name": "x", "banks": "lots"}', "$.banks"),
        (b"not json at all", "not a cantina save"),
        (b'{"format": 99}', "newer cantina"),
        (None, "cannot be read"),
    ],
)
def test_a_damaged_import_is_refused_and_writes_nothing(
    tmp_path: Path, content: bytes | None, where: str
) -> None:
    folder = tmp_path / "saves"
    store = Store(folder)
    store.create(named("Kept"))
    source = tmp_path / "incoming.json"
    if content is not None:
        source.write_bytes(content)
    before = files(folder)
    with pytest.raises(Damaged) as refused:
        store.import_file(source)
    assert refused.value.file == "incoming.json" and where in str(refused.value)
    assert "Expected `" not in str(refused.value), "the schema's words, for people"
    assert files(folder) == before
    if content is not None:
        assert source.read_bytes() == content


def test_an_export_after_a_rename_carries_the_new_name(tmp_path: Path) -> None:
    """The save keeps the file name it was made with; its exported copy holds the new
    name, and into a folder is named after it (numbered beside a file of that name)."""
    store = Store(tmp_path / "saves")
    path = store.create(named("Old Name"))
    store.rename(path, "New Name")
    out = tmp_path / "out"
    out.mkdir()
    first = store.export(path, out)
    second = store.export(path, out)
    assert (first.name, second.name) == ("new-name.json", "new-name-2.json")
    assert path.name == "old-name.json"
    for copy in (first, second):
        assert copy.read_bytes() == path.read_bytes() and load(copy).name == "New Name"
    named_file = tmp_path / "mine.json"
    assert store.export(path, named_file) == named_file

    with pytest.raises(CampaignError, match="never replaces"):
        store.export(path, named_file)


def test_find_knows_a_damaged_save_by_its_name_when_that_can_be_read(tmp_path: Path) -> None:
    """A save from a newer cantina, or with a field at fault, still names its campaign:
    asked for by that name it is found (and then refused as damaged, saying why), not
    reported missing ("no campaign called 'Friday'")."""
    store = Store(tmp_path)
    store.create(named("Saturday"))
    newer = tmp_path / "from-the-future.json"
    newer.write_text('{"format": 99, "name": "Friday", "banks": "x"}')
    (tmp_path / "garbled.json").write_text('{"format": 2, "na')
    assert store.find("FRIDAY") == newer
    with pytest.raises(Damaged, match=r"from-the-future.json: \$.format: made by a newer"):
        store.open(store.find("Friday"))
    with pytest.raises(NotFound):
        store.find("garbled name")


def test_a_campaign_given_a_new_seed_keeps_its_rounds_begun_and_deals_on_from_it(tmp_path):
    """As it is set at a shared table (`Campaign.reseed`): the finished round keeps its
    seed, the round only dealt is dealt again from the new seed, and the save, loaded and
    played on, passes every check; once a move is made, a new seed changes nothing."""
    store = Store(tmp_path)
    path = store.create(new_campaign("vigo", 3, 4))
    new_seed = 2**62 + 12345
    with store.open(path) as session:
        campaign = session.campaign
        while campaign.played < 1:
            drive(campaign, 1, lambda *_: None)
        dealt = campaign.data.table
        assert dealt is not None and json.loads(bytes(dealt.moves)) == []
        first = campaign.data.finished[0].start.seed
        assert campaign.reseed(new_seed)
        assert campaign.data.seed == new_seed and campaign.data.legacy_rounds == 1
        assert campaign.data.finished[0].start.seed == first
        again = campaign.data.table
        assert again is not None and again.start.number == 2
        assert again.start.seed == round_seed(new_seed, 2, constitution(campaign.data))
        assert again.start.seed != dealt.start.seed
        assert campaign.setup().seed == again.start.seed
        session.save()
    reloaded = load(path)  # checked whole: round 1 from the old seed, round 2 the new one
    assert reloaded.data.seed == new_seed and reloaded.data.legacy_rounds == 1
    with store.open(path) as session:
        drive(session.campaign, 3, lambda *_: None)
        under_way = session.campaign.data.table
        assert not session.campaign.reseed(1)
        assert session.campaign.data.table == under_way
        assert session.campaign.data.seed == new_seed
    assert decisions(load(path)) == decisions(reloaded) + 3


def test_replay_without_a_number_tells_the_round_under_way_once_begun(tmp_path: Path) -> None:
    """`cantina replay NAME` tells "the last" round: the one under way once a move is made
    in it (as the standings' replay offers, and as "there are: 1, 2" lists), not the last
    finished one, which left a player who stopped mid-round shown the round before."""
    store = Store(tmp_path)
    path = store.create(new_campaign("valdes", 5, 3))
    with store.open(path) as session:
        campaign = session.campaign
        while campaign.played < 1 or campaign.replayable()[-1] != 2:
            drive(campaign, 1, lambda *_: None)
    assert campaign.played == 1 and campaign.replayable() == [1, 2]
    done = subprocess.run(
        [sys.executable, "-m", "cantina", "replay", campaign.name, "--delay", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "CANTINA_SAVE_DIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{campaign.name}, game 2:"), lines[0]
    assert lines[-1] == "(the game is still in progress)"


def test_an_export_into_a_folder_that_is_not_there_names_the_folder(tmp_path: Path) -> None:
    """Exporting to a file in a folder that is not there said only "the folder is not
    there", leaving the player to guess which of the path's folders; it names it now, and
    makes nothing."""
    store = Store(tmp_path / "saves")
    path = store.create(named("Duo"))
    missing = tmp_path / "exports" / "2026"
    with pytest.raises(CampaignError) as raised:
        store.export(path, missing / "duo.json")
    assert str(raised.value) == f"there is no folder {missing}"
    assert not (tmp_path / "exports").exists()
