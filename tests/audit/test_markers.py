"""Suppression markers: scopes, comment syntaxes, both spellings, kinds never confused."""
from __future__ import annotations

from codemod.audit.markers import parse


def test_trailing_marker_covers_only_its_line():
    """Guards against a trailing marker leaking onto the next line."""
    m = parse("a = 1  # v1bridge: keep-v1\nb = 2\n")
    assert m.lookup(1).kind == "keep-v1" and m.lookup(2) is None


def test_own_line_marker_covers_the_next_code_line_skipping_blanks():
    """Guards against an own-line marker suppressing nothing (or everything)."""
    m = parse("// rp-migrate: ignore\n\nx();\ny();\n")
    assert m.lookup(3).kind == "ignore" and m.lookup(4) is None


def test_regions_nest_innermost_wins_and_unclosed_runs_to_end():
    """Guards against a keep-v1 region turning an inner ignore into keep-v1, and against dropped unclosed regions."""
    text = "\n".join([
        "/* v1bridge: keep-v1 start */",  # 1
        "a()",  # 2
        "<!-- v1bridge: ignore begin -->",  # 3
        "b()",  # 4
        "-- v1bridge: ignore end",  # 5
        "c()",  # 6
        "# v1bridge: keep-v1 end",  # 7
        "d()",  # 8
        "# v1bridge: ignore start",  # 9
        "e()",  # 10
    ])
    m = parse(text)
    assert [m.lookup(i).kind if m.lookup(i) else None for i in (2, 4, 6, 8, 10)] == \
        ["keep-v1", "ignore", "keep-v1", None, "ignore"]
    assert [u.line for u in m.unclosed] == [9]


def test_file_scope_and_line_scope_precedence():
    """Guards against a file-wide ignore hiding a line explicitly kept on v1."""
    m = parse("# v1bridge: ignore file\nx = 1\ny = 2  # rp-migrate: keep-v1\n")
    assert m.lookup(2).kind == "ignore" and m.lookup(3).kind == "keep-v1"
    assert m.lookup(3).tool == "rp-migrate"


def test_marker_words_outside_a_comment_are_not_markers():
    """Guards against prose such as `see v1bridge: ignore` in a string suppressing findings."""
    assert not parse('msg = "use v1bridge: ignore to silence"\n')


def test_a_file_marked_as_a_whole_is_listed_not_dropped(tmp_path):
    """Guards issue 25/24: a whole-file `ignore` (false positive) or `keep-v1` (kept on purpose) lists the file
    with that status, also when nothing in it is a finding (its own route names) or nothing in it looks like
    the API at all; the two are counted apart in every format."""
    import json

    from codemod.audit import report_html, report_json, report_markdown, report_sarif, report_text
    from codemod.audit.engine import audit_paths

    (tmp_path / "routes.py").write_text('# rp-migrate: ignore file\n#\n# our own routes\nROUTES = ["/pods", '
                                        '"/pods/{pod_id}/stop", "/networkvolumes"]\n')
    (tmp_path / "fixture.ts").write_text("// v1bridge: keep-v1 file\nexport const x = 1;\n")
    (tmp_path / "old.sh").write_text("# v1bridge: keep-v1 file\ncurl https://rest.runpod.io/v1/pods\n")
    (tmp_path / "test_x.py").write_text("# v1bridge: ignore file\nURL = 'https://rest.runpod.io/v1/networkvolumes'\n")
    report = audit_paths([str(tmp_path)])
    data = json.loads(report_json.render(report))
    assert {f["path"]: f["status"] for f in data["files"]} == {
        "routes.py": "ignored", "fixture.ts": "kept-v1", "old.sh": "kept-v1", "test_x.py": "ignored"}
    assert data["summary"]["by_status"]["ignored"] == 2 and data["summary"]["by_status"]["kept-v1"] == 2
    assert data["summary"]["kept_v1"] == 3 and data["summary"]["ignored"] == 1 and data["verdict"] == "clean"
    props = report_sarif.to_dict(report)["runs"][0]["properties"]
    assert (props["keptV1"], props["ignored"], props["filesKeptV1"], props["filesIgnored"]) == (3, 1, 2, 2)
    assert "3 kept on v1 on purpose, 1 marked false positive" in report_text.render(report)
    assert "3 kept on v1 on purpose; 1 marked false positive" in report_markdown.render(report)
    page = report_html.render(report)
    assert "3 kept on v1 on purpose;" in page and "1 marked false positive;" in page
    assert page.count(">ignored<") >= 2 and page.count(">kept-v1<") >= 2  # each file listed with its marker's status
