"""One parse of each stylesheet for the whole host, instead of one per session.

Every Textual app parses its CSS (its own files and every widget's DEFAULT_CSS) when it
starts and again when its theme is set; with many apps in one process that parsing was
most of a session's start. The parsed rules depend only on the CSS text, where it came
from and the theme's variables, and apps only read them, so apps with the same theme can
share them.
"""

from __future__ import annotations

from typing import Any

from textual.css.stylesheet import Stylesheet

MAX_SHARED = 1024
_shared: dict[tuple[Any, ...], list[Any]] = {}


class SharedStylesheet(Stylesheet):
    """A Stylesheet whose parsed rules come from, and go to, the host-wide store."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[Any]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = _shared.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if len(_shared) < MAX_SHARED and not any(rule.errors for rule in rules):
                _shared[key] = rules
        return rules

    def reparse(self) -> None:
        """As Stylesheet.reparse (a fresh sheet, so an error leaves this one intact), but
        the fresh sheet shares too."""
        fresh = SharedStylesheet(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            fresh.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            fresh.parse()
        except Exception:
            self._invalid_css.update(fresh._invalid_css)
            raise
        self._rules = fresh.rules
        self._rules_map = None
        self.source = fresh.source
        self._require_parse = False

    def copy(self) -> SharedStylesheet:
        stylesheet = SharedStylesheet(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet
