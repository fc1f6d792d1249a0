"""Play that explains itself, at 80 x 24: the result of eight seats fits (and scrolls), the
result gives the table back and comes back, the log follows the game while open, leaving
a game under way asks first, the hot-seat hand-off tells the turn everyone saw, no dead
keys, a cue when a person's turn comes round, the seed and the variants on show."""

from __future__ import annotations

import pytest
from test_chat import CAROL, INSTANT, hosted
from test_no_color import picture
from textual.content import Content
from textual.geometry import Region
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static
from waiting import until_drawn

from cantina.app import CantinaApp
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store
from cantina.dealer import ASKING, OVER
from cantina.games.events import Rolled
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import Planned, VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.lobby import Lobby, Player, SharedTable
from cantina.pace import Pace
from cantina.seating import Seat, TableSetup, seats_from_text
from screens.backroom import LobbyScreen, names_line, people_line, table_line
from screens.dialogs import ConfirmScreen, HandOffScreen, HistoryScreen
from screens.dice import FaceDie
from screens.menu import MenuScreen
from screens.result import ResultScreen
from screens.review import ReviewScreen
from screens.rules import RulesScreen
from screens.table import TableScreen
from screens.table_widgets import Line, SeatList
from screens.textual_compat import FooterKey

SIZE = (80, 24)
EIGHT = "you,Expert,Bold,Cautious,Reckless,Rookie,Loyal,Superstitious"


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


def app_at(game: str, settings, seats: str, seed: int, pace: float = 0) -> CantinaApp:
    setup = TableSetup(game, settings, seats_from_text(seats), seed)
    return CantinaApp(start=setup, animation_speed=0, pace=pace, save_preferences=False)


def eight_seats() -> CantinaApp:
    """The table a newcomer tried: eight seats of Vigo's Favor with Vigo's Mercy."""
    return app_at("vigo", VigoSettings(seats=8, mercy=True), EIGHT, 11)


async def to_the_result(pilot, app: CantinaApp) -> None:
    """Stake 1, then hurry and take the first option of whatever else comes."""
    await until_drawn(
        pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting_human
    )
    await pilot.press("1")
    for _ in range(600):
        await pilot.pause()
        if isinstance(app.screen, ResultScreen):
            return
        if isinstance(app.screen, TableScreen) and app.screen.awaiting_human:
            await pilot.press("1")
    raise AssertionError("no result came")


def inside(widget, size=SIZE) -> bool:
    region = widget.region
    return region.x >= 0 and region.y >= 0 and region.right <= size[0] and region.bottom <= size[1]


async def test_the_result_of_eight_seats_fits_and_scrolls():
    """Every part of the result dialog is on the screen at 80 x 24 with eight seats: the
    headline, the buttons; the standings, moments and seed (its command, eight seats
    long, takes lines) scroll where they do not all fit."""
    app = eight_seats()
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        result = app.screen
        for part in ("#result", "#headline", "#result-body", "#again", "#back"):
            assert inside(result.query_one(part)), part
        body = result.query_one("#result-body")
        standings = result.query_one("#standings", Static)
        assert standings.virtual_region.height == 8  # every seat, to scroll to if need be
        assert body.virtual_size.height > body.size.height and body.max_scroll_y > 0
        seed = result.query_one("#result-seed", Static)
        assert "--seats you,Expert,Bold" in str(seed.render())
        body.scroll_end(animate=False)
        await pilot.pause()
        assert inside(seed), "scrolled to"


async def test_a_val_des_result_says_1_point_and_keeps_the_banks_in_a_column():
    """Seen in a play-test: a Val-Des result read "Player 2   1 points". Seed 4 leaves
    the person on 1 point; the banks stay in one column."""
    app = app_at("valdes", ValDesSettings(seats=4, ante=1), "you,Expert,Bold,Cautious", 4)
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        rows = str(app.screen.query_one("#standings", Static).render()).splitlines()
        assert rows[0].split()[-5:-3] == ["1", "point"]  # the person's seat, first
        assert all(" 1 points" not in row for row in rows)
        assert len({row.index("bank") for row in rows}) == 1


async def test_a_val_des_result_shows_each_banks_change_this_game():
    """Seen in a play-test: the Val-Des result gave each bank but not what the game did
    to it, as the other games' results do ("bank   12  (+3)"): the ante paid, the pot
    won. The first game's banks start at the starting bank (20), so the change is the
    bank less 20, the changes sum to nothing, and every row fits 80 columns."""
    app = app_at("valdes", ValDesSettings(seats=4, ante=1), "you,Expert,Bold,Cautious", 4)
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        banks = app.screen.table.game.state.banks
        standings = app.screen.query_one("#standings", Static)
        rows = str(standings.render()).splitlines()
        assert len(rows) == 4
        for bank, row in zip(banks, rows, strict=True):
            assert row.endswith(f"bank {bank:>4}  ({bank - 20:+d})"), row
        assert sum(banks) == 4 * 20 and any(bank != 20 for bank in banks)
        drawn = "\n".join("".join(row) for row in picture(app).text)
        for row in rows:
            assert row.rstrip() in drawn, row  # whole, inside the dialog at 80 x 24


def test_snapshot_result_of_eight_seats(snap_compare):
    async def play(pilot):
        await to_the_result(pilot, pilot.app)

    assert snap_compare(eight_seats(), terminal_size=SIZE, run_before=play)


async def test_the_next_result_is_the_kept_dialog_drawn_as_a_new_one():
    """A table's screen keeps its result dialog: at the next game's end the same dialog
    is shown again, and draws what a new one made for that game draws (the headline,
    standings, moments and seed of that game, scrolled to its top, its focus where a new
    one has it), though the last was left scrolled down with its other button focused.
    Leaving the table takes it down."""
    app = eight_seats()
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        kept = app.screen
        assert isinstance(kept, ResultScreen)
        table = app.screen_stack[-2]
        assert isinstance(table, TableScreen)
        first_words = str(kept.query_one("#standings", Static).render())
        body = kept.query_one("#result-body")
        body.scroll_end(animate=False)
        kept.query_one("#back", Button).focus()
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("n")
        for _ in range(600):  # this seat may have no say in the next round
            await pilot.pause()
            if table.table.number == 2 and app.screen is kept:
                break
            if app.screen is table and table.awaiting_human:
                await pilot.press("1")
        assert app.screen is kept and table.table.number == 2
        assert str(kept.query_one("#standings", Static).render()) != first_words
        shown = picture(app)
        focused = kept.focused.id if kept.focused else None
        await pilot.press("escape")  # the table as the game left it; then a new dialog
        await pilot.pause()
        state = table.game.state
        new = ResultScreen(table.table).for_game(
            table.place, table.result_headline(state), table.result_rows(state), table.seed_line()
        )
        app.push_screen(new)
        await pilot.pause()
        assert app.screen is new
        assert (new.focused.id if new.focused else None) == focused
        assert picture(app) == shown
        new.dismiss(None)
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is kept
        await pilot.press("b")
        await until_drawn(pilot, lambda: not kept.is_attached)
        assert not app.is_screen_installed(kept) and not table.is_attached


async def test_the_result_gives_the_table_back_and_comes_back():
    """Esc on the result shows the table as the game left it, saying which keys bring the
    result back or play on; `l` on the result opens the whole story, then the result."""
    app = eight_seats()
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        prompt = str(table.query_one("#prompt").render())
        assert "round is over" in prompt and "r shows the result" in prompt
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert app.screen.lines[0].startswith("Seed 11: ")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen), "the log closes back to the result"
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is table and table.table.number == 2


async def test_a_table_is_styled_once_as_it_opens_and_looks_as_restyled():
    """A table's screen is styled as its widgets mount, not restyled whole as it is first
    shown (Textual's push_screen asks for that: some 15 ms of a host's loop in one step for
    each table opened); it looks as a restyled one does, after its result too and after a
    new theme chosen meanwhile."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    restyled = restyles(app)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        await pilot.pause()
        assert table not in restyled
        await looks_as_restyled(pilot, table)
        await to_the_result(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table
        await looks_as_restyled(pilot, table)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table
        await looks_as_restyled(pilot, table)


async def test_a_games_result_is_styled_once_as_it_opens_and_looks_as_restyled():
    """The result that opens at each game's end is styled as its widgets mount, not
    restyled whole as Textual's push_screen asks (some 11 ms of a host's loop a game), and
    looks as a restyled one does, after a new theme too."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    restyled = restyles(app)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        await to_the_result(pilot, app)
        result = app.screen
        assert isinstance(result, ResultScreen)
        await pilot.pause()
        assert result not in restyled
        await looks_as_restyled(pilot, result)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await looks_as_restyled(pilot, result)


def layouts_of(screen_class: type[Screen], app: CantinaApp, monkeypatch) -> list[object]:
    """Each layout of every `screen_class` screen made from now on, as it is done."""
    done: list[object] = []
    made = screen_class.__init__

    def counted(self, *args, **kwargs) -> None:
        made(self, *args, **kwargs)
        self.screen_layout_refresh_signal.subscribe(app, done.append, immediate=True)

    monkeypatch.setattr(screen_class, "__init__", counted)
    return done


async def test_a_games_result_comes_laid_out_once_with_its_footer_keys(monkeypatch):
    """The result that opens at each game's end is laid out once as it opens and once as
    its widgets settle, not five times: its footer's keys come with it (Textual's footer
    mounts them after the first layout, which lays the screen out again), and the resize
    it sends itself from its first layout does not lay it and the table behind it out
    once more. Every layout of the result draws the table behind it, tinted: some 20 ms
    of a host's loop at every game's end. It looks as one laid out anew does."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    laid_out = layouts_of(ResultScreen, app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        await to_the_result(pilot, app)
        for _ in range(5):
            await pilot.pause()
        result = app.screen
        assert len(laid_out) <= 2, laid_out
        shown = [key.description for key in result.query(FooterKey)]
        assert shown == ["New game", "Log", "Analysis", "See the table", "Leave"]
        await looks_as_restyled(pilot, result)


async def test_a_table_is_not_laid_out_again_by_its_own_resize(monkeypatch):
    """A table's screen, opened, is laid out as it opens and as its widgets and footer
    keys settle (three times), not once more for the resize it sends itself from its
    first layout (some 3 ms of a host's loop at each table opened)."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    laid_out = layouts_of(TableScreen, app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        await until_drawn(pilot, lambda: table.awaiting_human)
        opened = len(laid_out)
        await looks_as_restyled(pilot, table)
        assert opened <= 3, opened


def restyles(app: CantinaApp) -> list[object]:
    """The nodes `app` restyles whole from now on, as it does them."""
    restyled: list[object] = []
    plain = app.update_styles

    def update_styles(node, animate: bool = True) -> None:
        restyled.append(node)
        plain(node, animate)

    app.update_styles = update_styles  # type: ignore[method-assign]
    return restyled


async def looks_as_restyled(pilot, table: Screen) -> None:
    """The table looks as it does once restyled (what Textual does as it is shown again)."""
    kept = picture(pilot.app)
    table.update_node_styles(animate=False)
    table.refresh(layout=True)
    await pilot.pause()
    assert picture(pilot.app) == kept


async def test_a_finished_victim_match_says_so_in_its_header():
    """The header said 'the Supporter picks a target and a die in secret' after the end."""
    app = app_at("victim", VictimSettings(), "Expert,Bold,Cautious", 3)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("escape")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        status = str(table.query_one("#status-bar").render())
        assert status.startswith("Victim! · the match is over after "), status
        assert "in secret" not in status
        assert "match is over" in str(table.query_one("#prompt").render())


async def test_the_log_follows_the_game_while_it_is_open():
    """The log holds the whole game from its first line and grows as the game goes on
    with it open."""
    app = app_at("vigo", VigoSettings(seats=3), "Expert,Cautious,Bold", 5, pace=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        await pilot.pause()
        log = app.screen
        assert isinstance(log, HistoryScreen)
        table = app.screen_stack[-2]
        seen = len(log.lines)
        await until_drawn(pilot, lambda: len(log.lines) > seen + 2)
        assert log.lines == table.log_widget.lines
        assert log.lines[0].startswith("Seed 5: ")


def test_snapshot_the_whole_game_log(snap_compare):
    async def open_log(pilot):
        await to_the_result(pilot, pilot.app)
        await pilot.press("l")  # from the result: the story of the whole round
        await pilot.pause()

    app = app_at("vigo", VigoSettings(seats=4), "you,Expert,Bold,Cautious", 2)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_log)


async def test_leaving_a_game_under_way_asks_first():
    """Esc at a table, and ctrl+q anywhere, ask when a game is under way: no stays, yes
    leaves. Once the game is over, Esc on the table leaves without a question."""
    app = eight_seats()
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: app.screen.awaiting_human)
        table = app.screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "not over, and it will be lost" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is table
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Quit the cantina?")
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is table and app.return_code is None
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)


async def test_a_game_that_is_over_is_left_without_a_question():
    app = eight_seats()
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        await pilot.press("escape")  # the result gives the table back
        await pilot.press("escape")  # and the table is left at once
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)


def test_snapshot_leave_confirmation(snap_compare):
    async def ask(pilot):
        await until_drawn(pilot, lambda: getattr(pilot.app.screen, "awaiting_human", False))
        await pilot.press("escape")
        await pilot.pause()

    assert snap_compare(eight_seats(), terminal_size=SIZE, run_before=ask)


HOT_SEAT = ("victim", VictimSettings(), "human:Ana,human:Bo,Expert", 3)


async def second_hand_off(pilot, app: CantinaApp) -> HandOffScreen:
    """Play the secret choices of a two-person Victim! table until a hand-off comes after
    a secret choice was made (the first comes before any)."""
    handoffs = 0
    for _ in range(600):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, HandOffScreen):
            handoffs += 1
            if handoffs == 2:
                return screen
            await pilot.press("enter")
        elif isinstance(screen, TableScreen) and screen.awaiting_human:
            await pilot.press("1")
    raise AssertionError(f"no hand-off after a turn ({handoffs} seen)")


async def test_esc_on_the_hot_seat_hand_off_asks_and_leaves_with_the_table_covered():
    """Esc on the hand-off asks about leaving over it (the secret stays covered): no
    keeps the hand-off; yes leaves the table. Its button says so."""
    app = app_at(*HOT_SEAT)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, HandOffScreen))
        handoff = app.screen
        assert "press Enter (Esc leaves)" in str(handoff.query_one("#ready", Button).label)
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen_stack[-2] is handoff, "asked over the hand-off"
        await pilot.press("n")
        await until_drawn(pilot, lambda: app.screen is handoff)
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until_drawn(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_the_hot_seat_hand_off_tells_the_turn_everyone_saw():
    """After a secret choice, the next hand-off (which covers the table) tells what
    everyone saw of that turn: the cards revealed and the battle."""
    app = app_at(*HOT_SEAT)
    async with app.run_test(size=SIZE) as pilot:
        handoff = await second_hand_off(pilot, app)
        said = "\n".join(handoff.seen)
        assert "reveals" in said and "Battle:" in said
        table = app.screen_stack[-2]
        assert handoff.seen == table.log_widget.lines[-len(handoff.seen) :], (
            "the lines the table told since the first hand-off"
        )


def test_snapshot_hot_seat_hand_off(snap_compare):
    async def play(pilot):
        await second_hand_off(pilot, pilot.app)

    assert snap_compare(app_at(*HOT_SEAT), terminal_size=SIZE, run_before=play)


def footer_keys(app: CantinaApp) -> set[str]:
    return {key.key for key in app.screen.query(FooterKey)}


async def test_no_dead_keys_where_nobody_chooses():
    """At a table where nobody here chooses (only AI seats), the footer offers no
    choosing and no odds; where a person plays, it does."""
    watched = app_at("valdes", ValDesSettings(seats=2, ante=1), "Expert,Bold", 4)
    async with watched.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = footer_keys(watched)
        assert "1" not in keys and "o" not in keys and "space" in keys
    played = app_at("valdes", ValDesSettings(seats=2, ante=1), "you,Bold", 4)
    async with played.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert {"1", "o", "space"} <= footer_keys(played)


def footer_row(app: CantinaApp) -> str:
    """The footer's row as drawn."""
    return "".join(picture(app).text[SIZE[1] - 1])


async def test_a_games_end_swaps_its_footer_keys_in_place_and_every_key_fits():
    """At a game's end `a Analysis`, `n Play on` and `r Result` take the places of
    `1-9 Choose`, `space Hurry` and `o Odds` (which cannot act then: `1-9 Choose` went on
    showing with nothing left to choose), and the next game puts those back: the same key
    widgets, swapped where they are, not the footer's keys made anew (some 30 ms of a
    host's loop at every game's end and start), and at 80 columns every key is whole,
    `esc Leave` too (with both pairs shown it was cut off). `a` opens the Review."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        await until_drawn(pilot, lambda: table.awaiting_human)
        playing = list(table.query(FooterKey))
        assert [key.key for key in playing][:3] == ["1", "space", "o"]
        await to_the_result(pilot, app)
        await pilot.press("escape")
        await until_drawn(pilot, lambda: app.screen is table)
        await pilot.pause()
        assert list(table.query(FooterKey)) == playing, "the same keys, none made anew"
        assert [key.key for key in playing][:3] == ["a", "n", "r"]
        row = footer_row(app)
        for words in ("a Analysis", "n Play on", "r Result", "l Log", "f1 Rules", "esc Leave"):
            assert words in row, (words, row)
        assert "Choose" not in row and "1-9" not in row, row
        await pilot.press("a")
        await until_drawn(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("escape")
        await until_drawn(pilot, lambda: app.screen is table)
        await pilot.press("n")
        await until_drawn(pilot, lambda: table.awaiting_human)
        assert list(table.query(FooterKey)) == playing
        assert [key.key for key in playing][:3] == ["1", "space", "o"]
        assert "space Hurry  o Odds" in footer_row(app)


@pytest.mark.parametrize("key", ["question_mark", "f1"])
async def test_help_on_a_result_opens_the_games_rules_as_at_the_table(key):
    """`?` (and f1) on a game's result did nothing; it opens the game's rules, as the
    table's `?` does, and leaving them comes back to the result."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    async with app.run_test(size=SIZE) as pilot:
        await to_the_result(pilot, app)
        result = app.screen
        await pilot.press(key)
        await until_drawn(pilot, lambda: isinstance(app.screen, RulesScreen))
        assert app.screen.game_id == "valdes"
        await pilot.press("escape")
        await until_drawn(pilot, lambda: app.screen is result)


@pytest.mark.parametrize("bell", [True, False])
async def test_a_persons_turn_after_ai_turns_is_cued(bell: bool):
    """When a person's turn comes round after the AI seats have played, the decision bar
    stands out a moment (with animation on) and, if the player keeps it on, the bell
    rings."""
    app = app_at("victim", VictimSettings(), "you,Expert,Treacherous", 11)
    app.preferences.bell = bell
    app.animation_speed = 1.0  # the flash is an animation: off with them
    rung: list[None] = []
    app.bell = lambda: rung.append(None)  # the terminal's bell, counted
    async with app.run_test(size=SIZE) as pilot:
        table = None
        for _ in range(600):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, TableScreen) and screen.awaiting_human:
                if screen.table.moves:  # asked again after the AI seats' moves
                    table = screen
                    break
                await pilot.press("1")
        assert table is not None
        assert table.bar.has_class("-cue")
        prompt = table.query_one("#prompt", Line)
        (row,) = prompt.render_lines(Region(0, 0, prompt.size.width, 1))
        assert all(s.style and s.style.reverse and s.style.bold for s in row if s.text.strip())
        assert len(rung) == (1 if bell else 0)


async def test_the_table_shows_its_seed_its_variants_and_health_against_the_start():
    app = app_at("victim", VictimSettings(starting_health=4), "you,Expert,Treacherous", 6)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: app.screen.awaiting_human)
        table = app.screen
        assert table.log_widget.lines[0] == (  # its settings too (the usual seats unsaid)
            "Seed 6: `cantina play victim --seed 6 --starting-health 4` deals these dice again."
        )
        assert str(table.query_one("#variants").render()) == "Health 4 · Rematch bonus"
        assert str(table.query_one("#health-0").render()).endswith(" 4/4")
    mercy = app_at("vigo", VigoSettings(seats=3, mercy=True), "you,Expert,Bold", 6)
    async with mercy.run_test(size=SIZE) as pilot:
        await pilot.pause()
        variants = str(mercy.screen.query_one("#variants").render())
        assert variants == "Stake limit 5 · Vigo's Mercy"  # the usual starting bank unsaid
        seed = "`cantina play vigo --seed 6 --seats you,Expert,Bold --variants mercy`"
        assert seed in mercy.screen.log_widget.lines[0]  # the seats said: not the usual four
    rich = app_at("valdes", ValDesSettings(seats=3, ante=2, starting_bank=40), "you,Expert,Bold", 6)
    async with rich.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(rich.screen.query_one("#variants").render()) == "Ante 2 · Starting bank 40"


async def test_the_odds_line_is_drawn_whole_at_80_columns():
    """Six Victim! options with their win chances: the last one kept its number and lost
    its figure at 80 columns ('6: 26%' without 'win')."""
    app = app_at("victim", VictimSettings(), "you,Expert,Treacherous", 11)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: app.screen.awaiting_human)
        await pilot.press("o")
        await pilot.pause()
        table = app.screen
        wanted = table.odds_line()
        assert wanted.startswith("win chance  1:") and " 6:" in wanted
        drawn = "".join("".join(row).strip() for row in picture(app).text)
        assert "".join(wanted.split()) in "".join(drawn.split())


# --- words that ran together ---------------------------------------------------------------


async def test_the_longest_role_and_the_bank_stay_apart_in_the_seat_list():
    """'took the pot' fills the role column: the bank after it was printed as 'potbank'."""
    seats = SeatList()
    seats.rows = (("Player 1", "took the pot", "bank  25", False),)
    text = seats.render().plain
    assert "took the pot " in text and "potbank" not in text


async def test_a_started_table_and_its_creator_stay_apart_in_the_lobby():
    """'2/2 seated, 1 watching, playing' fills its column: the creator after it must not
    run into it ('playingby')."""
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    seats = (Seat("Player 1"), Seat("Player 2"))
    table = lobby.create(
        TableSetup("valdes", ValDesSettings(seats=2), seats, 7), Player("SHA256:a", "alice")
    )
    lobby.join(table, Player("SHA256:b", "bob"))
    dealer = lobby.start(table, table.creator)
    dealer.follow(lambda: None, table.place_of(Player("SHA256:c", "carol")))
    line = table_line(table).plain
    try:
        assert "2/2 seated, 1 watching, playing" in line and "playingby" not in line
        assert line.endswith("by alice")
    finally:
        lobby.close_all()


async def test_a_refused_join_says_so_in_a_sentence():
    """Seen in a play-test: Enter on a table in play read "that table is already playing;
    you may watch it", the lobby's words as they are, in lower case and without a stop."""
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    seats = (Seat("Player 1"), Seat("AI", "Expert"))
    bob = Player("SHA256:b", "bob")
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=2), seats, 7), bob)
    lobby.start(table, bob)
    app = hosted(lobby, CAROL)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await until_drawn(pilot, lambda: app.screen.picked() is table)
            await pilot.press("enter")
            await until_drawn(pilot, lambda: app._notifications)
            said = [n.message for n in app._notifications]
            assert said == ["That table is already playing; you may watch it."]
    finally:
        lobby.close_all()


async def test_a_guest_leaving_or_quitting_a_shared_table_is_told_their_rejoin_code():
    """Seen in a play-test: a guest's quit (ctrl+q) or leave question said only that the
    seat waits. A guest comes back only with the seat's rejoin code, and one who quits is
    left with a terminal that no longer shows it: the question gives it."""
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    gus = Player("guest:0001", "gus")
    seats = (Seat("Player 1"), Seat("AI", "Expert"), Seat("AI 2", "Bold"))
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=3), seats, 7), gus)
    lobby.start(table, gus)
    code = table.rejoin[0]
    app = hosted(lobby, gus)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
            for key in ("escape", "ctrl+q"):
                await pilot.press(key)
                await until_drawn(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                assert f"Your rejoin code is {code}:" in app.screen.question
                await pilot.press("n")
                await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
    finally:
        lobby.close_all()


async def test_who_is_here_stays_one_line_at_80_columns():
    """Sixty people connected: the lobby's line of who is here names those that fit and
    counts the rest."""
    lobby = Lobby()
    for n in range(60):
        lobby.arrived(Player(f"SHA256:{n}", f"a long name {n:04}"))
    line = people_line(lobby).plain
    assert line.startswith("Here now (60): a long name 0000, ") and line.endswith(" more")
    assert len(line) <= 78
    assert names_line(["alice", "bob"]) == "alice, bob"
    assert names_line(["x" * 60, "bob"]) == "x" * 60 + " and 1 more", "one name at least"


async def test_an_ai_seat_thinking_is_named_once_or_with_its_temperament():
    """ "Bold is thinking…" for a seat named after its temperament ("Bold (Bold)" said it
    twice); a seat with a name of its own keeps its temperament beside it."""
    app = app_at("victim", VictimSettings(), "you,Bold,Cautious:Rex", 3, pace=0.2)
    seen: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3000):
            await pilot.pause(0.01)
            screen = app.screen
            if isinstance(screen, TableScreen):
                prompt = str(screen.query_one("#prompt").render())
                if "is thinking" in prompt:
                    seen.add(prompt.strip())
                if screen.awaiting_human:
                    await pilot.press("1")
            if {"Bold is thinking…", "Rex (Cautious) is thinking…"} <= seen:
                break
    assert {"Bold is thinking…", "Rex (Cautious) is thinking…"} <= seen, seen


async def test_esc_while_a_games_end_is_still_shown_shows_its_result_first():
    """The last pick is made and Esc pressed at once, while the end is still being
    shown: the end is hurried and the result comes up (a campaign deals its next round at
    once, so leaving then would never tell how the round ended); Esc there gives the
    table back, and Esc on the table leaves."""
    app = app_at("victim", VictimSettings(starting_health=1), "you,Expert,Treacherous", 6, pace=0.3)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3000):
            await pilot.pause(0.01)
            table = app.screen
            if isinstance(table, TableScreen):
                if table.game.pending is None:
                    break
                if table.awaiting_human:
                    await pilot.press("1")
        assert isinstance(table, TableScreen) and table.end_unseen(), "the end is being shown"
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("escape")
        await until_drawn(pilot, lambda: app.screen is table)
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_victims_supporter_die_shows_no_kind_while_it_is_the_supporters_secret():
    """Before the Supporter's die is rolled its kind is their secret: the board's die
    carries no kind marker (it showed "S+", which seemed to tell), from the table's start
    and again once the next plan is made; once rolled it shows its kind."""
    app = app_at("victim", VictimSettings(), "you,Expert,Treacherous", 6, pace=5)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen  # at the table's pace, nobody has planned yet
        die = table.query_one("#face", FaceDie)

        def top() -> str:
            return str(die.draw()).splitlines()[0]

        assert die.kind == "unknown" and top() == "╭─────╮"
        table.show_event(Rolled(1, "sabotage", "red", "support"), animate=False)
        assert top() == "╭ S- ─╮"
        table.show_event(Planned(2), animate=False)
        assert top() == "╭─────╮"


async def test_a_games_result_tints_the_table_behind_it_once(monkeypatch):
    """The result opens over the table with the table drawn behind it, tinted, once: the
    result's screen is refreshed whole as it is shown, and again as its widgets and footer
    keys mount, and Textual drew and tinted the whole table behind it again at each (some
    15 ms of a host's loop a session at every game's end). A change of the table behind
    shows; what shows is what Textual's own drawing of it shows."""
    tinted: list[str] = []
    plain = BackgroundScreen.process_segments.__func__

    def counted(cls, segments, color):
        for segment in plain(cls, segments, color):
            tinted.append(segment.text)
            yield segment

    monkeypatch.setattr(BackgroundScreen, "process_segments", classmethod(counted))
    app = app_at("valdes", ValDesSettings(seats=2), "you,Cautious", 3)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        composed: list[Region] = []
        drawn = table.render_lines

        def counted_lines(crop: Region) -> list:
            if isinstance(app.screen, ResultScreen):  # drawn behind the result
                composed.append(crop)
            return drawn(crop)

        monkeypatch.setattr(table, "render_lines", counted_lines)
        tinted.clear()
        await to_the_result(pilot, app)
        for _ in range(5):
            await pilot.pause()
        cells = sum(len(text.strip("\n")) for text in tinted)
        assert cells == SIZE[0] * SIZE[1], cells
        assert len(composed) == 1, composed  # the table behind, composed once
        shown = picture(app)
        table.query_one("#prompt", Line).text = Content("Something changed behind the result")
        for _ in range(3):
            await pilot.pause()
        changed = picture(app)
        assert changed != shown, "the table's change shows behind the result"
        monkeypatch.setattr(ResultScreen, "render", ModalScreen.render)
        table.refresh()
        app.screen.refresh()
        await pilot.pause()
        assert sum(len(text.strip("\n")) for text in tinted) > 2 * cells
        assert picture(app) == changed


async def test_a_spectators_prompt_at_a_games_end_says_what_r_does():
    """Seen in a play-test: at a game's end a spectator read "The round is over: r: the
    result, esc leaves." where a player reads "r shows the result"."""
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    seats = (Seat("P1"), Seat("AI 1", "Expert"))
    gus = Player("guest:gus9", "Gus")
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=2, ante=1), seats, 7), gus)
    lobby.start(table, gus)
    player, spectator = hosted(lobby, gus), hosted(lobby, CAROL)
    try:
        async with player.run_test(size=SIZE) as playing, spectator.run_test(size=SIZE) as pilot:
            await until_drawn(pilot, lambda: isinstance(spectator.screen, LobbyScreen))
            spectator.sit_at(table)
            await until_drawn(pilot, lambda: isinstance(spectator.screen, TableScreen))
            await to_the_result(playing, player)
            await until_drawn(pilot, lambda: isinstance(spectator.screen, ResultScreen))
            await pilot.press("escape")
            await until_drawn(pilot, lambda: isinstance(spectator.screen, TableScreen))
            prompt = str(spectator.screen.query_one("#prompt").render())
            assert prompt == "The game is over: r shows the result, esc leaves."
    finally:
        lobby.close_all()


def four_seat_campaign(folder) -> Campaign:
    """A Val-Des campaign of two people and two AIs: its banks line is two lines long in
    the board's 44 columns."""
    return Campaign.new(
        "Friday Club",
        "valdes",
        (Seat("Player 1"), Seat("Player 2"), Seat("Bold", "Bold"), Seat("Cautious", "Cautious")),
        ValDesSettings(seats=4),
        rounds=3,
        seed=3,
    )


def panel_whole(screen: TableScreen) -> bool:
    panel, board = screen.query_one("#campaign-panel"), screen.query_one("#board")
    return panel.region.bottom <= board.region.bottom and "Cautious" in str(panel.render())


async def test_a_campaigns_banks_are_whole_at_80_by_24_alone_and_at_a_shared_table(tmp_path):
    """Seen in a play-test over SSH at 80 x 24: a campaign set at a shared table (four
    seats of Val-Des) showed its name and round under the board, and no banks: the
    presence line took a row, and the banks' two lines were cut. Played alone, the
    second line of them was cut. The panel's margins go; the banks are whole in both."""
    store = Store(tmp_path)
    path = store.create(four_seat_campaign(tmp_path))
    local = CantinaApp(
        animation_speed=0, pace=0, save_preferences=False, resume=path, save_dir=tmp_path
    )
    async with local.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(local.screen, TableScreen))
        assert panel_whole(local.screen)
    session = store.open(path)
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    table = lobby.create(session.campaign.setup(), CAROL, campaign=session)
    lobby.start(table, CAROL)
    shared = hosted(lobby, CAROL)
    try:
        async with shared.run_test(size=SIZE) as pilot:
            await until_drawn(pilot, lambda: isinstance(shared.screen, TableScreen))
            screen = shared.screen
            assert screen.shared and screen.query_one("#presence").region.height == 1
            assert panel_whole(screen)
    finally:
        lobby.close_all()


# --- a seat taken back by its rejoin code from another connection ----------------------------

GUS = Player("guest:gus1", "Gus")
GUS_AGAIN = Player("guest:gus2", "gus")
"""Gus's new connection, a guest with a new identity: his rejoin code seats him again."""


def gus_with_ais(lobby: Lobby) -> SharedTable:
    """A started Val-Des table where Gus (a guest) is the only person (two AIs)."""
    seats = (Seat("P1"), Seat("AI 1", "Expert"), Seat("AI 2", "Bold"))
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=3, ante=1), seats, 7), GUS)
    lobby.start(table, GUS)
    return table


def keys_shown(screen: Screen) -> list[tuple[str, str, bool]]:
    return [(key.key, key.description, key.disabled) for key in screen.query(FooterKey)]


async def test_the_screen_a_seat_was_taken_back_from_watches_at_once():
    """Seen in a play-test: Gus's seat taken back by its rejoin code from a new
    connection while his first one still followed the table. That screen kept showing his
    rejoin code and offering his choices (refused without a word). Now it is a
    spectator's at once: no code, no choices, a spectator's footer; and when the game is
    over there, no next game from it."""
    lobby = Lobby(pace=INSTANT)
    table = gus_with_ais(lobby)
    old, carol = hosted(lobby, GUS), hosted(lobby, CAROL)
    async with old.run_test(size=SIZE) as pilot, carol.run_test(size=SIZE) as watching:
        await until_drawn(
            pilot, lambda: isinstance(old.screen, TableScreen) and old.screen.awaiting_human
        )
        screen = old.screen
        code = lobby.rejoin_code(table, GUS.identity)
        assert code and code in str(screen.query_one("#presence", Line).text)
        await until_drawn(watching, lambda: isinstance(carol.screen, LobbyScreen))
        carol.sit_at(table)
        await until_drawn(watching, lambda: isinstance(carol.screen, TableScreen))
        lobby.arrived(GUS_AGAIN)
        lobby.rejoin(GUS_AGAIN, code)
        await until_drawn(pilot, lambda: not screen.place.player)
        await pilot.pause()
        assert code not in str(screen.query_one("#presence", Line).text)
        assert not screen.awaiting_human
        assert "Waiting for" in str(screen.query_one("#prompt").render())
        assert keys_shown(screen) == keys_shown(carol.screen), "a spectator's footer"
        assert screen.chat is not None and screen.chat.watching
        moves = len(table.live.moves)
        await pilot.press("1")
        await pilot.pause()
        assert len(table.live.moves) == moves, "no choice from here"
        dealer = table.dealer
        assert dealer is not None
        again = table.place_of(GUS_AGAIN)  # the new connection plays the game out
        while dealer.turn.kind != OVER:
            await pilot.pause()
            if dealer.turn.kind == ASKING and dealer.turn.decision is not None:
                dealer.pick(again, dealer.turn.decision.options[0])
        result = await until_result(pilot, old)
        assert not result.query_one("#again").display
        await pilot.press("n")
        await pilot.pause()
        assert table.live.number == 1
    lobby.close_all()


async def until_result(pilot, app) -> ResultScreen:
    await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))
    assert isinstance(app.screen, ResultScreen)
    return app.screen


async def test_a_result_on_show_when_the_seat_is_taken_back_offers_no_next_game():
    """The result was up on Gus's first connection when his new one took the seat: its
    next game goes, and `n` there and at the table starts nothing."""
    lobby = Lobby(pace=INSTANT)
    table = gus_with_ais(lobby)
    old = hosted(lobby, GUS)
    async with old.run_test(size=SIZE) as pilot:
        for _ in range(2000):
            await pilot.pause()
            if isinstance(old.screen, ResultScreen):
                break
            if isinstance(old.screen, TableScreen) and old.screen.awaiting_human:
                await pilot.press("1")
        result = await until_result(pilot, old)
        assert result.query_one("#again").display
        code = lobby.rejoin_code(table, GUS.identity)
        assert code
        lobby.arrived(GUS_AGAIN)
        lobby.rejoin(GUS_AGAIN, code)
        await until_drawn(pilot, lambda: not result.query_one("#again").display)
        await pilot.press("n")
        await pilot.pause()
        assert old.screen is result and table.live.number == 1
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(old.screen, TableScreen) and table.live.number == 1
    lobby.close_all()


async def test_a_table_screen_taken_down_as_it_is_put_up_ends_quietly():
    """A table screen put up and taken down again in one step (a hosted session once did
    it as its table started) finds its widgets gone as it mounts: it shows nothing and
    follows nothing, and the app goes on, not ended by an error (NoMatches: '#log')."""
    app = app_at("valdes", ValDesSettings(seats=2), "you,Expert", 3)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        first = app.screen
        for _ in range(3):
            app.open_table(first.table.setup)
            app.pop_screen()
            await pilot.pause()
        assert app.screen is first and app.return_code is None
        await until_drawn(pilot, lambda: first.awaiting_human)
        moves = len(first.table.moves)
        await pilot.press("1")  # the table under them plays on
        await until_drawn(pilot, lambda: len(first.table.moves) > moves)
