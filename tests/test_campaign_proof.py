"""A save proves itself: on load the campaign is played again from its seed, roster,
settings and moves, and a save whose banks, winners, luck, table or dice differ from that
replay is refused, untouched (one test per hand edit found by issue 14). Round seeds derive
from the campaign's seed and what the campaign is, so an AI seat handed to a person, or a
new seed, deals other dice than the moves were played with."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cantina.campaign.errors import Damaged
from cantina.campaign.store import Store, load

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import drive, new_campaign

FIXTURES = Path(__file__).parent / "fixtures"
Doc = dict[str, Any]


def _save(tmp_path: Path, game: str, decisions: int, rounds: int = 6) -> Path:
    store = Store(tmp_path)
    path = store.create(new_campaign(game, 31, rounds))
    with store.open(path) as session:
        drive(session.campaign, decisions, lambda *_: None)
    return path


def _mid_round(tmp_path: Path, game: str, *, finished: int) -> Path:
    """A save with `finished` rounds done and moves made in the next one."""
    path = _save(tmp_path, game, 0)
    with Store(tmp_path).open(path) as session:
        campaign = session.campaign
        while campaign.played < finished or not json.loads(bytes(campaign.data.table.moves)):
            drive(campaign, 1, lambda *_: None)
    return path


def _refused(path: Path, edit: Callable[[Doc], None], field: str, words: str) -> Damaged:
    """Edit the save by hand; loading it must refuse it, naming `field`, and leave it be
    (then it is put back as it was, for the next edit)."""
    whole = path.read_bytes()
    doc = json.loads(whole)
    assert load(path), "whole before the edit"
    edit(doc)
    path.write_text(json.dumps(doc, indent=1))
    before = path.read_bytes()
    with pytest.raises(Damaged) as caught:
        load(path)
    assert caught.value.field == field, str(caught.value)
    assert words in caught.value.reason, str(caught.value)
    assert path.read_bytes() == before
    path.write_bytes(whole)
    return caught.value


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_an_ai_random_source_written_into_a_save_is_refused(tmp_path: Path, game: str) -> None:
    """Nothing in the file holds the AI's random source (each decision's is derived from
    the round's seed), so one added by hand is a field a save does not have."""
    path = _mid_round(tmp_path, game, finished=1)

    def add(doc: Doc) -> None:
        doc["table"]["ai_dice"] = {"version": 3, "internal": [1] * 625, "gauss": None}

    _refused(path, add, "$.table", "has a field it should not: 'ai_dice'")


def test_a_format_2_ai_random_source_edited_or_deleted_steers_nothing(tmp_path: Path) -> None:
    """Format 2 kept the AI's source in the file: it is read no more. Edited or deleted,
    the resumed AI chooses as it does with the file as it was."""
    fixture = FIXTURES / "campaign-format-2-valdes.json"
    doc = json.loads(fixture.read_bytes())
    assert doc["table"]["ai_dice"] is not None
    choices = []
    for change in ("keep", "edit", "delete"):
        if change == "edit":
            doc["table"]["ai_dice"]["internal"][0] ^= 0xFFFF
        if change == "delete":
            del doc["table"]["ai_dice"]
        path = tmp_path / f"{change}.json"
        path.write_text(json.dumps(doc))
        campaign = load(path)
        table = campaign.table()
        made = []
        for _ in range(20):
            if table.game.pending is None:
                table.next_game()
            move = table.ai_move()
            made.append(move)
            table.submit(table.game.pending.seat, move)
        choices.append(made)
    assert choices[0] == choices[1] == choices[2]


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
@pytest.mark.parametrize("finished", [0, 2])
def test_a_new_seed_with_the_table_deleted_is_refused(
    tmp_path: Path, game: str, finished: int
) -> None:
    path = _mid_round(tmp_path, game, finished=finished)

    def reseed(doc: Doc) -> None:
        doc["seed"] += 1
        doc["table"] = None

    if finished:  # the rounds played were dealt from the old seed
        _refused(path, reseed, "$.finished[0].start.seed", "edited")
    else:  # nothing played: the round in progress cannot simply vanish
        _refused(path, reseed, "$.table", "edited: missing, yet the campaign is not over")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_a_new_seed_alone_is_refused(tmp_path: Path, game: str) -> None:
    path = _mid_round(tmp_path, game, finished=0)
    _refused(path, lambda doc: doc.update(seed=doc["seed"] + 1), "$.table.start.seed", "edited")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_banks_raised_before_any_round_finished_are_refused(tmp_path: Path, game: str) -> None:
    path = _mid_round(tmp_path, game, finished=0)

    def rich(doc: Doc) -> None:
        doc["banks"] = [999_999_999] * len(doc["banks"])

    _refused(path, rich, "$.banks", "edited: banks differ from the replay of its rounds")

    def richer(doc: Doc) -> None:  # the banks, the table's, and where they began, all at once
        doc["banks"] = [999_999_999] * len(doc["banks"])
        doc["table"]["start"]["banks"] = doc["banks"]
        doc["starting_bank"] = 999_999_999

    _refused(path, richer, "$.table.start.seed", "edited")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_the_whole_history_deleted_with_the_banks_kept_is_refused(
    tmp_path: Path, game: str
) -> None:
    path = _mid_round(tmp_path, game, finished=2)
    doc = json.loads(path.read_bytes())
    assert doc["banks"] != [doc["starting_bank"]] * len(doc["banks"]), "the rounds moved money"

    def forget(doc: Doc) -> None:
        doc["finished"] = []

    _refused(path, forget, "$.banks", "edited: banks differ from the replay of its rounds")


@pytest.mark.parametrize("field", ["winners", "expected", "actual"])
@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_forged_standings_are_refused(tmp_path: Path, game: str, field: str) -> None:
    path = _mid_round(tmp_path, game, finished=2)

    def forge(doc: Doc) -> None:
        record = doc["finished"][1]
        record[field] = (
            [0] if field == "winners" and record[field] != [0] else [1] * len(doc["roster"])
        )
        if field != "winners":
            record[field] = [v + 5.0 for v in record[field]]

    _refused(path, forge, f"$.finished[1].{field}", f"edited: {field} differ from the replay")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
@pytest.mark.parametrize("finished", [0, 2])
def test_an_ai_seat_handed_to_a_person_is_refused(tmp_path: Path, game: str, finished: int) -> None:
    path = _mid_round(tmp_path, game, finished=finished)

    def hand_over(doc: Doc) -> None:
        doc["roster"][1]["temperament"] = None

    field = "$.finished[0].start.seed" if finished else "$.table.start.seed"
    _refused(path, hand_over, field, "edited")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_a_misspelt_setting_is_refused_not_read_as_its_default(tmp_path: Path, game: str) -> None:
    path = _mid_round(tmp_path, game, finished=1)
    doc = json.loads(path.read_bytes())
    key = next(iter(doc["settings"]))

    def misspell(doc: Doc) -> None:
        doc["settings"][key + "x"] = doc["settings"].pop(key)

    _refused(path, misspell, f"$.settings.{key}x", "is not a setting of this game")


def test_other_edits_of_the_record_are_refused(tmp_path: Path) -> None:
    """Who held the title, the end of a campaign, unknown fields anywhere."""
    path = _mid_round(tmp_path, "vigo", finished=2)
    _refused(
        path,
        lambda doc: doc["finished"][1]["start"].update(vigo=2),
        "$.finished[1].start.vigo",
        "edited",
    )
    _refused(path, lambda doc: doc.update(ended="Bold ran off"), "$.ended", "does not end it")
    _refused(path, lambda doc: doc.update(notes="hi"), "$", "has a field it should not")
    _refused(
        path,
        lambda doc: doc["finished"][0]["moves"][0].update(action={"type": "Nope"}),
        "$.finished[0].moves[0].action.type",
        "is none of the values allowed",
    )
    _refused(
        path,
        lambda doc: doc["finished"][0]["moves"][0]["action"].update(extra=1),
        "$.finished[0].moves",
        "hold a field no move has",
    )
    _refused(
        path,
        lambda doc: doc["finished"][0]["start"].update(extra=1),
        "$.finished[0].start",
        "has a field it should not",
    )


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_format_2_saves_still_load_and_play_on(game: str) -> None:
    """Saves the last cantina wrote (format 2, made by it): mid-round or between rounds,
    they load, and play goes on to the campaign's end."""
    campaign = load(FIXTURES / f"campaign-format-2-{game}.json")
    assert campaign.data.format == 3 and campaign.played == 2
    assert campaign.data.legacy_rounds == 2 + (game != "victim")
    table = campaign.table()
    while not campaign.over:
        if table.game.pending is None:
            table.next_game()
        table.submit(table.game.pending.seat, table.ai_move())
    assert campaign.played == campaign.data.rounds


def test_a_format_2_save_with_a_new_seed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_bytes((FIXTURES / "campaign-format-2-vigo.json").read_bytes())

    def reseed(doc: Doc) -> None:
        doc["seed"] += 1
        doc["table"] = None

    _refused(path, reseed, "$.finished[0].start.seed", "edited")


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_a_setting_deleted_or_changed_is_refused(tmp_path: Path, game: str) -> None:
    """Read with its default, a deleted setting would change the game: the round seeds
    bind the settings as the file holds them."""
    path = _mid_round(tmp_path, game, finished=1)
    doc = json.loads(path.read_bytes())
    key = [k for k in doc["settings"] if k != "seats"][-1]
    _refused(path, lambda doc: doc["settings"].pop(key), "$.finished[0].start.seed", "edited")
    if isinstance(doc["settings"][key], bool):
        changed: object = not doc["settings"][key]
    else:
        changed = doc["settings"][key] + 1
    _refused(
        path,
        lambda doc: doc["settings"].update({key: changed}),
        "$.finished[0].start.seed",
        "edited",
    )
