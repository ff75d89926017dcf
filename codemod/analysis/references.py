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
