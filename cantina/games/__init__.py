"""The rules core: the three games as state machines, and the registry that names them.

Nothing here imports textual: screens, AI seats, saves and remote seats all drive these
games through the same `pending` / `apply` interface.

`GAMES` is the one place where what differs from game to game is declared: its title and
menu key, the words for what it plays through, its seats, the table's settings (their
bounds and help text are on the settings struct itself, as `msgspec.Meta`), the moments a
result recalls and the screen that shows it. The menu, the setup screen, the command
line, the rules list and the result words are all built from it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

import msgspec
import msgspec.inspect

if TYPE_CHECKING:
    from cantina.games.dice import Dice
    from cantina.games.events import Event
    from cantina.games.table import Game


@dataclass(frozen=True)
class Setting:
    """One setting a person may choose for a table, read from its settings struct: a
    field with a `title` in its `msgspec.Meta`; its `extra["offer"]` narrows the numbers a
    screen offers to a short list, inside the bounds a save or the command line may use;
    `extra["start"]` marks a setting that only sets where the game begins (the board
    shows its effect), which the table's settings line names only when changed."""

    name: str
    title: str
    help: str
    kind: type
    """`int` or `bool`."""
    default: Any
    low: int | None = None
    high: int | None = None
    offer: tuple[int, int] | None = None
    start: bool = False

    @property
    def flag(self) -> str:
        """Its command-line name: `stake-limit`."""
        return self.name.replace("_", "-")

    def offered(self) -> range:
        """The numbers a screen lists for it."""
        low, high = self.offer or (self.low or 0, self.high or 0)
        return range(low, high + 1)


@dataclass(frozen=True)
class GameInfo:
    """Everything that differs by game, for whoever sets up, shows or names a table.

    The rules module is named, not imported: the menu reads titles and keys from here on
    its way to the first frame, and each game's rules load when its table is set."""

    id: str
    title: str
    key: str
    """The menu key that opens its setup."""
    blurb: str
    unit: str
    """What one state machine plays through: a round, a game or a match."""
    units: str
    again: str
    """What the result offers next: another round, game or match at the same table."""
    seats: tuple[int, int]
    """The fewest and most seats its table has."""
    rules: str
    """The state machine, as `module:Class`."""
    length_word: str
    """How a campaign's length is counted (a Vigo's Favor lap passes the title once round)."""
    length: int
    """A new campaign's length, in those words."""
    play_seats: str
    """The seats `cantina play` sits at when none are given."""
    luck: str
    """What the standings' luck column measures."""
    screen: str
    """The table screen, as `module:Class`: the core names it and never imports it."""
    table_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Settings a new table starts with where they differ from the rules' defaults."""
    title_holder: str = ""
    """A title that passes round the table (the Vigo), which standings count rounds of."""

    @property
    def game(self) -> type[Game[Any]]:
        found: type[Game[Any]] = _load(self.rules)
        return found

    @property
    def settings(self) -> type[msgspec.Struct]:
        return self.game.settings_type

    def new(self, settings: Any, dice: Dice) -> Game[Any]:
        """A table of this game with these settings and this random source."""
        rules: Any = self.game  # each game's `new` takes its own settings
        made: Game[Any] = rules.new(settings, dice)
        return made

    def new_default(self, dice: Dice) -> Game[Any]:
        """A table with default settings."""
        return self.new(self.settings(), dice)

    @property
    def key_moments(self) -> tuple[type[Event], ...]:
        """Events a result recalls as the game's key moments."""
        return self.game.key_moments

    def choices(self) -> list[Setting]:
        """The settings a person chooses, in the struct's order."""
        return list(_choices(self.settings, self.table_defaults))

    def settings_for(self, seats: int, **chosen: Any) -> Any:
        """Settings for a table of `seats`: the table defaults under what was `chosen`
        (unchecked: `checked` applies the bounds)."""
        values = {**self.table_defaults, **chosen}
        if "seats" in self.settings.__struct_fields__:
            values["seats"] = seats
        return self.settings(**values)


@functools.cache
def _load(where: str) -> Any:
    """`module:Name`, imported on first use (see `GameInfo`)."""
    module, _, name = where.partition(":")
    return getattr(import_module(module), name)


def _choices(settings: type[msgspec.Struct], defaults: Mapping[str, Any]) -> Iterator[Setting]:
    info = msgspec.inspect.type_info(settings)
    assert isinstance(info, msgspec.inspect.StructType)
    for f in info.fields:
        kind = f.type
        schema = getattr(kind, "extra_json_schema", None) or {}
        if "title" not in schema:
            continue
        extra = getattr(kind, "extra", None) or {}
        offer = extra.get("offer")
        inner = getattr(kind, "type", kind)
        yield Setting(
            name=f.name,
            title=schema["title"],
            help=schema.get("description", ""),
            kind=bool if isinstance(inner, msgspec.inspect.BoolType) else int,
            default=defaults.get(f.name, f.default),
            low=getattr(inner, "ge", None),
            high=getattr(inner, "le", None),
            offer=tuple(offer) if offer else None,
            start=bool(extra.get("start")),
        )


GAMES: dict[str, GameInfo] = {
    info.id: info
    for info in (
        GameInfo(
            id="vigo",
            title="Vigo's Favor",
            key="v",
            blurb="Roll your chance cube to stay in the Vigo's favor",
            unit="round",
            units="rounds",
            again="Next round",
            seats=(2, 8),
            rules="cantina.games.vigo:VigoGame",
            length_word="Laps",
            length=2,
            play_seats="you,Expert,Bold,Cautious",
            luck="Luck: credits won beyond what the exact odds expected at each round's stake.",
            screen="screens.vigo:VigoScreen",
            title_holder="Vigo",
        ),
        GameInfo(
            id="valdes",
            title="Val-Des",
            key="d",
            blurb="Call the hidden cube: Val or Des, seven sets",
            unit="game",
            units="games",
            again="New game",
            seats=(2, 8),
            rules="cantina.games.valdes:ValDesGame",
            length_word="Games",
            length=5,
            play_seats="you,Expert,Superstitious",
            luck="Luck: right calls beyond the half that a fair cube gives on average.",
            screen="screens.valdes:ValDesScreen",
            table_defaults={"ante": 1},
        ),
        GameInfo(
            id="victim",
            title="Victim!",
            key="i",
            blurb="Three players, shifting alliances, one Victim",
            unit="match",
            units="matches",
            again="Rematch",
            seats=(3, 3),
            rules="cantina.games.victim:VictimGame",
            length_word="Matches",
            length=5,
            play_seats="you,Expert,Treacherous",
            luck="Luck: matches won beyond the win chances the exact odds gave at the start.",
            screen="screens.victim:VictimScreen",
        ),
    )
}
