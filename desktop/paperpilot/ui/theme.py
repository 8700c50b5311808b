"""Light and dark: follow the system, or a theme chosen in Settings; colours that stay readable.

Fusion follows the platform's colour scheme where the platform says which it is. A chosen
theme is set twice: as the application's colour scheme (native dialogs follow it) and as an
explicit Fusion palette, because not every platform (offscreen, older X11 desktops) applies
the scheme to the palette.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

THEMES: dict[str, str] = {"system": "Follow the system", "light": "Light", "dark": "Dark"}

_DARK = {
    QPalette.ColorRole.Window: "#2b2d30",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1e1f22",
    QPalette.ColorRole.AlternateBase: "#26282b",
    QPalette.ColorRole.ToolTipBase: "#3c3f41",
    QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.PlaceholderText: "#9a9ea6",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.Button: "#3a3c40",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
    QPalette.ColorRole.BrightText: "#ff6b6b",
    QPalette.ColorRole.Light: "#4a4d52",
    QPalette.ColorRole.Midlight: "#404347",
    QPalette.ColorRole.Mid: "#303236",
    # QPdfView paints the surround of its white pages in Dark: a dark grey, not black.
    QPalette.ColorRole.Dark: "#18191b",
    QPalette.ColorRole.Shadow: "#000000",
    QPalette.ColorRole.Highlight: "#3d6fb6",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#8ab4f8",
    QPalette.ColorRole.LinkVisited: "#c58af9",
}
_LIGHT = {
    QPalette.ColorRole.Window: "#efefef",
    QPalette.ColorRole.WindowText: "#000000",
    QPalette.ColorRole.Base: "#ffffff",
    QPalette.ColorRole.AlternateBase: "#f7f7f7",
    QPalette.ColorRole.ToolTipBase: "#ffffdc",
    QPalette.ColorRole.ToolTipText: "#000000",
    QPalette.ColorRole.PlaceholderText: "#6b6f76",
    QPalette.ColorRole.Text: "#000000",
    QPalette.ColorRole.Button: "#efefef",
    QPalette.ColorRole.ButtonText: "#000000",
    QPalette.ColorRole.BrightText: "#ffffff",
    QPalette.ColorRole.Light: "#ffffff",
    QPalette.ColorRole.Midlight: "#cacaca",
    QPalette.ColorRole.Mid: "#b8b8b8",
    QPalette.ColorRole.Dark: "#9f9f9f",
    QPalette.ColorRole.Shadow: "#767676",
    QPalette.ColorRole.Highlight: "#308cc6",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#0b57d0",
    QPalette.ColorRole.LinkVisited: "#7b1fa2",
}


def palette_for(theme: str) -> QPalette:
    """The Fusion palette of ``theme`` ("light" or "dark"), disabled text greyed."""
    colours = _DARK if theme == "dark" else _LIGHT
    pal = QPalette()
    for role, colour in colours.items():
        pal.setColor(role, QColor(colour))
    disabled = QColor("#7a7d82") if theme == "dark" else QColor("#8c8c8c")
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return pal


_state = {"theme": "system", "palette_set": False, "watching": False}


def apply_theme(theme: str) -> None:
    """Use ``theme`` ("system", "light" or "dark") from now on; open windows repaint."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return
    hints = app.styleHints()
    _state["theme"] = theme
    if theme in ("light", "dark"):
        hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
        app.setPalette(palette_for(theme))
        _state["palette_set"] = True
        return
    hints.unsetColorScheme()
    # Untouched, Fusion follows the platform's scheme by itself. Once a theme set a palette,
    # the style's own palette is set back, and set again whenever the platform switches.
    if _state["palette_set"]:
        _system_palette()
        if not _state["watching"]:
            hints.colorSchemeChanged.connect(_on_color_scheme_changed)
            _state["watching"] = True


def _system_palette() -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setPalette(app.style().standardPalette())


def _on_color_scheme_changed(_scheme: Qt.ColorScheme) -> None:
    if _state["theme"] == "system":
        _system_palette()


def is_dark(palette: QPalette | None = None) -> bool:
    pal = palette if palette is not None else QGuiApplication.palette()
    return pal.color(QPalette.ColorRole.Base).lightness() < 128


def ok_colour(palette: QPalette | None = None) -> str:
    """A green for "it worked" that is readable on this palette's background."""
    return "#7ad48f" if is_dark(palette) else "#146c33"


def error_colour(palette: QPalette | None = None) -> str:
    """A red for "it failed" that is readable on this palette's background."""
    return "#ff8a80" if is_dark(palette) else "#b3261e"
