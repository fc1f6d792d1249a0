"""One parse of each stylesheet for the whole host, instead of one per session.

Every Textual app parses its CSS (its own files and every widget's DEFAULT_CSS) when it
starts and again when its theme is set; with many apps in one process that parsing was
most of a session's start. The parsed rules depend only on the CSS text, where it came
from and the theme's variables, and apps only read them, so apps with the same theme can
share them.
"""

from __future__ import annotations

from typing import Any

from screens.textual_compat import KeepsComponentNodes, ParseHookStylesheet

MAX_SHARED = 1024
_shared: dict[tuple[Any, ...], list[Any]] = {}


class SharedStylesheet(KeepsComponentNodes, ParseHookStylesheet):
    """A Stylesheet whose parsed rules come from, and go to, the host-wide store (its
    reparse and copy are sheets of this class too, so they share as well), and which
    restyles widgets' component classes in place (see KeepsComponentNodes)."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None
        """The variables as part of the store's key; worked out at the first parse."""

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def parse_source(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool,
        tie_breaker: int,
        scope: str,
    ) -> list[Any]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self.css_variables.items()))
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = _shared.get(key)
        if rules is None:
            rules = super().parse_source(css, read_from, is_default_rules, tie_breaker, scope)
            if len(_shared) < MAX_SHARED and not any(rule.errors for rule in rules):
                _shared[key] = rules
        return rules
