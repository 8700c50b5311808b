"""Dark mode: a chosen theme applies at once; pages, highlights and messages stay readable."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings, load_settings, save_settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui.settings_dialog import SettingsDialog
from paperpilot.ui.theme import apply_theme, error_colour, is_dark, ok_colour
from tests.fixtures.pdfs import make_paper_pdf


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[None]:
    apply_theme("dark")
    yield
    apply_theme("system")


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours."""

    def lum(c: QColor) -> float:
        def ch(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF())

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_dark_and_light_palettes_apply_and_messages_stay_readable(qapp: QApplication) -> None:
    try:
        for theme in ("dark", "light"):
            apply_theme(theme)
            pal = QGuiApplication.palette()
            assert is_dark(pal) is (theme == "dark")
            base, text = pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)
            assert contrast(base, text) > 7
            window = pal.color(QPalette.ColorRole.Window)
            for colour in (ok_colour(), error_colour()):
                assert contrast(QColor(colour), window) >= 4.5, (theme, colour)
    finally:
        apply_theme("system")


def test_theme_is_chosen_in_settings_and_kept(qtbot: Any, paperpilot_home: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    paths = app_paths().ensure()
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    assert dlg.theme_combo.currentData() == "system"
    assert [dlg.theme_combo.itemData(i) for i in range(dlg.theme_combo.count())] == ["system", "light", "dark"]
    dlg.theme_combo.setCurrentIndex(dlg.theme_combo.findData("dark"))
    save_settings(dlg.result_settings(), paths.settings_file)
    loaded, warning = load_settings(paths.settings_file)
    assert warning is None and loaded.ui.theme == "dark"
    dlg.reject()


def test_dark_pdf_page_stays_white_on_a_dark_surround(
    dark: None, window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    doc = library.all_documents()[0]
    hit = library.search("zebra crossing experiment", 1)[0]
    window.resize(1400, 900)
    window.library_pane.open_document(doc.doc_id, hit.page, library.read(hit.doc_id, hit.seq).text)
    viewer = window.library_pane.viewers[doc.doc_id]
    qtbot.waitUntil(lambda: viewer.span_location is not None and not viewer.is_locating(), timeout=10_000)
    view = viewer.pdf_view

    def page_rendered() -> bool:
        img = view.viewport().grab().toImage()
        page = view.page_rect(hit.page - 1).translated(-view.horizontalScrollBar().value(), -view.verticalScrollBar().value())
        return img.pixelColor(page.center().x(), max(2, page.top() + 4)).lightness() > 240

    qtbot.waitUntil(page_rendered, timeout=10_000)
    image = view.viewport().grab().toImage()
    # The surround left of the page is the palette's dark grey; the page itself is paper white.
    surround = image.pixelColor(2, image.height() // 2)
    assert surround.lightness() < 60
    # The highlight is yellow on white: dark print stays readable under it.
    rects = view.span_viewport_rects()
    assert rects
    r = rects[0][1]
    marked = image.pixelColor(round(r.left() + 2), round(r.center().y()))
    assert marked.red() > 200 and marked.green() > 160 and marked.blue() < 160


def test_dark_answer_and_badges_are_readable(dark: None, window: Any) -> None:
    from paperpilot.ui import chat_pane

    pal = window.chat_pane.conversation.palette()
    assert is_dark(pal)
    for colour in chat_pane.STATUS_COLOURS.values():
        # Badges are white on their colour, in both themes.
        assert contrast(QColor(colour), QColor("#ffffff")) >= 4.5, colour


def test_back_to_system_uses_the_styles_own_palette(qapp: QApplication) -> None:
    apply_theme("dark")
    assert is_dark()
    apply_theme("system")
    standard = qapp.style().standardPalette()
    assert QGuiApplication.palette().color(QPalette.ColorRole.Base) == standard.color(QPalette.ColorRole.Base)
