"""The compat module's import goes where isort (default settings, run from the project) puts it: v1bridge_compat is
first party, a relative import is local; one blank line between sections, the module's own spacing kept."""
from __future__ import annotations

import libcst as cst
import pytest

from codemod.compat_call import ImportLine, apply_import

from tests.codemod.tools import case


def _with_import(source: str, line: str) -> str:
    return apply_import(cst.parse_module(source), line).code


PLACES = {
    "after the third-party section, as a section of its own": (case('''
        """Doc."""
        import logging
        import os

        import requests

        log = logging.getLogger()
    ''', '''
        """Doc."""
        import logging
        import os

        import requests

        import v1bridge_compat

        log = logging.getLogger()
    '''), "import v1bridge_compat"),
    "into the project's own section, in sorted order (plain imports before from-imports)": (case('''
        import os

        import requests

        from podctl import api
        from podctl.config import BASE
    ''', '''
        import os

        import requests

        import v1bridge_compat
        from podctl import api
        from podctl.config import BASE
    '''), ImportLine("import v1bridge_compat", {"podctl"})),
    "before the local section, which keeps its blank line": (case('''
        import os

        from .api import get
    ''', '''
        import os

        import v1bridge_compat

        from .api import get
    '''), "import v1bridge_compat"),
    "a relative import sorts into the local section": (case('''
        import requests

        from .api import get
        from .pods import stop
    ''', '''
        import requests

        from . import v1bridge_compat
        from .api import get
        from .pods import stop
    '''), "from . import v1bridge_compat"),
    "a module without imports: after its docstring": (case('''
        """Doc."""

        BASE = "x"
    ''', '''
        """Doc."""

        import v1bridge_compat

        BASE = "x"
    '''), "import v1bridge_compat"),
    "after __future__ and the standard library": (case('''
        from __future__ import annotations

        import os
        X = 1
    ''', '''
        from __future__ import annotations

        import os

        import v1bridge_compat
        X = 1
    '''), "import v1bridge_compat"),
    "already imported: nothing changes": (case('''
        import requests

        import v1bridge_compat
    '''), "import v1bridge_compat"),
}


@pytest.mark.parametrize("name", list(PLACES))
def test_the_compat_import_goes_where_isort_puts_it(name: str) -> None:
    (before, after), line = PLACES[name]
    assert _with_import(before, line) == after


def test_the_run_says_which_names_are_the_projects_own(tmp_path) -> None:
    """The CLI's import line carries the names beside the compat module (isort's first party)."""
    from codemod import compat

    (tmp_path / "podctl").mkdir()
    (tmp_path / "podctl" / "__init__.py").write_text("")
    (tmp_path / "tools.py").write_text("")
    line = compat.import_statement(tmp_path / "podctl" / "api.py", tmp_path / "podctl" / "v1bridge_compat.py")
    assert line == "from . import v1bridge_compat" and {"podctl", "tools"} <= line.first_party


RETURNS = {
    "a tuple returned in a branch": ("def get(path):\n    r = s.get(path)\n    if r.ok:\n"
                                     "        return r.status_code, r.json()\n    return None\n", True),
    "a parenthesised tuple in a loop's else": ("def get(path):\n    for _ in range(3):\n        pass\n    else:\n"
                                               "        return (1, 2)\n", True),
    "a tuple only in a nested function": ("def get(path):\n    def inner():\n        return 1, 2\n"
                                          "    return inner()\n", False),
    "a tuple only in a lambda's body, a list returned": ("def get(path):\n    f = lambda: (1, 2)\n"
                                                         "    return [f()]\n", False),
    "a tuple in a nested class's method": ("def get(path):\n    class C:\n        def m(self):\n"
                                           "            return 1, 2\n    return C\n", False),
    "a bare return": ("def get(path):\n    return\n", False),
}


@pytest.mark.parametrize("name", sorted(RETURNS))
def test_a_helper_answers_a_tuple_when_its_own_body_returns_one(name: str) -> None:
    """The Indexer keeps each function's own `return`s (not a nested function's): the helper's tuple answer and
    its parsed-answer index (`json_at`) are read from them."""
    from codemod.analysis.syntax import Indexer, descendants
    from codemod.compat_call import _returns_tuple

    source, expected = RETURNS[name]
    module = cst.parse_module(source)
    fn = module.body[0]
    ix = Indexer()
    ix.walk(module)
    own = ix.returns.get(id(fn), [])
    nested = [n for n in descendants(fn, lambda n: isinstance(n, cst.Lambda) or (
        isinstance(n, cst.FunctionDef) and n is not fn)) if isinstance(n, cst.Return)]
    assert own == nested and all(a is b for a, b in zip(own, nested))
    assert _returns_tuple(own) is expected
