"""The classifier's scans behind a look-ahead (``kinds._starting_with``) find what the bare
patterns find: a character missing from a look-ahead would silently drop one kind of mark."""

from __future__ import annotations

import re

import pytest

from paperpilot.core.text import kinds
from paperpilot.core.text.kinds import Kind, classify_sentence, paragraph_kind, reference_marks

# Each line exercises one alternative of a gated pattern (and some several at once).
SAMPLES = [
    "In Proceedings of the Annual Meeting, 2020.",
    "Proc. of the IEEE conference.",
    "arXiv:2004.04906 and arXiv preprint 1234",
    "doi:10.1000/xyz and https://doi.org/10.1/x",
    "pp. 12-19, vol. 3 (2019)",
    "Lo et al., 2020 and Wang et al. (2019) showed (Smith and Jones, 2018; see Doe, 2017) [3, 4]",
    "A. B. Smith, C. Doe, and Smith, J. and Doe, K. (eds)",
    "张三. 题名[J]. 期刊, 2020, 3(2): 1-10. [EB/OL] [M] [C] [D]",
    "URL http://example.org/a ISBN 978-3 In: Jones",
    "Lo, K. 2020. Title of it. Journal of Things, pages 4969–4983. Transactions on X 12-19. ",
    "Association for Computational Linguistics. Conference on Y. Workshop on Z. (2019).",
    "© 2023 The Authors. All rights reserved. Licensed under a Creative Commons CC BY 4.0 licence.",
    "Permission to make digital or hard copies. Proceedings of the 58th Meeting, pages 1-9.",
    "This preprint is under review. 版权所有 未经许可",
    "def f(x): return self.y; import os; from a.b import c; print(x) None True #include std:: `",
    "class Foo: lambda x: x; elif y; async def g(): await h; yield z; function k() { var a = 1; let b; const c; }",
    "void main() { fn impl struct if __name__ == '__main__': null nullptr False }",
]


@pytest.mark.parametrize("name", ["_REF_STRONG", "_REF_WEAK", "_BOILER", "_CODE_KEYWORDS", "_IN_TEXT"])
def test_gated_patterns_match_like_the_bare_ones(name: str) -> None:
    gated: re.Pattern[str] = getattr(kinds, name)
    assert gated.pattern.startswith("(?=[")
    bare = re.compile(gated.pattern.split(")(?:", 1)[1][:-1], gated.flags)
    found = 0
    for s in SAMPLES:
        assert gated.findall(s) == bare.findall(s), s
        assert gated.sub(" ", s) == bare.sub(" ", s), s
        found += len(bare.findall(s))
    assert found > 0  # the samples exercise the pattern at all


def test_marks_of_each_kind_still_count() -> None:
    assert reference_marks("Smith, J., Doe, A. 2019. A title. In Proceedings of ACL, pp. 1-9. doi:10.1/x") >= 4
    assert reference_marks("We use BERT (Devlin et al., 2019) on [12].") == 0  # in-text citations removed


def test_sentence_and_paragraph_kinds_from_shared_measures() -> None:
    assert classify_sentence("Kyle Lo kylel@allenai.org Allen Institute for AI") == Kind.AUTHORS
    assert classify_sentence("We thank the anonymous reviewers for their comments.") == Kind.ACKNOWLEDGEMENTS
    entry = "Lo, K., Wang, L. L., Neumann, M. 2020. S2ORC: The semantic scholar corpus. In Proc. of ACL, pp. 4969–4983."
    assert paragraph_kind(entry) == Kind.REFERENCES
    assert paragraph_kind("0.38 0.46 0.56 0.31 0.34 0.46 0.37 0.52 0.60 12.1 13.4") == Kind.TABLE
    # A one-sentence paragraph reaches the sentence test with the paragraph's own measures.
    assert paragraph_kind("x = self.model(batch); loss = criterion(x, y); loss.backward()") == Kind.CODE
