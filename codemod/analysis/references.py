"""Where a variable is read: every read of the name (or attribute) an assignment binds, by its binding function.

Asked by the per-call decision (does a base escape into a URL built elsewhere?) and, through
`FileFacts.source.references`, by the rules (is a v1 string's variable read at all?).
"""
from __future__ import annotations

import libcst as cst


def binding_scope(an, name: cst.Name):
    """The function whose local (or parameter) `name` is, or None for a module-level name."""
    fn = an.scope_of(name)
    while fn is not None:
        if name.value in an.ix.assigns.get(id(fn), {}) or an._param(fn, name.value) is not None:
            return fn
        fn = an.scope_of(fn)
    return None


def variable(an, node: cst.CSTNode) -> tuple | None:
    """What `references` answers for: ("name", name, id of its binding function or None), ("attr", name)."""
    if isinstance(node, cst.Name):
        home = binding_scope(an, node)
        return ("name", node.value, id(home) if home is not None else None)
    if isinstance(node, cst.Attribute):
        return ("attr", node.attr.value)
    return None


def references(an, node: cst.CSTNode) -> list[cst.CSTNode]:
    """Every read of the variable `node` reads (same name, or same attribute name), targets excluded.

    Indexed once per analysis (every Name of a name grouped by its binding function), so a question costs
    what it returns: a scan of every same-named Name per call site made large files quadratic (issue 23 #10).
    The list returned is shared: do not change it."""
    key = variable(an, node)
    if key is None:
        return []
    memo = an.__dict__.setdefault("_references_memo", {})
    if key in memo:
        return memo[key]
    if key[0] == "name":
        if ("names", key[1]) not in memo:  # group every Name of this name by its binding function, once
            groups: dict = {}
            for names in an.ix.names.values():
                for n in names.get(key[1], ()):
                    home = binding_scope(an, n)
                    groups.setdefault(id(home) if home is not None else None, []).append(n)
            memo[("names", key[1])] = groups
        found = memo[("names", key[1])].get(key[2], [])
    else:
        found = an.ix.attributes.get(key[1], ())
    out = []
    for n in found:
        p = an.parent(n)
        if isinstance(p, (cst.AssignTarget, cst.Param, cst.AsName, cst.Attribute)) and not (
                isinstance(p, cst.Attribute) and p.value is n):
            continue
        if isinstance(p, cst.Attribute) and p.attr is n:
            continue
        if isinstance(p, cst.Arg) and p.keyword is n:
            continue
        out.append(n)
    memo[key] = out
    return out


_URL_CALLS = {"urljoin", "format", "get", "post", "put", "patch", "delete", "request", "head", "options", "Request",
              "urlopen", "stream"}


def builds_url(an, node: cst.CSTNode) -> bool:
    """Is this read of a base variable used to build a URL (or handed on to something that may)?"""
    cur = node
    parent = an.parent(cur)
    while parent is not None:
        if isinstance(parent, (cst.FormattedStringExpression, cst.FormattedString)):
            return True
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, (cst.Add, cst.Modulo)):
            return True
        if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.Return, cst.Param, cst.DictElement)):
            return True
        if isinstance(parent, cst.Arg):
            call = an.parent(parent)
            func = call.func if isinstance(call, cst.Call) else None
            name = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else "")
            return name in _URL_CALLS or name in an.ix.functions or name[:1].isupper()
        if isinstance(parent, cst.Attribute) and parent.value is cur and parent.attr.value in ("rstrip", "strip", "lstrip"):
            cur, parent = an.parent(parent), an.parent(an.parent(parent))
            continue
        if isinstance(parent, (cst.BooleanOperation, cst.IfExp)):
            cur, parent = parent, an.parent(parent)
            continue
        return False
    return False


def helpers_on(an, ids: set[int]) -> list:
    """The module's helpers (functions making a request for their caller) whose base is made of the literals IDS."""
    out = []
    for fns in an.ix.functions.values():
        for fn in fns:
            info = an._helper(fn)
            if info is not None and info.base is not None and ids & {id(p.node) for p in info.base.pieces}:
                out.append(info)
    return out


def inside(an, node: cst.CSTNode, fn: cst.FunctionDef) -> bool:
    """Is NODE in FN's body (at any depth of nested scopes)?"""
    scope = an.scope_of(node)
    while scope is not None and scope is not fn:
        scope = an.scope_of(scope)
    return scope is fn


def base_escape(an, inner, helpers=(), followed: frozenset = frozenset()) -> str:
    """Why the helper's base cannot move with its request ("" when nothing says so here): a variable holding it
    builds a URL somewhere the rewrite does not follow (outside INNER, HELPERS, the module's other helpers on the
    same base and the reads FOLLOWED: ids of the URL parts of the module's own calls). Read by the decision and by
    the helper's signature other files get (their calls through it must not claim a translation the helper's module
    will not make)."""
    if inner.base is None:
        return ""
    ids = {id(p.node) for p in inner.base.pieces if p.node is not None}
    helpers = (*helpers, *helpers_on(an, ids))
    traced = {id(node) for helper in (inner, *helpers) for node, _ids in helper.refs} | followed
    fns = [helper.fn for helper in (inner, *helpers)]
    for ref, _ids in inner.refs:
        for r in references(an, ref):
            if id(r) not in traced and not any(inside(an, r, fn) for fn in fns) and builds_url(an, r):
                return f"its base also builds a URL at line {an.where(r)[0]} that the rewrite cannot follow"
    return ""
