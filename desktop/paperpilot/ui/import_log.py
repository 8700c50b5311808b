"""The Import Log: every import batch of this session, with what came in, what was already
there ("already in the library as #12") and what failed and why, so that a failure list stays
reachable after the next import."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ..core.api import ImportReport
from .i18n import said_or, tr


def batch_lines(report: ImportReport) -> list[tuple[str, str]]:
    """(what, detail) lines of one batch, failures first."""
    lines: list[tuple[str, str]] = []
    lines += [(tr("Failed"), f"{Path(p).name}: {said_or(report.message(why), why)}") for p, why in report.failed]
    lines += [(tr("Unsupported"), f"{Path(p).name}: {said_or(report.message(why), why)}") for p, why in report.unsupported]
    stopped = said_or(report.message(report.stopped), report.stopped)
    lines += [(tr("Not imported"), f"{Path(p).name}: {stopped}") for p in report.not_imported]
    lines += [
        (tr("Duplicate"), tr("{name}: already in the library as #{id}").format(name=Path(p).name, id=i))
        for p, i in report.duplicates
    ]
    lines += [(tr("Imported"), f"#{d.doc_id} {d.title}") for d in report.imported]
    lines += [(tr("Updated"), f"#{d.doc_id} {d.title}") for d in report.updated]
    return lines


def batch_title(n: int, report: ImportReport) -> str:
    return tr("Import {n}: {imported} imported, {dups} duplicate(s), {failed} failed").format(
        n=n, imported=len(report.imported), dups=len(report.duplicates),
        failed=len(report.failed) + len(report.unsupported),
    )  # fmt: skip


class ImportLogDialog(QDialog):
    def __init__(self, reports: list[ImportReport], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Import Log"))
        self.resize(720, 420)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels([tr("Batch / result"), tr("Details")])
        self.tree.setColumnWidth(0, 260)
        for n, report in reversed(list(enumerate(reports, 1))):
            top = QTreeWidgetItem([batch_title(n, report), ""])
            for what, detail in batch_lines(report):
                child = QTreeWidgetItem([what, detail])
                child.setToolTip(1, detail)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded(n == len(reports) or bool(report.failed or report.unsupported))
        if not reports:
            self.tree.addTopLevelItem(QTreeWidgetItem([tr("No imports yet in this session."), ""]))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tree)
        lay.addWidget(buttons)
