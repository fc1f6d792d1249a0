"""A campaign (CA-1): rounds, games or matches of one game, a fixed roster, carried banks.

`Campaign` keeps the record a save file holds (`CampaignFile`) and turns it into live
tables: it is the `Keeper` of its current `LiveTable`, so every decision made there is
recorded and autosaved before any screen hears of it. Each round gets its own seed,
derived from the campaign's, and keeps its start and moves, so any finished round can be
replayed event by event.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import msgspec

from cantina.ai import vigo_odds
from cantina.ai.player import TableAI
from cantina.campaign.model import (
    FORMAT,
    CampaignFile,
    GameId,
    Listing,
    RoundRecord,
    SeatRecord,
    Start,
    TableRecord,
    move_type,
)
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.events import Event, Scored
from cantina.games.table import Game, Move, checked, play_moves
from cantina.live import LiveTable
from cantina.seating import Seat, TableSetup, clean_name
from cantina.text import plain_reason

MAX_CAMPAIGN_NAME = 40
"""As the save format allows (model.Name)."""


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def campaign_name(text: str) -> str:
    """A campaign's name as everyone is shown it: cleaned like a player's (no control or
    format characters), up to 40 characters."""
    return clean_name(text, "Campaign", MAX_CAMPAIGN_NAME)


def length_word(game: str, settings: Any) -> str:
    """What a campaign's length counts, as its setup labels it: laps of Vigo's Favor,
    unless a House Vigo keeps the title (then rounds, as `rounds_for` counts them)."""
    if game == "vigo" and settings.house_vigo:
        return "Rounds"
    return GAMES[game].length_word


def rounds_for(game: str, settings: Any, seats: int, length: int) -> int:
    """How many rounds a campaign of `length` plays: at Vigo's Favor a lap passes the title
    round every seat once (VF-11), so a lap is as many rounds as seats, unless a House Vigo
    keeps it (VF-13); at the other games, one game or match each."""
    if game == "vigo" and not settings.house_vigo:
        return length * seats
    return length


def legacy_round_seed(seed: int, number: int) -> int:
    """Round `number`'s seed in a format-2 save: from the campaign's seed alone."""
    return random.Random(f"cantina:{seed}:{number}").getrandbits(63)


def constitution(data: CampaignFile) -> bytes:
    """What a campaign is, besides its name: the game, who plays (the AI seats'
    temperaments, or a person), the settings, how many rounds, the stake and the starting
    bank. Every round's seed is derived from it, so a change to any of it (an AI seat made
    a person's, a setting, the banks before the first round) deals other dice.

    The settings count as the file holds them (whitespace aside), not as read with their
    defaults: a setting a later cantina adds leaves every earlier campaign's seeds be."""
    return msgspec.json.encode(
        [
            data.game,
            [seat.temperament for seat in data.roster],
            msgspec.json.decode(bytes(data.settings)),
            data.rounds,
            data.match_stake,
            data.starting_bank,
        ]
    )


def round_seed(seed: int, number: int, made_of: bytes) -> int:
    """Round `number`'s own seed: fixed by the campaign's seed and its constitution."""
    digest = hashlib.blake2b(f"cantina-round:{seed}:{number}:".encode() + made_of, digest_size=8)
    return int.from_bytes(digest.digest()) >> 1


def ai_dice(seed: int, moves: int) -> Dice:
    """The AI's random source for the decision after `moves` moves of the round dealt from
    `seed`: derived, never stored, so a resumed round's AI chooses as it would have and no
    edit of the file can steer it."""
    return Dice(random.Random(f"cantina-ai:{seed}:{moves}").getrandbits(63))


def encode_moves(moves: Sequence[Move]) -> msgspec.Raw:
    return msgspec.Raw(msgspec.json.encode([{"seat": m.seat, "action": m.action} for m in moves]))


def decode_moves(game: str, raw: msgspec.Raw | bytes) -> list[Move]:
    """The recorded moves of one round (msgspec.ValidationError when they are malformed)."""
    kind: Any = list[move_type(game)]  # type: ignore[misc]  # a type made per game
    decoded = msgspec.json.decode(bytes(raw), type=kind)
    return [Move(m.seat, m.action) for m in decoded]


def where_text(game: str, number: int, rounds: int, seats: int, laps: bool) -> str:
    """ "round 3 of 10, lap 1 of 2" and the like: where round `number` stands."""
    number = min(number, rounds)
    text = f"{GAMES[game].unit} {number} of {rounds}"
    if laps:  # Vigo's Favor: laps only as titles pass
        text += f", lap {(number - 1) // seats + 1} of {-(-rounds // seats)}"
    return text


def summary_text(names: Sequence[str], banks: Sequence[int], over: bool) -> str:
    """The standings in one line, best bank first."""
    rows = sorted(range(len(names)), key=lambda seat: (-banks[seat], seat))
    text = ", ".join(f"{names[seat]} {banks[seat]}" for seat in rows)
    return text + ("  (finished)" if over else "")


@dataclass(frozen=True)
class Standing:
    """One seat's line on the standings: what the campaign's end screen shows."""

    seat: int
    name: str
    bank: int
    won: int
    vigo: int
    """Rounds played as Vigo (Vigo's Favor only)."""
    best_streak: int
    luck: float
    """What the seat got beyond what the exact odds expected (credits, calls or wins)."""


class Campaign:
    """A campaign's record, and the live table of its current round."""

    def __init__(self, data: CampaignFile, *, on_change: Callable[[Campaign], None] | None = None):
        self.data = data
        self.settings: Any = checked(
            msgspec.json.decode(data.settings, type=GAMES[data.game].settings)
        )
        self.seats = tuple(
            Seat(clean_name(s.name, f"Player {i}"), s.temperament)
            for i, s in enumerate(data.roster, 1)
        )
        """The roster as it is shown: names cleaned, since a file can hold anything."""
        self.on_change = on_change
        """Called after every change of the record: the store's autosave."""
        self.constitution = constitution(data)
        self.decisions = _decisions(data)
        """How many decisions the record holds (what an unsaved change would lose)."""

    # --- making one ----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        name: str,
        game: str,
        seats: Sequence[Seat],
        settings: Any,
        *,
        rounds: int,
        seed: int,
        match_stake: int = 0,
        starting_bank: int = 20,
    ) -> Campaign:
        """A campaign before its first round (ValueError when the parts do not fit)."""
        if game not in GAMES:
            raise ValueError(f"no game called {game!r}; the games are {', '.join(GAMES)}")
        settings = checked(settings)
        name = campaign_name(name)
        if getattr(settings, "seats", 3) != len(seats):
            raise ValueError(f"the settings are for {settings.seats} seats, not {len(seats)}")
        bank = getattr(settings, "starting_bank", starting_bank)
        stamp = now()
        data = CampaignFile(
            format=FORMAT,
            name=name,
            game=cast(GameId, game),
            created=stamp,
            updated=stamp,
            roster=[SeatRecord(s.name, s.temperament) for s in seats],
            settings=msgspec.Raw(msgspec.json.encode(settings)),
            rounds=rounds,
            match_stake=match_stake if game == "victim" else 0,
            seed=seed,
            starting_bank=bank,
            banks=[bank] * len(seats),
        )
        try:  # the limits a save is loaded with hold for a new one too
            msgspec.json.decode(msgspec.json.encode(data), type=CampaignFile)
        except msgspec.ValidationError as err:
            raise ValueError(f"cannot make this campaign: {plain_reason(str(err))}") from None
        campaign = cls(data)
        campaign.prepare_next()  # the first round is dealt at once
        return campaign

    # --- where it stands -----------------------------------------------------------------

    @property
    def name(self) -> str:
        """The campaign's name as it is shown (cleaned: a file can hold anything)."""
        return campaign_name(self.data.name)

    @property
    def game(self) -> str:
        return self.data.game

    @property
    def played(self) -> int:
        return len(self.data.finished)

    @property
    def over(self) -> bool:
        d = self.data
        return d.table is None and (d.ended is not None or self.played >= d.rounds)

    @property
    def banks(self) -> list[int]:
        """Every seat's bank now: mid-round, as the table stands."""
        if self._table is not None and self._table.game.pending is None:
            return list(self.data.banks)  # a round just finished (the next one waits)
        if self._table is not None and self.game != "victim":
            return list(self._table.game.state.banks)
        return self._recorded_banks()

    def _recorded_banks(self) -> list[int]:
        """The banks as the record stands: mid-round, as the saved table has them."""
        d = self.data
        if d.table is None:
            return list(d.banks)
        if self.game == "victim":  # the match stake is paid as the match begins
            return [b - d.match_stake for b in d.table.start.banks]
        return list(GAMES[d.game].game.from_json(bytes(d.table.state)).state.banks)

    def setup(self) -> TableSetup:
        seed = self.data.table.start.seed if self.data.table else self.data.seed
        return TableSetup(self.game, self.settings, self.seats, seed)

    def where(self, number: int | None = None) -> str:
        """ "round 3 of 10, lap 1 of 2" and the like."""
        number = number or self.played + (0 if self.over else 1)
        return where_text(self.game, number, self.data.rounds, len(self.seats), self.laps)

    @property
    def laps(self) -> bool:
        return self.game == "vigo" and not self.settings.house_vigo

    def listing(self) -> Listing:
        """What the saves list shows, from the record alone (the same before a save and
        after a load; `check` holds a file to it)."""
        d = self.data
        return Listing(
            name=d.name,
            game=d.game,
            roster=d.roster,
            rounds=d.rounds,
            played=self.played,
            over=self.over,
            laps=self.laps,
            banks=self._recorded_banks(),
        )

    # --- the live table --------------------------------------------------------------------

    _table: LiveTable | None = None

    def table(self) -> LiveTable:
        """The current round's live table: the one in progress, or the next one started.

        A round in progress is played again from its start and moves, so the table holds
        its whole story (what a resumed screen narrates and draws), not only where it
        stands. ValueError when the campaign is over (or the next round cannot be set up,
        which ends it)."""
        if self._table is not None and self._table.game.pending is not None:
            return self._table
        d = self.data
        if d.table is None:
            raise self._over_error()
        start = self.start_game(d.table.start)
        moves = decode_moves(d.game, d.table.moves)
        self._table = LiveTable.resumed(
            self.setup(),
            start,
            moves,
            keeper=self,
            ai_dice=ai_dice(d.table.start.seed, len(moves)),
        )
        return self._table

    def _over_error(self) -> ValueError:
        if self.data.ended:
            return ValueError(f"the campaign is over: {self.data.ended}")
        return ValueError(f"the campaign {self.name!r} is over")

    def reseed(self, seed: int) -> bool:
        """A new seed for the rounds to come, as the campaign is set at a shared table:
        its owner chose or saw the old one, and with it would know every roll and AI choice
        of the rounds the others play. Each round begun keeps its own seed (counted in
        `legacy_rounds`, as a migrated format's are); the round under way, if nothing has
        been decided in it, is dealt again from the new one. False, and nothing changed,
        when something has: that round's dice come from the old seed."""
        d = self.data
        if d.table is not None and msgspec.json.decode(bytes(d.table.moves)):
            return False
        d.seed = seed
        d.legacy_rounds = len(d.finished)
        self._table = None
        if d.table is not None:
            self.prepare_next()
        return True

    def prepare_next(self) -> None:
        """Deal the next round (its table, with no move yet), or, when it cannot begin (a
        seat that cannot pay), end the campaign saying why; nothing after the last round."""
        d = self.data
        d.table = None
        if d.ended is not None or self.played >= d.rounds:
            return
        try:
            start = self.next_start()
            game = self.start_game(start)
        except ValueError as err:
            d.ended = str(err)
            return
        d.table = TableRecord(
            start=start, moves=encode_moves([]), state=msgspec.Raw(game.to_json())
        )

    def next_start(self) -> Start:
        """How the next round begins: the title passed on, the Scorekeeper moved round,
        the last Victim's bonus, the banks carried."""
        d = self.data
        number = self.played + 1
        seed = round_seed(d.seed, number, self.constitution)
        seats = len(self.seats)
        last = d.finished[-1] if d.finished else None
        if d.game == "vigo":
            able = [seat.name for seat, bank in zip(self.seats, d.banks, strict=True) if bank]
            if len(able) < 2:  # VF-11: the campaign ends when only one seat can still play
                raise ValueError(f"only {' and '.join(able) or 'nobody'} can still play")
            vigo = 0 if last is None else self._finished_game(last).result.next_vigo
            return Start(number=number, seed=seed, banks=list(d.banks), vigo=vigo)
        if d.game == "valdes":
            keeper = (self.settings.scorekeeper + number - 1) % seats
            return Start(number=number, seed=seed, banks=list(d.banks), scorekeeper=keeper)
        victim = None if last is None else self._finished_game(last).result.victim
        return Start(number=number, seed=seed, banks=list(d.banks), previous_victim=victim)

    def start_game(self, start: Start) -> Game[Any]:
        """A round's game as it began (ValueError when it cannot be set up)."""
        dice = Dice(start.seed)
        game = self.game
        rules: Any = GAMES[game].game  # each game's own `new`, with what it carries
        if game == "vigo":
            return rules.new(
                self.settings, dice, vigo=start.vigo or 0, banks=start.banks, round=start.number
            )
        if game == "valdes":
            settings = msgspec.structs.replace(self.settings, scorekeeper=start.scorekeeper or 0)
            return rules.new(settings, dice, banks=start.banks)
        stake = self.data.match_stake
        broke = [self.seats[i].name for i, bank in enumerate(start.banks) if bank < stake]
        if broke:
            raise ValueError(f"{', '.join(broke)} cannot cover the match stake of {stake}")
        return rules.new(self.settings, dice, previous_victim=start.previous_victim)

    def _finished_game(self, record: RoundRecord) -> Game[Any]:
        """A finished round played through again: how the title or the Victim moved on is
        the rules' to say, so it is replayed rather than stored twice."""
        game = self.start_game(record.start)
        play_moves(game, decode_moves(self.game, record.moves))
        return game

    def replay(self, number: int) -> tuple[Game[Any], list[Move]]:
        """Round `number` (finished, or the one in progress) as it began, and its moves."""
        start, moves = self._round(number)
        return self.start_game(start), moves

    def replay_table(self, number: int) -> tuple[LiveTable, list[Move]]:
        """A table set at round `number` as it began (with that round's own seed; no
        keeper: nothing is saved), and the moves to play on it again."""
        start, moves = self._round(number)
        setup = msgspec.structs.replace(self.setup(), seed=start.seed)
        return LiveTable(setup, self.start_game(start)), moves

    def replayable(self) -> list[int]:
        """The rounds that can be replayed, in order: every finished one, and the one under
        way once a move has been made in it (one only dealt has nothing to show)."""
        return sorted(self._records())

    def _records(self) -> dict[int, tuple[Start, msgspec.Raw]]:
        d = self.data
        records = {r.start.number: (r.start, r.moves) for r in d.finished}
        if d.table is not None and msgspec.json.decode(bytes(d.table.moves)):  # begun, not dealt
            records[d.table.start.number] = (d.table.start, d.table.moves)
        return records

    def _round(self, number: int) -> tuple[Start, list[Move]]:
        d = self.data
        records = self._records()
        if number not in records:
            have = ", ".join(map(str, sorted(records))) or "none yet"
            raise ValueError(f"no {GAMES[d.game].unit} {number} to replay (there are: {have})")
        start, moves = records[number]
        return start, decode_moves(d.game, moves)

    # --- the keeper of the live table --------------------------------------------------

    def recorded(self, table: LiveTable) -> None:
        """After every decision: the table as it stands, or the finished round, saved."""
        d = self.data
        assert d.table is not None, "a decision at a table the campaign did not start"
        self.decisions += 1
        start = d.table.start
        if table.game.pending is None:
            d.finished.append(self.summary_of(start, table.game, table.moves, now()))
            d.banks = d.finished[-1].banks
            self.prepare_next()  # saved with the round that ends: nothing lies between
        else:
            d.table = TableRecord(
                start=start,
                moves=encode_moves(table.moves),
                state=msgspec.Raw(table.game.to_json()),
            )
            table.ai_dice = ai_dice(start.seed, len(table.moves))
        self._changed()

    def next_game(self, table: LiveTable) -> Game[Any]:
        """The next round, dealt already, for the table that played this one ("Play on").
        Its AI seats draw from the round's own random source, as a table made from the
        save does, so a campaign resumed between rounds plays on exactly as one that never
        stopped (ValueError when the campaign is over)."""
        d = self.data
        if d.table is None:
            raise self._over_error()
        game = self.start_game(d.table.start)
        table.setup = self.setup()
        table.ai_dice = ai_dice(d.table.start.seed, 0)
        return game

    def status(self, table: LiveTable) -> str:
        """Shown beside the table: the campaign, where it stands, and the banks."""
        return f"{self.name}\n{self.where()}\n{self.summary()}"

    def summary(self) -> str:
        """The standings in one line, best bank first."""
        return summary_text([seat.name for seat in self.seats], self.banks, self.over)

    def _changed(self) -> None:
        self.data.updated = now()
        if self.on_change is not None:
            self.on_change(self)

    # --- results -----------------------------------------------------------------------

    def summary_of(
        self, start: Start, game: Game[Any], moves: Sequence[Move], finished: str
    ) -> RoundRecord:
        """The record of a round that began as `start` and finished as `game` after
        `moves`: what the save keeps, and what a save's record is checked against."""
        events = _replayed_events(self.start_game(start), moves)
        expected, actual = self._luck(start, moves, game, events)
        return RoundRecord(
            start=start,
            moves=encode_moves(moves),
            banks=self.banks_after(start, game),
            winners=_winners(game),
            expected=expected,
            actual=actual,
            finished=finished,
        )

    def banks_after(self, start: Start, game: Game[Any]) -> list[int]:
        """The banks a finished round leaves: the game's own, or at Victim! the match
        stake paid by all and taken by the winner (CA-1)."""
        if self.game != "victim":
            return list(game.state.banks)
        stake = self.data.match_stake
        banks = [bank - stake for bank in start.banks]
        banks[game.result.winner] += stake * len(banks)
        return banks

    def _luck(
        self, start: Start, moves: Sequence[Move], game: Game[Any], events: list[Event]
    ) -> tuple[list[float], list[float]]:
        """What the exact odds expected of each seat and what it got: credits at Vigo's
        Favor (given the stake set), correct calls at Val-Des (half of those made), wins
        at Victim! (the win chances at the first turn, for the temperaments at the table)."""
        seats = range(len(self.seats))
        if self.game == "vigo":
            first: Any = self.start_game(start)
            index = first.pending.options.index(moves[0].action) if moves else 0
            expected = [vigo_odds.values_for(first, s)[index] for s in seats]
            return expected, [float(n) for n in game.result.net]
        if self.game == "valdes":
            calls = [sum(1 for m in moves if m.seat == s) for s in seats]
            right = [0] * len(calls)
            for event in events:
                if isinstance(event, Scored) and event.why == "correct call":
                    right[event.seat] += 1
            return [c / 2 for c in calls], [float(r) for r in right]
        first = self.start_game(start)
        health = tuple(first.state.health)  # a rematch bonus starts matches elsewhere
        if health not in self._victim_ais:
            self._victim_ais[health] = TableAI(self.setup().temperaments())
        chances = self._victim_ais[health].win_chances(first)
        return list(chances), [1.0 if s == game.result.winner else 0.0 for s in seats]

    @functools.cached_property
    def _victim_ais(self) -> dict[tuple[int, ...], TableAI]:
        """The seats' AI for each starting health a match has had: its exact Victim! odds
        are solved once for each (a handful), not for every match of a long campaign."""
        return {}

    def standings(self) -> list[Standing]:
        d = self.data
        banks = self.banks
        rows = []
        for seat in range(len(d.roster)):
            won = [seat in r.winners for r in d.finished]
            streak = best = 0
            for w in won:
                streak = streak + 1 if w else 0
                best = max(best, streak)
            rows.append(
                Standing(
                    seat=seat,
                    name=self.seats[seat].name,
                    bank=banks[seat],
                    won=sum(won),
                    vigo=sum(r.start.vigo == seat for r in d.finished) if d.game == "vigo" else 0,
                    best_streak=best,
                    luck=sum(_at(r.actual, seat) - _at(r.expected, seat) for r in d.finished),
                )
            )
        return rows


def _decisions(data: CampaignFile) -> int:
    """How many moves a record holds (0 for moves that cannot be read: `check` says why)."""
    rounds = [r.moves for r in data.finished] + ([data.table.moves] if data.table else [])
    try:
        return sum(len(msgspec.json.decode(bytes(moves), type=list)) for moves in rounds)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return 0


def _at(values: Sequence[float], seat: int) -> float:
    return values[seat] if seat < len(values) else 0.0


def _winners(game: Game[Any]) -> list[int]:
    """Who won a round: at Val-Des the game's winner; at Vigo's Favor whoever came out of
    it best, if anyone came out ahead."""
    result = game.result
    if hasattr(result, "winner"):
        return [result.winner]
    best = max(result.net)
    return [seat for seat, net in enumerate(result.net) if net == best and best > 0]


def _replayed_events(game: Game[Any], moves: Sequence[Move]) -> list[Event]:
    return list(game.opening_events) + play_moves(game, moves)
