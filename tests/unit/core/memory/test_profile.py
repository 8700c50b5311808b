"""The research profile: round trip, migration, corrupt files, CLI-style edits, query expansion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.core.agent.events import ActionChosen, Info
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.library import Library
from paperpilot.core.memory.profile import (
    PROFILE_SCHEMA_VERSION,
    ProfileError,
    ResearchProfile,
    expansion_terms,
    load_profile,
    profile_path,
    save_profile,
    set_profile_value,
)
from paperpilot.core.settings.paths import app_paths
from tests.unit.memory_helpers import make_library


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    profile, warning = load_profile(app_paths(tmp_path / "h"))
    assert warning is None and profile == ResearchProfile()
    assert profile.answer_language == "same" and profile.citation_style == "apa"


def test_round_trip(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "h")
    p = ResearchProfile(
        fields_of_research=["medical imaging"],
        topics=["segmentation", "registration"],
        keywords={"segmentation": ["delineation", "contouring"]},
        answer_language="zh",
        citation_style="ieee",
        trusted_venues=["MICCAI"],
        answer_length="short",
        tone="formal",
    )
    save_profile(p, paths)
    data = json.loads(profile_path(paths).read_text(encoding="utf-8"))
    assert data["schema_version"] == PROFILE_SCHEMA_VERSION == 2
    loaded, warning = load_profile(paths)
    assert warning is None and loaded == p
    assert not list(profile_path(paths).parent.glob(".profile.json.*.tmp"))  # atomic write left nothing


def test_migration_from_v1(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "h")
    profile_path(paths).parent.mkdir(parents=True)
    profile_path(paths).write_text(
        json.dumps(
            {
                "version": 1,
                "field": "medical imaging",
                "synonyms": {"segmentation": ["delineation"]},
                "language": "zh",
                "style": "ieee",
                "venues": ["MICCAI"],
            }
        ),
        encoding="utf-8",
    )
    profile, warning = load_profile(paths)
    assert warning is None
    assert profile.fields_of_research == ["medical imaging"]
    assert profile.keywords == {"segmentation": ["delineation"]}
    assert profile.answer_language == "zh" and profile.citation_style == "ieee"
    assert profile.trusted_venues == ["MICCAI"] and profile.schema_version == 2
    # The migrated profile was written back in the current schema.
    assert json.loads(profile_path(paths).read_text(encoding="utf-8"))["schema_version"] == 2


@pytest.mark.parametrize(
    "content", ["{not json", "[1, 2]", '{"schema_version": 2, "answer_language": "klingon"}']
)
def test_corrupt_profile_is_moved_aside_and_library_survives(tmp_path: Path, content: str) -> None:
    paths, lib = make_library(tmp_path / "lib")
    try:
        before = [d.doc_id for d in lib.list_documents()]
    finally:
        lib.close()
    profile_path(paths).parent.mkdir(parents=True, exist_ok=True)
    profile_path(paths).write_text(content, encoding="utf-8")
    profile, warning = load_profile(paths)
    assert profile == ResearchProfile()
    assert warning is not None and "invalid" in warning and "corrupt-" in warning
    aside = list(profile_path(paths).parent.glob("profile.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == content
    assert not profile_path(paths).exists()
    with Library(paths) as again:  # the library is untouched
        assert [d.doc_id for d in again.list_documents()] == before
        assert again.search("BM25", 1)
    save_profile(profile, paths)  # and a new profile can be saved
    assert load_profile(paths) == (ResearchProfile(), None)


def test_set_profile_value() -> None:
    p = ResearchProfile()
    p = set_profile_value(p, "fields_of_research", "medical imaging, radiology")
    assert p.fields_of_research == ["medical imaging", "radiology"]
    p = set_profile_value(p, "keywords", "segmentation=delineation, contouring")
    p = set_profile_value(p, "keywords", "registration=alignment")
    assert p.keywords == {"segmentation": ["delineation", "contouring"], "registration": ["alignment"]}
    p = set_profile_value(p, "keywords", "Segmentation=masking")  # replaces that one term
    assert p.keywords == {"registration": ["alignment"], "Segmentation": ["masking"]}
    p = set_profile_value(p, "keywords", "registration=")  # removes it
    assert list(p.keywords) == ["Segmentation"]
    p = set_profile_value(p, "answer_language", "ZH")
    assert p.answer_language == "zh"
    p = set_profile_value(p, "citation_style", "ieee")
    assert p.citation_style == "ieee"
    p = set_profile_value(p, "topics", "")
    assert p.topics == []
    for key, value, needle in [
        ("colour", "blue", "Unknown profile key"),
        ("answer_language", "fr", "answer_language must be one of"),
        ("keywords", "segmentation", "term=synonym1"),
        ("citation_style", "nope", "Unknown citation style"),
        ("tone", "angry", "tone must be one of"),
    ]:
        with pytest.raises(ProfileError, match=needle) as e:
            set_profile_value(p, key, value)
        assert "\n" not in str(e.value)


def test_expansion_terms() -> None:
    p = ResearchProfile(
        fields_of_research=["medical imaging"],
        topics=["microscopy"],
        keywords={"segmentation": ["delineation", "contouring"], "retrieval": ["search"]},
    )
    terms = expansion_terms(p, "Which methods improve segmentation of cells in noisy images?")
    assert ("delineation", "synonym of segmentation") in terms
    assert ("contouring", "synonym of segmentation") in terms
    assert all(t not in ("search", "medical imaging") for t, _ in terms)  # long question: no field words
    short = expansion_terms(p, "segmentation methods")
    assert ("medical imaging", "your research field") in short and (
        "microscopy",
        "your research topic",
    ) in short
    via_synonym = dict(expansion_terms(p, "delineation of tumours"))
    assert via_synonym["segmentation"] == "your keyword for delineation"
    assert expansion_terms(ResearchProfile(), "segmentation") == []


def test_profile_terms_in_trace_and_first_query(tmp_path: Path) -> None:
    _paths, lib = make_library(tmp_path / "lib")
    try:
        p = ResearchProfile(
            fields_of_research=["medical imaging"], keywords={"segmentation": ["delineation"]}
        )
        terms = expansion_terms(p, "How is segmentation of cells done in the U-Net paper?")
        assert terms == [("delineation", "synonym of segmentation")]
        events = list(
            run_agent(
                "How is segmentation of cells done in the U-Net paper?",
                lib,
                OfflinePolicy(),
                AgentOptions(mode="loop", profile_terms=terms),
            )
        )
        infos = [e for e in events if isinstance(e, Info)]
        assert any(
            i.code == "profile" and "delineation (synonym of segmentation)" in i.message for i in infos
        )
        assert any(i.code == "profile" and "first query includes profile terms" in i.message for i in infos)
        first = next(e for e in events if isinstance(e, ActionChosen) and e.action["action"] == "search")
        assert "delineation" in first.action["query"]
        result = events[-1].result  # type: ignore[attr-defined]
        assert any(e.title.startswith("U-Net") for e in result.evidence)
    finally:
        lib.close()


@pytest.mark.parametrize(
    "content",
    [
        '{"keywords": 5, "fields_of_research": "x"}',
        '{"schema_version": 2, "keywords": 5, "fields_of_research": "x"}',
        '{"schema_version": 2, "keywords": {"segmentation": 5}}',
        '{"schema_version": 2, "keywords": {"segmentation": [1, {"a": 2}]}, "topics": 7}',
        '{"schema_version": 2, "answer_length": ["long"], "tone": 3}',
        '{"schema_version": 1, "field": 5, "synonyms": [1], "language": 5}',
    ],
)
def test_valid_json_of_the_wrong_types_is_set_aside_like_a_broken_file(tmp_path: Path, content: str) -> None:
    paths, lib = make_library(tmp_path / "lib")
    lib.close()
    profile_path(paths).write_text(content, encoding="utf-8")
    profile, warning = load_profile(paths)
    assert profile == ResearchProfile()
    assert warning is not None and warning.count("\n") == 0
    assert f"The research profile {profile_path(paths)} is invalid (" in warning and "corrupt-" in warning
    for library_text in ("validation error", "pydantic", "type=", "input_value", "Input should"):
        assert library_text not in warning
    aside = list(profile_path(paths).parent.glob("profile.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == content
    assert not profile_path(paths).exists()
    # The next load is clean, and the agent's use of the profile works.
    assert load_profile(paths) == (ResearchProfile(), None)
    assert expansion_terms(profile, "segmentation") == []


def test_wrong_type_warnings_name_the_field(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "home").ensure()
    profile_path(paths).write_text('{"schema_version": 2, "keywords": 5}', encoding="utf-8")
    _, warning = load_profile(paths)
    assert warning is not None and "(wrong type or value for keywords)" in warning
    profile_path(paths).write_text('{"schema_version": 2, "keywords": {"seg": 5}}', encoding="utf-8")
    _, warning = load_profile(paths)
    assert warning is not None and "the synonyms of keyword 'seg' are not a list" in warning
    profile_path(paths).write_text('{"schema_version": 2, "topics": [', encoding="utf-8")
    _, warning = load_profile(paths)
    assert warning is not None and "not valid JSON at line 1, column" in warning


def test_cli_ask_with_a_wrong_typed_profile_warns_once_and_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paperpilot.cli import main

    paths, lib = make_library(tmp_path / "lib")
    lib.close()
    profile_path(paths).write_text('{"schema_version": 2, "keywords": {"segmentation": 5}}', encoding="utf-8")
    code = main(["--home", str(paths.data_dir.parent), "ask", "What does BM25 rank by?", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["status"] == "answered"
    assert err.count("\n") == 1 and err.startswith("warning: The research profile") and "TypeError" not in err


def test_a_current_profile_without_schema_version_is_not_migrated_away(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "home").ensure()
    content = '{"fields_of_research": ["medical imaging"], "keywords": {"segmentation": ["delineation"]}}'
    profile_path(paths).write_text(content, encoding="utf-8")
    profile, warning = load_profile(paths)
    assert warning is None
    assert profile.fields_of_research == ["medical imaging"]
    assert profile.keywords == {"segmentation": ["delineation"]}
    assert profile_path(paths).read_text(encoding="utf-8") == content  # not rewritten
    profile_path(paths).write_text('{"fields_of_research": 5}', encoding="utf-8")
    profile, warning = load_profile(paths)
    assert profile == ResearchProfile() and warning is not None and "fields_of_research" in warning
    assert list(profile_path(paths).parent.glob("profile.json.corrupt-*"))
