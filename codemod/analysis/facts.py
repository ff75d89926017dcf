"""The typed facts of one file: what the analysis found, before any rule decides anything.

`FileFacts.calls` holds every HTTP call of this API's v1 routes with its
resolved route (`CallFact`), the body expression, the query, and where its
answer flows (`Read`s). Calls whose URL looks like a v1 route but whose base
cannot be traced are `unresolved`; strings that spell a v1 address are
`v1_strings`; v1 names read on objects the analysis cannot type are
`handed_in`. `FileFacts.source` is the parsed file as a rule may read it
(`Source`: where a node sits, what a name is bound to, the few value-flow
questions a rule asks). The rewrite's rules and the audit both read this one
object; a rule never reaches into the analyzer that produced it.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import libcst as cst

from codemod.analysis.references import references as variable_reads
from codemod.knowledge import Route

if TYPE_CHECKING:  # pragma: no cover
    from libcst.metadata import CodeRange

    from codemod.analysis.calls import CallSite, HelperInfo, UrlInfo


@dataclass(frozen=True)
class Typed:
    """An expression known to hold v1 JSON: one object of a resource, or a list of them."""

    route: Route
    shape: str  # object | list


ReadKind = Literal["list", "error", "field", "loop"]


@dataclass
class Read:
    """One read of a v1 answer: a list used bare, an error key, a field, a loop waiting on a field."""

    kind: ReadKind
    node: cst.CSTNode  # list: the JSON expression; error/field: the key node; loop: the loop statement
    route: Route | None
    key: str | None = None
    how: str | None = None  # "subscript" | "get"
    rule: str | None = None  # loop: the rule of the field it waits on
    matched: int = 0  # error: line where the text read is matched against words (`marker in text`), else 0


@dataclass
class CallFact:
    """One HTTP call to a v1 route of this API."""

    site: "CallSite"
    route: Route
    path: str  # the v1 path as written (holes for unknown parts)
    reads: list[Read] = field(default_factory=list)
    body: cst.Dict | None = None  # the request body's dict literal
    verb: "VerbChoice | None" = None  # the last path segment is a variable a guard limits to known verbs
    body_writes: list["BodyWrite"] = field(default_factory=list)  # `payload["k"] = v` after the literal
    answers: list[cst.CSTNode] = field(default_factory=list)  # where its JSON is parsed, in the function it is made in

    @property
    def call(self) -> cst.Call:
        return self.site.call


@dataclass
class BodyWrite:
    """`payload["k"] = v`: one statement extending a body dict between its literal and the call."""

    stmt: cst.SimpleStatementLine
    key: cst.SimpleString
    value: cst.BaseExpression
    conditional: bool  # under an `if` (the key may be absent when the call is made)


@dataclass
class VerbChoice:
    """`f"/pods/{pod_id}/{verb}"` where a guard proves `verb` is one of `values`: one v1 route per value."""

    part: cst.FormattedStringExpression  # `{verb}` in the f-string
    name: cst.Name  # `verb`
    routes: dict[str, Route]  # value -> its v1 route


class Source:
    """The parsed file as the rules read it: tree, lines and positions, where a node sits, what a name is bound to
    and where it is read, and the value-flow questions a rule asks of one node. Public and typed; the analysis
    that produced the facts answers (the one place that knows how)."""

    def __init__(self, analyzer) -> None:
        # codemod.analysis.Analyzer (not imported: the analysis package imports this module), held weakly: the
        # analyzer holds the facts, and a cycle would keep each file's tree and index alive until a GC pass
        self._an = weakref.proxy(analyzer)

    # ------------------------------------------------------------- the text
    @property
    def module(self) -> cst.Module:
        return self._an.module

    @property
    def lines(self) -> list[str]:
        return self._an.lines

    @property
    def v2_base(self) -> str:
        """The v2 base address this run writes."""
        return self._an.v2_base

    def span(self, node: cst.CSTNode) -> "CodeRange | None":
        """Where NODE is in the source (None: a node the rewrite made, not parsed)."""
        return self._an.pos.get(node)

    def where(self, node: cst.CSTNode) -> tuple[int, int, str]:
        """(line, column from 1, the line's text stripped); (0, 0, "") for a node not parsed."""
        return self._an.where(node)

    def code_of(self, node: cst.CSTNode) -> str:
        return self._an.code_of(node)

    # ------------------------------------------------------------ the tree
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._an.parent(node)

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._an.statement_of(node)

    def scope_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The function NODE is in (None: the module)."""
        return self._an.scope_of(node)

    @property
    def calls(self) -> list[cst.Call]:
        """Every call expression of the module."""
        return self._an.ix.calls

    def function(self, name: str) -> cst.FunctionDef | None:
        """The first function (or method) of the module named NAME."""
        found = self._an.ix.functions.get(name)
        return found[0] if found else None

    def assigned(self, scope: cst.FunctionDef | None, name: str) -> list:
        """(value, statement) of every assignment to NAME in SCOPE (None: the module)."""
        return self._an.ix.assigns.get(id(scope) if scope else None, {}).get(name, [])

    def names(self) -> set[str]:
        """Every name the module spells, in any function."""
        return {name for names in self._an.ix.names.values() for name in names}

    def references(self, variable: cst.CSTNode) -> list[cst.CSTNode]:
        """Every read of the variable VARIABLE (a Name or an attribute) binds, by its binding function."""
        return variable_reads(self._an, variable)

    def attribute_uses(self, name: str) -> list[cst.Name]:
        """The `.NAME` of every attribute access to NAME in the module."""
        return self._an.ix.attributes.get(name, [])

    def reads(self, scope: cst.FunctionDef | None, name: str) -> list[cst.Name]:
        """Every Name node NAME in SCOPE (None: the module)."""
        return self._an.ix.names.get(id(scope) if scope else None, {}).get(name, [])

    # ------------------------------------------------------------ value flow
    def importable_helper(self, local: str, name: str) -> tuple[object, cst.ImportFrom] | None:
        """(its HelperSig, the import statement) of the helper NAME that the `from <module> import` of the helper
        imported here as LOCAL can import too (codemod.crossfile.HelperRef.siblings), when no name of the module is
        NAME already; None otherwise."""
        ref = self._an.helper_refs.get(local)
        sig = next((s for s in ref.siblings if s.name == name), None) if ref is not None else None
        if sig is None or name in self._an.ix.functions or name in self._an.ix.imports or name in self.names():
            return None
        for stmt in self._an.module.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.ImportFrom) and isinstance(small.names, (list, tuple)) and any(
                        alias.asname is None and alias.name.value == local for alias in small.names):
                    return sig, small
        return None

    def client_send(self, site) -> str | None:
        """The code of a send(method, path, json=None) made of the client's own call that SITE goes through (what
        `v1bridge_compat.call_v1` would be handed, codemod.compat_call.plan_wrap); None when it cannot be made."""
        from codemod.compat_call import plan_wrap

        wrap, _why = plan_wrap(self._an, site)
        return wrap.send if wrap is not None else None

    def known_text(self, node: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Does NODE evaluate, where AT is, to a text the analysis reads whole (a literal, a constant)?"""
        return all(piece.text is not None for piece in self._an.evaluate(node, self.scope_of(at)))

    def sibling_method(self, call: cst.Call, name: str) -> object | None:
        """The HelperSig of method NAME beside the one CALL goes through, on a client or module of another file
        (`rp.post(...)` on a `RunPod` of client.py: `RunPod.patch`); None when there is none."""
        found = self._an._imported_helper(call)
        if found is None or found[0].kind == "local":
            return None
        ref, sig = found
        owner = sig.name.rpartition(".")[0]
        return next((s for s in ref.sigs if s.name == (f"{owner}.{name}" if owner else name)), None)

    def is_helper(self, fn: cst.FunctionDef) -> bool:
        """Does FN make an HTTP call for its caller (a helper the analysis follows)?"""
        return self._an._helper(fn) is not None

    def bound_name(self, expr: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
        """(name, statement) when EXPR is the whole value of `name = EXPR`."""
        return self._an._bound_name(expr)

    def uses_after(self, name: str, stmt: cst.CSTNode) -> list[cst.Name]:
        """The reads of NAME after STMT (which binds it) in its function, up to its next binding."""
        return self._an._uses_after(name, stmt)

    def urllib_responses(self, call: cst.CSTNode) -> list[cst.CSTNode]:
        """The calls that open the urllib request CALL is or builds."""
        return self._an.urllib_responses(call)

    def is_client_factory(self, call: cst.Call) -> bool:
        """`httpx.Client(...)`, `requests.Session()`, `aiohttp.ClientSession(...)` (however imported)."""
        return self._an.is_client_factory(call)

    def url_queries(self, expr: cst.CSTNode | None, scope: cst.FunctionDef | None) -> list[cst.CSTNode] | None:
        """The mappings a URL's query string is encoded from (None: a part the rewrite cannot read)."""
        return self._an.url_queries(expr, scope)

    def is_ours(self, flat: str) -> bool:
        """Is this URL text on one of this service's hosts (not merely a /v1 path on someone else's)?"""
        return self._an.is_ours(flat)

    def shared_constant(self, literal: cst.CSTNode) -> object | None:
        """The cross-file verdict (codemod.crossfile.Verdict) on the constant other files import that LITERAL is
        the value of; None when it is not such a constant or nothing is decided."""
        return self._an.exports.get(self._an.export_nodes.get(id(literal), ""))


@dataclass
class ThroughCall:
    """A call through a helper of another file of the run (`from .api import _get`; `_get("/pods", q)`)."""

    call: cst.Call
    origin: str  # the file defining the helper
    sig: object  # codemod.crossfile.HelperSig
    method: str | None
    path: str | None  # the v1 path it passes, when readable (holes for unknown parts)
    route: Route | None  # the v1 route that path and method are, when one
    reads: list[Read] = field(default_factory=list)  # where its answer (the route's JSON) is read


@dataclass
class ReturnedCall:
    """A call of another file's function that returns the answer of its v1 call (`pods.get_pod(pod_id)`): where
    that answer is read here, and whether it goes where the rewrite cannot read it."""

    call: cst.Call
    origin: str  # the file defining the function
    sig: object  # codemod.crossfile.ReturnSig
    route: Route
    blocked: bool  # the run keeps the answer v1's (the function returns the v1 view): its reads stay as they are
    reads: list[Read] = field(default_factory=list)
    escapes: int = 0  # line where the answer goes where the rewrite cannot read it (0: it does not)


@dataclass(frozen=True)
class PathArgument:
    """A call handing a path of this API's resources, spelled as a literal, to any callee (`fetch_json("/networkvolumes/"
    + vid)`, `client.get_json(f"/pods/{pod_id}/stop")`), whether or not the analysis can follow the call: a path only v1
    spells is a v1 call wherever its base comes from (the audit reads these)."""

    callee: str  # as written: `fetch_json`, `client.get_json` (codemod.analysis.syntax.callee_name)
    segments: tuple[str, ...]  # HOLE for a segment with an interpolated part
    line: int  # where the argument starts
    column: int  # from 0, in characters
    call_line: int  # where the call starts
    statement: tuple[int, int]  # first line (its decorators too) and last line of the module's statement holding it


@dataclass
class ClientFactory:
    """A module-level function that returns a library client made on a base (`def rest(): return
    httpx.Client(base_url=config.REST_URL)`, also when kept in a module global): the calls other files make on what
    it returns (`rest().get("/templates")`) are requests to that base plus their path."""

    name: str
    # the function as a helper: `fn` the factory, `inner` the client's construction with its `base`, `refs` the names
    # read to build the base (what moves with it, codemod.decide)
    helper: "HelperInfo"


@dataclass
class FileFacts:
    path: str
    module: cst.Module | None = None
    calls: list[CallFact] = field(default_factory=list)
    unresolved: list[tuple["CallSite", Route]] = field(default_factory=list)
    relative: list[tuple["CallSite", Route]] = field(default_factory=list)  # "/pods" with no base: reported only
    unmatched: list[tuple["CallSite", str, list[Route]]] = field(default_factory=list)  # ours, no v1 route
    foreign: list["CallSite"] = field(default_factory=list)
    shared_helpers: set[int] = field(default_factory=set)  # id(helper fn) also used by v2 or job-API calls  # a v1-shaped base on another host, not our route
    v1_strings: list[tuple[cst.CSTNode, "UrlInfo", str]] = field(default_factory=list)  # (node, url, flat text)
    handed_in: list[tuple[str, cst.CSTNode, bool]] = field(default_factory=list)  # (name, key node, written)
    uses_v2: bool = False
    serverless_runtime: bool = False
    compat_calls: list[tuple[int, str]] = field(default_factory=list)  # (line, function) of v1bridge_compat calls
    through: list[ThroughCall] = field(default_factory=list)  # calls through helpers of other files of the run
    # id(call) -> (file, helper) of the `relative` calls on an object the rewrite cannot type that read as calls
    # through a helper of a client class this file imports (`def f(s): s.call("DELETE", "pods/x")`)
    untyped: dict[int, tuple[str, str]] = field(default_factory=dict)
    returned: list[ReturnedCall] = field(default_factory=list)  # calls of other files' functions returning answers
    path_arguments: list[PathArgument] = field(default_factory=list)  # literal resource paths handed to any call
    client_factories: list[ClientFactory] = field(default_factory=list)  # its functions returning a library client
    error: str | None = None
    module_facts: object = None  # codemod.crossfile.ModuleFacts: constants and imports other files may read
    source: Source | None = None  # the parsed file as a rule reads it (None: it did not parse)
