"""The typed facts of one file: what the analysis found, before any rule decides anything.

`FileFacts.calls` holds every HTTP call of this API's v1 routes with its
resolved route (`CallFact`), the body expression, the query, and where its
answer flows (`Read`s). Calls whose URL looks like a v1 route but whose base
cannot be traced are `unresolved`; strings that spell a v1 address are
`v1_strings`; v1 names read on objects the analysis cannot type are
`handed_in`. The rewrite's rules and the audit both read this one object.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import libcst as cst

from codemod.knowledge import Route

if TYPE_CHECKING:  # pragma: no cover
    from codemod.analysis.calls import CallSite, UrlInfo


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


@dataclass
class ThroughCall:
    """A call through a helper of another file of the run (`from .api import _get`; `_get("/pods", q)`)."""

    call: cst.Call
    origin: str  # the file defining the helper
    sig: object  # codemod.crossfile.HelperSig
    method: str | None
    path: str | None  # the v1 path it passes, when readable (holes for unknown parts)
    route: Route | None  # the v1 route that path and method are, when one


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
    error: str | None = None
    module_facts: object = None  # codemod.crossfile.ModuleFacts: constants and imports other files may read
