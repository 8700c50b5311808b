"""APA 7, MLA 9, IEEE and Chicago author-date entries and in-text markers.

Every expected string below was written by hand from the style manuals' rules, not captured
from the renderer. Titles are kept as entered (none of the styles' case conversions is applied).
"""

from __future__ import annotations

from typing import Any

import pytest

from paperpilot.core.citations import western
from paperpilot.core.citations.model import CslItem, item_from_csl
from paperpilot.core.citations.styles import STYLES, Style


def _people(names: str) -> list[dict[str, str]]:
    """ "Family, Given; Family, Given" → CSL name objects."""
    out = []
    for n in names.split("; "):
        family, _, given = n.partition(", ")
        out.append({"family": family, "given": given})
    return out


ITEMS: dict[str, dict[str, Any]] = {
    # Journal article, one author, month known.
    "hinton": {
        "type": "article-journal",
        "author": _people("Hinton, Geoffrey E."),
        "title": "Learning multiple layers of representation",
        "container-title": "Trends in Cognitive Sciences",
        "volume": "11",
        "issue": "10",
        "page": "428-434",
        "issued": {"date-parts": [[2007, 10]]},
        "DOI": "10.1016/j.tics.2007.09.004",
    },
    # Journal article, two authors, URL but no DOI.
    "smith": {
        "type": "article-journal",
        "author": _people("Smith, John; Jones, Mary"),
        "title": "Deep learning for citation parsing",
        "container-title": "Journal of Documentation",
        "volume": "76",
        "issue": "3",
        "page": "101-118",
        "issued": {"date-parts": [[2020]]},
        "URL": "https://example.org/jdoc/76/3/101",
    },
    # Conference paper in published proceedings, three authors, a "von" particle.
    "garcia": {
        "type": "paper-conference",
        "author": [
            {"family": "García-López", "given": "Ana"},
            {"family": "Berg", "given": "Pieter", "non-dropping-particle": "van der"},
            {"family": "Zhang", "given": "Wei"},
        ],
        "title": "Robust reference extraction from scanned theses",
        "container-title": "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
        "page": "1120-1131",
        "publisher": "Association for Computational Linguistics",
        "publisher-place": "Punta Cana, Dominican Republic",
        "issued": {"date-parts": [[2021, 11]]},
        "DOI": "10.18653/v1/2021.emnlp-main.85",
    },
    # Conference paper, eight authors.
    "vaswani": {
        "type": "paper-conference",
        "author": _people(
            "Vaswani, Ashish; Shazeer, Noam; Parmar, Niki; Uszkoreit, Jakob; Jones, Llion; Gomez, Aidan N.; "
            "Kaiser, Łukasz; Polosukhin, Illia"
        ),
        "title": "Attention is all you need",
        "container-title": "Advances in Neural Information Processing Systems",
        "volume": "30",
        "page": "5998-6008",
        "publisher": "Curran Associates",
        "issued": {"date-parts": [[2017]]},
        "URL": "https://papers.nips.cc/paper/7181-attention-is-all-you-need",
    },
    # Journal article, twenty-one authors.
    "adams": {
        "type": "article-journal",
        "author": _people(
            "Adams, Alice; Baker, Brian; Clark, Carol; Davis, David; Evans, Emma; Foster, Frank; Garcia, Grace; "
            "Harris, Henry; Irwin, Irene; Jones, Jack; King, Karen; Lewis, Liam; Moore, Maria; Nelson, Noah; "
            "Owens, Olivia; Parker, Paul; Quinn, Quentin; Roberts, Rachel; Scott, Samuel; Turner, Tina; "
            "Underwood, Uma"
        ),
        "title": "A multi-site replication of retrieval-augmented question answering",
        "container-title": "Nature Machine Intelligence",
        "volume": "5",
        "issue": "7",
        "page": "701-712",
        "issued": {"date-parts": [[2023]]},
        "DOI": "10.1038/s42256-023-00001-x",
    },
    # Book, two authors, second edition.
    "jurafsky": {
        "type": "book",
        "author": _people("Jurafsky, Daniel; Martin, James H."),
        "title": "Speech and Language Processing",
        "edition": "2",
        "publisher": "Pearson Prentice Hall",
        "publisher-place": "Upper Saddle River, NJ",
        "issued": {"date-parts": [[2009]]},
        "ISBN": "978-0-13-187321-6",
    },
    # Chapter in an edited book, hyphenated given name.
    "dubois": {
        "type": "chapter",
        "author": _people("Dubois, Jean-Paul"),
        "editor": _people("Rossi, Maria; Becker, Tom"),
        "title": "Neural retrieval models",
        "container-title": "Handbook of Information Retrieval",
        "edition": "2",
        "page": "45-78",
        "publisher": "Springer",
        "publisher-place": "Cham",
        "issued": {"date-parts": [[2021]]},
        "DOI": "10.1007/978-3-030-00000-0_3",
    },
    # Edited book: editors in the author position.
    "handbook": {
        "type": "book",
        "editor": _people("Rossi, Maria; Becker, Tom"),
        "title": "Handbook of Information Retrieval",
        "edition": "2nd",
        "publisher": "Springer",
        "publisher-place": "Cham",
        "issued": {"date-parts": [[2021]]},
    },
    # Doctoral thesis.
    "ng": {
        "type": "thesis",
        "author": _people("Ng, Andrew Y."),
        "title": "Shaping and policy search in reinforcement learning",
        "genre": "PhD thesis",
        "publisher": "University of California, Berkeley",
        "publisher-place": "Berkeley, CA",
        "issued": {"date-parts": [[2003]]},
    },
    # Preprint (CSL type "article"), four authors.
    "devlin": {
        "type": "article",
        "author": _people("Devlin, Jacob; Chang, Ming-Wei; Lee, Kenton; Toutanova, Kristina"),
        "title": "BERT: Pre-training of deep bidirectional transformers for language understanding",
        "publisher": "arXiv",
        "arxiv": "1810.04805",
        "DOI": "10.48550/arXiv.1810.04805",
        "issued": {"date-parts": [[2018, 10, 11]]},
    },
    # Web page with a personal author and a full date.
    "karpathy": {
        "type": "webpage",
        "author": _people("Karpathy, Andrej"),
        "title": "The unreasonable effectiveness of recurrent neural networks",
        "container-title": "Andrej Karpathy blog",
        "issued": {"date-parts": [[2015, 5, 21]]},
        "URL": "http://karpathy.github.io/2015/05/21/rnn-effectiveness/",
        "accessed": {"date-parts": [[2024, 3, 5]]},
    },
    # Undated web page whose group author is also the site.
    "who": {
        "type": "webpage",
        "author": [{"literal": "World Health Organization"}],
        "title": "Coronavirus disease (COVID-19) pandemic",
        "container-title": "World Health Organization",
        "URL": "https://www.who.int/emergencies/diseases/novel-coronavirus-2019",
        "accessed": {"date-parts": [[2024, 3, 5]]},
    },
    # Chinese book, literal author name.
    "zhang": {
        "type": "book",
        "author": [{"literal": "张伯伟"}],
        "title": "全唐五代诗格汇考",
        "publisher": "江苏古籍出版社",
        "publisher-place": "南京",
        "issued": {"date-parts": [["2002"]]},
        "language": "zh-CN",
    },
    # Chinese journal article with family/given split in Chinese characters.
    "li": {
        "type": "article-journal",
        "author": [{"family": "李", "given": "明"}, {"family": "王", "given": "芳"}],
        "title": "大语言模型在文献检索中的应用",
        "container-title": "情报学报",
        "volume": "42",
        "issue": "3",
        "page": "1-12",
        "issued": {"date-parts": [[2023]]},
    },
    # Missing year, volume, issue and pages.
    "doe": {
        "type": "article-journal",
        "author": _people("Doe, Jane"),
        "title": "Notes on an undated manuscript",
        "container-title": "Working Papers in Linguistics",
    },
    # No author, no container.
    "anon": {
        "type": "article-journal",
        "title": "Anonymous report on data retention",
        "issued": {"date-parts": [[2019]]},
    },
    # Report with a number.
    "lovelace": {
        "type": "report",
        "author": _people("Lovelace, Ada"),
        "title": "Notes on the analytical engine",
        "number": "TR-42",
        "publisher": "Royal Society",
        "publisher-place": "London",
        "issued": {"date-parts": [[2020]]},
    },
    # Unpublished conference presentation (no proceedings).
    "talk": {
        "type": "paper-conference",
        "author": _people("Doe, Jane"),
        "title": "Citation styles in practice",
        "event-title": "Annual Meeting of the Library Association",
        "publisher-place": "Chicago, IL",
        "issued": {"date-parts": [[2019, 6, 3]]},
    },
}


def item(key: str, **extra: Any) -> CslItem:
    return item_from_csl({"id": key, **ITEMS[key], **extra})


APA: dict[str, str] = {
    "hinton": "Hinton, G. E. (2007). Learning multiple layers of representation. Trends in Cognitive Sciences, "
    "11(10), 428–434. https://doi.org/10.1016/j.tics.2007.09.004",
    # APA §9.8: two authors still take a comma before the ampersand.
    "smith": "Smith, J., & Jones, M. (2020). Deep learning for citation parsing. Journal of Documentation, "
    "76(3), 101–118. https://example.org/jdoc/76/3/101",
    # APA §10.5: proceedings published as a book are cited like a chapter ("In … (pp. x–y)").
    "garcia": "García-López, A., van der Berg, P., & Zhang, W. (2021). Robust reference extraction from "
    "scanned theses. In Proceedings of the 2021 Conference on Empirical Methods in Natural Language "
    "Processing (pp. 1120–1131). Association for Computational Linguistics. "
    "https://doi.org/10.18653/v1/2021.emnlp-main.85",
    # Up to 20 authors are all listed; the volume of a proceedings series goes in the parentheses.
    "vaswani": "Vaswani, A., Shazeer, N., Parmar, N., Uszkoreit, J., Jones, L., Gomez, A. N., Kaiser, Ł., "
    "& Polosukhin, I. (2017). Attention is all you need. In Advances in Neural Information Processing "
    "Systems (Vol. 30, pp. 5998–6008). Curran Associates. "
    "https://papers.nips.cc/paper/7181-attention-is-all-you-need",
    # APA §9.8: 21 or more → the first 19, an ellipsis without "&", then the last author.
    "adams": "Adams, A., Baker, B., Clark, C., Davis, D., Evans, E., Foster, F., Garcia, G., Harris, H., "
    "Irwin, I., Jones, J., King, K., Lewis, L., Moore, M., Nelson, N., Owens, O., Parker, P., Quinn, Q., "
    "Roberts, R., Scott, S., … Underwood, U. (2023). A multi-site replication of retrieval-augmented "
    "question answering. Nature Machine Intelligence, 5(7), 701–712. "
    "https://doi.org/10.1038/s42256-023-00001-x",
    # APA 7 drops the publisher location.
    "jurafsky": "Jurafsky, D., & Martin, J. H. (2009). Speech and Language Processing (2nd ed.). "
    "Pearson Prentice Hall.",
    # APA §10.3: editors' initials precede their surnames; edition and pages share the parentheses.
    "dubois": "Dubois, J.-P. (2021). Neural retrieval models. In M. Rossi & T. Becker (Eds.), Handbook of "
    "Information Retrieval (2nd ed., pp. 45–78). Springer. https://doi.org/10.1007/978-3-030-00000-0_3",
    "handbook": "Rossi, M., & Becker, T. (Eds.). (2021). Handbook of Information Retrieval (2nd ed.). Springer.",
    "ng": "Ng, A. Y. (2003). Shaping and policy search in reinforcement learning [Doctoral dissertation, "
    "University of California, Berkeley].",
    "devlin": "Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2018). BERT: Pre-training of deep "
    "bidirectional transformers for language understanding [Preprint]. arXiv. "
    "https://doi.org/10.48550/arXiv.1810.04805",
    # Web pages are dated to the day.
    "karpathy": "Karpathy, A. (2015, May 21). The unreasonable effectiveness of recurrent neural networks. "
    "Andrej Karpathy blog. http://karpathy.github.io/2015/05/21/rnn-effectiveness/",
    # The site name is omitted when it is also the (group) author.
    "who": "World Health Organization. (n.d.). Coronavirus disease (COVID-19) pandemic. "
    "https://www.who.int/emergencies/diseases/novel-coronavirus-2019",
    "zhang": "张伯伟. (2002). 全唐五代诗格汇考. 江苏古籍出版社.",
    "li": "李明, & 王芳. (2023). 大语言模型在文献检索中的应用. 情报学报, 42(3), 1–12.",
    "doe": "Doe, J. (n.d.). Notes on an undated manuscript. Working Papers in Linguistics.",
    # With no author the title moves to the author position, before the date.
    "anon": "Anonymous report on data retention. (2019).",
    "lovelace": "Lovelace, A. (2020). Notes on the analytical engine (Report No. TR-42). Royal Society.",
    "talk": "Doe, J. (2019, June 3). Citation styles in practice [Paper presentation]. Annual Meeting of the "
    "Library Association, Chicago, IL.",
}

MLA: dict[str, str] = {
    # A DOI or URL is the container's location: after the pages, separated by a comma; pages
    # beyond 99 keep only the last two digits of the second number (MLA 9 "428–34").
    "hinton": "Hinton, Geoffrey E. “Learning multiple layers of representation.” Trends in Cognitive "
    "Sciences, vol. 11, no. 10, Oct. 2007, pp. 428–34, https://doi.org/10.1016/j.tics.2007.09.004.",
    # Two authors: the second in natural order after ", and"; URLs lose their scheme.
    "smith": "Smith, John, and Mary Jones. “Deep learning for citation parsing.” Journal of Documentation, "
    "vol. 76, no. 3, 2020, pp. 101–18, example.org/jdoc/76/3/101.",
    # Three or more: the first author and "et al."
    "garcia": "García-López, Ana, et al. “Robust reference extraction from scanned theses.” Proceedings of "
    "the 2021 Conference on Empirical Methods in Natural Language Processing, Association for "
    "Computational Linguistics, Nov. 2021, pp. 1120–31, https://doi.org/10.18653/v1/2021.emnlp-main.85.",
    "vaswani": "Vaswani, Ashish, et al. “Attention is all you need.” Advances in Neural Information Processing "
    "Systems, vol. 30, Curran Associates, 2017, pp. 5998–6008, "
    "papers.nips.cc/paper/7181-attention-is-all-you-need.",
    "adams": "Adams, Alice, et al. “A multi-site replication of retrieval-augmented question answering.” "
    "Nature Machine Intelligence, vol. 5, no. 7, 2023, pp. 701–12, https://doi.org/10.1038/s42256-023-00001-x.",
    "jurafsky": "Jurafsky, Daniel, and James H. Martin. Speech and Language Processing. 2nd ed., Pearson "
    "Prentice Hall, 2009.",
    "dubois": "Dubois, Jean-Paul. “Neural retrieval models.” Handbook of Information Retrieval, edited by "
    "Maria Rossi and Tom Becker, 2nd ed., Springer, 2021, pp. 45–78, "
    "https://doi.org/10.1007/978-3-030-00000-0_3.",
    "handbook": "Rossi, Maria, and Tom Becker, editors. Handbook of Information Retrieval. 2nd ed., Springer, 2021.",
    # Dissertations: Title. Year. Institution, PhD dissertation. "University" shortens to "U".
    "ng": "Ng, Andrew Y. Shaping and policy search in reinforcement learning. 2003. U of California, "
    "Berkeley, PhD dissertation.",
    "devlin": "Devlin, Jacob, et al. “BERT: Pre-training of deep bidirectional transformers for language "
    "understanding.” arXiv, 11 Oct. 2018, https://doi.org/10.48550/arXiv.1810.04805.",
    "karpathy": "Karpathy, Andrej. “The unreasonable effectiveness of recurrent neural networks.” Andrej "
    "Karpathy blog, 21 May 2015, karpathy.github.io/2015/05/21/rnn-effectiveness/.",
    # An organisation that is author and publisher starts with the title; undated online works
    # end with the access date.
    "who": "“Coronavirus disease (COVID-19) pandemic.” World Health Organization, "
    "www.who.int/emergencies/diseases/novel-coronavirus-2019. Accessed 5 Mar. 2024.",
    "zhang": "张伯伟. 全唐五代诗格汇考. 江苏古籍出版社, 2002.",
    "li": "李明, and 王芳. “大语言模型在文献检索中的应用.” 情报学报, vol. 42, no. 3, 2023, pp. 1–12.",
    # No date: MLA 9 leaves it out (no "n.d.").
    "doe": "Doe, Jane. “Notes on an undated manuscript.” Working Papers in Linguistics.",
    "anon": "“Anonymous report on data retention.” 2019.",
    "lovelace": "Lovelace, Ada. Notes on the analytical engine. Report no. TR-42, Royal Society, 2020.",
    "talk": "Doe, Jane. “Citation styles in practice.” Annual Meeting of the Library Association, 3 June 2019, "
    "Chicago, IL.",
}

IEEE: dict[str, str] = {
    # Periodicals: pp. before the date; months abbreviated (Jan., …, Sept., Oct.); "doi:" and a period.
    "hinton": "G. E. Hinton, “Learning multiple layers of representation,” Trends in Cognitive Sciences, "
    "vol. 11, no. 10, pp. 428–434, Oct. 2007, doi: 10.1016/j.tics.2007.09.004.",
    # No period after a URL.
    "smith": "J. Smith and M. Jones, “Deep learning for citation parsing,” Journal of Documentation, "
    "vol. 76, no. 3, pp. 101–118, 2020. [Online]. Available: https://example.org/jdoc/76/3/101",
    # "Proceedings of the" becomes "Proc."; conferences are dated by year only.
    "garcia": "A. García-López, P. van der Berg, and W. Zhang, “Robust reference extraction from scanned "
    "theses,” in Proc. 2021 Conference on Empirical Methods in Natural Language Processing, Punta Cana, "
    "Dominican Republic, 2021, pp. 1120–1131, doi: 10.18653/v1/2021.emnlp-main.85.",
    # More than six authors → the first and "et al."
    "vaswani": "A. Vaswani et al., “Attention is all you need,” in Advances in Neural Information Processing "
    "Systems, vol. 30, 2017, pp. 5998–6008. [Online]. Available: "
    "https://papers.nips.cc/paper/7181-attention-is-all-you-need",
    "adams": "A. Adams et al., “A multi-site replication of retrieval-augmented question answering,” Nature "
    "Machine Intelligence, vol. 5, no. 7, pp. 701–712, 2023, doi: 10.1038/s42256-023-00001-x.",
    # Books: Title, xth ed. City: Publisher, year.
    "jurafsky": "D. Jurafsky and J. H. Martin, Speech and Language Processing, 2nd ed. Upper Saddle River, NJ: "
    "Pearson Prentice Hall, 2009.",
    "dubois": "J.-P. Dubois, “Neural retrieval models,” in Handbook of Information Retrieval, 2nd ed., "
    "M. Rossi and T. Becker, Eds. Cham: Springer, 2021, pp. 45–78, doi: 10.1007/978-3-030-00000-0_3.",
    "handbook": "M. Rossi and T. Becker, Eds., Handbook of Information Retrieval, 2nd ed. Cham: Springer, 2021.",
    # Theses: "Ph.D. dissertation", University abbreviated "Univ.".
    "ng": "A. Y. Ng, “Shaping and policy search in reinforcement learning,” Ph.D. dissertation, Univ. of "
    "California, Berkeley, Berkeley, CA, 2003.",
    "devlin": "J. Devlin, M.-W. Chang, K. Lee, and K. Toutanova, “BERT: Pre-training of deep bidirectional "
    "transformers for language understanding,” 2018, arXiv:1810.04805, doi: 10.48550/arXiv.1810.04805.",
    # Websites: Author. “Page title.” Website. URL (accessed Mon. Day, Year).
    "karpathy": "A. Karpathy. “The unreasonable effectiveness of recurrent neural networks.” Andrej Karpathy "
    "blog. http://karpathy.github.io/2015/05/21/rnn-effectiveness/ (accessed Mar. 5, 2024).",
    "who": "World Health Organization. “Coronavirus disease (COVID-19) pandemic.” World Health Organization. "
    "https://www.who.int/emergencies/diseases/novel-coronavirus-2019 (accessed Mar. 5, 2024).",
    "zhang": "张伯伟, 全唐五代诗格汇考. 南京: 江苏古籍出版社, 2002.",
    "li": "李明 and 王芳, “大语言模型在文献检索中的应用,” 情报学报, vol. 42, no. 3, pp. 1–12, 2023.",
    "doe": "J. Doe, “Notes on an undated manuscript,” Working Papers in Linguistics.",
    "anon": "“Anonymous report on data retention,” 2019.",
    # Reports: Publisher, City, Tech. Rep. number, date.
    "lovelace": "A. Lovelace, “Notes on the analytical engine,” Royal Society, London, Tech. Rep. TR-42, 2020.",
    "talk": "J. Doe, “Citation styles in practice,” presented at the Annual Meeting of the Library Association, "
    "Chicago, IL, 2019.",
}

CHICAGO: dict[str, str] = {
    # Journal: Journal vol (issue): pages; CMOS §9.61 inclusive numbers ("428–34", "101–18").
    "hinton": "Hinton, Geoffrey E. 2007. “Learning multiple layers of representation.” Trends in Cognitive "
    "Sciences 11 (10): 428–34. https://doi.org/10.1016/j.tics.2007.09.004.",
    "smith": "Smith, John, and Mary Jones. 2020. “Deep learning for citation parsing.” Journal of "
    "Documentation 76 (3): 101–18. https://example.org/jdoc/76/3/101.",
    "garcia": "García-López, Ana, Pieter van der Berg, and Wei Zhang. 2021. “Robust reference extraction from "
    "scanned theses.” In Proceedings of the 2021 Conference on Empirical Methods in Natural Language "
    "Processing, 1120–31. Punta Cana, Dominican Republic: Association for Computational Linguistics. "
    "https://doi.org/10.18653/v1/2021.emnlp-main.85.",
    # Up to ten authors are all listed. Four-digit numbers where three digits change stay whole.
    "vaswani": "Vaswani, Ashish, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, "
    "Łukasz Kaiser, and Illia Polosukhin. 2017. “Attention is all you need.” In Advances in Neural "
    "Information Processing Systems, vol. 30, 5998–6008. Curran Associates. "
    "https://papers.nips.cc/paper/7181-attention-is-all-you-need.",
    # More than ten authors → the first seven and "et al."
    "adams": "Adams, Alice, Brian Baker, Carol Clark, David Davis, Emma Evans, Frank Foster, Grace Garcia, "
    "et al. 2023. “A multi-site replication of retrieval-augmented question answering.” Nature Machine "
    "Intelligence 5 (7): 701–12. https://doi.org/10.1038/s42256-023-00001-x.",
    "jurafsky": "Jurafsky, Daniel, and James H. Martin. 2009. Speech and Language Processing. 2nd ed. Upper "
    "Saddle River, NJ: Pearson Prentice Hall.",
    "dubois": "Dubois, Jean-Paul. 2021. “Neural retrieval models.” In Handbook of Information Retrieval, edited "
    "by Maria Rossi and Tom Becker, 2nd ed., 45–78. Cham: Springer. "
    "https://doi.org/10.1007/978-3-030-00000-0_3.",
    "handbook": "Rossi, Maria, and Tom Becker, eds. 2021. Handbook of Information Retrieval. 2nd ed. Cham: Springer.",
    # Theses: title in quotes, "PhD diss., University".
    "ng": "Ng, Andrew Y. 2003. “Shaping and policy search in reinforcement learning.” PhD diss., University of "
    "California, Berkeley.",
    "devlin": "Devlin, Jacob, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. 2018. “BERT: Pre-training of "
    "deep bidirectional transformers for language understanding.” Preprint, arXiv. "
    "https://doi.org/10.48550/arXiv.1810.04805.",
    "karpathy": "Karpathy, Andrej. 2015. “The unreasonable effectiveness of recurrent neural networks.” Andrej "
    "Karpathy blog. May 21, 2015. http://karpathy.github.io/2015/05/21/rnn-effectiveness/.",
    # An undated web page gets "n.d." and its access date.
    "who": "World Health Organization. n.d. “Coronavirus disease (COVID-19) pandemic.” World Health "
    "Organization. Accessed March 5, 2024. https://www.who.int/emergencies/diseases/novel-coronavirus-2019.",
    "zhang": "张伯伟. 2002. 全唐五代诗格汇考. 南京: 江苏古籍出版社.",
    "li": "李明, and 王芳. 2023. “大语言模型在文献检索中的应用.” 情报学报 42 (3): 1–12.",
    "doe": "Doe, Jane. n.d. “Notes on an undated manuscript.” Working Papers in Linguistics.",
    # No author → the title leads, then the year.
    "anon": "“Anonymous report on data retention.” 2019.",
    "lovelace": "Lovelace, Ada. 2020. Notes on the analytical engine. Report TR-42. London: Royal Society.",
    "talk": "Doe, Jane. 2019. “Citation styles in practice.” Paper presented at the Annual Meeting of the "
    "Library Association, Chicago, IL.",
}

EXPECTED: dict[str, dict[str, str]] = {"apa": APA, "mla": MLA, "ieee": IEEE, "chicago-author-date": CHICAGO}


def test_every_item_has_an_expectation_in_every_style() -> None:
    for style, expected in EXPECTED.items():
        assert set(expected) == set(ITEMS), style


@pytest.mark.parametrize(
    ("style_name", "key"), [(s, k) for s in EXPECTED for k in ITEMS], ids=lambda v: str(v)
)
def test_entry_text(style_name: str, key: str) -> None:
    style = STYLES[style_name]
    assert style.entry(item(key)).text == EXPECTED[style_name][key]


def test_styles_are_registered_with_their_menu_data() -> None:
    assert STYLES["apa"] is western.APA and not western.APA.numeric
    assert STYLES["mla"] is western.MLA and not western.MLA.numeric
    assert STYLES["ieee"] is western.IEEE and western.IEEE.numeric
    assert STYLES["chicago-author-date"] is western.CHICAGO_AUTHOR_DATE
    for name in EXPECTED:
        style: Style = STYLES[name]
        assert style.name == name and style.label


# --- HTML: italics where each style italicises, everything else escaped --------------------------


def test_apa_html_italicises_journal_and_volume_not_issue() -> None:
    html = western.APA.entry(item("hinton")).html
    assert html == (
        "Hinton, G. E. (2007). Learning multiple layers of representation. <i>Trends in Cognitive Sciences</i>, "
        "<i>11</i>(10), 428–434. https://doi.org/10.1016/j.tics.2007.09.004"
    )


def test_apa_html_italic_book_title_edition_roman() -> None:
    assert western.APA.entry(item("jurafsky")).html == (
        "Jurafsky, D., &amp; Martin, J. H. (2009). <i>Speech and Language Processing</i> (2nd ed.). "
        "Pearson Prentice Hall."
    )
    assert western.APA.entry(item("dubois")).html.startswith(
        "Dubois, J.-P. (2021). Neural retrieval models. In M. Rossi &amp; T. Becker (Eds.), "
        "<i>Handbook of Information Retrieval</i> (2nd ed., pp. 45–78). Springer."
    )
    assert (
        "<i>Shaping and policy search in reinforcement learning</i> [Doctoral"
        in western.APA.entry(item("ng")).html
    )
    assert "<i>BERT: Pre-training" in western.APA.entry(item("devlin")).html


def test_mla_html_italicises_containers_not_quoted_titles() -> None:
    assert western.MLA.entry(item("dubois")).html == (
        "Dubois, Jean-Paul. “Neural retrieval models.” <i>Handbook of Information Retrieval</i>, edited by "
        "Maria Rossi and Tom Becker, 2nd ed., Springer, 2021, pp. 45–78, "
        "https://doi.org/10.1007/978-3-030-00000-0_3."
    )
    assert western.MLA.entry(item("ng")).html.startswith(
        "Ng, Andrew Y. <i>Shaping and policy search in reinforcement learning</i>. 2003."
    )


def test_ieee_html() -> None:
    assert western.IEEE.entry(item("jurafsky")).html == (
        "D. Jurafsky and J. H. Martin, <i>Speech and Language Processing</i>, 2nd ed. Upper Saddle River, NJ: "
        "Pearson Prentice Hall, 2009."
    )
    assert western.IEEE.entry(item("garcia")).html.startswith(
        "A. García-López, P. van der Berg, and W. Zhang, “Robust reference extraction from scanned theses,” "
        "in <i>Proc. 2021 Conference"
    )


def test_chicago_html() -> None:
    assert western.CHICAGO_AUTHOR_DATE.entry(item("hinton")).html == (
        "Hinton, Geoffrey E. 2007. “Learning multiple layers of representation.” <i>Trends in Cognitive "
        "Sciences</i> 11 (10): 428–34. https://doi.org/10.1016/j.tics.2007.09.004."
    )
    assert (
        western.CHICAGO_AUTHOR_DATE.entry(item("zhang")).html
        == "张伯伟. 2002. <i>全唐五代诗格汇考</i>. 南京: 江苏古籍出版社."
    )


@pytest.mark.parametrize("style_name", list(EXPECTED))
def test_html_escapes_markup_in_fields(style_name: str) -> None:
    it = item("smith", title="Rock & roll <live>", **{"container-title": "Q&A <Journal>"})
    r = STYLES[style_name].entry(it)
    assert "Rock & roll <live>" in r.text
    assert "Rock &amp; roll &lt;live&gt;" in r.html
    assert "<i>Q&amp;A &lt;Journal&gt;</i>" in r.html
    assert "<live>" not in r.html


# --- punctuation around titles and missing fields ------------------------------------------------


def test_question_mark_titles_take_no_extra_period() -> None:
    it = item("hinton", title="Do neural networks dream?")
    assert "Do neural networks dream? Trends" in western.APA.entry(it).text
    assert "“Do neural networks dream?” Trends" in western.MLA.entry(it).text
    assert "“Do neural networks dream?” Trends" in western.IEEE.entry(it).text
    assert "“Do neural networks dream?” Trends" in western.CHICAGO_AUTHOR_DATE.entry(it).text


def test_inner_double_quotes_become_single_inside_quoted_titles() -> None:
    it = item("hinton", title='Why "attention" works')
    assert "“Why ‘attention’ works.”" in western.MLA.entry(it).text


@pytest.mark.parametrize("style_name", list(EXPECTED))
@pytest.mark.parametrize("csl_type", ["article-journal", "paper-conference", "book", "chapter", "thesis",
                                      "article", "webpage", "report", "dataset", "software", "patent"])  # fmt: skip
def test_sparse_items_leave_no_stray_punctuation(style_name: str, csl_type: str) -> None:
    for fields in ({}, {"title": "Only a title"}, {"author": _people("Doe, Jane")},
                   {"author": _people("Doe, Jane"), "title": "T", "page": "5"}):  # fmt: skip
        text = STYLES[style_name].entry(item_from_csl({"id": "x", "type": csl_type, **fields})).text
        for bad in (", ,", ",,", "..", ". .", " ,", " .", "()", "[]", "“”", ",.", ":."):
            assert bad not in text.replace("n.d.", "nd"), (csl_type, fields, text)
        assert text == text.strip()


def test_single_page_uses_p_not_pp() -> None:
    it = item("dubois", page="45")
    assert "(2nd ed., p. 45)" in western.APA.entry(it).text
    assert ", p. 45," in western.MLA.entry(it).text
    assert ", p. 45," in western.IEEE.entry(it).text


def test_page_range_condensing_rules() -> None:
    pages = western._pages
    # MLA 9: second number in full through 99, then the last two digits (more if needed).
    assert pages("21-48", "minimal-two")[0] == "21–48"
    assert pages("103-104", "minimal-two")[0] == "103–04"
    assert pages("1401-1408", "minimal-two")[0] == "1401–08"
    assert pages("1608-1774", "minimal-two")[0] == "1608–774"
    assert pages("923-1022", "minimal-two")[0] == "923–1022"
    # Chicago 17 §9.61 examples.
    for first, last, want in [("3", "10", "3–10"), ("71", "72", "71–72"), ("96", "117", "96–117"),
                              ("100", "104", "100–104"), ("1100", "1113", "1100–1113"), ("101", "108", "101–8"),
                              ("808", "833", "808–33"), ("1103", "1104", "1103–4"), ("321", "328", "321–28"),
                              ("498", "532", "498–532"), ("1087", "1089", "1087–89"), ("11564", "11615", "11564–615"),
                              ("12991", "13001", "12991–3001"), ("1496", "1504", "1496–1504"),
                              ("2787", "2816", "2787–2816")]:  # fmt: skip
        assert pages(f"{first}-{last}", "chicago")[0] == want
    # APA and IEEE give full numbers; an abbreviated source range is expanded.
    assert pages("321--28", "expanded")[0] == "321–328"
    assert pages("A635-A646", "expanded")[0] == "A635–A646"
    assert pages("5, 9-12", "expanded") == ("5, 9–12", True)


def test_name_forms() -> None:
    assert western._initials("Jean-Paul") == "J.-P."
    assert western._initials("J.R.R.") == "J. R. R."
    assert western._initials("geoffrey everest") == "G. E."
    it = item("hinton", author=[{"family": "King", "given": "Martin Luther", "suffix": "Jr."}])
    assert western.APA.entry(it).text.startswith("King, M. L., Jr. (2007).")
    assert western.IEEE.entry(it).text.startswith("M. L. King Jr., “Learning")


# --- in-text markers ---------------------------------------------------------------------------


def test_apa_in_text() -> None:
    cite = western.APA.in_text
    assert cite([item("vaswani")], [1]) == "(Vaswani et al., 2017)"
    assert cite([item("smith")], [1]) == "(Smith & Jones, 2020)"
    assert cite([item("hinton")], [1]) == "(Hinton, 2007)"
    assert cite([item("adams")], [1]) == "(Adams et al., 2023)"
    assert cite([item("zhang")], [1]) == "(张伯伟, 2002)"
    assert cite([item("doe")], [1]) == "(Doe, n.d.)"
    assert cite([item("who")], [1]) == "(World Health Organization, n.d.)"
    assert cite([item("handbook")], [1]) == "(Rossi & Becker, 2021)"
    # No author: a short title in quotes, with the comma inside the closing quote.
    assert cite([item("anon")], [1]) == "(“Anonymous report on data,” 2019)"
    # APA §8.12: several works in alphabetical order, same authors' years joined.
    later = item("smith", issued={"date-parts": [[2021]]})
    assert (
        cite([item("smith"), item("hinton"), later], [1, 2, 3]) == "(Hinton, 2007; Smith & Jones, 2020, 2021)"
    )
    assert cite([], []) == ""


def test_mla_in_text() -> None:
    cite = western.MLA.in_text
    assert cite([item("vaswani")], [1]) == "(Vaswani et al.)"
    assert cite([item("garcia")], [1]) == "(García-López et al.)"
    assert cite([item("smith")], [1]) == "(Smith and Jones)"
    assert cite([item("hinton")], [1]) == "(Hinton)"
    # A page is only added when the citation knows it (a "locator" on the item).
    assert cite([item("hinton", locator="430")], [1]) == "(Hinton 430)"
    assert cite([item("hinton"), item("smith")], [1, 2]) == "(Hinton; Smith and Jones)"
    assert cite([item("who")], [1]) == "(“Coronavirus disease (COVID-19) pandemic”)"
    assert cite([item("zhang")], [1]) == "(张伯伟)"


def test_ieee_in_text() -> None:
    cite = western.IEEE.in_text
    assert cite([item("hinton")], [1]) == "[1]"
    assert cite([item("hinton"), item("smith")], [3, 1]) == "[1], [3]"
    # IEEE writes every number out: no "[1]–[3]" ranges.
    assert cite([item("hinton"), item("smith"), item("doe")], [1, 2, 3]) == "[1], [2], [3]"


def test_chicago_in_text() -> None:
    cite = western.CHICAGO_AUTHOR_DATE.in_text
    assert cite([item("vaswani")], [1]) == "(Vaswani et al. 2017)"
    assert cite([item("devlin")], [1]) == "(Devlin et al. 2018)"  # four authors → et al.
    assert cite([item("garcia")], [1]) == "(García-López, van der Berg, and Zhang 2021)"
    assert cite([item("smith")], [1]) == "(Smith and Jones 2020)"
    assert cite([item("hinton")], [1]) == "(Hinton 2007)"
    assert cite([item("doe")], [1]) == "(Doe n.d.)"
    assert cite([item("zhang"), item("hinton")], [1, 2]) == "(张伯伟 2002; Hinton 2007)"


def test_reference_lists_are_alphabetical_in_author_date_styles_only() -> None:
    from paperpilot.core.citations.model import item_from_csl
    from paperpilot.core.citations.styles import in_list_order

    zhang = item_from_csl(
        {
            "id": "z",
            "title": "Z",
            "author": [{"family": "Zhang", "given": "Wei"}],
            "issued": {"date-parts": [[2019]]},
        }
    )
    adams_new = item_from_csl(
        {
            "id": "a2",
            "title": "B",
            "author": [{"family": "Adams", "given": "Ann"}],
            "issued": {"date-parts": [[2021]]},
        }
    )
    adams_old = item_from_csl(
        {
            "id": "a1",
            "title": "C",
            "author": [{"family": "Adams", "given": "Ann"}],
            "issued": {"date-parts": [[2015]]},
        }
    )
    anonymous = item_from_csl({"id": "n", "title": "Manual of Birds"})
    cited = [zhang, adams_new, anonymous, adams_old]
    for style in ("apa", "mla", "chicago-author-date", "gbt7714-2015-author-date"):
        assert [i.id for i in in_list_order(cited, style)] == ["a1", "a2", "n", "z"], style
    for style in ("ieee", "gbt7714-2015-numeric"):
        assert [i.id for i in in_list_order(cited, style)] == ["z", "a2", "n", "a1"], style
