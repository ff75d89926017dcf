"""Q30 list-pagination: v2 answers pod, endpoint and template lists one page at a time; read every page.

A v1 list call answered the whole list. Its v2 target (which ones: the GET
operations of v2.json taking the pagination cursor, `Index.page_limits`) answers
at most one page (1,000 items), with `pagination {nextCursor, hasNextPage}`
(names from `pagination` in mappings/data/conventions.yaml). A migrated list
call must therefore follow the cursor, or it silently returns less than v1 did.

Where the call allows it, the rewrite writes the loop a person would write, at
the call site, with the client's own request (its session, headers, helper,
retries and status checks run for every page) and its own query parameters:

    resp = self.session.get(f"{base}/pods")         pods, paging = [], {}
    resp.raise_for_status()                 ->      while True:
    return resp.json()                                  resp = self.session.get(f"{base}/pods", params=paging)
                                                        resp.raise_for_status()
                                                        page = resp.json()
                                                        pods += page["pods"]
                                                        if not page["pagination"]["hasNextPage"]:
                                                            break
                                                        paging = {"cursor": page["pagination"]["nextCursor"]}
                                                    return pods

The statement that read the answer reads the whole list instead (still a
list: `isinstance(x, list)` downstream stays true). A request made in a
`with httpx.Client(...) as c:` block (a block that opens only an HTTP client)
and read after it takes the block into the loop; a status check between the
request and the read may raise, or return a constant (`return []`: the same
answer whichever page failed, never part of the list). A request with no query
channel (urllib; a helper like `rest(method, path, body)` or `_get(url)` with no
`params` and no **kwargs) carries the cursor at the end of its URL argument,
when that argument ends the URL (through every helper on the way):

    return self.rest("GET", "/pods")  ->      pods, paging = [], ""
                                              while True:
                                                  page = self.rest("GET", "/pods" + paging)
                                                  ...
                                                  paging = "?" + urllib.parse.urlencode({"cursor": ...})
                                              return pods

("&" when the URL has a query already; the module's own import of urlencode, else
`import urllib.parse` is added.) Where the request cannot be issued again with a
cursor (a helper that joins something after the path), or the answer is read
where a loop cannot reach (another function, a condition, a comprehension), the
call is flagged (Q30, blocking): its client stays v1, whole.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import libcst as cst

from codemod.analysis.facts import CallFact, Read
from codemod.analysis.syntax import dotted, flatten
from codemod.changes import Change, Edit
from codemod.knowledge import HOLE

RULE = "Q30"

_PARAMS_LAYERS = ("requests", "httpx", "aiohttp", "client")  # call sites that take a `params=` mapping
_LOGGERS = {"log", "logger", "logging", "LOG", "LOGGER", "_log", "_logger", "print"}
_EXITS = {"exit", "abort"}  # sys.exit(...), os.abort()


@dataclass(eq=False)
class Paging:
    """One list call decided to become a cursor loop: what the three edits share.

    The decision fills where the loop goes; the edit step (`build_loops`) names its variables."""

    key: str  # the v2 list key (pods, endpoints, templates)
    first: int  # index in the suite of the statement that makes the request
    last: int  # index of the statement that reads the answer
    names: dict = field(default_factory=dict)  # the pagination names of conventions.yaml
    target: str | None = None  # `name = <answer>`: the name the loop may fill itself
    repeated: tuple = ()  # the nodes the loop repeats (the loop may fill `target` only if none of them reads it)
    within: int | None = None  # `with <request> as resp:` holds the read: its index in the with block
    unpacked: str | None = None  # `status, page = helper(...)`: the page is this name of the request's statement
    size: int = 0  # statements in the block when planned (an edit that drops one would shift the indices)
    # named by the edit step: the whole list, one page, the cursor parameters
    items: str = ""
    page: str = ""
    paging: str = ""
    keeps: bool = True  # False: the reading statement was `name = <answer>`; the loop fills `name` itself
    json: cst.BaseExpression | None = None  # the page's JSON expression, as rewritten (set by page-json)
    # how the cursor reaches the request: "params" (a query mapping, `{}` then `{"cursor": ...}`), or "url" (a
    # suffix of the URL argument, `""` then `"?" + urlencode({"cursor": ...})`, "&" when the URL has a query)
    channel: str = "params"
    sep: str = "?"
    urlencode: str = "urllib.parse.urlencode"

    def __repr__(self) -> str:
        return f"Paging({self.key}@{id(self):x})"


@dataclass(eq=False)
class Loops:
    """The cursor loops of one block of statements (one edit per block, applied last to first)."""

    pagings: list[Paging] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Loops@{id(self):x}"


class CannotPage(Exception):
    """Why a paginated list call cannot get its cursor loop (the flag's message)."""


# ------------------------------------------------------------------ planning

_STATUS_READS = {"raise_for_status", "status_code", "ok", "status", "reason", "headers", "close", "release", "url",
                 "elapsed"}


def plan_call(cf: CallFact, plan) -> None:
    """A list call whose JSON is parsed where the analysis cannot see it (`json.load(urlopen(req))`, a caller that
    reads `resp.text`): neither the envelope nor the pages can be read there, so the call is flagged (blocking)."""
    route = cf.route
    if route.op.shape != "list" or plan.kb.list_key(route) is None or any(r.kind == "list" for r in cf.reads):
        return
    where = _escapes(plan.facts.source, cf.call)
    if where is None:
        return
    paged = plan.kb.page_limit(route)
    rule_id = RULE if paged else "Q02"
    what = f"answers in pages of at most {paged} items" if paged else "wraps the list in an object"
    plan.flag(cf.call, rule_id, "pagination" if paged else "list-read", route,
              f"{route.label()} -> {route.v2_label()} {what}, and its answer {where}; migrate it by hand")


def _escapes(src, call: cst.Call) -> str | None:
    """Where a response goes that the analysis does not follow to a parse, or None when it is only checked."""
    expr: cst.CSTNode = call
    if isinstance(src.parent(call), cst.Await):
        expr = src.parent(call)
    parent = src.parent(expr)
    if isinstance(parent, cst.Expr):
        return None
    if isinstance(parent, cst.Attribute) and parent.value is expr:
        return None if parent.attr.value in _STATUS_READS else f"is read as .{parent.attr.value}"
    var = src.bound_name(expr)
    if var is None:
        return "is handed on before it is parsed"
    for use in src.uses_after(*var):
        up = src.parent(use)
        if isinstance(up, cst.Attribute) and up.value is use and up.attr.value in _STATUS_READS | {"json"}:
            continue
        return f"is handed on at line {src.where(use)[0]} before it is parsed"
    return None


def plan_pages(read: Read, cf: CallFact, plan) -> None:
    """Plan the cursor loop of a paginated list call, or flag the call (blocking) when none can be written."""
    route = read.route
    limit = plan.kb.page_limit(route)
    lists = [r for r in cf.reads if r.kind == "list"]
    if read is not lists[0]:
        return
    head = f"{route.label()} -> {route.v2_label()} answers in pages of at most {limit} items"
    try:
        if len(lists) > 1:
            raise CannotPage("its answer is read in more than one place")
        paging, suite, call_edit = _plan(read, cf, plan)
    except CannotPage as why:
        plan.flag(cf.call, RULE, "pagination", route, f"{head}, and {why}; page it by hand")
        return
    plan.find(read.node, "Q02", "list-read", f"v2 wraps the list: read [{read.key!r}]", True, route)
    plan.find(cf.call, RULE, "pagination", f"{head}: every page is read (cursor loop)", True, route)
    plan.change(call_edit.kind, call_edit.node, call_edit.rule, call_edit.data)
    if paging.channel == "url" and paging.urlencode == "urllib.parse.urlencode":
        plan.change("page-import", plan.facts.source.module, RULE, ("urllib.parse", plan.unit))  # one per call: ties no two
    plan.change("page-json", read.node, RULE, paging)
    loops = plan.scratch.setdefault(("Q30", id(suite)), Loops())
    loops.pagings.append(paging)
    plan.change("page-loop", suite, RULE, loops)


def _plan(read: Read, cf: CallFact, plan) -> tuple[Paging, cst.CSTNode, Change]:
    src = plan.facts.source
    answer, call = read.node, cf.call
    call_edit = _call_edit(cf, plan)
    reader = src.statement_of(answer)
    if reader is None or not isinstance(src.parent(reader), (cst.IndentedBlock, cst.Module)):
        raise CannotPage("its answer is read in a statement a loop cannot be put around")
    _check_header(src, reader, answer)
    _check_unconditional(src, answer, reader)
    _check_order(src, answer, reader)
    within = None  # the read's index in the body of `with <request> as resp:`
    unpacked = False  # the answer is a name the request's statement unpacks (`status, data = helper(...)`)
    last = reader  # the last statement the loop takes in (the read's, or the `with` block holding it)
    if _inside(src, call, answer):
        first, between, var = reader, [], None
    elif cf.site.library == "urllib":
        first, last, between, within, var = _urllib_block(src, call, answer, reader)
    else:
        first = src.statement_of(call)
        item = src.parent(call)
        if isinstance(item, cst.WithItem) and isinstance(first, cst.With) and item.asname is not None:
            # `with <request> as resp:` (aiohttp): the read is the last statement of the with block
            inner = list(first.body.body) if isinstance(first.body, cst.IndentedBlock) else []
            if len(first.items) != 1 or reader not in inner or not isinstance(item.asname.name, cst.Name):
                raise CannotPage("its answer is read outside the block that makes the request")
            if reader is not inner[-1]:
                raise CannotPage("statements follow the read inside the `with` block of the request")
            within = inner.index(reader)
            between, var = inner[:within], item.asname.name.value
            last = first
        else:
            request, inner = first, []
            opened = _client_block(src, first)
            if opened is not None and src.parent(opened) is src.parent(reader):
                # `with httpx.Client(...) as c: resp = c.get(...)`, read after the block: the loop takes in the
                # block (a client is opened per page); what follows the request in the block runs per page too
                block = list(opened.body.body)
                first, inner = opened, block[block.index(request) + 1:]
            if src.parent(first) is not src.parent(reader):
                raise CannotPage("its answer is read outside the block that makes the request")
            outer = list(src.parent(first).body)
            if outer.index(first) > outer.index(reader):
                raise CannotPage("its answer is read outside the block that makes the request")
            var = _response_var(src, request, call)
            between = inner + outer[outer.index(first) + 1: outer.index(reader)]
            name = _unpacked_answer(src, request, call, cf)
            if name is not None and isinstance(answer, cst.Name) and answer.value == name:
                var, unpacked = name, True  # `status, data = helper(...)` ... `data`: the loop pages `data` itself
        if var is None or not (unpacked or _is_json_of(answer, var)):
            raise CannotPage("the request is not `name = <request>` followed by `name.json()`")
    if not _inside(src, call, answer):
        for stmt in between:
            if not _per_page(stmt, var):
                raise CannotPage(f"line {src.where(stmt)[0]} between the request and the read does more than check "
                                 "the answer")
    suite = src.parent(first)
    if not isinstance(suite, (cst.IndentedBlock, cst.Module)):
        raise CannotPage("its request is made in a statement a loop cannot be put around")
    body = list(suite.body)
    pagination = plan.kb.mappings.conventions.pagination
    names = {"block": pagination.block, "more": pagination.more, "next": pagination.next, "cursor": pagination.cursor}
    repeated = (answer, *between) + ((last.items[0],) if within is not None else ()) + ((first,) if first is not last
                                                                                        else ())
    paging = Paging(read.key, body.index(first), body.index(last), names, _assigned_name(reader, answer), repeated,
                    within=within, size=len(body), unpacked=answer.value if unpacked else None)  # type: ignore[union-attr]
    if call_edit.data[0] == "url":
        paging.channel, paging.sep, paging.urlencode = "url", call_edit.data[2], call_edit.data[3]
    call_edit = Change(call_edit.kind, call_edit.node, call_edit.rule, (*call_edit.data, paging))
    return paging, suite, call_edit


def build_loops(change, plan) -> Edit:
    """The edit step of the cursor loops of one block: each loop's names, none shadowing a name of the module
    (the list reuses the name the reading statement assigned, when the repeated statements do not read it)."""
    loops: Loops = change.data
    # statements of the block another kept change removes (L02's `payload["volumeInGb"] = 0`) are gone when the
    # loop is written: the loop's indices count without them (none can be between a request and its read)
    body = list(change.node.body)
    dropped = sorted(body.index(c.node) for c in plan.changes.values()
                     if c.kind == "drop-statement" and c.data != "pass" and plan.facts.source.parent(c.node) is change.node)
    for p in loops.pagings:
        if any(p.first <= i <= p.last for i in dropped):
            raise RuntimeError("Q30: a statement the cursor loop repeats is removed")  # the file is left as is
        shift = sum(1 for i in dropped if i < p.first)
        p.first, p.last, p.size = p.first - shift, p.last - shift, p.size - len(dropped)
    taken = plan.scratch.get("Q30 names")
    if taken is None:
        # every name the module spells: the syntax index's (a visit of the whole module rebuilds every node)
        taken = plan.scratch["Q30 names"] = plan.facts.source.names()
    used: set[str] = set()  # the lists of the block's earlier loops (page, paging: reused)
    for p in loops.pagings:
        reuse = p.target is not None and p.target not in used and not any(
            p.target in _identifiers(node) for node in p.repeated)
        p.items = p.target if reuse else _free([p.key, f"all_{p.key}", f"{p.key}_found"], taken | used)
        p.page = p.unpacked or _free(["page", "answer", "page_json"], taken | used)
        p.paging = _free(["paging", "next_page", "cursor_params"], taken | used)
        p.keeps = not reuse
        used.add(p.items)
    return Edit(change.kind, change.node, change.rule, loops)


def _urllib_block(src, call: cst.Call, answer: cst.CSTNode, reader: cst.CSTNode) -> tuple:
    """The statements a urllib list request takes, from building the request to reading its JSON:
    `[req = Request(...)]; with urlopen(req) as resp: <checks>; <read>` or `[req = ...]; resp = urlopen(req);
    <checks>; <read>`. Returns (first, last, statements to check, the read's index in the with block, names)."""
    opened = src.urllib_responses(src.parent(call) if isinstance(src.parent(call), cst.Await) else call)
    if len(opened) != 1:
        raise CannotPage("its urllib request is opened in more than one place")
    opener = opened[0]
    first = src.statement_of(call)
    item = src.parent(opener)
    names = set()
    req = src.bound_name(call)
    if req is not None:
        names.add(req[0])
    if isinstance(item, cst.WithItem):
        last = src.statement_of(opener)
        inner = list(last.body.body) if isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock) else []
        if len(last.items) != 1 or reader not in inner or item.asname is None \
                or not isinstance(item.asname.name, cst.Name):
            raise CannotPage("its answer is read outside the block that opens the request")
        if reader is not inner[-1]:
            raise CannotPage("statements follow the read inside the `with` block of the request")
        within = inner.index(reader)
        names.add(item.asname.name.value)
        checks = inner[:within]
    elif _inside(src, opener, answer):  # json.loads(urlopen(req).read())
        if src.parent(first) is not src.parent(reader):
            raise CannotPage("its answer is read outside the block that makes the request")
        outer = list(src.parent(reader).body)
        last, within, checks = reader, None, outer[outer.index(first) + 1: outer.index(reader)]
    else:
        opened_at = src.statement_of(opener)
        var = src.bound_name(opener)
        if var is None or src.parent(opened_at) is not src.parent(reader):
            raise CannotPage("its answer is read outside the block that opens the request")
        names.add(var[0])
        outer = list(src.parent(reader).body)
        if first not in outer or outer.index(first) > outer.index(opened_at) or outer.index(opened_at) > outer.index(reader):
            raise CannotPage("its answer is read outside the block that makes the request")
        last, within = reader, None
        checks = outer[outer.index(first) + 1: outer.index(opened_at)] + outer[outer.index(opened_at) + 1: outer.index(reader)]
    if first is not last:
        if src.parent(first) is not src.parent(last):
            raise CannotPage("its request is built in another block than the one that opens it")
        outer = list(src.parent(first).body)
        if outer.index(first) > outer.index(last):
            raise CannotPage("its answer is read outside the block that makes the request")
        if within is not None:
            checks = outer[outer.index(first) + 1: outer.index(last)] + checks
    return first, last, checks, within, names


def _assigned_name(stmt: cst.CSTNode, answer: cst.CSTNode) -> str | None:
    """`name = <answer>` on a line of its own (no comment above): the loop can fill `name` directly."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or stmt.leading_lines:
        return None
    assign = stmt.body[0]
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.value is answer \
            and isinstance(assign.targets[0].target, cst.Name):
        return assign.targets[0].target.value
    return None


def _identifiers(module: cst.CSTNode) -> set[str]:
    """Every name a node spells (a loop variable must shadow none of the module's)."""
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    module.visit(V())
    return found


def _free(candidates: list[str], taken: set[str]) -> str:
    for name in candidates:
        if name not in taken:
            return name
    n = 2
    while f"{candidates[0]}_{n}" in taken:
        n += 1
    return f"{candidates[0]}_{n}"


def _call_edit(cf: CallFact, plan) -> Change:
    """The request with the cursor added: to its query (`params=`), or, when the request has no query channel (a
    urllib request, a helper with no `params`/**kwargs), to the end of its URL argument; or why neither can be."""
    site = cf.site
    if not _takes_params(site):
        return _url_edit(cf, plan)
    existing = site.params_expr
    if existing is not None and not isinstance(existing, cst.Dict):
        if not (isinstance(existing, cst.Name) and _holds_dict(plan.facts.source, existing, cf.call)):
            raise CannotPage("its query parameters are built where the rewrite cannot read them")
    helper = site.helper if site.library == "helper" else None
    if helper is not None and helper.kwargs_query:  # its keywords are the query: `get("/pods", **paging)`
        return Change("page-call", cf.call, RULE, ("kwargs",))
    query = helper.sig.query_param if helper is not None and helper.sig is not None else None
    return Change("page-call", cf.call, RULE, ("params", query or "params"))


def _url_edit(cf: CallFact, plan) -> Change:
    """`rest("GET", "/pods" + paging)`, `Request(BASE + "/pods" + paging, ...)`: the cursor as a query string at the
    end of the URL argument. Only where that argument really ends the URL the request is made to (through every
    helper on the way) and the rewrite can see whether the URL already has a query ("&" then, else "?")."""
    site = cf.site
    at = next((i for i, a in enumerate(cf.call.args) if a.value is site.url_expr), None)
    if site.library not in ("urllib", "helper") or at is None or site.url is None:
        raise CannotPage("its request cannot carry a query parameter for the cursor")
    if site.library == "helper":
        _ends_url(site.helper)
    flat = flatten(site.url.pieces)
    path = flat[site.url.path_start:]
    if "?" not in path and HOLE in path:
        raise CannotPage("its URL is built from parts the rewrite cannot read, so where a query would go is unknown")
    return Change("page-call", cf.call, RULE, ("url", at, "&" if "?" in path else "?", _urlencode(plan)))


def _ends_url(helper) -> None:
    """Does the helper's path parameter end the URL of the request it makes (nothing joined after it, no call
    around it), through every helper it calls in turn? Else a query string at its end would not end the URL."""
    seen = set()
    while helper is not None and id(helper.fn) not in seen:
        seen.add(id(helper.fn))
        if helper.sig is not None and helper.sig.ends_url:  # a helper of another file, as that file read it
            return
        inner = helper.inner
        pieces = inner.url.pieces if inner is not None and inner.url is not None else []
        if not pieces or pieces[-1].param != helper.path_param \
                or sum(p.param == helper.path_param for p in pieces) != 1:
            raise CannotPage(f"the helper {helper.fn.name.value}() cannot pass a query parameter (no `params`, no "
                             "**kwargs to the request) and joins its path into the URL in a way a query string "
                             "would break, so no cursor can reach the request")
        helper = inner.helper


def _urlencode(plan) -> str:
    """How the module spells urllib.parse.urlencode: its own import of it, else `urllib.parse.urlencode` (the import
    is then added, `page-import`)."""
    for stmt in plan.facts.source.module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and not small.relative and isinstance(small.names, (list, tuple)):
                module = dotted(small.module) if small.module is not None else None
                for alias in small.names:
                    name = alias.asname.name.value if alias.asname is not None else alias.name.value
                    if module == "urllib.parse" and alias.name.value == "urlencode":
                        return name
                    if module == "urllib" and alias.name.value == "parse":
                        return f"{name}.urlencode"
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if dotted(alias.name) == "urllib.parse":
                        return (f"{alias.asname.name.value}.urlencode" if alias.asname is not None
                                else "urllib.parse.urlencode")
    return "urllib.parse.urlencode"


def _takes_params(site) -> bool:
    if site.library in _PARAMS_LAYERS:
        return True
    helper = site.helper
    if site.library == "helper" and helper is not None and helper.sig is not None:
        return helper.sig.forwards_params or bool(helper.sig.query_param)  # as the helper's file read it
    if site.library != "helper" or helper is None or helper.inner is None:
        return False
    inner = helper.inner
    given = {a.keyword.value: a.value for a in inner.call.args if a.keyword is not None}
    if "params" in helper.params:  # the helper's own `params` argument, handed to the request
        sent = given.get("params")
        return isinstance(sent, cst.Name) and sent.value == "params" and _takes_params(inner)
    forwards = helper.kwargs_param is not None and any(
        a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == helper.kwargs_param for a in inner.call.args)
    return forwards and "params" not in given and _takes_params(inner)


def _holds_dict(src, name: cst.Name, at: cst.CSTNode) -> bool:
    scope = src.scope_of(at)
    assigned = src.assigned(scope, name.value)
    return bool(assigned) and all(isinstance(value, cst.Dict) for value, _stmt in assigned)


def _inside(src, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    cur: cst.CSTNode | None = node
    while cur is not None:
        if cur is root:
            return True
        cur = src.parent(cur)
    return False


def _check_header(src, stmt: cst.CSTNode, answer: cst.CSTNode) -> None:
    """A compound statement reads the answer in its header (`for x in <answer>:`, `if <answer>:`), once."""
    if isinstance(stmt, cst.SimpleStatementLine):
        if len(stmt.body) != 1:
            raise CannotPage("its answer is read on a line of several statements")
        return
    header = {cst.For: lambda s: [s.iter], cst.If: lambda s: [s.test], cst.With: lambda s: list(s.items)}
    parts = next((get(stmt) for kind, get in header.items() if isinstance(stmt, kind)), [])
    if not any(_inside(src, answer, part) for part in parts):
        raise CannotPage("its answer is read in a statement a loop cannot be put around")


def _check_unconditional(src, answer: cst.CSTNode, stmt: cst.CSTNode) -> None:
    """The answer is read exactly once each time the statement runs (not in a branch, a lambda, a generator's body)."""
    child, cur = answer, src.parent(answer)
    while cur is not None and cur is not stmt:
        if isinstance(cur, cst.IfExp) and child is not cur.test:
            raise CannotPage("its answer is read in one branch of a conditional expression")
        if isinstance(cur, cst.BooleanOperation) and child is cur.right:
            raise CannotPage("its answer is read on the right of `and`/`or`")
        if isinstance(cur, (cst.Lambda, cst.FunctionDef, cst.While)):
            raise CannotPage("its answer is read inside a lambda or a loop condition")
        if isinstance(cur, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) and child is not cur.for_in:
            raise CannotPage("its answer is read inside a comprehension's element")
        if isinstance(cur, cst.CompFor) and child is not cur.iter:
            raise CannotPage("its answer is read inside a comprehension's condition or inner loop")
        if isinstance(cur, cst.CompFor) and isinstance(src.parent(cur), cst.CompFor):
            raise CannotPage("its answer is read by an inner loop of a comprehension")
        child, cur = cur, src.parent(cur)


def _check_order(src, answer: cst.CSTNode, stmt: cst.CSTNode) -> None:
    """No other call of the statement runs before the answer is read (the loop moves the read first)."""
    try:
        at = src.span(answer).start
    except KeyError:
        raise CannotPage("its position in the file is unknown") from None

    class Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Call] = []

        def visit_Call(self, node: cst.Call) -> bool:
            if node is answer:
                return False
            self.found.append(node)
            return True

        def visit_IndentedBlock(self, node) -> bool:  # a compound statement's body runs after its header
            return False

    visitor = Calls()
    stmt.visit(visitor)
    for call in visitor.found:
        if _inside(src, answer, call):
            continue  # it takes the answer as an argument: it runs after the read
        start = src.span(call).start
        if (start.line, start.column) < (at.line, at.column) and not _in_element_of(src, call, answer):
            raise CannotPage(f"another call on line {start.line} runs before the answer is read")


def _in_element_of(src, node: cst.CSTNode, answer: cst.CSTNode) -> bool:
    """Is `node` in the element of a comprehension that iterates over the answer (it runs after the read)?"""
    cur = src.parent(node)
    while cur is not None:
        if isinstance(cur, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) \
                and _inside(src, answer, cur.for_in.iter):
            return True
        cur = src.parent(cur)
    return False


def _client_block(src, stmt: cst.CSTNode) -> cst.With | None:
    """The `with` statement whose block makes the request first, when all it opens is an HTTP client
    (`httpx.Client(...)`, `requests.Session()`): opening one again for each page changes nothing else."""
    block = src.parent(stmt)
    opened = src.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(opened, cst.With) or block.body[0] is not stmt:
        return None
    for item in opened.items:
        value = item.item.expression if isinstance(item.item, cst.Await) else item.item
        if not isinstance(value, cst.Call) or not src.is_client_factory(value):
            return None
    return opened


def _response_var(src, stmt: cst.CSTNode, call: cst.Call) -> str | None:
    """`resp = <call>` (or `resp = await <call>`): the name the response is kept in."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    value = assign.value if isinstance(assign, (cst.Assign, cst.AnnAssign)) else None
    if isinstance(value, cst.Await):
        value = value.expression
    if value is not call:
        return None
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
        return assign.targets[0].target.value
    if isinstance(assign, cst.AnnAssign) and isinstance(assign.target, cst.Name):
        return assign.target.value
    return None


def _unpacked_answer(src, stmt: cst.CSTNode, call: cst.Call, cf: CallFact) -> str | None:
    """`status, data = helper(...)` where the helper returns `(status, parsed answer)`: the answer's name."""
    at = cf.site.json_at
    if at is None or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    value = assign.value.expression if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Await) \
        else getattr(assign, "value", None)
    if not isinstance(assign, cst.Assign) or value is not call or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Tuple):
        return None
    items = assign.targets[0].target.elements
    if len(items) <= at or not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in items):
        return None
    return items[at].value.value  # type: ignore[union-attr]


def _is_json_of(answer: cst.CSTNode, var: str) -> bool:
    """`var.json()` or `await var.json()`."""
    node = answer.expression if isinstance(answer, cst.Await) else answer
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "json"
            and isinstance(node.func.value, cst.Name) and node.func.value.value == var)


def _per_page(stmt: cst.CSTNode, var: str | set[str]) -> bool:
    """A statement between the request and the read that only checks the answer (runs again for every page):
    `resp.raise_for_status()`, a log line, `if <bad>: raise ...` (or sys.exit)."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return all(_check_call(small, var) for small in stmt.body)
    if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
        if _ends_returning_constant(stmt.body):  # `if <bad>: return []`: the same answer whichever page failed
            return not _leaves(cst.IndentedBlock(list(stmt.body.body[:-1])))
        return _ends_raising(stmt.body) and not _leaves(stmt.body)
    if isinstance(stmt, cst.Try) and stmt.orelse is None and stmt.finalbody is None:
        return (all(_per_page(s, var) for s in stmt.body.body)
                and all(_ends_raising(h.body) and not _leaves(h.body) for h in stmt.handlers))
    return False


def _check_call(small: cst.CSTNode, var: str | set[str]) -> bool:
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return False
    func = small.value.func
    root = func
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name):
        return False
    return root.value in ({var} if isinstance(var, str) else var) or root.value in _LOGGERS


def _ends_raising(block: cst.CSTNode) -> bool:
    body = getattr(block, "body", ())
    last = body[-1] if body else None
    if not isinstance(last, cst.SimpleStatementLine) or not last.body:
        return False
    small = last.body[-1]
    if isinstance(small, cst.Raise):
        return True
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        return isinstance(func, cst.Attribute) and func.attr.value in _EXITS
    return False


def _ends_returning_constant(block: cst.IndentedBlock) -> bool:
    """The block ends in `return` of a constant (`[]`, `{}`, `None`, a number or string): no page is in it."""
    last = block.body[-1] if block.body else None
    if not isinstance(last, cst.SimpleStatementLine) or len(last.body) != 1 or not isinstance(last.body[0], cst.Return):
        return False
    value = last.body[0].value
    return value is None or _constant(value)


def _constant(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        return node.value in {"None", "True", "False"}
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(_constant(e.value) for e in node.elements if isinstance(e, cst.Element))\
            and all(isinstance(e, cst.Element) for e in node.elements)
    if isinstance(node, cst.Dict):
        return not node.elements
    return False


def _leaves(block: cst.CSTNode) -> bool:
    """Does a block return, break, continue or yield (it would end or skip the page loop)?"""
    found = []

    class V(cst.CSTVisitor):
        def visit_Return(self, node) -> None:
            found.append(node)

        def visit_Break(self, node) -> None:
            found.append(node)

        def visit_Continue(self, node) -> None:
            found.append(node)

        def visit_Yield(self, node) -> None:
            found.append(node)

        def visit_FunctionDef(self, node) -> bool:
            return False

    block.visit(V())
    return bool(found)


# ------------------------------------------------------------------ applying

def apply_call(node: cst.CSTNode, data: tuple) -> cst.CSTNode:
    """Add the cursor parameters to the request's query: `params=paging`, or `{..., **paging}` beside its own."""
    if not isinstance(node, cst.Call):
        return node
    paging = data[-1]
    mine = cst.Name(paging.paging)
    args = list(node.args)
    keyword = data[1] if data[0] == "params" and len(data) > 2 else "params"  # the query's keyword at the call
    if data[0] == "kwargs":  # a helper whose keywords are the query: the cursor as `**paging`, after them
        new = cst.Arg(value=mine, star="**")
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return node.with_changes(args=[*args, new])
    if data[0] == "url":  # the URL argument ends with the cursor's query string
        at = data[1]
        value = args[at].value
        if not isinstance(value, _CONCATENABLE) or (
                isinstance(value, cst.BinaryOperation) and not isinstance(value.operator, (cst.Add, cst.Modulo))):
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        args[at] = args[at].with_changes(value=cst.BinaryOperation(value, cst.Add(), mine))
        return node.with_changes(args=args)
    for i, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            value = arg.value
            if isinstance(value, cst.Dict):
                elements = list(value.elements)
                if elements and elements[-1].comma is cst.MaybeSentinel.DEFAULT:
                    elements[-1] = elements[-1].with_changes(
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                merged = value.with_changes(elements=[*elements, cst.StarredDictElement(mine)])
            else:
                merged = cst.Dict([cst.StarredDictElement(value), cst.StarredDictElement(mine)])
            args[i] = arg.with_changes(value=merged)
            return node.with_changes(args=args)
    new = cst.Arg(value=mine, keyword=cst.Name(keyword),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    if args and isinstance(args[-1].comma, cst.Comma):  # a trailing comma: one argument per line
        last = args[-1]
        step = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else last.comma
        args[-1] = last.with_changes(comma=step)
        new = new.with_changes(comma=last.comma)
    elif args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return node.with_changes(args=[*args, new])


_CONCATENABLE = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Name, cst.Attribute, cst.Call,
                 cst.Subscript, cst.BinaryOperation)


def apply_import(node: cst.CSTNode, data: tuple) -> cst.CSTNode:
    """`import urllib.parse` for the cursor's query string, unless the module has it: with the standard library's
    imports (in name order among the plain imports), else as a group of its own before the first imports."""
    if not isinstance(node, cst.Module):
        return node
    module = data[0]
    body = list(node.body)
    imports = []  # (index, the dotted module names) of the top-level import lines, in order
    for i, stmt in enumerate(body):
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
        if smalls and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in smalls):
            names = [dotted(a.name) for s in smalls if isinstance(s, cst.Import) for a in s.names]
            if module in names:
                return node  # already there (a second call's edit, or the module's own)
            froms = [dotted(s.module) or "" for s in smalls if isinstance(s, cst.ImportFrom) and s.module is not None]
            imports.append((i, names, froms))
    new = cst.parse_statement(f"import {module}\n")
    stdlib = [(i, names, froms) for i, names, froms in imports
              if "__future__" not in froms and any(n.split(".")[0] in sys.stdlib_module_names for n in names + froms)]
    if stdlib:  # the first group of standard-library imports (a blank line ends a group)
        lines = {i: names for i, names, _froms in imports}
        first = stdlib[0][0]
        group = [first]
        while group[-1] + 1 in lines and not _blank_before(body[group[-1] + 1]):
            group.append(group[-1] + 1)
        plain = [i for i in group if lines[i] and min(lines[i]) < module]
        at = plain[-1] + 1 if plain else first
        if at == first:  # it leads its group: the group's blank lines go before it
            new = new.with_changes(leading_lines=body[first].leading_lines)
            body[first] = body[first].with_changes(leading_lines=[])
        body.insert(at, new)
        return node.with_changes(body=body)
    rest = [i for i, _names, froms in imports if "__future__" not in froms]
    if rest:
        at = rest[0]
        new = new.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine()])
    else:
        at = imports[-1][0] + 1 if imports else 0
        if imports:
            new = new.with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(at, new)
    return node.with_changes(body=body)


def _blank_before(stmt: cst.CSTNode) -> bool:
    return any(line.comment is None for line in getattr(stmt, "leading_lines", ()))


def apply_json(node: cst.CSTNode, paging: Paging) -> cst.CSTNode:
    """The read of one page's JSON moves into the loop; the statement reads the whole list instead."""
    paging.json = node  # type: ignore[assignment]
    return cst.Name(paging.items)


def apply_loop(node: cst.CSTNode, loops: Loops) -> cst.CSTNode:
    body = list(node.body)  # type: ignore[attr-defined]
    for paging in sorted(loops.pagings, key=lambda p: p.first, reverse=True):
        if paging.json is None or len(node.body) != paging.size:  # type: ignore[attr-defined]
            raise RuntimeError("Q30: the block changed before its cursor loop was written")  # file left as is
        body[paging.first: paging.last + 1] = _loop(paging, body[paging.first: paging.last + 1])
    return node.with_changes(body=body)


def q(name: str) -> str:
    return json.dumps(name)


def _loop(p: Paging, stmts: list) -> list:
    """[init, while loop, the reading statement (now reading the whole list)] for statements first..last."""
    n = p.names
    fetch = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(p.page))], p.json)])
    head = stmts[0]
    if p.within is not None:  # with <request> as resp: <checks>; <read>  ->  the with block fetches one page
        block = stmts[-1]
        inner = list(block.body.body)
        reader = inner[p.within]
        repeated = [*stmts[:-1], block.with_changes(body=block.body.with_changes(body=[*inner[:p.within], fetch]))]
        repeated[0] = repeated[0].with_changes(leading_lines=[])
    else:
        reader = stmts[-1]
        repeated = [*stmts[:-1]] + ([] if p.unpacked else [fetch])
        repeated[0] = repeated[0].with_changes(leading_lines=[]) if len(stmts) > 1 else repeated[0]
        if len(stmts) == 1:
            reader = reader.with_changes(leading_lines=[])
    empty, cursor = "{}", f"{{{q(n['cursor'])}: {p.page}[{q(n['block'])}][{q(n['next'])}]}}"
    if p.channel == "url":  # the URL's query string: none at first, then the cursor's
        empty, cursor = '""', f"{q(p.sep)} + {p.urlencode}({cursor})"
    start = cst.parse_statement(f"{p.items}, {p.paging} = [], {empty}\n").with_changes(leading_lines=head.leading_lines)
    rest = cst.parse_module(
        f"{p.items} += {p.page}[{q(p.key)}]\n"
        f"if not {p.page}[{q(n['block'])}][{q(n['more'])}]:\n"
        f"    break\n"
        f"{p.paging} = {cursor}\n").body
    loop = cst.While(test=cst.Name("True"), body=cst.IndentedBlock([*repeated, *rest]))
    return [start, loop, reader] if p.keeps else [start, loop]


BUILDS = {"page-loop": build_loops}

APPLIES = {"page-call": apply_call, "page-import": apply_import, "page-json": apply_json, "page-loop": apply_loop}
