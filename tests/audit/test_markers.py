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
