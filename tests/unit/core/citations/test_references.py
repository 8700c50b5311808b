"""Reference lists read into entries."""

from __future__ import annotations

from paperpilot.core.citations.references import parse_references, split_entries, title_key


def test_numbered_ieee_entries() -> None:
    refs = parse_references([
        '[12] A. Vaswani, N. Shazeer, and N. Parmar, "Attention is all you need," in Advances in Neural '
        "Information Processing Systems, 2017, pp. 5998–6008.",
        '[13] J. Devlin et al., "BERT: Pre-training of deep bidirectional transformers," arXiv:1810.04805, 2018.',
    ])  # fmt: skip
    assert [r.label for r in refs] == ["12", "13"]
    assert refs[0].authors == ["A. Vaswani", "N. Shazeer", "N. Parmar"]
    assert refs[0].title == "Attention is all you need" and refs[0].year == 2017
    assert refs[0].venue == "Advances in Neural Information Processing Systems"
    assert refs[1].authors == ["J. Devlin"] and refs[1].arxiv_id == "1810.04805" and refs[1].year == 2018


def test_author_year_entries() -> None:
    refs = parse_references([
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model for scientific text. "
        "In Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing, pages 3615–3620.",
        "Smith, J., & Doe, A. (2020). Reading PDF files by machine. Journal of Tests, 3(2), 1-10. "
        "https://doi.org/10.1234/jot.2020.7",
    ])  # fmt: skip
    assert refs[0].authors == ["Iz Beltagy", "Kyle Lo", "Arman Cohan"] and refs[0].year == 2019
    assert refs[0].title == "SciBERT: A pretrained language model for scientific text"
    assert refs[0].venue.startswith("Proceedings of the 2019 Conference")
    assert refs[1].authors == ["Smith, J", "Doe, A"] and refs[1].doi == "10.1234/jot.2020.7"
    assert refs[1].title == "Reading PDF files by machine" and refs[1].venue == "Journal of Tests"


def test_vancouver_entries() -> None:
    refs = parse_references(["1. Smith J, Doe A. Reading PDF files by machine. J Tests. 2019;3:1–10.",
                             "2. Roe R. Another title here. Nature. 2018;5:3–4. doi:10.1038/abc123."])  # fmt: skip
    assert refs[0].authors == ["Smith J", "Doe A"] and refs[0].title == "Reading PDF files by machine"
    assert refs[0].venue == "J Tests" and refs[0].year == 2019
    assert refs[1].doi == "10.1038/abc123"


def test_gbt_7714_entries() -> None:
    refs = parse_references(["[1] 张三, 李四. 题名研究[J]. 期刊名称, 2020, 3(2): 1-10. [2] 王五. 另一个题名[M]. 北京: 科学出版社, 2018."])
    assert len(refs) == 2
    assert refs[0].authors == ["张三", "李四"] and refs[0].title == "题名研究"
    assert refs[0].venue == "期刊名称" and refs[0].year == 2020
    assert refs[1].label == "2" and refs[1].title == "另一个题名" and refs[1].year == 2018


def test_entries_split_by_their_numbers_and_joined_over_breaks() -> None:
    # Two entries run together, and one broken over a page: the numbers decide.
    assert split_entries(["[1] A. One, \"First,\" 2001. [2] B. Two,", "\"Second,\" 2002.", "[3] C. Three, \"Third,\" 2003."]) == [
        '[1] A. One, "First," 2001.', '[2] B. Two, "Second," 2002.', '[3] C. Three, "Third," 2003.',
    ]  # fmt: skip
    # Author-year: a paragraph that cannot start an entry continues the one before.
    assert split_entries(["Small, H. 1973. Co-citation in the scientific literature: a new measure of the", "relationship between two documents. JASIS 24:265–269."]) == [
        "Small, H. 1973. Co-citation in the scientific literature: a new measure of the relationship between two documents. JASIS 24:265–269."
    ]  # fmt: skip
    # An arXiv id is no year.
    assert parse_references(["Beltagy, I. 2020. Longformer. arXiv:2004.05150."])[0].year == 2020


def test_title_key() -> None:
    assert title_key("BERT: Pre-training of Deep  Bidirectional Transformers.") == "bert pre training of deep bidirectional transformers"
    assert title_key("长文本建模方法综述") == "长文本建模方法综述"


def test_biomed_central_entries_and_a_garbled_label() -> None:
    refs = parse_references([
        "1. Ovretveit J, Serouri A: Hospital quality management system in a low income Arabic country: an "
        "evaluation. Int J Health Care Qual Assur 2006, 19:516–532. 2. Chen L, et al: Human resources for health: "
        "overcoming the crisis. Lancet 2004, 364(9449):1984–1990.",
        # "3." was lost in extraction; 4 still starts an entry.
        "Lost label entry text. 4. WHO: Hospitals. 2010. Available from: http://www.who.int/.",
    ])  # fmt: skip
    assert [r.label for r in refs] == ["1", "2", "4"]
    assert refs[0].authors == ["Ovretveit J", "Serouri A"] and refs[0].year == 2006
    assert refs[0].title.startswith("Hospital quality management system") and refs[0].venue == "Int J Health Care Qual Assur"
    assert refs[1].authors == ["Chen L"] and refs[1].venue == "Lancet"


def test_the_fast_paths_read_what_the_patterns_say() -> None:
    from paperpilot.core.citations.references import _YEAR, _strip_trailing

    # [\s.,;:]+$ : any mix of white space (Unicode's too) and these stops at the end.
    assert _strip_trailing("Smith J. ,;\u3000:\xa0. \n") == "Smith J"
    assert _strip_trailing("a. b") == "a. b" and _strip_trailing(" .;") == "" and _strip_trailing("") == ""
    # A year stands alone: not after a digit, a slash or a dot, not before a digit; a letter may follow.
    assert _YEAR.findall("1999, 2004.05150, 12019, 1/2019, v.2018, 2020a, 20201, (2021)") == [
        "1999", "2004", "2020", "2021"
    ]
    assert _YEAR.findall("2019") == ["2019"]
    refs = parse_references([
        "Smith J, Doe A, et al. Drift of brine. J Hydrol. 2005;3:1-10.",
        "Kyle Lo. arXiv preprint ARXIV:2004.05150v2. Longformer, 2020.",
        "Lee K. A title without identifiers. In Tests of Reading, 1998",
    ])  # fmt: skip
    assert refs[0].authors == ["Smith J", "Doe A"] and refs[0].year == 2005
    assert refs[1].arxiv_id == "2004.05150" and refs[1].year == 2020
    assert refs[2].doi == "" and refs[2].arxiv_id == "" and refs[2].year == 1998
    assert refs[2].venue == "Tests of Reading"


def _generated(tokens: list[str], n: int, seed: int) -> list[str]:
    import random

    rnd = random.Random(seed)
    return ["".join(rnd.choice(tokens) for _ in range(rnd.randint(0, 14))) for _ in range(n)]


def test_the_name_split_equals_the_pattern_split() -> None:
    import re

    from paperpilot.core.citations.references import _NAME_SEPARATORS, _split_names

    # The pattern as it splits a whole block, tried at every position (what _split_names avoids).
    split = re.compile(r"(?=[\s,&;，、])\s*(?:,\s*(?:and|&)\s+|\s+and\s+|\s*&\s*|;\s*|，|、)\s*").split
    tokens = [" ", "  ", "\t", "\n", "\xa0", ",", ", ", "&", ";", "，", "、", "and", "And", "a", "nd", "Smith", "J.", "Ferdinand"]
    for block in _generated(tokens, 30000, 1):
        assert _split_names(block, [s for s in _NAME_SEPARATORS if s in block]) == split(block), block


def test_the_venue_end_cuts_where_the_look_ahead_pattern_did() -> None:
    import re

    from paperpilot.core.citations.references import _VENUE_END

    old = re.compile(
        r"(?=[,.;\s\d])(?:,\s*(?:pages|pp\.|vol\.|volume)\b|\s*\d+\s*\(\d+\)|,\s*\d+\s*[:(]|\s+\d+:\d|[,.;]\s*(?:19|20)\d{2}\b)"
    )
    import sys

    # Its first class holds every digit re's \d knows: 0-9 and characters past ASCII.
    assert all(chr(c) in "0123456789" or c > 0x7F for c in range(sys.maxunicode + 1) if chr(c).isdecimal())
    tokens = [" ", "  ", "\t", "\xa0", ",", ", ", ";", ".", ":", "(", ")", "1", "19", "20", "2019", "3(2)", "12:3", "١٢",
              "pages", "pp.", "vol.", "volume", "volumes", "Proc", "x", "é", "–", "٢٠١٩"]  # fmt: skip
    for venue in _generated(tokens, 30000, 2):
        a, b = old.search(venue), _VENUE_END.search(venue)
        assert (a is None) == (b is None), venue
        if a and b:  # the venue is stripped after the cut
            assert venue[: a.start()].strip() == venue[: b.start()].strip(), venue


def test_the_text_fast_paths_equal_the_slow_ones() -> None:
    import re
    import sys

    from paperpilot.core.citations.references import (
        _NOT_SENTENCE_END,
        _clean,
        _label,
        _strip_trailing,
    )
    from paperpilot.core.text.whitespace import collapse_whitespace

    assert max(map(len, _NOT_SENTENCE_END)) <= 3  # _first_sentence looks up no longer word

    tokens = [" ", "  ", "\t", "\n", "\xa0", "\u3000", "\x00", "\xad", ".", ",", ";", ":", '"', "“", "”", "a", "Smith", "[1]", "1.", "٣."]
    for text in _generated(tokens, 20000, 3):
        norm = " ".join(text.split())
        assert collapse_whitespace(text) == norm, text
        # _clean is given pieces of normalised text: single spaces, perhaps one at either end.
        for piece in (norm, f" {norm}", f"{norm} ", f" {norm} ") if norm else ("", " "):
            assert _clean(piece) == _strip_trailing(" ".join(piece.split())).strip(' "“”'), piece
        labels = [re.match(r"^\s*\[(\d{1,4})\]\s*", text), re.match(r"^\s*(\d{1,4})\.\s+(?=\S)", text)]
        m = labels[0] or labels[1]
        assert _label(text) == ((m.group(1), text[m.end() :]) if m else ("", text)), text
    # The gates' character sets: re's \d is str.isdecimal; re.IGNORECASE matches "r", "x" and the
    # "i" of "in" with these letters only.
    digit = re.compile(r"\d")
    assert all(bool(digit.match(chr(c))) == chr(c).isdecimal() for c in range(sys.maxunicode + 1))
    for letter, folds in (("r", "rR"), ("x", "xX"), ("i", "iIıİ")):
        rx = re.compile(letter, re.IGNORECASE)
        assert "".join(chr(c) for c in range(sys.maxunicode + 1) if rx.match(chr(c))) == "".join(sorted(folds))


def test_the_venue_year_is_cut_as_the_pattern_with_its_lead_did() -> None:
    import re

    from paperpilot.core.citations.references import _without_year

    old = re.compile(r",?\s*(?:19|20)\d{2}[a-z]?$")
    tokens = [" ", "  ", "\t", "\n", ",", ", ", "1", "19", "20", "2019", "2019a", "a", "x", "٢٠١٩", "1999", "20201", "Proc"]
    for venue in _generated(tokens, 30000, 4):
        assert _without_year(venue) == old.sub("", venue), venue


def test_the_labels_inside_a_list_are_those_of_the_leading_look_behind_patterns() -> None:
    import re

    from paperpilot.core.citations.references import _BRACKETS_INSIDE, _DOTS_INSIDE

    brackets, dots = re.compile(r"(?:(?<=\s)|^)\[(\d{1,4})\]\s+"), re.compile(r"(?<=[.\s])\s(\d{1,4})\.\s+(?=[A-Z\u4e00-\u9fff])")
    tokens = [" ", "\t", "\n", "\xa0", "[", "]", ".", ". ", "1", "12", "12345", "x", "A", "中", "[1]", "[1] ", "a[2] ", "1. A", "٣"]
    for text in _generated(tokens, 30000, 5):
        for new, old in ((_BRACKETS_INSIDE, brackets), (_DOTS_INSIDE(), dots)):
            found = [(m.span(), m.group(1)) for m in new.finditer(text)]
            assert found == [(m.span(), m.group(1)) for m in old.finditer(text)], text


def test_a_doi_is_found_where_the_word_boundary_pattern_found_it() -> None:
    import re

    from paperpilot.core.citations.identifiers import DOI_IN_TEXT

    old = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
    tokens = [" ", "x", "_", "é", "1", "10.", "10.1234/", "10.12345/ab", "/", '"', "a10.1234/x", "٣", "-", "110.1234/y"]
    for text in _generated(tokens, 30000, 6):
        expected = [(m.span(), m.group(1)) for m in old.finditer(text)]
        # (one pattern, for doi_from_text and the reference parser: the group is the whole match)
        assert [(m.span(), m.group(1)) for m in DOI_IN_TEXT.finditer(text)] == expected, text
        assert [(m.span(), m.group(0)) for m in DOI_IN_TEXT.finditer(text)] == expected, text
