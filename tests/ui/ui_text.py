"""Collect the user-visible interface text of a widget tree (for the untranslated-string walk).

Interface text only: window titles, labels, buttons, tabs, menus, tooltips, placeholders, item
headers and combo entries. Library data (titles and authors in the table, conversation names,
a document's own text) is the user's, not the interface's, and is left out.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

# Proper names, formats, keys and units that read the same in every language.
ALLOWED = [
    "PaperPilot", "DOI", "URL", "ISBN", "ISSN", "arXiv", "Markdown", "BibTeX", "RIS", "CSL-JSON", "JSON", "JSONL",
    "GB/T", "APA", "MLA", "IEEE", "Chicago", "API", "PDF", "PDFs", "Ollama", "LM Studio", "llama.cpp", "OpenAI",
    "DeepSeek", "Qwen", "DashScope", "Crossref", "Tantivy", "SQLite", "Ctrl", "Shift", "Alt", "Meta", "Enter",
    "Esc", "Tab", "Return", "Del", "Delete", "Backspace", "Space", "PgDown", "PgUp", "Home", "End", "Ins",
    "F1", "OCR", "English", "Fusion", "http", "https", "localhost", "qwen", "deepseek", "gpt", "instruct",
    "OPENAI_API_KEY", "et al.", "zh-CN", "en-US", "YYYY-MM-DD",
    "chat", "reasoner", "plus", "max", "turbo", "mini", "nano", "flash", "pro", "cpp", "server", "Studio",
    "compatible-mode", "compatible mode", "JSON lines", "www", "com", "org", "v1", "api", "xxxx",
    "Excel", "CSV", "xlsx", "csv", "docx", "Word", "Transformer",
    "UTF-8", "UTF-16", "GB18030/GBK", "Big5", "Windows-1252",
    "vLLM", "Kimi", "GLM", "BigModel", "kimi", "glm", "Moonshot", ".txt", ".md", ".jsonl", ".bib", ".ris", ".json",
]
_ALLOWED_RE = re.compile("|".join(re.escape(a) for a in sorted(ALLOWED, key=len, reverse=True)))
_URL = re.compile(r"(https?://|file://)\S+|\S+@\S+|[\w./-]+\.(?:pdf|md|json|ini|txt|bib|ris)\b|(/[\w.-]+)+")
_WORD = re.compile(r"[A-Za-z]{3,}")
_QUOTED = re.compile(r"“[^”]*”|'[^'\n]*'|‘[^’]*’")


# The sample library's own questions ("Try asking", the welcome view): content, asked as written.
_SAMPLE_QUESTION = re.compile(r'<a href="q:\d+">.*?</a>')


def plain(text: str) -> str:
    text = _SAMPLE_QUESTION.sub(" ", text)
    if "<" in text and ">" in text:
        doc = QTextDocument()
        doc.setHtml(text)
        text = doc.toPlainText()
    return text.replace("&&", "&").replace("&", "")


def english_left(text: str) -> str:
    """What is left of ``text`` that reads as English words, once proper names are removed."""
    # Words core quotes from the question ("nothing read mentions “gulls”") are the user's.
    rest = _QUOTED.sub(" ", _ALLOWED_RE.sub(" ", _URL.sub(" ", plain(text))))
    return " ".join(_WORD.findall(rest))


def _bare(text: str) -> str:
    """An action's text without its mnemonic: "文件(&F)" and its default tooltip "文件(F)" → "文件"."""
    return re.sub(r"\(&?\w\)", "", text).replace("&", "").replace("…", "").strip()


def _action_texts(actions: list[QAction], where: str, out: list[tuple[str, str]]) -> None:
    for a in actions:
        if a.isSeparator():
            continue
        out.append((f"{where} action", a.text()))
        if a.toolTip() and _bare(a.toolTip()) != _bare(a.text()):
            out.append((f"{where} action tooltip", a.toolTip()))
        sub = a.menu()
        if isinstance(sub, QMenu):
            out.append((f"{where} menu", sub.title()))
            _action_texts(sub.actions(), where, out)


def interface_texts(root: QWidget, data_widgets: tuple[QWidget, ...] = ()) -> list[tuple[str, str]]:
    """(where, text) for every piece of interface text under ``root``."""
    out: list[tuple[str, str]] = []
    skip = set(map(id, data_widgets))
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if id(w) in skip or any(id(p) in skip for p in _ancestors(w)):
            continue
        if _is_overflow(w) or any(_is_overflow(p) for p in _ancestors(w)):
            continue  # a menu or tool bar's overflow button repeats the bar's own actions
        name = f"{type(w).__name__}#{w.objectName()}"
        if w.isWindow() and w.windowTitle():
            out.append((f"{name} title", w.windowTitle()))
        if w.toolTip():
            out.append((f"{name} tooltip", w.toolTip()))
        if w.statusTip():
            out.append((f"{name} status tip", w.statusTip()))
        if (isinstance(w, QLabel) and w.text()) or (isinstance(w, QAbstractButton) and w.text()):
            out.append((f"{name} text", w.text()))
        elif isinstance(w, QGroupBox) and w.title():
            out.append((f"{name} title", w.title()))
        elif (isinstance(w, QLineEdit) and w.placeholderText()) or (isinstance(w, (QTextEdit, QPlainTextEdit)) and w.placeholderText()):
            out.append((f"{name} placeholder", w.placeholderText()))
        if isinstance(w, QAbstractSpinBox):
            spin_texts = [getattr(w, "prefix", lambda: "")(), getattr(w, "suffix", lambda: "")()]
            out.extend((f"{name} affix", t) for t in spin_texts if t)
        if isinstance(w, QComboBox) and not w.isEditable():
            out.extend((f"{name} item", w.itemText(i)) for i in range(w.count()))
        if isinstance(w, QTabBar):
            for i in range(w.count()):
                out.append((f"{name} tab", w.tabText(i)))
                if w.tabToolTip(i):
                    out.append((f"{name} tab tooltip", w.tabToolTip(i)))
        header_view = getattr(w, "horizontalHeader", None) or getattr(w, "header", None)
        if isinstance(w, QAbstractItemView) and w.model() is not None and callable(header_view):
            model = w.model()
            for section in range(header_view().count()):
                header = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
                if isinstance(header, str) and header:
                    out.append((f"{name} header", header))
        if isinstance(w, QTreeWidget):
            # A tree of interface rows (the import log, the shortcut list, the trace): every
            # cell. A tree of the user's data is passed in ``data_widgets`` and skipped above.
            for item in _tree_items(w):
                for col in range(w.columnCount()):
                    if item.text(col):
                        out.append((f"{name} item", item.text(col)))
        if isinstance(w, QMenu):
            if not w.title():
                continue  # the menu bar's overflow popup: the menu bar's own actions again
            out.append((f"{name} menu", w.title()))
        _action_texts(list(w.actions()), name, out)
    return [(where, text) for where, text in out if text.strip()]


def _tree_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    out: list[QTreeWidgetItem] = []
    stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        out.append(item)
        stack.extend(item.child(i) for i in range(item.childCount()))
    return out


def _is_overflow(w: QWidget) -> bool:
    return w.objectName() in ("qt_menubar_ext_button", "qt_toolbar_ext_button")


def _ancestors(w: QWidget) -> list[QWidget]:
    out = []
    p = w.parentWidget()
    while p is not None:
        out.append(p)
        p = p.parentWidget()
    return out


def untranslated(
    root: QWidget, data_widgets: tuple[QWidget, ...] = (), data_strings: tuple[str, ...] = ()
) -> list[str]:
    """Interface text under ``root`` still in English (to run with the Chinese UI chosen).
    ``data_strings`` (a document's title, say) may appear inside interface text as they are."""

    def without_data(text: str) -> str:
        for d in sorted(data_strings, key=len, reverse=True):
            text = text.replace(d, " ")
        return text

    return sorted(
        {
            f"{where}: {text!r}"
            for where, text in interface_texts(root, data_widgets)
            if english_left(without_data(plain(text)))
        }
    )
