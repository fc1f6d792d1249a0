"""The rules/help screen: each game's rules as markdown, one game or an index of all three.

The texts live in `screens/rules/<game id>.md` and are read with `importlib.resources`, so
they load the same from a checkout and from an installed wheel. They are the project's own
words: the source rule texts are CC BY-NC-ND, so none of their prose may appear here (see
`tests/test_rules_screen.py`).
"""

from __future__ import annotations

from importlib.resources import files
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static, TabbedContent, TabPane

from cantina.games import GAMES
from screens.footer import CantinaFooter

TITLES: Final[dict[str, str]] = {info.id: info.title for info in GAMES.values()}
"""Game id to display name, in the order the index shows them (the registry's)."""


def rules_text(game_id: str) -> str:
    """The markdown rules of one game ("vigo", "valdes" or "victim")."""
    if game_id not in TITLES:
        raise ValueError(f"no rules for {game_id!r}; the games are {', '.join(TITLES)}")
    return (files("screens") / "rules" / f"{game_id}.md").read_text(encoding="utf-8")


class RulesScreen(ModalScreen[None]):
    """A game's rules, or with `game_id=None` an index of all three games in tabs.

    Keys: arrows, PageUp/PageDown, Home/End scroll; Escape or q goes back. In the index,
    left/right (or 1, 2, 3) switch games.
    """

    DEFAULT_CSS = """
    RulesScreen {
        align: center middle;
    }
    RulesScreen #rules-frame {
        width: 100%;
        max-width: 100;
        height: 1fr;
        background: $surface;
    }
    RulesScreen #rules-title {
        width: 100%;
        height: 1;
        padding: 0 1;
        background: $primary;
        color: $text;
        text-style: bold;
    }
    RulesScreen .rules-scroll {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    RulesScreen .rules-scroll:focus {
        background-tint: $foreground 3%;
    }
    RulesScreen TabbedContent {
        height: 1fr;
    }
    RulesScreen TabPane {
        height: 1fr;
        padding: 0;
    }
    RulesScreen Markdown {
        margin: 0;
        padding: 0;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Back", id="rules.back"),
        Binding("q", "dismiss", "Back", show=False, id="rules.quit"),
        Binding("left", "cycle_game(-1)", "Prev game", priority=True, id="rules.previous"),
        Binding("right", "cycle_game(1)", "Next game", priority=True, id="rules.next"),
        *(
            Binding(str(number), f"show_game('{game_id}')", name, show=False, id=f"rules.{game_id}")
            for number, (game_id, name) in enumerate(TITLES.items(), start=1)
        ),
    ]

    def __init__(self, game_id: str | None = None) -> None:
        if game_id is not None and game_id not in TITLES:
            raise ValueError(f"no rules for {game_id!r}; the games are {', '.join(TITLES)}")
        super().__init__()
        self.game_id = game_id

    @property
    def title_text(self) -> str:
        """What the title bar says: the game's name, or that this is the index."""
        if self.game_id is None:
            return "Rules of the cantina"
        return f"Rules: {TITLES[self.game_id]}"

    @property
    def current_game(self) -> str:
        """The game whose rules are showing (the active tab in the index)."""
        if self.game_id is not None:
            return self.game_id
        return self.query_one(TabbedContent).active or next(iter(TITLES))

    def compose(self) -> ComposeResult:
        with Vertical(id="rules-frame"):
            yield Static(self.title_text, id="rules-title")
            if self.game_id is not None:
                yield self._scroll(self.game_id)
            else:
                with TabbedContent(initial=next(iter(TITLES))):
                    for game_id, name in TITLES.items():
                        with TabPane(name, id=game_id):
                            yield self._scroll(game_id)
        yield CantinaFooter()

    @staticmethod
    def _scroll(game_id: str) -> VerticalScroll:
        return VerticalScroll(
            Markdown(rules_text(game_id), open_links=False),
            id=f"rules-{game_id}",
            classes="rules-scroll",
        )

    def on_mount(self) -> None:
        self._focus_rules()

    def _focus_rules(self) -> None:
        self.query_one(f"#rules-{self.current_game}", VerticalScroll).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Switching games only exists in the index; a single game's keys fall through."""
        return self.game_id is None or action not in ("cycle_game", "show_game")

    def action_show_game(self, game_id: str) -> None:
        if game_id in TITLES:
            self.query_one(TabbedContent).active = game_id
            self._focus_rules()

    def action_cycle_game(self, step: int) -> None:
        order = list(TITLES)
        index = order.index(self.current_game)
        self.action_show_game(order[(index + step) % len(order)])

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A tab chosen any way (mouse included) hands focus to its rules."""
        self.call_after_refresh(self._focus_rules)
