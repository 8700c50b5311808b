"""BibTeX, RIS and CSL-JSON: round trips, escaping, cite keys, LaTeX accents and damaged files."""

from __future__ import annotations

import re
from typing import Any

import pytest

from paperpilot.core.citations.bibtex import cite_key, cite_keys, latex_to_unicode, parse_bibtex, to_bibtex
from paperpilot.core.citations.cslio import parse_csl_json, to_csl_json
from paperpilot.core.citations.formats import ParseResult
from paperpilot.core.citations.model import CslItem, item_from_csl
from paperpilot.core.citations.ris import parse_ris, to_ris

from .test_styles import ITEMS, item

EXTRA: dict[str, dict[str, Any]] = {
    "escapes": {
        "type": "article-journal",
        "author": [{"family": "O'Brien", "given": "Seán"}],
        "title": "Profit & Loss: 100% of $5 #1 under_score {braces} ~tilde^ back\\slash",
        "container-title": "Q&A Journal",
        "issued": {"date-parts": [[2018]]},
        "note": "Costs 50% less",
    },
    "accents": {
        "type": "book",
        "author": [
            {"family": "Ødegård", "given": "Åse"},
            {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
            {"family": "King", "given": "Martin Luther", "suffix": "Jr."},
            {"literal": "Barnes and Noble"},
            {"family": "Aristotle"},
        ],
        "title": "Über die Ähnlichkeit: ein Beispiel mit LaTeX und BERT",
        "publisher": "Éditions du Seuil",
        "issued": {"date-parts": [[2019, 3, 14]]},
        "language": "de",
    },
    "magazine": {
        "type": "article-magazine",
        "author": [{"family": "Levy", "given": "Steven"}],
        "title": "The age of the model",
        "container-title": "Wired",
        "issued": {"date-parts": [[2020, 5]]},
        "page": "40-47",
    },
    "report": {
        "type": "report",
        "author": [{"literal": "National Institute of Standards and Technology"}],
        "title": "Post-quantum cryptography",
        "genre": "Technical report",
        "number": "NISTIR 8413",
        "publisher": "NIST",
        "publisher-place": "Gaithersburg, MD",
        "issued": {"date-parts": [[2022]]},
    },
    "master": {
        "type": "thesis",
        "author": [{"family": "Nguyen", "given": "Linh"}],
        "title": "Citation graphs of small libraries",
        "genre": "Master's thesis",
        "publisher": "University of Oslo",
        "issued": {"date-parts": [[2016]]},
    },
    "ssrn": {
        "type": "article",
        "author": [{"family": "Roe", "given": "Richard"}],
        "title": "A working paper",
        "publisher": "SSRN",
        "URL": "https://ssrn.com/abstract=123456",
        "issued": {"date-parts": [[2021]]},
    },
    "arxiv": {
        "type": "article",
        "author": [{"family": "Vaswani", "given": "Ashish"}],
        "title": "Attention is all you need",
        "publisher": "arXiv",
        "arxiv": "1706.03762",
        "primaryClass": "cs.CL",
        "issued": {"date-parts": [[2017, 6, 12]]},
        "abstract": "The dominant sequence transduction models are based on complex recurrent networks.",
    },
    "forthcoming": {
        "type": "chapter",
        "author": [{"family": "Poe", "given": "Edgar A."}],
        "title": "A chapter still in press",
        "container-title": "Collected Essays",
        "collection-title": "Essays Series",
        "issued": {"literal": "forthcoming"},
    },
}


def everything() -> list[CslItem]:
    return [item(k) for k in ITEMS] + [item_from_csl({"id": k, **v}) for k, v in EXTRA.items()]


def norm(it: CslItem) -> dict[str, Any]:
    """CSL fields without the id, with numeric date parts (CSL allows "2002" and 2002 alike)."""
    data = it.to_csl()
    data.pop("id", None)
    for key in ("issued", "accessed"):
        if key in data and "date-parts" in data[key]:
            data[key] = {"date-parts": [[int(p) for p in data[key]["date-parts"][0]]]}
    return data


# --- BibTeX export -----------------------------------------------------------------------------


def test_bibtex_round_trip_keeps_every_field() -> None:
    items = everything()
    parsed = parse_bibtex(to_bibtex(items))
    assert parsed.errors == []
    assert [norm(i) for i in parsed.items] == [norm(i) for i in items]
    assert [i.id for i in parsed.items] == cite_keys(items)  # the cite key becomes the id


def test_bibtex_entry_layout() -> None:
    assert to_bibtex([item("devlin")]) == (
        "@misc{devlin2018bert,\n"
        "  author = {Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina},\n"
        "  title = {{BERT}: Pre-training of deep bidirectional transformers for language understanding},\n"
        "  year = {2018},\n"
        "  month = oct,\n"
        "  date = {2018-10-11},\n"
        "  publisher = {arXiv},\n"
        "  doi = {10.48550/arXiv.1810.04805},\n"
        "  eprint = {1810.04805},\n"
        "  archivePrefix = {arXiv}\n"
        "}\n"
    )
    bib = to_bibtex([item("karpathy"), item("ng"), item("dubois"), item("vaswani")])
    assert "@online{karpathy2015unreasonable,\n" in bib
    assert "  organization = {Andrej Karpathy blog},\n" in bib and "  urldate = {2024-03-05}\n" in bib
    assert (
        "@phdthesis{ng2003shaping,\n" in bib and "  school = {University of California, Berkeley},\n" in bib
    )
    assert "  type = {PhD thesis}\n}" in bib
    assert (
        "@incollection{dubois2021neural,\n" in bib and "  editor = {Rossi, Maria and Becker, Tom},\n" in bib
    )
    assert "  booktitle = {Handbook of Information Retrieval},\n" in bib and "  pages = {45--78},\n" in bib
    assert "@inproceedings{vaswani2017attention,\n" in bib
    assert "Kaiser, Łukasz and Polosukhin, Illia}" in bib  # UTF-8 kept, not \L{}
    assert "@mastersthesis{" in to_bibtex([item_from_csl({"id": "m", **EXTRA["master"]})])


def test_bibtex_escaping() -> None:
    bib = to_bibtex([item_from_csl({"id": "e", **EXTRA["escapes"]})])
    assert (
        r"  title = {Profit \& Loss: 100\% of \$5 \#1 under\_score \textbraceleft{}braces\textbraceright{} "
        r"\textasciitilde{}tilde\textasciicircum{} back\textbackslash{}slash}," in bib
    )
    assert r"  journal = {Q\&A Journal}," in bib
    assert r"  note = {Costs 50\% less}" in bib
    assert "author = {O'Brien, Seán}" in bib
    # Braces stay balanced whatever the title holds, so BibTeX can read the file.
    assert bib.count("{") == bib.count("}")


def test_bibtex_names_and_case_protection() -> None:
    bib = to_bibtex([item_from_csl({"id": "a", **EXTRA["accents"]})])
    assert (
        "author = {Ødegård, Åse and van Beethoven, Ludwig and King, Jr., Martin Luther and {Barnes and Noble}"
        " and Aristotle}" in bib
    )
    # Words with inner capitals are braced; ordinary capitalised words are left to the style.
    assert "title = {Über die Ähnlichkeit: ein Beispiel mit {LaTeX} und {BERT}}" in bib
    assert "author = {李, 明 and 王, 芳}" in to_bibtex([item("li")])
    assert "author = {{张伯伟}}" in to_bibtex([item("zhang")])


def test_cite_keys_are_stable_and_unique() -> None:
    assert cite_key(item("vaswani")) == "vaswani2017attention"
    assert cite_key(item("garcia")) == "garcialopez2021robust"  # accents folded to ASCII
    assert cite_key(item("devlin")) == "devlin2018bert"
    assert cite_key(item("adams")) == "adams2023multi"  # "A" is not a significant word
    assert cite_key(item("who")) == "worldcoronavirus"  # no year: nothing in its place
    assert cite_key(item("handbook")) == "rossi2021handbook"  # editors when there is no author
    undated = item_from_csl({"id": "o", "author": [{"family": "Ødegård"}], "title": "The art of war"})
    assert cite_key(undated) == "odegardart"  # "Ø" folds to "o"; "The" and "of" are skipped
    # Chinese names fold to nothing: "item" + year + a hash of the title, identical every time.
    zhang = cite_key(item("zhang"))
    assert re.fullmatch(r"item2002[0-9a-f]{6}", zhang) and zhang == cite_key(item("zhang"))
    assert cite_key(item("li")) != zhang
    # Same key three times → plain, a, b; an export is identical when repeated.
    three = [item("hinton"), item("hinton"), item("hinton")]
    assert cite_keys(three) == ["hinton2007learning", "hinton2007learninga", "hinton2007learningb"]
    assert to_bibtex(everything()) == to_bibtex(everything())
    keys = cite_keys(everything())
    assert len(set(keys)) == len(keys)


# --- BibTeX import -----------------------------------------------------------------------------

FEATURES = r"""
Junk before the first entry is a comment, as in BibTeX.
@String{jml = {Journal of Machine Learning}}
@STRING(pub = "MIT" # " Press")
@comment{ everything here is ignored, @article{fake, title={x}} }
% @article{commented, title = {Should not appear}}
@preamble{"\newcommand{\noop}[1]{}"}

@Article{feature1,
  Author = "Ludwig van Beethoven and King, Jr., Martin Luther and {Barnes and Noble} and others",
  TITLE = "A {\"U}ber {Quoted {nested}} title with \emph{emphasis} and {\em old} style",
  journal = jml,
  month = jun,
  year = 1999,
  pages = "12--34",
  % a comment line between fields
  publisher = pub,
  note = "Cost: 50\% --- see p.~3",
}

@book(feature2,
  author = {D{\'\i}az, Mar{\'\i}a and Gauß, Carl Friedrich},
  title = {{\AA}ngstr{\"o}m and {\ss}: {\O}resund, {\l}{\'o}d{\'z}, \c{c}a va, \v{S}koda, \H{o}, \k{a}, \u{g}, \=a, \.{z}, \~{n}, \^{o}, ``quoted''},
)

@article{scholar,
  title={Attention is all you need},
  author={Vaswani, Ashish and Shazeer, Noam},
  journal={arXiv preprint arXiv:1706.03762},
  year={2017}
}

@misc{site, author = {{OpenAI}}, title = {Blog}, howpublished = {\url{https://openai.com/blog}}, note = {Accessed 2024}}
"""


def test_bibtex_parser_features() -> None:
    result = parse_bibtex(FEATURES)
    assert result.errors == []
    by_id = {i.id: i for i in result.items}
    assert list(by_id) == ["feature1", "feature2", "scholar", "site"]

    f1 = by_id["feature1"]
    assert f1.type == "article-journal"
    assert [n.model_dump(exclude_defaults=True) for n in f1.author] == [
        {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
        {"family": "King", "given": "Martin Luther", "suffix": "Jr."},
        {"literal": "Barnes and Noble"},
    ]  # "and others" is BibTeX's et al., not a person
    assert f1.title == "A Über Quoted nested title with emphasis and old style"
    assert f1.container_title == "Journal of Machine Learning"  # @string macro
    assert f1.publisher == "MIT Press"  # macro defined by concatenation, inside ( )
    assert f1.issued == {"date-parts": [[1999, 6]]}  # month macro
    assert f1.page == "12-34"
    assert f1.note == "Cost: 50% — see p. 3"

    f2 = by_id["feature2"]
    assert f2.type == "book"
    assert [(n.family, n.given) for n in f2.author] == [("Díaz", "María"), ("Gauß", "Carl Friedrich")]
    assert f2.title == "Ångström and ß: Øresund, łódź, ça va, Škoda, ő, ą, ğ, ā, ż, ñ, ô, “quoted”"

    # Google Scholar's way of exporting an arXiv paper becomes a preprint with its arXiv id.
    scholar = by_id["scholar"]
    assert (scholar.type, scholar.arxiv, scholar.publisher, scholar.container_title) == (
        "article", "1706.03762", "arXiv", ""
    )  # fmt: skip

    site = by_id["site"]
    assert (site.type, site.URL, site.author[0].literal) == ("webpage", "https://openai.com/blog", "OpenAI")


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"{\"o}", "ö"), (r"\"o", "ö"), (r"\"{o}", "ö"), (r"{\"{o}}", "ö"), (r"\'{e}", "é"), (r"\'e", "é"),
        (r"\`a", "à"), (r"\^{\i}", "î"), (r"{\'\i}", "í"), (r"{\ss}", "ß"), (r"Stra\ss e", "Straße"),
        (r"\c{c}", "ç"), (r"\c c", "ç"), (r"\v{z}", "ž"), (r"{\aa}", "å"), (r"{\AA}", "Å"), (r"\o{}", "ø"),
        (r"{\ae}", "æ"), (r"{\OE}", "Œ"), (r"\l{}", "ł"), (r"\H{u}", "ű"), (r"\r{u}", "ů"), (r"\d{s}", "ṣ"),
        (r"\={e}", "ē"), (r"\.{I}", "İ"), (r"\~{a}", "ã"), (r"\u{a}", "ă"), (r"\k{e}", "ę"),
        (r"Fran\c{c}ois M{\"u}ller", "François Müller"), (r"Erd\H{o}s", "Erdős"),
        (r"\& \% \$ \# \_ \{ \}", "& % $ # _ { }"), (r"a~b", "a b"), (r"1--2", "1–2"), (r"a---b", "a—b"),
        (r"``x''", "“x”"), (r"\textit{x} \textbf{y} \emph{z}", "x y z"), (r"{\em x}", "x"),
        (r"\textasciitilde{}\textasciicircum{}\textbackslash{}", "~^\\"), (r"\ldots{} end", "… end"),
        (r"$\alpha$-helix", r"$\alpha$-helix"), (r"{NASA} {\TeX}", "NASA TeX"),
        (r"\textsuperscript{th}", "th"), (r"\unknowncommand", r"\unknowncommand"),
    ],
)  # fmt: skip
def test_latex_to_unicode(latex: str, text: str) -> None:
    assert latex_to_unicode(latex) == text


MALFORMED_BIB = """\
% A library export with damage in it.
@string{acl = "Association for Computational Linguistics"}

@article{good1,
  author = {M{\\"u}ller, J{\\"o}rg},
  title = {First good entry},
  journal = {Journal One},
  year = 2020
}

@article{missingcomma,
  author = {Doe, Jane}
  title = {No comma before me},
  year = {2021}
}

@book{unbalanced,
  title = {An {unbalanced title},
  year = {2019}
}

@inproceedings{good2,
  author = {Smith, John},
  title = {Second good entry},
  booktitle = acl # " Annual Meeting",
  year = {2022}
}

@misc{,
  title = {No key}
}

@article{unclosed,
  title = {Never closed},

@article{good3, title = {Third good entry}, year = 2023}
@article{badquote, title = "Unterminated}
@article{good4, title = {Fourth good entry}, journal = IEEE_J_PAMI}
"""


def test_malformed_bibtex_reports_lines_and_imports_the_rest() -> None:
    result = parse_bibtex(MALFORMED_BIB)
    assert [i.id for i in result.items] == ["good1", "good2", "good3", "good4"]
    assert result.items[0].author[0].family == "Müller" and result.items[0].author[0].given == "Jörg"
    assert result.items[1].container_title == "Association for Computational Linguistics Annual Meeting"
    lines = [(e.line, e.message) for e in result.errors]
    assert [line for line, _ in lines] == [12, 18, 29, 33, 37, 38]
    assert "missing ','" in lines[0][1] and "'author'" in lines[0][1] and "missingcomma" in lines[0][1]
    assert "unbalanced braces" in lines[1][1] and "'title'" in lines[1][1]
    assert "no cite key" in lines[2][1]
    assert "'unclosed' is not closed" in lines[3][1]
    assert "unterminated quoted value" in lines[4][1]
    # An unknown macro is a warning: the entry is still imported with the macro's name.
    assert "unknown @string macro 'IEEE_J_PAMI'" in lines[5][1]
    assert result.items[3].container_title == "IEEE_J_PAMI"
    assert str(result.errors[0]).startswith("line 12: ")


def test_bibtex_parser_never_raises_on_garbage() -> None:
    for text in ("", "@", "@article", "@article{", "@article{k", "@article{k,", "@article{k, title",
                 "@article{k, title =", "@article{k, title = {", '@article{k, title = "x', "}}}{{{", "@@@@"):  # fmt: skip
        result = parse_bibtex(text)
        assert isinstance(result, ParseResult)
        assert result.items == []
    assert len(parse_bibtex("@article{k,}").items) == 1


# --- RIS ---------------------------------------------------------------------------------------


def test_ris_round_trip_keeps_every_field() -> None:
    items = everything()
    text = to_ris(items)
    parsed = parse_ris(text)
    assert parsed.errors == []
    want = [norm(i) for i in items]
    for data in want:
        data.pop("primaryClass", None)  # RIS has no tag for an arXiv category
    # A name with a family part only has no comma in RIS, which reads back as a literal name.
    accents = next(d for d in want if d.get("title", "").startswith("Über"))
    accents["author"][-1] = {"literal": "Aristotle"}
    assert [norm(i) for i in parsed.items] == want
    assert [i.id for i in parsed.items] == [i.id for i in items]


def test_ris_record_layout() -> None:
    assert to_ris([item("hinton")]) == (
        "TY  - JOUR\n"
        "ID  - hinton\n"
        "AU  - Hinton, Geoffrey E.\n"
        "TI  - Learning multiple layers of representation\n"
        "T2  - Trends in Cognitive Sciences\n"
        "JO  - Trends in Cognitive Sciences\n"
        "VL  - 11\n"
        "IS  - 10\n"
        "SP  - 428\n"
        "EP  - 434\n"
        "PY  - 2007\n"
        "DA  - 2007/10//\n"
        "DO  - 10.1016/j.tics.2007.09.004\n"
        "ER  - \n"
    )
    ris = to_ris([item("jurafsky"), item("zhang"), item("devlin")])
    assert "TY  - BOOK\n" in ris and "ET  - 2\n" in ris and "CY  - Upper Saddle River, NJ\n" in ris
    assert "SN  - 978-0-13-187321-6\n" in ris
    assert "AU  - 张伯伟\n" in ris
    assert "TY  - UNPB\n" in ris and "AN  - arXiv:1810.04805\n" in ris and "DA  - 2018/10/11/\n" in ris


def test_ris_import_of_other_tools_output() -> None:
    text = (
        "\ufeffTY  - JOUR\r\n"
        "A1  - Curie, Marie\r\n"
        "T1  - Recherches sur les substances radioactives\r\n"
        "JF  - Annales de chimie et de physique\r\n"
        "JA  - Ann. Chim. Phys.\r\n"
        "Y1  - 1903///\r\n"
        "SP  - 1-10\r\n"
        "SN  - 0365-1444\r\n"
        "DO  - https://doi.org/10.1000/xyz\r\n"
        "KW  - radium\r\n"
        "ER  -\r\n"
        "TY  - CHAP\r\n"
        "AU  - Roe, Jane\r\n"
        "A2  - Editor, Ed\r\n"
        "TI  - A chapter\r\n"
        "BT  - The book\r\n"
        "SN  - 978-3-16-148410-0\r\n"
        "ER  - \r\n"
    )
    result = parse_ris(text)
    assert result.errors == []
    curie, chapter = result.items
    assert (curie.title, curie.container_title, curie.page) == (
        "Recherches sur les substances radioactives", "Annales de chimie et de physique", "1-10"
    )  # fmt: skip
    assert (
        curie.issued == {"date-parts": [[1903]]} and curie.ISSN == "0365-1444" and curie.DOI == "10.1000/xyz"
    )
    assert curie.author[0].family == "Curie" and curie.author[0].given == "Marie"
    assert (
        chapter.type == "chapter"
        and chapter.container_title == "The book"
        and chapter.editor[0].family == "Editor"
    )
    assert chapter.ISBN == "978-3-16-148410-0"


MALFORMED_RIS = """\
TY  - JOUR
AU  - Smith, John
TI  - Good one
PY  - 2020
ER  -

TY  - JOUR
TI  - Broken line follows
this line is not a tag
ER  -

TY  - XYZ
TI  - Unknown type
ER  -

TY  - BOOK
TI  - Never closed

TY  - CHAP
TI  - Good two
ER  -
AU  - Outside, Record
TY - JOUR
"""


def test_malformed_ris_reports_lines_and_imports_the_rest() -> None:
    result = parse_ris(MALFORMED_RIS)
    assert [i.title for i in result.items] == ["Good one", "Good two"]
    lines = [(e.line, e.message) for e in result.errors]
    assert [line for line, _ in lines] == [9, 12, 16, 22, 23]
    assert "not a RIS tag line" in lines[0][1]
    assert "unknown reference type 'TY  - XYZ'" in lines[1][1]
    assert "no 'ER  - '" in lines[2][1]
    assert "outside a record" in lines[3][1]
    assert "not a RIS tag line" in lines[4][1]  # one space before the hyphen is not RIS


def test_ris_missing_er_at_end_of_file() -> None:
    result = parse_ris("TY  - JOUR\nTI  - Fine\nER  - \nTY  - JOUR\nTI  - Cut short\n")
    assert [i.title for i in result.items] == ["Fine"]
    assert [(e.line, "no 'ER  - '" in e.message) for e in result.errors] == [(4, True)]


# --- CSL-JSON ----------------------------------------------------------------------------------


def test_csl_json_round_trip() -> None:
    items = everything()
    text = to_csl_json(items)
    assert "张伯伟" in text  # UTF-8, not \u escapes
    parsed = parse_csl_json(text)
    assert parsed.errors == []
    assert [i.to_csl() for i in parsed.items] == [i.to_csl() for i in items]


def test_csl_json_errors_per_item() -> None:
    text = (
        "[\n"
        '  {"id": "a", "type": "book", "title": "Fine"},\n'
        "  42,\n"
        '  {"id": "c", "title": "Bad author", "author": "Smith"},\n'
        '  {"id": "d", "title": "Also fine", "issued": {"date-parts": [[2020]]}, "volume": 3}\n'
        "]\n"
    )
    result = parse_csl_json(text)
    assert [i.id for i in result.items] == ["a", "d"]
    assert result.items[1].volume == "3"
    assert [(e.index, e.line) for e in result.errors] == [(1, 3), (2, 4)]
    assert "expected an object" in result.errors[0].message
    assert "author" in result.errors[1].message


def test_csl_json_syntax_error_keeps_earlier_items() -> None:
    result = parse_csl_json('[\n  {"id": "a", "title": "ok"},\n  {"id": "b", "title": }\n]')
    assert [i.id for i in result.items] == ["a"]
    assert [(e.index, e.line) for e in result.errors] == [(1, 3)]
    assert parse_csl_json('{"id": "solo", "title": "One"}').items[0].id == "solo"
    assert parse_csl_json("").errors[0].line == 1
    assert "array" in parse_csl_json('"text"').errors[0].message
