"""A word-wrapped label whose height follows its width, inside form layouts too.

QFormLayout sizes a wrapped QLabel's row from the label's size hint, which Qt computes for a
guessed width: a long line (a key file's path, a server's message) then either loses its last
line or leaves a block of empty rows. This label reports the height its current width needs
and asks for a new layout whenever that changes.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class WrapLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._hinted = -1

    def sizeHint(self) -> QSize:  # Qt override
        hint = super().sizeHint()
        width = self.width() if self.width() > 40 else hint.width()
        return QSize(hint.width(), self.heightForWidth(width) if self.text() else 0)

    def minimumSizeHint(self) -> QSize:  # Qt override
        return QSize(super().minimumSizeHint().width(), self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        needed = self.heightForWidth(self.width())
        if needed != self._hinted:
            self._hinted = needed
            self.updateGeometry()

    def setText(self, text: str) -> None:  # Qt override: a new text may need other lines
        super().setText(text)
        self._hinted = -1
        self.updateGeometry()
