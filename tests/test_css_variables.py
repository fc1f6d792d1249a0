"""The app's CSS variables are worked out once a theme, not on every call (three times as
each app starts: most of a hosted session's first step of the host's loop)."""

from __future__ import annotations

from textual.app import App
from textual.theme import Theme

from cantina.app import CantinaApp


def textual_own(app: App[None]) -> dict[str, str]:
    """The variables as Textual works them out, from scratch."""
    return App.get_css_variables(app)


async def test_each_themes_variables_are_textuals_own_and_a_changed_theme_is_followed():
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("cantina-phosphor", "textual-light", "cantina-amber", "textual-dark"):
            app.theme = name
            await pilot.pause()
            assert app.get_css_variables() == textual_own(app)
            assert app.theme_variables == textual_own(app)
        first = app.get_css_variables()
        first["primary"] = "#123456"  # a caller's copy: the kept one is not changed
        assert app.get_css_variables()["primary"] != "#123456"
        # A theme registered anew under an old name is worked out anew.
        old = app.current_theme
        app.register_theme(Theme(name=old.name, primary="#00ff00", dark=old.dark))
        assert app.current_theme is not old
        assert app.get_css_variables() == textual_own(app)
