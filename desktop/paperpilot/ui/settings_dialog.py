"""The settings dialog: language model connection (with a background "Test connection"), answers,
import, citation style and interface language.

The API key goes to the key store (system keyring or a private file) when the dialog is
accepted, never into ``settings.json``; the field starts empty so the key is not even shown
as dots unless the user types a new one.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    MAX_ROUNDS,
    MIN_ROUNDS,
    PRESETS,
    AppPaths,
    ImportSettings,
    KeyStoreError,
    Preset,
    Settings,
    chunk_range_problem,
    clean_api_key,
    describe_invalid,
    model_for_preset,
    preset_for_url,
    redact,
    replacement_for,
)
from ..core.app import (
    ConnectionProbe,
    api_key_location,
    api_key_target,
    forget_api_key,
    has_api_key,
    probe_connection,
    resolve_api_key,
    save_api_key,
)
from .i18n import LANGUAGES, tr
from .theme import THEMES, error_colour, ok_colour
from .workers import FunctionWorker, WorkerThread, adopt_lingering_thread
from .wrap_label import WrapLabel

CITATION_STYLES: tuple[tuple[str, str], ...] = (
    ("gbt7714-2015-numeric", "GB/T 7714-2015 (numeric)"),
    ("gbt7714-2015-author-date", "GB/T 7714-2015 (author-date)"),
    ("apa", "APA 7th edition"),
    ("mla", "MLA"),
    ("ieee", "IEEE"),
    ("chicago-author-date", "Chicago (author-date)"),
)

TEST_TIMEOUT_S = 20.0
# Saving checks the model quickly: a server that lists it is taken at its word.
SAVE_CHECK_TIMEOUT_S = 5.0
CANCELLED_MESSAGE = "Test cancelled."


def explain_connection_error(message: str) -> str:
    """A one-line headline for the client's message, so the user sees what kind of failure it is."""
    low = message.lower()
    if "refused" in low:
        head = tr("Connection refused: nothing is listening at that address. Is the server running?")
    elif "timed out" in low:
        head = tr("No answer in time: the server is unreachable or too slow.")
    elif "api key was rejected" in low or "401" in low or "403" in low:
        head = tr("The server rejected the API key (401/403). Check the key.")
    elif "404" in low or "not found" in low or "has no model" in low:
        head = tr("Not found (404): check the server URL (it usually ends in /v1) and the model name.")
    elif "cannot reach" in low:
        head = tr("Cannot reach the server: check the URL and your network.")
    else:
        return message
    return f"{head}\n{message}"


def test_connection(
    base_url: str, model: str, api_key: str | None, timeout_s: float, *, quick: bool = False,
    cancel: threading.Event,
) -> tuple[bool, str, list[str]]:
    """List the server's models and send one tiny chat; runs in a FunctionWorker, off the GUI
    thread. Returns (ok, message in plain words, model names), never raises.

    ``quick`` (the check before saving) trusts a model list that names the model and sends no
    chat. ``cancel`` ends the test within a fraction of a second, however the server behaves:
    the client checks it while it waits on the network.
    """
    secret = api_key or ""
    try:
        return _test(base_url, model, secret, timeout_s, quick, cancel)
    except Exception as e:
        if cancel.is_set():
            return False, CANCELLED_MESSAGE, []
        failed = tr("The test failed: {error}").format(error=f"{type(e).__name__}: {e}")
        return False, redact(failed, [secret] if secret else []), []


def _test(
    base_url: str, model: str, secret: str, timeout_s: float, quick: bool, cancel: threading.Event
) -> tuple[bool, str, list[str]]:
    probe: ConnectionProbe = probe_connection(base_url, model, secret, timeout_s, quick=quick, cancel=cancel)
    if probe.outcome == "cancelled":
        return False, CANCELLED_MESSAGE, []
    if probe.outcome == "listed":
        msg = tr("Connected to {url}: the server offers {n} model(s). Choose one in the Model box.").format(
            url=base_url, n=len(probe.models)
        )
        return True, msg, probe.models
    if probe.outcome == "no_models":
        return False, tr("Connected, but the server lists no models: type the model name."), []
    if probe.outcome == "ok":
        count = tr(" The server offers {n} model(s).").format(n=len(probe.models)) if probe.models else ""
        return True, f"{tr('OK.')} {probe.detail}{count}", probe.models
    return False, explain_connection_error(probe.detail), probe.models


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, paths: AppPaths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(tr("Settings"))
        self._settings = settings.model_copy(deep=True)
        self._paths = paths
        self._forget_key = False
        self._test_thread: WorkerThread | None = None
        self._test_worker: FunctionWorker | None = None
        # The check before saving a model connection (see accept), and its warning.
        self._check_thread: WorkerThread | None = None
        self._check_worker: FunctionWorker | None = None
        self.unreachable_box: QMessageBox | None = None
        self._keep_button: QAbstractButton | None = None
        # (url, model, key) a test or check found working: saving them needs no second check.
        self._verified: tuple[str, str, str] | None = None
        self._tested: tuple[str, str, str] | None = None
        self._updating_url = False

        layout = QVBoxLayout(self)
        layout.addWidget(self._build_llm_group())
        layout.addWidget(self._build_answers_group())
        layout.addWidget(self._build_import_group())
        layout.addWidget(self._build_interface_group())
        self.error_label = QLabel(self)
        self.error_label.setObjectName("settingsError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {error_colour()};")
        self.error_label.setVisible(False)
        layout.addWidget(self.error_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout.addWidget(self.buttons)

        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.preset_combo.currentIndexChanged.connect(self.on_preset_combo_changed)
        self.url_edit.textEdited.connect(self.on_url_edit_edited)
        self.model_combo.currentTextChanged.connect(self.on_model_combo_text_changed)
        self.offline_check.toggled.connect(self.on_offline_check_toggled)
        self.test_button.clicked.connect(self.on_test_button_clicked)
        self.cancel_test_button.clicked.connect(self.on_cancel_test_button_clicked)
        self.forget_button.clicked.connect(self.on_forget_button_clicked)
        self._load(self._settings)
        self.setMinimumWidth(560)
        # Tab follows the rows as they are shown (the OCR switch sits above the chunk sizes).
        for first, second in (
            (self.quote_check, self.rerank_check), (self.rerank_check, self.ocr_check), (self.ocr_check, self.chunk_spin),
            (self.chunk_spin, self.chunk_min_spin), (self.chunk_min_spin, self.lookups_check),
        ):
            QWidget.setTabOrder(first, second)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        super().showEvent(event)
        # Once shown, the wrapped labels know their width and so their height: fit to them.
        QTimer.singleShot(0, self.fit_height)

    @Slot()
    def fit_height(self) -> None:
        layout = self.layout()
        if layout is not None:
            layout.activate()
            self.resize(self.width(), max(self.minimumSizeHint().height(), layout.sizeHint().height()))

    # --- construction ----------------------------------------------------------------------------

    def _build_llm_group(self) -> QGroupBox:
        box = QGroupBox(tr("Language model"), self)
        outer = QVBoxLayout(box)
        self.offline_check = QCheckBox(tr("Work offline (no language model)"), box)
        self.offline_check.setObjectName("offlineCheck")
        outer.addWidget(self.offline_check)
        self.llm_fields = QWidget(box)
        form = QFormLayout(self.llm_fields)
        form.setContentsMargins(0, 0, 0, 0)
        self.preset_combo = QComboBox(self.llm_fields)
        self.preset_combo.setObjectName("presetCombo")
        for preset in PRESETS:
            self.preset_combo.addItem(tr(preset.name), preset.base_url)
        self.url_edit = QLineEdit(self.llm_fields)
        self.url_edit.setObjectName("urlEdit")
        self.url_edit.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.model_combo = QComboBox(self.llm_fields)
        self.model_combo.setObjectName("modelCombo")
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.setPlaceholderText(tr("e.g. {example}").format(example="qwen2.5:7b-instruct"))
        # A model name its provider has withdrawn (deepseek-chat …): said under the box.
        self.model_note = WrapLabel(self.llm_fields)
        self.model_note.setObjectName("modelNote")
        self.model_note.setStyleSheet(f"color: {error_colour()};")
        self.model_note.setVisible(False)
        self.key_edit = QLineEdit(self.llm_fields)
        self.key_edit.setObjectName("apiKeyEdit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.forget_button = QPushButton(tr("Forget saved key"), self.llm_fields)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_button)
        # Where the key lives (the system keyring, or a private file): the user should know.
        self.key_store_label = WrapLabel(self.llm_fields)
        self.key_store_label.setObjectName("keyStoreLabel")
        self.key_store_label.setTextFormat(Qt.TextFormat.PlainText)
        self.key_store_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.key_store_label.setEnabled(False)  # greyed: a remark, not a control
        self.key_env_edit = QLineEdit(self.llm_fields)
        self.key_env_edit.setObjectName("apiKeyEnvEdit")
        self.key_env_edit.setPlaceholderText(tr("e.g. {example} (optional)").format(example="OPENAI_API_KEY"))
        self.test_button = QPushButton(tr("Test connection"), self.llm_fields)
        self.test_button.setObjectName("testConnectionButton")
        self.cancel_test_button = QPushButton(tr("Cancel test"), self.llm_fields)
        self.cancel_test_button.setObjectName("cancelTestButton")
        self.cancel_test_button.setVisible(False)
        # Its own full-width row, word-wrapped: a server's message can be long (a URL, a list
        # of models). Beside the button, the row kept its one-line height and cut the rest off;
        # a row of its own passes the label's height-for-width on, and the dialog grows.
        self.test_label = WrapLabel(self.llm_fields)
        self.test_label.setObjectName("testResult")
        self.test_label.setTextFormat(Qt.TextFormat.PlainText)
        self.test_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.cancel_test_button)
        test_row.addStretch(1)
        form.addRow(tr("Preset"), self.preset_combo)
        form.addRow(tr("Server URL"), self.url_edit)
        form.addRow(tr("Model"), self.model_combo)
        form.addRow("", self.model_note)
        form.addRow(tr("API key"), key_row)
        form.addRow("", self.key_store_label)
        form.addRow(tr("Key from environment variable"), self.key_env_edit)
        form.addRow(test_row)
        form.addRow(self.test_label)
        outer.addWidget(self.llm_fields)
        return box

    def _build_answers_group(self) -> QGroupBox:
        box = QGroupBox(tr("Answers"), self)
        form = QFormLayout(box)
        self.rounds_spin = QSpinBox(box)
        self.rounds_spin.setObjectName("maxRoundsSpin")
        self.rounds_spin.setRange(MIN_ROUNDS, MAX_ROUNDS)
        self.temperature_spin = QDoubleSpinBox(box)
        self.temperature_spin.setObjectName("temperatureSpin")
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.05)
        self.temperature_spin.setDecimals(2)
        self.citation_combo = QComboBox(box)
        self.citation_combo.setObjectName("citationStyleCombo")
        for value, label in CITATION_STYLES:
            self.citation_combo.addItem(tr(label), value)
        form.addRow(tr("Maximum rounds"), self.rounds_spin)
        form.addRow(tr("Temperature"), self.temperature_spin)
        form.addRow(tr("Citation style"), self.citation_combo)
        self.quote_check = QCheckBox(tr("Ask the model to quote each claim's support (one more call per answer)"), box)
        self.quote_check.setObjectName("quoteCheck")
        self.quote_check.setToolTip(tr("The quotes are checked against the passages; a claim whose quote is not "
                                       "there is dropped. Small local models quote poorly: leave it off for them."))
        form.addRow("", self.quote_check)
        self.rerank_check = QCheckBox(tr("Ask the model to rank the search hits before reading (one more call per search)"), box)
        self.rerank_check.setObjectName("rerankCheck")
        self.rerank_check.setToolTip(tr("Each search looks at 8 hits; the model scores how likely each answers the "
                                        "question and the best are read. Small local models score poorly."))
        form.addRow("", self.rerank_check)
        return box

    def _build_import_group(self) -> QGroupBox:
        box = QGroupBox(tr("Import"), self)
        form = QFormLayout(box)
        fields = ImportSettings.model_fields
        self.chunk_spin = QSpinBox(box)
        self.chunk_spin.setObjectName("chunkSizeSpin")
        self.chunk_spin.setRange(*_int_bounds(fields["chunk_max_chars"].metadata, 100, 20000))
        self.chunk_spin.setSingleStep(50)
        self.chunk_min_spin = QSpinBox(box)
        self.chunk_min_spin.setObjectName("chunkMinSpin")
        self.chunk_min_spin.setRange(*_int_bounds(fields["chunk_min_chars"].metadata, 50, 5000))
        self.chunk_min_spin.setSingleStep(50)
        # Said next to the fields as soon as the two sizes contradict each other; OK refuses too.
        self.chunk_error = QLabel(box)
        self.chunk_error.setObjectName("chunkError")
        self.chunk_error.setWordWrap(True)
        self.chunk_error.setStyleSheet(f"color: {error_colour()};")
        self.chunk_error.setVisible(False)
        self.ocr_check = QCheckBox(tr("Read scanned pages by OCR (Chinese and English, offline)"), box)
        self.ocr_check.setObjectName("ocrCheck")
        note = QLabel(tr("Applies to papers imported from now on."), box)
        note.setEnabled(False)  # greyed: a remark, not a control
        form.addRow("", self.ocr_check)
        form.addRow(tr("Chunk size (characters)"), self.chunk_spin)
        form.addRow(tr("Smallest chunk (characters)"), self.chunk_min_spin)
        form.addRow("", self.chunk_error)
        form.addRow("", note)
        # Offline by default: an online record is fetched only after the user allows it here.
        self.lookups_check = QCheckBox(tr("Allow online metadata lookups (Crossref, arXiv)"), box)
        self.lookups_check.setObjectName("lookupsCheck")
        self.lookups_check.setToolTip(tr("Used only by “Retrieve Metadata Online” in the library's menu; "
                                         "sends the document's DOI or arXiv id, nothing else."))  # fmt: skip
        form.addRow("", self.lookups_check)
        self.chunk_spin.valueChanged.connect(self.on_chunk_spin_changed)
        self.chunk_min_spin.valueChanged.connect(self.on_chunk_spin_changed)
        return box

    def _build_interface_group(self) -> QGroupBox:
        box = QGroupBox(tr("Interface"), self)
        form = QFormLayout(box)
        self.language_combo = QComboBox(box)
        self.language_combo.setObjectName("languageCombo")
        for code, name in LANGUAGES.items():
            self.language_combo.addItem(name, code)
        note = QLabel(tr("Takes effect after a restart."), box)
        note.setEnabled(False)
        self.theme_combo = QComboBox(box)
        self.theme_combo.setObjectName("themeCombo")
        for code, name in THEMES.items():
            self.theme_combo.addItem(tr(name), code)
        form.addRow(tr("Interface language"), self.language_combo)
        form.addRow("", note)
        form.addRow(tr("Theme"), self.theme_combo)
        return box

    def _load(self, s: Settings) -> None:
        self.offline_check.setChecked(not s.llm.enabled)
        self.url_edit.setText(s.llm.base_url)
        self._select_preset_for(s.llm.base_url)
        known = preset_for_url(s.llm.base_url)
        if known is not None:
            self.model_combo.addItems(list(known.models))
        self.model_combo.setCurrentText(s.llm.model)
        self.key_env_edit.setText(s.llm.api_key_env)
        self._update_key_placeholder()
        self._update_model_note()
        self.rounds_spin.setValue(s.agent.max_rounds)
        self.temperature_spin.setValue(s.llm.temperature)
        self.quote_check.setChecked(s.llm.quote_check)
        self.rerank_check.setChecked(s.llm.rerank)
        self.lookups_check.setChecked(s.metadata.allow_online_lookups)
        self.chunk_spin.setValue(s.imports.chunk_max_chars)
        self.chunk_min_spin.setValue(s.imports.chunk_min_chars)
        self.ocr_check.setChecked(s.imports.ocr)
        _select_data(self.citation_combo, s.ui.citation_style)
        _select_data(self.language_combo, s.ui.ui_language)
        _select_data(self.theme_combo, s.ui.theme)
        self.llm_fields.setEnabled(s.llm.enabled)

    # --- results ---------------------------------------------------------------------------------

    def result_settings(self) -> Settings:
        s = self._settings.model_copy(deep=True)
        s.llm.enabled = not self.offline_check.isChecked()
        s.llm.base_url = self.url_edit.text().strip()
        s.llm.model = self.model_combo.currentText().strip()
        s.llm.api_key_env = self.key_env_edit.text().strip()
        s.llm.temperature = round(self.temperature_spin.value(), 2)
        s.llm.quote_check = self.quote_check.isChecked()
        s.llm.rerank = self.rerank_check.isChecked()
        s.metadata.allow_online_lookups = self.lookups_check.isChecked()
        s.agent.max_rounds = self.rounds_spin.value()
        s.imports.chunk_max_chars = self.chunk_spin.value()
        s.imports.chunk_min_chars = self.chunk_min_spin.value()
        s.imports.ocr = self.ocr_check.isChecked()
        s.ui.citation_style = str(self.citation_combo.currentData())
        s.ui.ui_language = str(self.language_combo.currentData())
        s.ui.theme = self.theme_combo.currentData()
        # Round-trip through validation so a bad value fails here, not when the file is read back.
        return Settings.model_validate(s.model_dump())

    def accept(self) -> None:
        """Save, after a quick check (in a worker) that a newly chosen model can be reached; when
        it cannot, a warning offers to keep the settings anyway."""
        if self._check_thread is not None or self.unreachable_box is not None:
            return  # a check or its warning is already on screen
        if not self.offline_check.isChecked() and not self.model_combo.currentText().strip():
            self._show_error(tr("Enter a model name, or turn on offline mode."))
            return
        problem = self._chunk_problem()
        if problem is not None:
            self._show_error(problem)
            return
        try:
            self.result_settings()
        except ValidationError as e:  # a value the settings model refuses: said plainly, not saved
            self._show_error(tr("These settings cannot be saved: {reason}.").format(reason=describe_invalid(e)))
            return
        if not self.offline_check.isChecked():
            try:
                self._key_to_test()
            except ValueError as e:  # a key with a line break or a non-ASCII character in it
                self._show_error(str(e))
                return
        if self._needs_check():
            self._start_check()
            return
        self._finish_accept()

    def _finish_accept(self) -> None:
        key = self.key_edit.text().strip()
        try:
            if key:
                save_api_key(self._paths, key)
            elif self._forget_key:
                forget_api_key(self._paths)
        except KeyStoreError as e:
            self._show_error(str(e))
            return
        self.key_edit.clear()
        self._stop_test()
        super().accept()

    def reject(self) -> None:
        self.key_edit.clear()
        self._stop_test()
        self._stop_check()
        super().reject()

    def done(self, result: int) -> None:
        self._stop_test()
        self._stop_check()
        super().done(result)

    # --- slots -----------------------------------------------------------------------------------

    @Slot(int)
    def on_preset_combo_changed(self, index: int) -> None:
        if self._updating_url or not 0 <= index < len(PRESETS):
            return
        preset = PRESETS[index]
        if preset.base_url:
            self.url_edit.setText(preset.base_url)
            self.apply_preset_models(preset)

    def apply_preset_models(self, preset: Preset) -> None:
        """Offer the provider's model names and fill in its usual one (and its key variable)."""
        current = self.model_combo.currentText()
        self.model_combo.clear()
        self.model_combo.addItems(list(preset.models))
        self.model_combo.setCurrentText(model_for_preset(preset, current))
        # The variable follows the provider unless the user typed one of their own.
        typed = self.key_env_edit.text().strip()
        if preset.key_env and (not typed or typed in {p.key_env for p in PRESETS if p.key_env}):
            self.key_env_edit.setText(preset.key_env)
        self._update_model_note()

    @Slot(str)
    def on_url_edit_edited(self, text: str) -> None:
        self._select_preset_for(text)
        self._update_model_note()

    @Slot(str)
    def on_model_combo_text_changed(self, _text: str) -> None:
        self._update_model_note()

    def _update_model_note(self) -> None:
        preset = preset_for_url(self.url_edit.text())
        model = self.model_combo.currentText().strip()
        new = replacement_for(preset, model)
        note = ""
        if preset is not None and new:
            note = tr("{provider} has retired “{model}”: use “{new}”.").format(provider=tr(preset.name), model=model, new=new)
        self.model_note.setText(note)
        self.model_note.setVisible(bool(new))

    @Slot(int)
    def on_chunk_spin_changed(self, _value: int) -> None:
        problem = self._chunk_problem()
        self.chunk_error.setText(problem or "")
        self.chunk_error.setVisible(problem is not None)
        if problem is None and self.error_label.isVisible():
            self.error_label.setVisible(False)

    @Slot(bool)
    def on_offline_check_toggled(self, offline: bool) -> None:
        self.llm_fields.setEnabled(not offline)
        self.error_label.setVisible(False)

    @Slot()
    def on_forget_button_clicked(self) -> None:
        self._forget_key = True
        self.key_edit.clear()
        self.key_edit.setPlaceholderText(tr("No key saved"))
        self.key_store_label.setText(self.key_store_text())

    @Slot()
    def on_test_button_clicked(self) -> None:
        if self._test_thread is not None:
            return
        url = self.url_edit.text().strip()
        if not url:
            self._set_test_message(False, tr("Enter the server URL first."))
            return
        try:
            key = self._key_to_test()
        except ValueError as e:  # a key with a line break or a non-ASCII character in it
            self._set_test_message(False, str(e))
            return
        timeout = min(TEST_TIMEOUT_S, self._settings.llm.timeout_s)
        worker = FunctionWorker(
            test_connection, url, self.model_combo.currentText().strip(), key, timeout, pass_cancel=True
        )
        worker.finished.connect(self.on_test_worker_finished)
        self._test_worker = worker
        self._test_thread = WorkerThread(worker, self)
        self._tested = self._connection_values()
        self.test_button.setEnabled(False)
        self.test_button.setText(tr("Testing…"))
        self.cancel_test_button.setText(tr("Cancel test"))
        self.cancel_test_button.setEnabled(True)
        self.cancel_test_button.setVisible(True)
        self.test_label.setStyleSheet("")
        self.test_label.setText("")
        self._test_thread.start()

    @Slot()
    def on_cancel_test_button_clicked(self) -> None:
        """The worker notices within a fraction of a second and reports "Test cancelled."."""
        if self._test_worker is None:
            return
        self._test_worker.cancel.set()
        self.cancel_test_button.setEnabled(False)
        self.cancel_test_button.setText(tr("Cancelling…"))

    @Slot(object)
    def on_test_worker_finished(self, outcome: tuple[bool, str, list[str]]) -> None:
        ok, message, models = outcome
        self._finish_test_thread()
        if ok:
            self._verified = self._tested
        self._set_test_message(ok, message)
        if models:
            current = self.model_combo.currentText()
            self.model_combo.clear()
            self.model_combo.addItems(models)
            self.model_combo.setCurrentText(current or models[0])

    # --- internals -------------------------------------------------------------------------------

    def is_testing(self) -> bool:
        return self._test_thread is not None

    def is_checking(self) -> bool:
        return self._check_thread is not None

    def _set_test_message(self, ok: bool, message: str) -> None:
        self.test_label.setStyleSheet(f"color: {ok_colour() if ok else error_colour()};")
        self.test_label.setText(tr(message) if message == CANCELLED_MESSAGE else message)

    def _chunk_problem(self) -> str | None:
        return chunk_range_problem(self.chunk_min_spin.value(), self.chunk_spin.value())

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(True)

    def _key_to_test(self) -> str | None:
        """The key a test or save check would send; ValueError for a key that cannot be sent."""
        typed = clean_api_key(self.key_edit.text(), "you entered")
        values = self._settings.llm.model_copy(update={"api_key_env": self.key_env_edit.text().strip()})
        return typed or (None if self._forget_key else resolve_api_key(values, self._paths))

    def _connection_values(self) -> tuple[str, str, str]:
        try:
            key = self._key_to_test() or ""
        except ValueError:
            key = "\x00invalid"  # never equal to a tested key: an unusable key is never "already tested"
        return (
            self.url_edit.text().strip().rstrip("/"),
            self.model_combo.currentText().strip(),
            key,
        )

    def _needs_check(self) -> bool:
        """A model connection that is new (another server, model or key) and not yet tested."""
        if self.offline_check.isChecked():
            return False
        old = self._settings.llm
        changed = (
            not old.enabled
            or old.base_url.strip().rstrip("/") != self.url_edit.text().strip().rstrip("/")
            or old.model.strip() != self.model_combo.currentText().strip()
            or old.api_key_env != self.key_env_edit.text().strip()
            or bool(self.key_edit.text().strip())
            or self._forget_key
        )
        return changed and self._verified != self._connection_values()

    def _start_check(self) -> None:
        url, model, _key = self._connection_values()
        worker = FunctionWorker(
            test_connection, url, model, self._key_to_test(), SAVE_CHECK_TIMEOUT_S, quick=True, pass_cancel=True
        )
        worker.finished.connect(self.on_check_worker_finished)
        self._check_worker = worker
        self._check_thread = WorkerThread(worker, self)
        self._tested = self._connection_values()
        if self.ok_button is not None:
            self.ok_button.setEnabled(False)
        self.test_label.setStyleSheet("")
        self.test_label.setText(tr("Checking that {model} can be reached before saving…").format(model=model))
        self._check_thread.start()

    @Slot(object)
    def on_check_worker_finished(self, outcome: tuple[bool, str, list[str]]) -> None:
        ok, message, _models = outcome
        thread = self._check_thread
        self._check_thread = None
        self._check_worker = None
        if thread is not None:
            thread.finish()
        if self.ok_button is not None:
            self.ok_button.setEnabled(True)
        self._set_test_message(ok, message)
        if ok:
            self._verified = self._tested
            self._finish_accept()
            return
        box = QMessageBox(QMessageBox.Icon.Warning, tr("Model not reachable"), tr(
            "The model could not be reached with these settings:"
        ), QMessageBox.StandardButton.NoButton, self)  # fmt: skip
        box.setObjectName("unreachableModelBox")
        box.setInformativeText(message)
        self._keep_button = box.addButton(tr("Keep anyway"), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.buttonClicked.connect(self.on_unreachable_box_button_clicked)
        self.unreachable_box = box
        box.open()  # window-modal and non-blocking: the GUI thread keeps running its loop

    @Slot(QAbstractButton)
    def on_unreachable_box_button_clicked(self, button: QAbstractButton) -> None:
        keep = button is self._keep_button
        box, self.unreachable_box, self._keep_button = self.unreachable_box, None, None
        if box is not None:
            box.deleteLater()
        if keep:
            self._finish_accept()

    def _stop_check(self) -> None:
        thread, worker = self._check_thread, self._check_worker
        self._check_thread = None
        self._check_worker = None
        if self.ok_button is not None:
            self.ok_button.setEnabled(True)
        if thread is None or worker is None:
            return
        worker.finished.disconnect(self.on_check_worker_finished)
        worker.cancel.set()
        if thread.stop(100):
            thread.deleteLater()
        else:
            adopt_lingering_thread(thread)

    def _finish_test_thread(self) -> None:
        """The worker has reported: its run is over, so the thread ends at once."""
        if self._test_thread is not None:
            self._test_thread.finish()
        self._test_thread = None
        self._test_worker = None
        self.test_button.setEnabled(True)
        self.test_button.setText(tr("Test connection"))
        self.cancel_test_button.setVisible(False)

    def _stop_test(self) -> None:
        """The dialog is closing mid-test: never wait for a slow server on the GUI thread."""
        thread, worker = self._test_thread, self._test_worker
        self._test_thread = None
        self._test_worker = None
        self.test_button.setEnabled(True)
        self.test_button.setText(tr("Test connection"))
        self.cancel_test_button.setVisible(False)
        if thread is None or worker is None:
            return
        worker.finished.disconnect(self.on_test_worker_finished)
        worker.cancel.set()
        if thread.stop(100):
            thread.deleteLater()
        else:
            adopt_lingering_thread(thread)

    def _select_preset_for(self, url: str) -> None:
        self._updating_url = True
        try:
            preset = preset_for_url(url)
            self.preset_combo.setCurrentIndex(PRESETS.index(preset) if preset else len(PRESETS) - 1)
        finally:
            self._updating_url = False

    def _update_key_placeholder(self) -> None:
        saved = has_api_key(self._paths)
        self.key_edit.setPlaceholderText(tr("Saved — type to replace") if saved else tr("No key saved"))
        self.key_edit.setToolTip(
            tr("A key is saved. Type a new one to replace it.") if saved else tr("No key saved (local servers usually need none).")
        )
        self.forget_button.setEnabled(saved)
        self.key_store_label.setText(self.key_store_text())

    def key_store_text(self) -> str:
        """Which store holds the key ("Stored in: the macOS Keychain"), or where a new one would go."""
        location = api_key_location(self._paths) if not self._forget_key else None
        if location is not None:
            return tr(location.stored_in()).format(where=location.description)
        target = api_key_target(self._paths)
        if target.backend == "keyring":
            return tr("A key you enter is stored in: {where}").format(where=target.description)
        return tr("A key you enter is stored in a file only you can read: {where}").format(where=target.description)


def _int_bounds(metadata: list[Any], low: int, high: int) -> tuple[int, int]:
    """A spin box's range from a pydantic field's ge/le constraints (the model is the rule)."""
    for m in metadata:
        low = int(getattr(m, "ge", None) or low)
        high = int(getattr(m, "le", None) or high)
    return low, high


def _select_data(combo: QComboBox, value: Any) -> None:
    i = combo.findData(value)
    if i >= 0:
        combo.setCurrentIndex(i)
