"""Shows one library document at a page, with a passage highlighted: docked in the main
window's reader (one tab per document) or in a window of its own.

PDFs are rendered with QtPdf. A cited passage is located on its page by
``core.extract.pdf_spans`` (in a worker thread: PDFium is shared with imports under one lock
and a look-up takes tens of milliseconds) and its whole span is painted over the page as
translucent line rectangles; when it cannot be located, the viewer falls back to searching
its first words with QPdfSearchModel. Text, Markdown and corpus documents are shown from
their chunks (the text PaperPilot actually indexed and cites) so an evidence passage can be
found and highlighted exactly.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QColor,
    QDesktopServices,
    QGuiApplication,
    QIcon,
    QImage,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPalette,
    QPixmap,
    QResizeEvent,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtPdf import QPdfDocument, QPdfDocumentRenderOptions, QPdfPageRenderer, QPdfSearchModel
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..core.api import DocumentInfo, Library, LibraryError, PageRects, SpanLocation, locate_span
from .i18n import tr
from .keyboard import FindKeys
from .workers import FunctionWorker, WorkerThread, adopt_lingering_thread

SEARCH_WORDS = 6
SEARCH_MAX_CHARS = 48
_WS = re.compile(r"\s+")
# A highlighter's yellow, multiplied onto the page so the print stays black under it.
SPAN_COLOUR = QColor(255, 214, 10, 150)
# Below this share of the passage found, the label says only part of it is marked.
FULL_COVERAGE = 0.9
THUMB_WIDTH = 96
# Thumbnails are asked of QtPdf's renderer thread a few at a time, so a long PDF does not queue
# hundreds of renders ahead of the page the reader is looking at.
THUMB_BATCH = 4
MAX_THUMBNAILS = 2000
# Narrower than this, the thumbnail strip steps aside so the page itself keeps the room.
THUMBS_MIN_VIEWER_WIDTH = 560


def search_phrase(text: str) -> str:
    """The first few words of a passage: short enough to survive line breaks and hyphenation
    differences between the indexed text and the PDF's own text layer."""
    words = text.split()
    out: list[str] = []
    for w in words[:SEARCH_WORDS]:
        if out and len(" ".join([*out, w])) > SEARCH_MAX_CHARS:
            break
        out.append(w)
    phrase = " ".join(out)
    return phrase[:SEARCH_MAX_CHARS]


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def _blend(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(
        round(a.red() * t + b.red() * (1 - t)),
        round(a.green() * t + b.green() * (1 - t)),
        round(a.blue() * t + b.blue() * (1 - t)),
    )


def locate_request(request: int, path: Path, text: str, page: int) -> tuple[int, SpanLocation]:
    """Locate one passage in one PDF (in a FunctionWorker, off the GUI thread); with its request id."""
    try:
        loc = locate_span(path, text, page)
    except Exception as e:  # locate_span does not raise; a bug there must not kill the thread quietly
        loc = SpanLocation(note=f"{type(e).__name__}: {e}")
    return request, loc


class SpanPdfView(QPdfView):
    """A QPdfView that paints a cited span over its pages.

    QPdfView exposes no mapping from page to viewport, so ``page_rect`` repeats the layout
    QtPdf computes for its pages (QPdfViewPrivate::calculateDocumentLayout in Qt 6.4–6.12:
    logical DPI / 72 × zoom, or the viewport width for fit-to-width, pages centred and
    stacked with the document margins and page spacing). The tests check it against the
    rendered pixels, so a change upstream shows up as a failing test.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        if parent is None:  # PySide6's stubs let QPdfView take a widget or no argument, not None
            super().__init__()
        else:
            super().__init__(parent)
        screen = QGuiApplication.primaryScreen()
        self._resolution = (screen.logicalDotsPerInch() if screen is not None else 72.0) / 72.0
        self._span: tuple[PageRects, ...] = ()
        self._layout_key: tuple[object, ...] = ()
        self._layout: dict[int, QRect] = {}
        self._scroll_target: tuple[int, float] | None = None  # page (0-based), fraction of its height
        self._scroll_context = True  # a passage keeps a quarter of the view above it; a page does not
        self.verticalScrollBar().sliderPressed.connect(self.on_scroll_bar_slider_pressed)

    # --- the span --------------------------------------------------------------------------

    def set_span(self, pages: tuple[PageRects, ...]) -> None:
        self._span = pages
        self.viewport().update()

    def span(self) -> tuple[PageRects, ...]:
        return self._span

    def clear_span(self) -> None:
        self._span = ()
        self._scroll_target = None
        self.viewport().update()

    def span_viewport_rects(self) -> list[tuple[int, QRectF]]:
        """(page 0-based, rectangle in viewport pixels) for every rectangle of the span."""
        out: list[tuple[int, QRectF]] = []
        dx, dy = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        for p in self._span:
            geometry = self.page_rect(p.page - 1)
            if geometry.isEmpty() or p.width <= 0 or p.height <= 0:
                continue
            sx = geometry.width() / p.width
            sy = geometry.height() / p.height
            for r in p.rects:
                out.append(
                    (
                        p.page - 1,
                        QRectF(
                            geometry.x() - dx + r.left * sx,
                            geometry.y() - dy + (p.height - r.top) * sy,
                            r.width * sx,
                            r.height * sy,
                        ),
                    )
                )
        return out

    def scroll_to_span(self) -> None:
        """Bring the span's first rectangle into view, a little below the top edge."""
        first = next(((p.page - 1, p.rects[0], p.height) for p in self._span if p.rects), None)
        if first is None:
            return
        page, rect, height = first
        self._scroll_target = (page, (height - rect.top) / height if height > 0 else 0.0)
        self._scroll_context = True
        self._apply_scroll()

    def hold_page(self, page: int) -> None:
        """Show ``page`` (0-based) from its top, and keep it there while the view is laid out."""
        self._scroll_target = (page, 0.0)
        self._scroll_context = False
        self._apply_scroll()

    def release_scroll(self) -> None:
        self._scroll_target = None

    def _apply_scroll(self) -> None:
        if self._scroll_target is None:
            return
        page, fraction = self._scroll_target
        geometry = self.page_rect(page)
        if geometry.isEmpty():
            return
        # A quarter of the view above the passage keeps its context (a heading, the previous line).
        above = self.viewport().height() // 4 if self._scroll_context else self.documentMargins().top()
        y = geometry.y() + fraction * geometry.height() - above
        bar = self.verticalScrollBar()
        bar.setValue(max(bar.minimum(), min(bar.maximum(), round(y))))

    # --- page layout -----------------------------------------------------------------------

    def page_rect(self, page: int) -> QRect:
        """Where ``page`` (0-based) lies in the scrolled content, in pixels (as QtPdf lays it out)."""
        doc = self.document()
        if doc is None or doc.status() != QPdfDocument.Status.Ready:
            return QRect()
        key = (
            doc.pageCount(),
            self.viewport().width(),
            self.zoomMode(),
            self.zoomFactor(),
            self.pageMode(),
            self.pageSpacing(),
            self.documentMargins(),
            self.pageNavigator().currentPage() if self.pageMode() == QPdfView.PageMode.SinglePage else -1,
        )
        if key != self._layout_key:
            self._layout = self._compute_layout(doc)
            self._layout_key = key
        return QRect(self._layout.get(page, QRect()))

    def _compute_layout(self, doc: QPdfDocument) -> dict[int, QRect]:
        margins = self.documentMargins()
        viewport = self.viewport().size()
        if self.pageMode() == QPdfView.PageMode.SinglePage:
            pages = [self.pageNavigator().currentPage()]
        else:
            pages = list(range(doc.pageCount()))
        sizes: dict[int, QSize] = {}
        for page in pages:
            points = doc.pagePointSize(page)
            mode = self.zoomMode()
            if mode == QPdfView.ZoomMode.FitToWidth:
                size = (points * self._resolution).toSize()
                if size.width() > 0:
                    size = size * ((viewport.width() - margins.left() - margins.right()) / size.width())
            elif mode == QPdfView.ZoomMode.FitInView:
                size = (points * self._resolution).toSize()
                size = size.scaled(
                    viewport - QSize(margins.left() + margins.right(), self.pageSpacing()),
                    Qt.AspectRatioMode.KeepAspectRatio,
                )
            else:
                size = (points * self._resolution * self.zoomFactor()).toSize()
            sizes[page] = size
        total_width = max((s.width() for s in sizes.values()), default=0) + margins.left() + margins.right()
        y = margins.top()
        layout: dict[int, QRect] = {}
        for page in pages:
            size = sizes[page]
            x = (max(total_width, viewport.width()) - size.width()) // 2
            layout[page] = QRect(x, y, size.width(), size.height())
            y += size.height() + self.pageSpacing()
        return layout

    # --- Qt overrides ----------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        super().paintEvent(event)
        if not self._span:
            return
        clip = QRectF(event.rect())
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.WindingFill)
        for _, rect in self.span_viewport_rects():
            # A pixel of air around the glyphs, as a highlighter pen leaves.
            r = rect.adjusted(-1.5, -1.0, 1.5, 1.0)
            if r.intersects(clip):
                path.addRect(r)
        if path.isEmpty():
            return
        painter = QPainter(self.viewport())
        try:
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
            # One filled outline: where the bands of neighbouring lines overlap, no darker seam.
            painter.fillPath(path.simplified(), SPAN_COLOUR)
        finally:
            painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        # The first layouts happen while the window opens; keep the passage in view through
        # them (and through later resizes), until the reader scrolls somewhere else.
        self._apply_scroll()

    def wheelEvent(self, event: QWheelEvent) -> None:  # Qt override
        self._scroll_target = None
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        self._scroll_target = None
        super().keyPressEvent(event)

    @Slot()
    def on_scroll_bar_slider_pressed(self) -> None:
        self._scroll_target = None



class DocumentViewer(QWidget):
    """Shows ``doc`` at ``page`` (1-based) with ``text`` highlighted: its whole span in a PDF, its
    chunk in a text document.

    ``docked`` builds it for a tab of the main window's reader (``pop_out_requested`` asks for a
    window of its own, ``closed`` tells the reader to drop the tab); otherwise it is a window.
    """

    closed = Signal(object)  # self
    pop_out_requested = Signal(object)  # self

    def __init__(
        self,
        library: Library,
        doc: DocumentInfo,
        page: int = 1,
        text: str = "",
        parent: QWidget | None = None,
        *,
        docked: bool = False,
    ) -> None:
        super().__init__(parent)
        self.docked = docked
        if not docked:
            self.setWindowFlag(Qt.WindowType.Window, True)
            self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.resize(900, 1000)
        self.setObjectName("documentViewer")
        self.library = library
        self.doc = doc
        self.file_path = library.paths.library_dir / doc.stored_path if doc.stored_path else None
        self.setWindowTitle(f"{doc.title} — PaperPilot")
        self._target_page = max(1, page)
        self._passage = text
        self._pending_jump = False
        self.pdf_doc: QPdfDocument | None = None
        self.pdf_view: SpanPdfView | None = None
        self.search_model: QPdfSearchModel | None = None
        self.text_view: QTextBrowser | None = None
        self.thumb_renderer: QPdfPageRenderer | None = None
        self._thumbs_next = 0  # the next page whose thumbnail is to be asked for
        self._thumbs_pending = 0
        # Span look-ups: one at a time; a newer request waits and replaces an older waiting one.
        self._span_request = 0
        self._span_thread: WorkerThread | None = None
        self._span_waiting: tuple[int, Path, str, int] | None = None
        self._span_phrase = ""
        self.span_location: SpanLocation | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self._build_toolbar()
        layout.addWidget(self.toolbar)
        self.thumbnails = QListWidget(self)
        self.thumbnails.setObjectName("pageThumbnails")
        self.thumbnails.setViewMode(QListView.ViewMode.IconMode)
        self.thumbnails.setFlow(QListView.Flow.TopToBottom)
        self.thumbnails.setWrapping(False)
        self.thumbnails.setMovement(QListView.Movement.Static)
        self.thumbnails.setResizeMode(QListView.ResizeMode.Adjust)
        self.thumbnails.setIconSize(QSize(THUMB_WIDTH, round(THUMB_WIDTH * 1.3)))
        self.thumbnails.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.thumbnails.setFixedWidth(THUMB_WIDTH + 34)
        self.thumbnails.itemClicked.connect(self.on_thumbnails_item_clicked)
        self.thumbnails.itemActivated.connect(self.on_thumbnails_item_clicked)
        self.thumbnails.verticalScrollBar().valueChanged.connect(self.on_thumbnails_scrolled)
        self.stack = QStackedWidget(self)
        # A fixed strip beside the page (a splitter would hand the strip's spare width to nobody).
        self.body = QWidget(self)
        row = QHBoxLayout(self.body)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.thumbnails)
        row.addWidget(self.stack, 1)
        layout.addWidget(self.body, 1)
        is_pdf = self.file_path is not None and self.file_path.suffix.lower() == ".pdf"
        # A PDF whose copy is missing or unreadable still has its indexed text: show that.
        if not (is_pdf and self.file_path is not None and self._load_pdf(self.file_path)):
            self._load_text()
        self.thumbnails_action.setEnabled(self.pdf_doc is not None)
        self._update_thumbnails_visible()
        self.show_location(page, text)

    # --- construction -------------------------------------------------------------------------

    def _build_toolbar(self) -> None:
        bar = QToolBar(tr("Document"), self)
        bar.setMovable(False)
        self.toolbar = bar
        # Docked, the viewer's keys work while focus is inside it; they must not clash with the
        # main window's own (Ctrl+W, Ctrl++ …) elsewhere.
        context = (
            Qt.ShortcutContext.WidgetWithChildrenShortcut if self.docked else Qt.ShortcutContext.WindowShortcut
        )

        def action(text: str, slot: object, shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None) -> QAction:
            act = QAction(text, self)
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
                act.setShortcutContext(context)
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        self.thumbnails_action = action(tr("Pages", "thumbnails"), self.on_thumbnails_action_toggled)
        self.thumbnails_action.setCheckable(True)
        self.thumbnails_action.setChecked(True)
        self.thumbnails_action.setToolTip(tr("Show or hide the page thumbnails"))
        bar.addAction(self.thumbnails_action)
        bar.addSeparator()
        self.search_edit = QLineEdit(self)
        self.search_edit.setObjectName("findInDocument")
        self.search_edit.setPlaceholderText(tr("Find in document"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMaximumWidth(360)
        self.search_edit.setMinimumWidth(120)
        self.search_edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.search_edit.returnPressed.connect(self.on_search_edit_return_pressed)
        self.find_keys = FindKeys(self.search_edit, self.clear_search, self.focus_page, self.on_prev_action_triggered)
        bar.addWidget(self.search_edit)
        self.prev_action = action(tr("◀ Previous"), self.on_prev_action_triggered, QKeySequence.StandardKey.FindPrevious)
        self.next_action = action(tr("Next ▶"), self.on_next_action_triggered, QKeySequence.StandardKey.FindNext)
        bar.addAction(self.prev_action)
        bar.addAction(self.next_action)
        self.result_label = QLabel(self)
        self.result_label.setContentsMargins(8, 0, 8, 0)
        bar.addWidget(self.result_label)
        bar.addSeparator()
        self.zoom_out_action = action("−", self.on_zoom_out_action_triggered, QKeySequence.StandardKey.ZoomOut)
        self.zoom_out_action.setToolTip(tr("Zoom out"))
        self.zoom_in_action = action("+", self.on_zoom_in_action_triggered, QKeySequence.StandardKey.ZoomIn)
        self.zoom_in_action.setToolTip(tr("Zoom in"))
        self.fit_width_action = action(tr("Fit width"), self.on_fit_width_action_triggered, "Ctrl+0")
        self.fit_width_action.setToolTip(tr("Fit the page to the width of the view"))
        bar.addAction(self.zoom_out_action)
        bar.addAction(self.zoom_in_action)
        bar.addAction(self.fit_width_action)
        bar.addSeparator()
        # Page jump: type a page number and press Enter.
        self.page_spin = QSpinBox(self)
        self.page_spin.setObjectName("pageJump")
        self.page_spin.setToolTip(tr("Go to page (type a number and press Enter)"))
        self.page_spin.setRange(1, 1)
        self.page_spin.setKeyboardTracking(False)
        self.page_spin.setAccelerated(True)
        self.page_spin.valueChanged.connect(self.on_page_spin_value_changed)
        bar.addWidget(self.page_spin)
        self.page_label = QLabel(self)
        self.page_label.setContentsMargins(4, 0, 8, 0)
        bar.addWidget(self.page_label)
        self.open_file_action = action(tr("Open File"), self.on_open_file_action_triggered)
        self.open_file_action.setToolTip(
            tr("Open the library's copy of this file in the default application")
        )
        self.open_file_action.setEnabled(self.file_path is not None)
        bar.addAction(self.open_file_action)
        self.pop_out_action = action(tr("Open in Window"), self.on_pop_out_action_triggered)
        self.pop_out_action.setToolTip(tr("Show this document in a window of its own"))
        self.pop_out_action.setVisible(self.docked)
        bar.addAction(self.pop_out_action)
        # Docked, the main window's Close Document (Ctrl+W) closes the tab in front.
        self.close_action = action(tr("Close"), self.close, None if self.docked else QKeySequence.StandardKey.Close)
        if self.docked:
            bar.addAction(self.close_action)

    def _load_pdf(self, path: Path) -> bool:
        if not path.is_file():
            return False
        doc = QPdfDocument(self)
        if doc.load(str(path)) != QPdfDocument.Error.None_ or doc.pageCount() == 0:
            doc.deleteLater()
            return False
        self.pdf_doc = doc
        view = SpanPdfView(self)
        view.setDocument(doc)
        view.setPageMode(QPdfView.PageMode.MultiPage)
        view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        # QPdfView paints each page on white; the gap around pages uses the palette's Dark role.
        model = QPdfSearchModel(self)
        model.setDocument(doc)
        view.setSearchModel(model)
        model.countChanged.connect(self.on_search_model_count_changed)
        view.pageNavigator().currentPageChanged.connect(self.on_navigator_current_page_changed)
        self.pdf_view = view
        self.search_model = model
        self.stack.addWidget(view)
        self.page_spin.setRange(1, doc.pageCount())
        self._build_thumbnails(doc)
        return True

    def _build_thumbnails(self, doc: QPdfDocument) -> None:
        """One item per page, blank until QtPdf's renderer thread has drawn it."""
        icon_size = self.thumbnails.iconSize()
        blank = QPixmap(icon_size)
        blank.fill(QColor("white"))
        placeholder = QIcon(blank)
        for page in range(min(doc.pageCount(), MAX_THUMBNAILS)):
            item = QListWidgetItem(placeholder, str(page + 1))
            item.setData(Qt.ItemDataRole.UserRole, page)
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter)
            self.thumbnails.addItem(item)
        renderer = QPdfPageRenderer(self)
        renderer.setRenderMode(QPdfPageRenderer.RenderMode.MultiThreaded)
        renderer.setDocument(doc)
        renderer.pageRendered.connect(self.on_thumb_renderer_page_rendered)
        self.thumb_renderer = renderer
        QTimer.singleShot(0, self._request_thumbnails)

    def thumbnail_size(self, page: int) -> QSize:
        if self.pdf_doc is None:
            return QSize()
        points = self.pdf_doc.pagePointSize(page)
        width = self.thumbnails.iconSize().width()
        if points.width() <= 0:
            return QSize(width, round(width * 1.3))
        return QSize(width, max(1, round(width * points.height() / points.width())))

    def thumbnails_rendered(self) -> int:
        """How many thumbnails show their page (the tests wait for them)."""
        return sum(
            1 for i in range(self.thumbnails.count()) if self.thumbnails.item(i).data(Qt.ItemDataRole.UserRole + 1)
        )

    def _request_thumbnails(self) -> None:
        if self.thumb_renderer is None or self.pdf_doc is None:
            return
        while self._thumbs_pending < THUMB_BATCH and self._thumbs_next < self.thumbnails.count():
            page = self._thumbs_next
            self._thumbs_next += 1
            self._thumbs_pending += 1
            self.thumb_renderer.requestPage(page, self.thumbnail_size(page), QPdfDocumentRenderOptions())

    @Slot(int, QSize, QImage, QPdfDocumentRenderOptions, int)
    def on_thumb_renderer_page_rendered(
        self, page: int, _size: QSize, image: QImage, _options: QPdfDocumentRenderOptions, _request: int
    ) -> None:
        self._thumbs_pending = max(0, self._thumbs_pending - 1)
        item = self.thumbnails.item(page)
        if item is not None and not image.isNull():
            # The page is painted on white, as in the view: a transparent page is unreadable on dark.
            canvas = QImage(image.size(), QImage.Format.Format_RGB32)
            canvas.fill(QColor("white"))
            painter = QPainter(canvas)
            painter.drawImage(0, 0, image)
            # A hairline edge, so a white page reads as a page on a light list too.
            painter.setPen(QColor(150, 150, 150))
            painter.drawRect(0, 0, canvas.width() - 1, canvas.height() - 1)
            painter.end()
            item.setIcon(QIcon(QPixmap.fromImage(canvas)))
            item.setData(Qt.ItemDataRole.UserRole + 1, True)
        self._request_thumbnails()

    def _load_text(self) -> None:
        browser = QTextBrowser(self)
        browser.setOpenLinks(False)
        browser.setReadOnly(True)
        doc = browser.document()
        doc.setDocumentMargin(24)
        self.text_view = browser
        self.stack.addWidget(browser)
        self.zoom_in_action.setEnabled(True)
        self.fit_width_action.setEnabled(False)
        self.page_spin.setEnabled(False)
        self.page_spin.setVisible(False)
        self.page_label.setText("")

    # --- navigation ---------------------------------------------------------------------------

    @property
    def is_pdf(self) -> bool:
        return self.pdf_view is not None

    def current_page(self) -> int:
        """The 1-based page shown (always 1 for text documents)."""
        if self.pdf_view is None:
            return 1
        return self.pdf_view.pageNavigator().currentPage() + 1

    def search_count(self) -> int:
        if self.search_model is not None:
            return self.search_model.count()
        return 1 if self.text_view is not None and self.text_view.textCursor().hasSelection() else 0

    def show_location(self, page: int, text: str) -> None:
        """Go to ``page`` (1-based) and highlight ``text`` there (its whole span in a PDF)."""
        self._target_page = max(1, page)
        self._passage = text
        phrase = search_phrase(text)
        self.search_edit.setText(phrase)
        if self.pdf_view is not None and self.pdf_doc is not None and self.search_model is not None:
            last = self.pdf_doc.pageCount()
            self._target_page = min(self._target_page, last)
            self.pdf_view.clear_span()
            self.span_location = None
            self.pdf_view.pageNavigator().jump(self._target_page - 1, QPointF(0, 0))
            self.pdf_view.hold_page(self._target_page - 1)  # until the span (if any) replaces it
            self._update_page_label()
            self._pending_jump = False
            # The whole span replaces the first-words search; that search stays the fallback.
            if self.search_model.searchString():
                self.search_model.setSearchString("")
            self._span_phrase = phrase
            if text.strip() and self.file_path is not None:
                self._span_request += 1
                self._span_waiting = (self._span_request, self.file_path, text, self._target_page)
                self.result_label.setText(tr("Finding the passage…"))
                self._start_span_lookup()
            else:
                self._update_result_label()
        else:
            self._render_text(text)

    # --- span look-up (worker) ----------------------------------------------------------------

    def is_locating(self) -> bool:
        return self._span_thread is not None or self._span_waiting is not None

    def _start_span_lookup(self) -> None:
        if self._span_thread is not None or self._span_waiting is None:
            return
        request, path, text, page = self._span_waiting
        self._span_waiting = None
        worker = FunctionWorker(locate_request, request, path, text, page, doing="Locating the passage")
        worker.finished.connect(self.on_span_worker_located)
        thread = WorkerThread(worker)
        # Owned by the reaper, not by this window: closing the viewer mid-look-up must not
        # destroy a running thread, and the app waits for it when it quits.
        adopt_lingering_thread(thread)
        self._span_thread = thread
        thread.start()

    @Slot(object)
    def on_span_worker_located(self, located: tuple[int, SpanLocation]) -> None:
        request, loc = located
        self._span_thread = None
        try:
            if request == self._span_request and isinstance(loc, SpanLocation):
                self._show_span(loc)
            # else: an older request, answered after a newer one was made
        finally:
            self._start_span_lookup()

    def _show_span(self, loc: SpanLocation) -> None:
        if self.pdf_view is None:
            return
        self.span_location = loc
        if loc.found:
            self.pdf_view.set_span(loc.pages)
            self.pdf_view.scroll_to_span()
            self._update_page_label()
            if loc.coverage >= FULL_COVERAGE:
                self.result_label.setText(tr("Passage highlighted"))
            else:
                self.result_label.setText(tr("Part of the passage highlighted"))
            return
        # Not found in the text layer (a table, a scan, a changed file): search the first words.
        phrase = self._span_phrase
        if self.search_model is not None and phrase:
            self._pending_jump = True
            if phrase == self.search_model.searchString():
                self.on_search_model_count_changed()
            else:
                self.search_model.setSearchString(phrase)
        self._update_result_label()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        self._span_waiting = None  # a running look-up ends on its own; nothing new starts
        super().closeEvent(event)
        self.closed.emit(self)

    # --- pages: jump, thumbnails --------------------------------------------------------------

    def page_count(self) -> int:
        return self.pdf_doc.pageCount() if self.pdf_doc is not None else 1

    def go_to_page(self, page: int) -> None:
        """Show ``page`` (1-based, clamped to the document) from its top."""
        if self.pdf_view is None or self.pdf_doc is None:
            return
        page = max(1, min(page, self.pdf_doc.pageCount()))
        self.pdf_view.pageNavigator().jump(page - 1, QPointF(0, 0))
        self.pdf_view.hold_page(page - 1)
        self._update_page_label()

    @Slot(int)
    def on_page_spin_value_changed(self, value: int) -> None:
        if self.current_page() != value:
            self.go_to_page(value)

    @Slot(QListWidgetItem)
    def on_thumbnails_item_clicked(self, item: QListWidgetItem) -> None:
        self.go_to_page(int(item.data(Qt.ItemDataRole.UserRole)) + 1)

    @Slot(int)
    def on_thumbnails_scrolled(self, _value: int) -> None:
        self._request_thumbnails()

    @Slot(bool)
    def on_thumbnails_action_toggled(self, checked: bool) -> None:
        self._update_thumbnails_visible()

    def _update_thumbnails_visible(self) -> None:
        roomy = self.width() >= THUMBS_MIN_VIEWER_WIDTH
        self.thumbnails.setVisible(self.thumbnails_action.isChecked() and self.pdf_doc is not None and roomy)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._update_thumbnails_visible()

    @Slot()
    def on_pop_out_action_triggered(self) -> None:
        self.pop_out_requested.emit(self)

    def location(self) -> tuple[int, str]:
        """The page shown and the passage asked for: what a window popped out of a tab reopens."""
        return self.current_page(), self._passage

    def _jump_to_result(self, index: int) -> None:
        if self.pdf_view is None or self.search_model is None:
            return
        link = self.search_model.resultAtIndex(index)
        self.pdf_view.setCurrentSearchResultIndex(index)
        # Scroll so the hit sits a little below the top edge rather than glued to it.
        loc = link.location()
        self.pdf_view.pageNavigator().jump(link.page(), QPointF(loc.x(), max(0.0, loc.y() - 60)))
        self._update_page_label()
        self._update_result_label()

    def _update_page_label(self) -> None:
        if self.pdf_doc is not None:
            page = self.current_page()
            self.page_label.setText(tr("of {pages}").format(pages=self.pdf_doc.pageCount()))
            self.page_label.setToolTip(tr("Page {page} of {pages}").format(page=page, pages=self.pdf_doc.pageCount()))
            if self.page_spin.value() != page:
                self.page_spin.blockSignals(True)
                self.page_spin.setValue(page)
                self.page_spin.blockSignals(False)
            item = self.thumbnails.item(page - 1)
            if item is not None and self.thumbnails.currentItem() is not item:
                self.thumbnails.setCurrentItem(item)
                self.thumbnails.scrollToItem(item)

    def _update_result_label(self) -> None:
        if self.search_model is None or self.pdf_view is None:
            return
        n = self.search_model.count()
        if not self.search_model.searchString():
            self.result_label.setText("")
        elif n == 0:
            self.result_label.setText(tr("No matches yet"))
        else:
            i = self.pdf_view.currentSearchResultIndex()
            self.result_label.setText(
                tr("{i} of {n}").format(i=i + 1, n=n) if i >= 0 else tr("{n} matches").format(n=n)
            )

    @Slot()
    def on_search_model_count_changed(self) -> None:
        if self.search_model is None:
            return
        if self._pending_jump:
            # Results arrive page by page; jump to the first one on the passage's page.
            for i in range(self.search_model.count()):
                if self.search_model.resultAtIndex(i).page() == self._target_page - 1:
                    self._pending_jump = False
                    self._jump_to_result(i)
                    break
        self._update_result_label()

    @Slot(int)
    def on_navigator_current_page_changed(self, _page: int) -> None:
        self._update_page_label()

    def clear_search(self) -> None:
        """Drop the find box's search: no match marked, no count shown."""
        if self.search_model is not None:
            self._pending_jump = False
            self.search_model.setSearchString("")
            self._update_result_label()
        elif self.text_view is not None:
            cursor = self.text_view.textCursor()
            cursor.clearSelection()
            self.text_view.setTextCursor(cursor)
        self.result_label.setText("")

    def focus_page(self) -> None:
        """Keyboard focus to the page (or the text) being read."""
        target = self.pdf_view if self.pdf_view is not None else self.text_view
        if target is not None:
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    @Slot()
    def on_search_edit_return_pressed(self) -> None:
        phrase = self.search_edit.text().strip()
        if self.search_model is not None:
            if phrase != self.search_model.searchString():
                # A new search typed by the user: take its first hit wherever it is.
                self._pending_jump = False
                self.search_model.setSearchString(phrase)
                QTimer.singleShot(400, self.on_next_action_triggered)
                self._update_result_label()
            else:
                self.on_next_action_triggered()
        else:
            self._find_text(phrase, backward=False)

    @Slot()
    def on_next_action_triggered(self) -> None:
        self._step_result(+1)

    @Slot()
    def on_prev_action_triggered(self) -> None:
        self._step_result(-1)

    def _step_result(self, step: int) -> None:
        if self.search_model is not None and self.pdf_view is not None:
            n = self.search_model.count()
            if n:
                self._pending_jump = False
                current = self.pdf_view.currentSearchResultIndex()
                self._jump_to_result((current + step) % n if current >= 0 else 0)
            return
        self._find_text(self.search_edit.text().strip(), backward=step < 0)

    @Slot()
    def on_zoom_in_action_triggered(self) -> None:
        self._zoom(1.25)

    @Slot()
    def on_zoom_out_action_triggered(self) -> None:
        self._zoom(0.8)

    @Slot()
    def on_fit_width_action_triggered(self) -> None:
        if self.pdf_view is not None:
            self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)

    def zoom_factor(self) -> float:
        """The scale pages are shown at (1.0: 72 points per logical inch), fit-to-width included."""
        if self.pdf_view is None or self.pdf_doc is None:
            return 1.0
        if self.pdf_view.zoomMode() == QPdfView.ZoomMode.Custom:
            return self.pdf_view.zoomFactor()
        rect = self.pdf_view.page_rect(self.current_page() - 1)
        points = self.pdf_doc.pagePointSize(self.current_page() - 1)
        if rect.isEmpty() or points.width() <= 0:
            return 1.0
        return rect.width() / (points.width() * self.pdf_view._resolution)

    def _zoom(self, factor: float) -> None:
        if self.pdf_view is not None:
            # From what is on screen: fit-to-width has its own scale, not the stored factor.
            current = self.zoom_factor()
            self.pdf_view.setZoomMode(QPdfView.ZoomMode.Custom)
            self.pdf_view.setZoomFactor(max(0.25, min(6.0, current * factor)))
        elif self.text_view is not None:
            if factor > 1:
                self.text_view.zoomIn(1)
            else:
                self.text_view.zoomOut(1)

    @Slot()
    def on_open_file_action_triggered(self) -> None:
        if self.file_path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.file_path)))

    # --- text documents -----------------------------------------------------------------------

    def _chunks(self) -> list[tuple[str, str]]:
        """(section, text) of every chunk, in order."""
        out: list[tuple[str, str]] = []
        for seq in range(self.doc.chunks):
            try:
                p = self.library.read(self.doc.doc_id, seq)
            except LibraryError:
                break
            out.append((p.section, p.text))
        return out

    def _render_text(self, passage: str) -> None:
        browser = self.text_view
        if browser is None:
            return
        pal = browser.palette()
        mark_bg = _blend(pal.color(QPalette.ColorRole.Highlight), pal.color(QPalette.ColorRole.Base), 0.35)
        muted = pal.color(QPalette.ColorRole.PlaceholderText).name()
        needle = _norm(passage)
        head = needle[:80]
        parts = [f"<h2>{html.escape(self.doc.title)}</h2>"]
        meta = ", ".join(self.doc.authors)
        if self.doc.year:
            meta = f"{meta} · {self.doc.year}" if meta else str(self.doc.year)
        if meta:
            parts.append(f'<p style="color:{muted}">{html.escape(meta)}</p>')
        section = ""
        marked = False
        chunks = self._chunks()
        if not chunks:
            parts.append(
                f'<p style="color:{muted}">{html.escape(tr("This document has no text in the library."))}</p>'
            )
        for sec, text in chunks:
            if sec and sec != section:
                parts.append(f"<h3>{html.escape(sec)}</h3>")
                section = sec
            body = html.escape(text).replace("\n", "<br>")
            hay = _norm(text)
            hit = bool(needle) and (needle in hay or hay in needle or (len(head) >= 20 and head in hay))
            if hit:
                anchor = "" if marked else '<a name="passage"></a>'
                marked = True
                parts.append(f'{anchor}<p style="background-color:{mark_bg.name()}">{body}</p>')
            else:
                parts.append(f"<p>{body}</p>")
        browser.setHtml("\n".join(parts))
        self.result_label.setText(
            tr("Passage highlighted") if marked else (tr("Passage not found") if needle else "")
        )
        if marked:
            # The layout is only complete once the widget is shown; scroll on the next turn.
            QTimer.singleShot(0, self.on_text_layout_ready)

    @Slot()
    def on_text_layout_ready(self) -> None:
        if self.text_view is not None:
            self.text_view.scrollToAnchor("passage")

    def _find_text(self, phrase: str, backward: bool) -> None:
        if self.text_view is None or not phrase:
            return
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if not self.text_view.find(phrase, flags):
            # Wrap around once, like most viewers do.
            cursor = self.text_view.textCursor()
            cursor.movePosition(cursor.MoveOperation.End if backward else cursor.MoveOperation.Start)
            self.text_view.setTextCursor(cursor)
            found = self.text_view.find(phrase, flags)
            self.result_label.setText("" if found else tr("No matches"))
        else:
            self.result_label.setText("")
