"""The rules screen, and the rules texts: our own words, naming every mechanic.

The source rule texts are CC BY-NC-ND, so the product may implement their mechanics but must
not contain their prose. `test_no_source_prose_in_our_rules` checks every sentence and every
run of 8 consecutive words of the sources against our markdown; it needs `shared/rules/`
beside the repository (as in CI) and skips where that is missing.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Markdown, TabbedContent

from cantina.games import GAMES
from screens.rules import TITLES, RulesScreen, rules_text

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "rules"
SOURCE_FILES = ("vigos-favor.txt", "val-des.txt", "victim.txt")
SHINGLE = 8
"""Words in a row that may never be shared with a source text."""


# --- the screen ---------------------------------------------------------------------------


class RulesApp(App[None]):
    """Pushes one RulesScreen and records when it is dismissed."""

    def __init__(self, game_id: str | None) -> None:
        super().__init__()
        self.game_id = game_id
        self.rules_closed = False

    def on_mount(self) -> None:
        self.push_screen(RulesScreen(self.game_id), callback=self.note_closed)

    def note_closed(self, result: None) -> None:
        self.rules_closed = True


def pilot_test(scenario: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Runs an async Pilot scenario as a plain test: the project has no pytest async plugin."""

    @functools.wraps(scenario)
    def test() -> None:
        asyncio.run(scenario())

    return test


def screen_text(app: App[None]) -> str:
    """The characters on the terminal, row by row, as the user sees them."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


@pilot_test
async def test_one_game_shows_its_title_and_rules_and_escape_goes_back():
    app = RulesApp("vigo")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        shown = screen_text(app)
        assert "Rules: Vigo's Favor" in shown
        assert "At the table" in shown
        assert "esc" in shown and "Back" in shown  # the footer lists the way out
        assert screen.focused is not None and screen.focused.id == "rules-vigo"

        # keyboard scrolling reaches the last section
        scroll = screen.query_one("#rules-vigo")
        assert scroll.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert "In this cantina" in screen_text(app)
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0

        # switching games belongs to the index only: left/right do nothing here
        await pilot.press("right", "3")
        await pilot.pause()
        assert app.screen is screen and "Rules: Vigo's Favor" in screen_text(app)

        await pilot.press("escape")
        await pilot.pause()
        assert app.rules_closed and not isinstance(app.screen, RulesScreen)


@pilot_test
async def test_q_also_goes_back():
    app = RulesApp("victim")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Rules: Victim!" in screen_text(app)
        await pilot.press("q")
        await pilot.pause()
        assert app.rules_closed


@pilot_test
async def test_the_index_switches_games_from_the_keyboard():
    app = RulesApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        tabs = screen.query_one(TabbedContent)
        shown = screen_text(app)
        assert "Rules of the cantina" in shown
        assert all(name in shown for name in TITLES.values())  # the three tabs
        assert tabs.active == "vigo" and "One seat is the Vigo" in shown

        await pilot.press("right")
        await pilot.pause()
        assert tabs.active == "valdes" and screen.current_game == "valdes"
        assert "Val for red" in screen_text(app)
        assert screen.focused is not None and screen.focused.id == "rules-valdes"

        await pilot.press("down", "down", "pagedown")  # arrows scroll the game on show
        await pilot.pause()
        assert screen.query_one("#rules-valdes").scroll_y > 0

        await pilot.press("right")
        await pilot.pause()
        assert tabs.active == "victim" and "three-seat duel" in screen_text(app)
        await pilot.press("right")  # wraps around
        await pilot.pause()
        assert tabs.active == "vigo"
        await pilot.press("left")
        await pilot.pause()
        assert tabs.active == "victim"
        await pilot.press("2")
        await pilot.pause()
        assert tabs.active == "valdes"
        await pilot.press("1")
        await pilot.pause()
        assert tabs.active == "vigo"

        await pilot.press("escape")
        await pilot.pause()
        assert app.rules_closed and not isinstance(app.screen, RulesScreen)


@pilot_test
async def test_every_game_renders_its_markdown():
    app = RulesApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for game_id in TITLES:
            markdown = app.screen.query_one(f"#rules-{game_id} Markdown", Markdown)
            assert markdown.source == rules_text(game_id)


def test_rules_text_names_the_game_and_rejects_unknown_ids():
    for game_id, name in TITLES.items():
        assert rules_text(game_id).startswith(f"# {name}\n")
    with pytest.raises(ValueError, match="no rules for 'poker'"):
        rules_text("poker")
    with pytest.raises(ValueError):
        RulesScreen("poker")


# --- the texts: our own words -------------------------------------------------------------


def words(text: str) -> list[str]:
    """Lower-case words, punctuation and markdown markup dropped, so rewording is what counts."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)*", text)


def shingles(text: str, size: int = SHINGLE) -> set[tuple[str, ...]]:
    found = words(text)
    return {tuple(found[i : i + size]) for i in range(len(found) - size + 1)}


def sentences(text: str, least: int = SHINGLE) -> list[str]:
    """The source's sentences and lines of `least` or more words, whitespace-normalised."""
    pieces = re.split(r"(?<=[.!?])\s+|\n+", text)
    found = [" ".join(piece.split()).lower() for piece in pieces]
    return [piece for piece in found if len(piece.split()) >= least]


def ours() -> dict[str, str]:
    return {game_id: rules_text(game_id) for game_id in TITLES}


def flat(markdown: str) -> str:
    """Our markdown as plain prose: markup gone, whitespace normalised, lower case."""
    return " ".join(re.sub(r"[*_`#|>]", "", markdown).split()).lower()


def copied(source: str, target: str) -> list[str]:
    """What of `source` appears in `target`: whole sentences, then 8-word runs."""
    plain = flat(target)
    hits = [sentence for sentence in sentences(source) if sentence in plain]
    hits += [" ".join(run) for run in sorted(shingles(source) & shingles(target))]
    return hits


def test_the_copy_check_catches_copying():
    """Not vacuous: a copied sentence, or 8 copied words inside new ones, is caught."""
    source = "Every player who guesses the colour of the cube correctly wins a point today."
    assert copied(source, "# Rules\n\nEvery player who guesses the colour of the cube")
    assert copied(source, "Note: *every* player who guesses the **colour** of the cube, wins.")
    assert copied(source, source.upper())
    assert not copied(source, "A right call about the cube's colour earns one point.")


@pytest.mark.skipif(
    not SOURCES.is_dir(),
    reason=f"the source rule texts are not here ({SOURCES}); CI has shared/ beside the repo",
)
def test_no_source_prose_in_our_rules():
    texts = ours()
    for name in SOURCE_FILES:
        source = (SOURCES / name).read_text(encoding="utf-8")
        assert len(sentences(source)) > 10, f"{name} looks empty or unreadable"
        for game_id, text in texts.items():
            hits = copied(source, text)
            assert not hits, f"{game_id}.md repeats {name}: {hits[:5]}"


@pytest.mark.skipif(
    not SOURCES.is_dir(),
    reason=f"the source rule texts are not here ({SOURCES}); CI has shared/ beside the repo",
)
def test_no_credits_franchise_or_flavour_names_in_our_rules():
    """Names from the sources' credits, ownership notice and setting flavour never appear.

    The names are read from the sources, so this file does not repeat them either.
    """
    marked = re.compile(r"^(designer|graphics):|owned by|planet|moons|may the", re.IGNORECASE)
    ordinary = {"this", "the", "for", "may", "designer", "graphics", "don't", "please"}
    names: set[str] = set()
    for name in SOURCE_FILES:
        for line in (SOURCES / name).read_text(encoding="utf-8").splitlines():
            if marked.search(line):
                names.update(
                    word.lower()
                    for word in re.findall(r"\b[A-Z][A-Za-z']{2,}", line)
                    if word.lower() not in ordinary
                )
    assert len(names) >= 8, names  # designers, artists, owners, places
    for game_id, text in ours().items():
        used = names & set(words(text))
        assert not used, f"{game_id}.md names {sorted(used)}"


# --- the texts: complete -------------------------------------------------------------------

MECHANICS = {
    "vigo": (
        "Vigo",
        "favor",
        "stake",
        "ante",
        "Claim",
        "Challenge",
        "Split",
        "Roll again",
        "1, 2 or 3 stakes",
        "Rising Stakes",
        "House Vigo",
        "Mercy",
        "Vigo's bank, not the pot",
        "Stake limit",
        "odds readout",
        "In this cantina",
    ),
    "valdes": (
        "Val",
        "Des",
        "red",
        "blue",
        "Caster",
        "Scorekeeper",
        "Calls are public",
        "calls last",
        "Seven regulation sets",
        "streak",
        "2 bonus points",
        "Tie-break",
        "only those leaders",
        "Ante",
        "In this cantina",
    ),
    "victim": (
        "Attacker",
        "Supporter",
        "Victim",
        "Left",
        "Right",
        "Support",
        "Sabotage",
        "Neutral",
        "d12",
        "double 6",
        "double 1",
        "names the seat your card targets",
        "1 health",
        "Rotation",
        "rematch",
        "6 when",
        "Starting health",
        "Rematch bonus",
        "odds readout",
        "In this cantina",
    ),
}


@pytest.mark.parametrize("game_id", list(TITLES))
def test_each_text_names_its_mechanics(game_id):
    text = rules_text(game_id)
    missing = [term for term in MECHANICS[game_id] if term.lower() not in flat(text)]
    assert not missing, f"{game_id}.md never mentions {missing}"


@pytest.mark.parametrize("game_id", list(TITLES))
def test_each_text_reads_on_a_small_terminal(game_id):
    """Short enough to page through, lines that fit 80 columns, ending on the settings."""
    lines = rules_text(game_id).splitlines()
    assert 60 <= len(lines) <= 130
    assert max(map(len, lines)) <= 78
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[-1] == "## In this cantina"


def setting_lines(text: str) -> dict[str, str]:
    """The bullets of the text's last section, "In this cantina", by their bold title
    (lower case), each with its continuation lines joined."""
    section = text[text.index("## In this cantina") :]
    bullets = re.findall(r"^- \*\*([^*]+)\*\*:(.*(?:\n  .*)*)", section, re.MULTILINE)
    return {title.lower(): " ".join(said.split()) for title, said in bullets}


@pytest.mark.parametrize("game_id", list(TITLES))
def test_each_text_gives_the_defaults_the_setup_offers(game_id):
    """Every setting the table's setup offers is listed under "In this cantina" with the
    value a new table starts with (Val-Des's ante is 1 there, not the rules' 0)."""
    listed = setting_lines(rules_text(game_id))
    for setting in GAMES[game_id].choices():
        said = next((s for title, s in listed.items() if setting.title.lower() in title), None)
        assert said is not None, f"{game_id}.md lists no {setting.title!r}: {sorted(listed)}"
        if setting.kind is bool:
            default = f"{'on' if setting.default else 'off'} unless changed"
        else:
            default = f"{setting.default} unless changed"
        assert default in said, f"{game_id}.md: {setting.title!r} says {said!r}, not {default!r}"
