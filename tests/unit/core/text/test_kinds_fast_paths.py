"""The classifier's shortcuts decide as the full tests do."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from paperpilot.core.text import kinds
from paperpilot.core.text.kinds import Kind, paragraph_kind

# Texts of every kind the content test tells apart, none with a word the acknowledgement,
# boilerplate or e-mail patterns need.
_UNMARKED = [
    "def parse(self, text): return self.tokens(text) if text else None; x = parse(y)",
    "Smith, J., Lee, K. Deep models of text. In Proc. of ACL, pp. 1-10, 2019. Wang, A., Ho, B. Parsing. 2020.",
    "0.51 0.62 0.73 0.84 12 15 18 21 33 45 57 69",
    "a b c x y z p q",
    "Kyle Lo, Lucy Lu Wang, Mark Neumann, Rodney Kinney, and Daniel S. Weld.",
    "Figure 3: Accuracy of the model as the corpus grows. Table 2 lists the numbers.",
    "We train for 3 epochs (lr = 0.001; batch 32). The loss falls fast. Then it stays flat for a while.",
    "University of Washington, Department of Computer Science, Allen Institute for AI",
    "The results [3, 4] agree with earlier work (Smith et al., 2019). Both use 12 layers.",
]


@pytest.mark.parametrize("text", _UNMARKED)
def test_sentences_known_to_lack_the_other_kinds_words_get_the_full_tests_kind(text: str) -> None:
    low = text.lower()
    assert text.isascii() and not any(w in low for w in kinds._OTHER_KIND_WORDS)
    assert kinds._content_kind(text, unmarked=True) == kinds._content_kind(text)


@pytest.mark.parametrize(
    "text",
    [
        "No brackets here, only words: the model reads text and writes summaries of it.",
        "Lo et al. 2020 built a corpus; Smith, J. and Lee, K. followed in 2021. pp. 3-9.",
        "A citation (Lo et al., 2020) and a numbered one [12] inside prose of the paper.",
        "Wang, A., Ho, B. Parsing [J]. Journal of Things, 2019, 12(3): 1-9.",
    ],
)
def test_reference_measures_skip_the_citation_strip_only_when_it_changes_nothing(text: str) -> None:
    stripped = kinds.strip_in_text_citations(text)
    expected = (kinds._marks(stripped), kinds._function_share(kinds._tokens(stripped)))
    assert kinds._Signals(text).references() == expected


def test_a_word_of_another_kind_that_no_suspect_word_covers_still_gets_the_full_test() -> None:
    # "public domain" holds no suspect word: the paragraph is not plainly prose for another
    # reason (it is short), and the boilerplate pattern must still see it.
    text = "Released into the public domain."
    low = text.lower()
    assert not any(w in low for w in kinds._SUSPECT_WORDS)
    assert "public domain" in kinds._OTHER_UNSUSPECTED
    assert paragraph_kind(text) == Kind.BOILERPLATE


def test_every_other_kind_word_is_checked_one_way_or_the_other() -> None:
    # A word left out of the unsuspected list must contain a suspect word, which a text
    # without suspect words therefore lacks too.
    for word in kinds._OTHER_KIND_WORDS:
        assert word in kinds._OTHER_UNSUSPECTED or any(s in word for s in kinds._SUSPECT_WORDS)


def test_word_lists_split_chinese_as_has_cjk_does() -> None:
    # The word lists are split without has_cjk (its class would be compiled at import): the
    # words with a character from U+3000 up must be exactly the Chinese ones.
    from paperpilot.core.text.language import has_cjk

    for words in (kinds._SUSPECT_WORDS, kinds._OTHER_KIND_WORDS):
        assert [w for w in words if kinds._chinese(w)] == [w for w in words if has_cjk(w)]
        assert any(has_cjk(w) for w in words)


@pytest.mark.parametrize("pure", [True, False])
def test_importing_the_extractor_compiles_no_cjk_class(pure: bool) -> None:
    # re's compiler is watched, so this holds for the mypyc build (paperpilot.accel, whose
    # recorded patterns are primed and compile nothing) as for pure Python; the second line is
    # the control: in pure Python a CJK test does compile the class.
    code = (
        "import re\n"
        "from re import _compiler\n"
        "seen = []\n"
        "real = _compiler.compile\n"
        "_compiler.compile = lambda p, f=0: (seen.append(p), real(p, f))[1]\n"
        "import paperpilot.core.extract.pdf, paperpilot.core.extract.worker_processes\n"
        "from paperpilot.core.text import language\n"
        "def compiled():\n"
        "    return any(language._CJK_CLASS in str(p) for p in seen)\n"
        "print(compiled())\n"
        "language.has_cjk('中文')\n"
        "print(compiled())"
    )
    env = {k: v for k, v in os.environ.items() if k != "PAPERPILOT_PURE_PYTHON"}
    if pure:
        env["PAPERPILOT_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    at_import, after_cjk_text = out.split()
    assert at_import == "False"
    if pure:
        assert after_cjk_text == "True"
