"""The analysis pass: one parse of a module, one `FileFacts` out.

Small modules, one concern each:
- `syntax`: the syntax index (parents, scopes, calls, assignments, imports) and literal pieces;
- `strings`: string and URL evaluation, and whether a URL is this service's;
- `calls`: HTTP call sites and the module's own helpers;
- `flow`: where answers flow (list, error and field reads, status loops);
- `facts`: the typed facts the rules (codemod/rules/) and the audit read.

Nothing here plans an edit: the rules do that from the facts.
"""
from __future__ import annotations

import functools

import libcst as cst

from codemod.analysis.codegen import code
from codemod.analysis.calls import VERBS, CallSite, Calls, HelperInfo, UrlInfo
from codemod.analysis.facts import (BodyWrite, CallFact, ClientFactory, FileFacts, PathArgument, Read, Source, Typed,
                                     VerbChoice)
from codemod.analysis.flow import Flow
from codemod.analysis.references import base_escape
from codemod.analysis.strings import MAX_DEPTH, Strings
from codemod.analysis.calls import URLENCODE
from codemod.analysis.syntax import (ENV_GETTERS, Indexer, LazyPositions, callee_name, constant_literal, descendants, dotted,
                                     flatten, parse_module, path_segments, returned_name, str_of)
from codemod.knowledge import HOLE, SCHEME, Knowledge, knowledge

__all__ = ["Analyzer", "CallFact", "CallSite", "FileFacts", "HelperInfo", "Read", "Typed", "UrlInfo", "analyze"]


class Analyzer(Strings, Calls, Flow):
    def __init__(self, source: str, path: str, kb: Knowledge, v2_base: str | None = None,
                 externals: dict | None = None, exports: dict | None = None) -> None:
        self.source = source
        from codemod.crossfile import COMPAT_ANSWERS, IMPORTED_BY, RETURNS, RUN_IMPORTS, HelperRef

        externals = dict(externals or {})
        # calls of other files' functions that return a v1 answer: call spelling -> codemod.crossfile.ReturnRef
        self.return_refs: dict = externals.pop(RETURNS, {})
        # the files of the run that import this one: an answer one of its functions returns may be read there
        self.imported_by: tuple = externals.pop(IMPORTED_BY, ())
        # local names this file imports from other files of the run (for its calls on a client made there)
        self.run_imports: dict = externals.pop(RUN_IMPORTS, {})
        # files this one imports whose answers are v1 views made at run time (codemod.crossfile)
        self.compat_answer_sources: tuple = externals.pop(COMPAT_ANSWERS, ())

        # constants of other files of the run (codemod.crossfile): local name -> External, read like our own
        self.externals = {k: v for k, v in (externals or {}).items() if not isinstance(v, HelperRef)}
        # helpers of other files of the run this file calls: local name -> HelperRef
        self.helper_refs = {k: v for k, v in (externals or {}).items() if isinstance(v, HelperRef)}
        self.ext_nodes: dict[str, cst.SimpleString] = {}  # local name -> the literal standing for its value
        # this file's constants other files import: name -> None (open) | Verdict (decided across the run)
        self.exports = exports or {}
        self.export_nodes: dict[int, str] = {}  # id(literal) -> exported name
        self.path = path
        self.kb = kb
        self.v2_base = v2_base or kb.default_v2_base
        self.lines = source.splitlines()
        # str.splitlines also breaks on characters Python code does not (form feed, U+2028...)
        self.odd_breaks = any(c in source for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        self.facts = FileFacts(path)
        self.helpers: dict[int, HelperInfo | None] = {}
        self.typed_exprs: dict[int, Typed] = {}
        self.fn_returns: dict[str, tuple[Typed, CallFact]] = {}
        self.returned: list[tuple[cst.Return, Typed, CallFact]] = []  # every `return` of a v1 answer, with its call
        self.read_keys: set[int] = set()  # key nodes already judged (typed reads, request bodies)
        self._reading: CallFact | None = None
        self.refs: list | None = None  # while a URL is evaluated: the names and attributes it reads
        self.bindings: dict[int, tuple[dict, object]] = {}  # id(URL builder fn) -> (param -> argument, caller scope)
        # `[str(p).strip("/") for p in parts]` in a URL builder: (id(builder), p) -> (the argument, caller scope)
        self.comprehension_items: dict[tuple[int, str], tuple[cst.CSTNode, object]] = {}
        self.other_answers: set[int] = set()  # id(call) of the calls to v2 or the job API: their answers are not v1
        self.compat_answers: set[str] = set()  # functions returning a compat call's answer (v1's shape on purpose)
        self.local_translated: dict = {}  # name -> HelperSig of this module's helpers translated at run time
        self._calls_by_fn: dict[int, list[cst.Call]] | None = None  # `calls_in`
        self.planned_through: set[int] = set()  # id(call) of calls through another file's helper read at the call

    # ------------------------------------------------------------------ run
    def run(self) -> FileFacts:
        try:
            module = parse_module(self.source)
        except Exception as exc:  # libcst raises ParserSyntaxError; be defensive
            self.facts.error = f"does not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            return self.facts
        self.ix = Indexer()
        self.ix.walk(module)
        self.pos = LazyPositions(module, self.source, self.ix.parent, self.ix)
        self.module = module
        self.facts.module = module
        self.facts.source = Source(self)
        for name in self.exports:
            assigned = self.ix.assigns.get(None, {}).get(name)
            literal = constant_literal(assigned[0][0]) if assigned and len(assigned) == 1 else None
            if literal is not None:
                self.export_nodes[id(literal)] = name
        self.v1_evidence = any(self._string_is_v1_base(s) for s in self.ix.strings)
        sites = [site for call in self.ix.calls if (site := self._call_site(call)) is not None]
        for site in sites:
            self._site_fact(site)
        v1_responses = self._v1_response_names()
        for cf in self.facts.calls:
            self._responses(cf)
            self._except_error_reads(cf)
            self._helper_error_reads(cf)
            self._passed_response_error_reads(cf, v1_responses)
        for _ in range(3):
            if not self._propagate_returns():
                break
        for node in self.ix.strings:
            self._v1_string(node)
        self._compat_calls()
        self._calls_through_imported_helpers()
        self._calls_returning_answers()
        self._handed_in_reads()
        self.facts.client_factories = [ClientFactory(name, helper) for name, helper in self.factory_helpers()]
        self.facts.module_facts = self._module_facts()
        self.facts.path_arguments = self._path_arguments()
        return self.facts

    def _path_arguments(self) -> list:
        """Every call's positional argument that spells a path of this API's resources, in the order the calls are
        met (a decorator's is a route the code serves, not a call it makes: left out)."""
        out = []
        resources = self.kb.resources
        for call in self.ix.calls:
            for arg in call.args:
                if arg.keyword is not None or arg.star:
                    continue
                segments = path_segments(arg.value)
                if not segments or segments[0] not in resources or type(self.parent(call)) is cst.Decorator:
                    continue
                try:
                    start, call_start = self.pos[arg.value].start, self.pos[call].start
                    statement = self._module_statement_lines(call)
                except KeyError:
                    continue
                out.append(PathArgument(callee_name(call.func), segments, start.line, start.column, call_start.line,
                                        statement))
        return out

    def _module_statement_lines(self, node: cst.CSTNode) -> tuple[int, int]:
        """First line (with its decorators) and last line of the module's statement NODE is in."""
        top, up = node, self.parent(node)
        while up is not None and not isinstance(up, cst.Module):
            top, up = up, self.parent(up)
        span = self.pos[top]
        decorators = getattr(top, "decorators", ())
        return (self.pos[decorators[0]].start.line if decorators else span.start.line), span.end.line

    # ------------------------------------------------------ across modules
    def qualname(self, fn: cst.FunctionDef) -> str | None:
        """`name` of a module-level function, `Class.name` of a method of a module-level class; None otherwise."""
        parent = self.parent(fn)
        if isinstance(parent, cst.Module):
            return fn.name.value
        cls = self.parent(parent) if isinstance(parent, cst.IndentedBlock) else None
        if isinstance(cls, cst.ClassDef) and isinstance(self.parent(cls), cst.Module):
            return f"{cls.name.value}.{fn.name.value}"
        return None

    def function_named(self, qualname: str) -> cst.FunctionDef | None:
        for fns in self.ix.functions.values():
            for fn in fns:
                if self.qualname(fn) == qualname:
                    return fn
        return None

    def innermost(self, helper: HelperInfo) -> HelperInfo:
        """The helper that makes the request itself (a helper may call another: `get` -> `request`)."""
        while helper.inner is not None and helper.inner.helper is not None:
            helper = helper.inner.helper
        return helper

    def _module_helpers(self) -> tuple:
        """This module's v1 helpers, as other files of the run see them (codemod.crossfile.HelperSig)."""
        from codemod.compat_call import plan_helper_wrap
        from codemod.crossfile import HelperSig

        out = []
        followed = frozenset(id(node) for cf in self.facts.calls for node, _ids in cf.site.refs)
        for fns in self.ix.functions.values():
            for fn in fns:
                name = self.qualname(fn)
                info = self._helper(fn) if name is not None else None
                if info is None or info.base_kind not in ("v1", "v2") or info.base is None \
                        or self.innermost(info).sig is not None:
                    continue  # not a helper, or one that sends through another file's helper
                if info.base_kind == "v2":  # already on v2: its callers' calls are v2 code (not reviews)
                    if self._sends_through_compat(self.innermost(info).fn):
                        continue  # translated at run time: `_translated_helpers` says so
                    reading = self._sig_reading(fn, info, "v2")
                    if reading["base"]:
                        params = [p for p in info.params if not ("." in name and p in ("self", "cls"))]
                        out.append(HelperSig(name, tuple(params), info.path_param, info.method, info.method_param,
                                             info.body_param, info.slash_join, "", api="v2", **reading))
                    continue
                _wrap, why = plan_helper_wrap(self, self.innermost(info))
                # a base that builds a URL the rewrite cannot follow stays v1 in this module (the decision's
                # `_base_kept`): the other files' calls through it must not claim a translation
                why = why or base_escape(self, self.innermost(info), followed=followed)
                params = [p for p in info.params if not ("." in name and p in ("self", "cls"))]
                out.append(HelperSig(name, tuple(params), info.path_param, info.method, info.method_param,
                                     info.body_param, info.slash_join, why, **self._sig_reading(fn, info)))
        out += self._inherited_verbs(out)
        out += self._factory_verbs()
        out += self._translated_helpers({sig.name for sig in out})
        return tuple(sorted(out, key=lambda sig: sig.name))

    def _inherited_verbs(self, sigs: list) -> list:
        """`s.get("pods")` on a `requests.Session` (or httpx client) subclass whose `request()` this module
        overrides: the verbs it inherits send through that override, so each is a helper of the class too (its
        method fixed, the path its first parameter, everything else handed on as keywords)."""
        from dataclasses import replace

        out = []
        for sig in sigs:
            cls_name, _dot, method = sig.name.rpartition(".")
            cls = self.ix.classes.get(cls_name)
            if method != "request" or sig.method_param is None or cls is None or self.client_base(cls) is None:
                continue
            own = {fn.name.value for fn in self.ix.functions.get("request", ()) if self.ix.class_of_fn.get(id(fn))
                   is cls}
            defined = {name for name, fns in self.ix.functions.items() for fn in fns
                       if self.ix.class_of_fn.get(id(fn)) is cls}
            if not own:
                continue
            for verb in sorted(VERBS - defined - {"head", "options"}):
                out.append(replace(sig, name=f"{cls_name}.{verb}", params=("url",), path_param="url",
                                   method=verb.upper(), method_param=None, body_param=None, kwargs_param="kwargs", kwargs_query=False,
                                   defaults=(), returns="response", forwards_params=True, query_param=None,
                                   group=sig.group or sig.name))
        return out

    def _factory_verbs(self) -> list:
        """`rest().get("/templates")` in another file, `rest` a function of this module returning an httpx client on
        a base (codemod.analysis.calls.factory_helpers): each verb of the client, and its request(), is a helper of
        the factory (named `rest().get`, moving as one with `rest`). The library's requests cannot be translated at
        run time: a call through it that stays v1 keeps the base on v1 with it (why_not)."""
        from codemod.crossfile import HelperSig

        out = []
        for factory in self.facts.client_factories:
            helper = factory.helper
            cls = f"{factory.name}()"
            why = (f"{cls} returns an httpx client, whose requests the rewrite cannot translate at run time"
                   if helper.base_kind == "v1" else "")
            common = dict(why_not=why, base=flatten(helper.base.pieces), kwargs_param="kwargs",
                          is_async=helper.is_async, forwards_params=True, ends_url=True, api=helper.base_kind,
                          group=factory.name, library="httpx")
            for verb in sorted(VERBS - {"head", "options"}):
                out.append(HelperSig(f"{cls}.{verb}", ("url",), "url", verb.upper(), None, None, True, **common))
            out.append(HelperSig(f"{cls}.request", ("method", "url"), "url", None, "method", None, True, **common))
        return out

    def _sends_through_compat(self, fn: cst.FunctionDef) -> bool:
        from codemod.compat_call import ACALL_V1, CALL_V1, MODULE_NAME

        return MODULE_NAME in self.source and any(
            dotted(call.func) in (f"{MODULE_NAME}.{CALL_V1}", f"{MODULE_NAME}.{ACALL_V1}") for call in self.calls_in(fn))

    def _sig_reading(self, fn: cst.FunctionDef, info: HelperInfo, api: str = "v1") -> dict:
        """What a caller in another file needs to read its calls through this helper (HelperSig's reading fields):
        the base when it is one literal the rewrite can move, the defaults, the answer, the query channel."""
        from codemod.compat_call import _returns_tuple

        inner = self.innermost(info)
        base = ""
        if info.base is not None and info.base.kind == api and info.tail_at is None \
                and inner.inner is not None and inner.inner.url is not None \
                and (api == "v2" or any(url is not None and url.host_edit is not None  # its URL, or its client's
                                        for url in (inner.inner.url, inner.inner.base))) \
                and any(p.node is not None for p in info.base.pieces) and not any(
                    p.text is None for p in info.base.pieces):
            base = flatten(info.base.pieces)
        defaults = tuple((p.name.value, self.code_of(p.default))
                         for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
                         if p.default is not None and "\n" not in self.code_of(p.default))
        ends, forwards, helper = True, False, info
        while helper is not None and helper.inner is not None:  # the path ends the URL at every helper level
            pieces = helper.inner.url.pieces if helper.inner.url is not None else []
            if not pieces or pieces[-1].param != helper.path_param:
                ends = False
            helper = helper.inner.helper
        site = info.inner
        if site is not None:
            given = {a.keyword.value: a.value for a in site.call.args if a.keyword is not None}
            sent = given.get("params")
            if sent is None and site.helper is None:  # `kwargs = {"params": params}` handed on as **kwargs
                sent = self.keyword_sent(site.call, fn, "params")
            forwards = "params" in info.params and isinstance(sent, cst.Name) and sent.value == "params" or (
                info.kwargs_param is not None and "params" not in given and any(
                    a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == info.kwargs_param
                    for a in site.call.args))
            if site.helper is not None and forwards:
                forwards = self._sig_reading(site.helper.fn, site.helper)["forwards_params"]
            elif site.library not in ("requests", "httpx", "aiohttp", "client"):
                forwards = False
        # a parameter encoded after the path (`if query: url += "?" + urlencode(query)`): the helper's query
        query_param = None
        for node in descendants(fn, lambda n: isinstance(n, (cst.Lambda, cst.ClassDef))):
            if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
                for call in descendants(node.value, lambda n: False):
                    if isinstance(call, cst.Call) and self._origin(dotted(call.func) or "") in URLENCODE \
                            and call.args and isinstance(call.args[0].value, cst.Name) \
                            and call.args[0].value.value in info.params:
                        query_param = call.args[0].value.value
        if query_param is not None and forwards:
            query_param = None
        forwards = forwards or info.kwargs_query
        return {"query_param": query_param, "kwargs_query": info.kwargs_query, "base": base, "defaults": defaults, "kwargs_param": info.kwargs_param, "returns": info.returns,
                "is_async": info.is_async, "forwards_params": forwards, "ends_url": ends,
                "answers_tuple": info.json_at is not None or _returns_tuple(self.ix.returns.get(id(fn), [])), "group": self.qualname(inner.fn) or "",
                "whole_urls": api == "v1" and inner is info and info.takes_whole_urls and info.tail_at is None
                and ends and info.base is not None and info.base.kind == "v1"}

    def _translated_helpers(self, known: set) -> list:
        """Helpers whose request a rewrite wrapped in the run-time translation (`v1bridge_compat.call_v1(send,
        "GET", BASE_URL + path, ...)`): their callers in other files are on v2 (state 2), and so are the answers."""
        from codemod.compat_call import ACALL_V1, CALL_V1, MODULE_NAME
        from codemod.crossfile import HelperSig

        if MODULE_NAME not in self.source:
            return []
        out = []
        for call in self.ix.calls:
            name = dotted(call.func) or ""
            if name not in (f"{MODULE_NAME}.{CALL_V1}", f"{MODULE_NAME}.{ACALL_V1}") or len(call.args) < 3:
                continue
            fn = self.scope_of(call)
            qual = self.qualname(fn) if fn is not None else None
            if qual is None or qual in known:
                continue
            pieces = self.evaluate(call.args[2].value, fn)
            path_param = next((p.param for p in pieces if p.param), None)
            if path_param is None:
                continue
            params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
            params = [p for p in params if not ("." in qual and p in ("self", "cls"))]
            method_node = call.args[1].value
            method = str_of(method_node)
            method_param = method_node.value if isinstance(method_node, cst.Name) and method_node.value in params \
                else None
            out.append(HelperSig(qual, tuple(params), path_param, method.upper() if method else None, method_param,
                                 None, flatten(pieces).split(HOLE)[0].endswith("/"), "", True))
            known.add(qual)
        # the helpers that call a translated one (`get` -> `request`) are translated too
        translated = {sig.name.split(".")[-1] for sig in out}
        for fns in self.ix.functions.values():
            for fn in fns:
                qual = self.qualname(fn)
                if qual is None or qual in known:
                    continue
                for call in self.calls_in(fn):
                    if not isinstance(call.func, (cst.Name, cst.Attribute)):
                        continue
                    callee = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value
                    inner = next((s for s in out if s.name.split(".")[-1] == callee), None)
                    if inner is None or callee not in translated:
                        continue
                    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params,
                                                     *fn.params.kwonly_params)]
                    params = [p for p in params if not ("." in qual and p in ("self", "cls"))]
                    passed = [a.value.value for a in call.args if isinstance(a.value, cst.Name)]
                    path_param = next((p for p in params if p in passed), None)
                    if path_param is None:
                        continue
                    first = call.args[0].value if call.args else None
                    method = str_of(first) if inner.method_param else inner.method
                    out.append(HelperSig(qual, tuple(params), path_param, method.upper() if method else None, None,
                                         None, inner.slash_join, "", True))
                    known.add(qual)
                    break
        return out

    def _imported_helper(self, call: cst.Call):
        """(HelperRef, HelperSig) of a call through a helper of another file of the run, or through a helper of
        this module whose request a rewrite translated (`v1bridge_compat.call_v1`), or None."""
        from codemod.crossfile import HelperRef

        func = call.func
        local = None
        if isinstance(func, cst.Name):
            local = self.local_translated.get(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            fn = self.scope_of(call)
            cls = self.qualname(fn) if fn is not None else None
            if cls is not None and "." in cls:
                local = self.local_translated.get(f"{cls.split('.')[0]}.{func.attr.value}")
        if local is not None and self.scope_of(call) is not self.function_named(local.name):
            return HelperRef(self.path, "local", (local,)), local
        if isinstance(func, cst.Name):
            ref = self.helper_refs.get(func.value)
            if ref is not None and ref.kind == "function":
                return ref, ref.sigs[0]
            return None
        if not isinstance(func, cst.Attribute):
            return None
        target = func.value
        if isinstance(target, cst.Name) and target.value in self.helper_refs:
            ref = self.helper_refs[target.value]
            name = func.attr.value if ref.kind == "module" else (
                f"{ref.class_name}.{func.attr.value}" if ref.kind == "instance" else None)
            sig = next((s for s in ref.sigs if s.name == name), None)
            return (ref, sig) if sig is not None else None
        cls = self._imported_instance(target, call)
        if cls is None:
            return None
        ref, class_name = cls
        sig = next((s for s in ref.sigs if s.name == f"{class_name}.{func.attr.value}"), None)
        return (ref, sig) if sig is not None else None

    def _imported_instance(self, target: cst.CSTNode, call: cst.Call):
        """(HelperRef, class name) when `target` is an instance of an imported class: a parameter annotated with
        it (`client: RunPodClient`, `c: rp.RunPodClient`) or a name bound once to `RunPodClient(...)`, in the
        function or, when the function neither takes nor binds the name, at module level (`client =
        RunPodClient()` used inside `main()`)."""
        if isinstance(target, cst.Call) and isinstance(target.func, cst.Name):  # `make_session().get(...)`
            ref = self.helper_refs.get(target.func.value)
            return (ref, ref.class_name) if ref is not None and ref.kind == "factory" else None
        if not isinstance(target, cst.Name):
            return None
        fn = self.scope_of(call)
        expr = None
        param = self._param(fn, target.value) if fn is not None else None
        if param is not None and param.annotation is not None:
            expr = param.annotation.annotation
        elif param is None:
            assigned = self.ix.assigns.get(id(fn) if fn is not None else None, {}).get(target.value, [])
            if not assigned and fn is not None:
                assigned = self.ix.assigns.get(None, {}).get(target.value, [])
            if len(assigned) == 1 and isinstance(assigned[0][0], cst.Call):
                expr = assigned[0][0].func
        if isinstance(expr, cst.SimpleString):  # `client: "RunPodClient"`
            expr = cst.parse_expression(expr.evaluated_value) if isinstance(expr.evaluated_value, str) else None
        if isinstance(expr, cst.Name):
            ref = self.helper_refs.get(expr.value)
            if ref is not None and ref.kind == "factory" and param is None:  # `s = make_session()`
                return ref, ref.class_name
            return (ref, expr.value) if ref is not None and ref.kind == "class" else None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            ref = self.helper_refs.get(expr.value.value)
            return (ref, expr.attr.value) if ref is not None and ref.kind == "module" else None
        return None

    def _calls_through_imported_helpers(self) -> None:
        """Calls through helpers of other files of the run (`_get("/pods")`, `api._post(...)`, `client.get(...)`):
        with the route their path reads as, when it can be read."""
        from codemod.analysis.facts import ThroughCall

        self.local_translated = {sig.name: sig for sig in self._translated_helpers(set())}
        if not self.helper_refs and not self.local_translated:
            return
        for call in self.ix.calls:
            found = self._imported_helper(call) if id(call) not in self.planned_through else None
            if found is None:
                continue
            ref, sig = found
            bound: dict[str, cst.CSTNode] = {}
            positional = [a for a in call.args if a.keyword is None and not a.star]
            for name, arg in zip(sig.params, positional):
                bound[name] = arg.value
            for arg in call.args:
                if arg.keyword is not None:
                    bound[arg.keyword.value] = arg.value
            method = sig.method
            if method is None and sig.method_param in bound:
                method = (str_of(bound[sig.method_param]) or "").upper() or None
            route, path = None, None
            if sig.path_param in bound:
                flat = flatten(self.evaluate(bound[sig.path_param], self.scope_of(call)))
                if sig.slash_join and flat and not flat.startswith("/"):
                    flat = "/" + flat
                if flat.startswith("/"):
                    path = flat.split("?")[0]
                    routes = self.kb.match(path.rstrip("/") or "/", method)
                    route = routes[0] if routes and (method is not None or len({r.method for r in routes}) == 1) \
                        else None
            if sig.api == "v2" and route is None:
                continue  # a path v1 never had, through a helper already on v2: v2 code
            through = ThroughCall(call, ref.origin, sig, method, path, route)
            self.facts.through.append(through)
            if route is not None:
                self._through_reads(through)
        self._untyped_calls()
        for _ in range(3):  # `return client.get(...)` in a function of this module: its callers read the answer
            if not self._propagate_returns():
                break
        self._reading = None
        # a call through an imported helper is that helper's call, not a call on a base this file cannot trace
        through = {id(t.call) for t in self.facts.through}
        if through:
            self.facts.relative = [(site, r) for site, r in self.facts.relative if id(site.call) not in through]
            self.facts.unresolved = [(site, r) for site, r in self.facts.unresolved if id(site.call) not in through]
            self.facts.unmatched = [u for u in self.facts.unmatched if id(u[0].call) not in through]
            self.facts.foreign = [site for site in self.facts.foreign if id(site.call) not in through]

    def _untyped_calls(self) -> None:
        """`s.call("DELETE", "pods/x")` on an object the rewrite cannot type, in a file that imports a client class
        whose helper of that name takes that path to a v1 route: `s` may be one (a parameter with no annotation).
        Such a call is on a client the rewrite cannot follow (`facts.relative`, with `untyped` naming the class):
        the class's base stays where it is and the call is flagged, never moved silently under it. A `get` of one
        bare word is left out: `page.get("pods")` reads a dict far more often than it calls an API."""
        refs = [ref for ref in self.helper_refs.values() if ref.kind in ("class", "instance", "factory")]
        if not refs:
            return
        known = {id(t.call) for t in self.facts.through} | self.planned_through | {
            id(site.call) for site in (*(cf.site for cf in self.facts.calls), *(s for s, _r in self.facts.unresolved),
                                       *(u[0] for u in self.facts.unmatched), *self.facts.foreign)}
        relative = {id(site.call) for site, _r in self.facts.relative}  # `c.delete("/pods/x")` on no known base
        for call in self.ix.calls:
            func = call.func
            if id(call) in known or not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name) \
                    or func.value.value in ("self", "cls") or func.value.value in self.helper_refs:
                continue
            for ref in refs:
                sig = next((s for s in ref.sigs if s.name.rpartition(".")[2] == func.attr.value), None)
                found = self._untyped_route(call, sig) if sig is not None and sig.api == "v1" else None
                if found is not None:
                    if id(call) not in relative:
                        self.facts.relative.append(found)
                    self.facts.untyped[id(call)] = (ref.origin, sig.name)
                    break

    def _untyped_route(self, call: cst.Call, sig):
        """(CallSite, route) of CALL read as a call through SIG, when its path reads as one v1 route."""
        from codemod.analysis.syntax import Piece

        bound = dict(zip(sig.params, (a.value for a in call.args if a.keyword is None and not a.star)))
        bound.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        path_expr = bound.get(sig.path_param)
        if path_expr is None:
            return None
        method = sig.method or (str_of(bound.get(sig.method_param)) or "").upper() or None
        pieces = self.evaluate(path_expr, self.scope_of(call))
        flat = flatten(pieces)
        if sig.method == "GET" and isinstance(path_expr, cst.SimpleString) and "/" not in flat.strip("/"):
            return None
        if sig.slash_join and flat and not flat.startswith("/"):
            pieces, flat = [Piece("/")] + pieces, "/" + flat
        path = flat.split("?")[0]
        routes = self.kb.match(path.rstrip("/") or "/", method) if path.startswith("/") else []
        if not routes or method is None and len({r.method for r in routes}) > 1:
            return None
        site = CallSite(call, method, None, path_expr, UrlInfo("relative", pieces, 0, len(path)), "client")
        return site, routes[0]

    def _calls_returning_answers(self) -> None:
        """Calls of other files' functions that return the answer of their v1 call (`pods.get_pod(pod_id)`): that
        answer is the route's JSON here too; where it flows, and whether it goes out of the rewrite's sight."""
        from codemod.analysis.facts import ReturnedCall

        if not self.return_refs:
            return
        routes = {route.op.id: route for route in self.kb.routes}
        for call in self.ix.calls:
            ref = self.return_refs.get(dotted(call.func) or "") or self.return_refs.get(self._method_spelling(call))
            route = routes.get(ref.sig.op) if ref is not None else None
            if route is None:
                continue
            fact = ReturnedCall(call, ref.origin, ref.sig, route, ref.blocked)
            self.facts.returned.append(fact)
            expr: cst.CSTNode = call
            if isinstance(self.parent(expr), cst.Await):
                expr = self.parent(expr)
            self._reading = fact
            self._flow(expr, Typed(route, ref.sig.shape), depth=0)
            fact.escapes = self.escapes(expr, ref.sig.shape)
        self._reading = None

    def _method_spelling(self, call: cst.Call) -> str:
        """`Client.get_pod` for a method called on an instance made of a class by its name: `Client(key).get_pod()`,
        or `c.get_pod()` with `c = Client(key)` the one binding of `c` in its scope; "" otherwise."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return ""
        made = func.value
        if isinstance(made, cst.Name):
            scope = self.scope_of(call)
            assigned = self.ix.assigns.get(id(scope) if scope is not None else None, {}).get(made.value, [])
            made = assigned[0][0] if len(assigned) == 1 else None
        cls = dotted(made.func) if isinstance(made, cst.Call) else None
        return f"{cls}.{func.attr.value}" if cls else ""

    def _through_reads(self, through) -> None:
        """The answer of a call through another file's helper is the route's JSON (what the helper returns):
        where it flows, as for a call of this file (`for t in client.get("/templates"): t["imageName"]`)."""
        route = through.route
        shape = "list" if self.kb.list_key(route) else ("object" if route.op.response else None)
        if shape is None:
            return
        call_expr: cst.CSTNode = through.call
        if isinstance(self.parent(call_expr), cst.Await):
            call_expr = self.parent(call_expr)
        self._reading = through
        self._flow(call_expr, Typed(route, shape), depth=0)

    def _returns(self) -> tuple:
        """This module's functions, and its client classes' methods (`Client.get_pod`), that return the answer of
        one of its v1 calls, every `return` of that answer being theirs (codemod.crossfile.ReturnSig): their callers
        in other files read it."""
        from codemod.crossfile import ReturnSig

        units = {id(cf) for cf in self.facts.calls}
        out = []
        for name, (typed, cf) in sorted(self.fn_returns.items()):
            fns = self.ix.functions.get(name, [])
            qualname = self.qualname(fns[0]) if len(fns) == 1 else None
            if id(cf) not in units or qualname is None or cf.route.op.shape == "billing":
                continue  # (a billing list: v1 answered one record per bucket, v2 one per resource and bucket)
            if all(self.scope_of(ret) is fns[0] and self.returns_only(ret, cf.call)
                   for ret, _typed, reading in self.returned if reading is cf) and all(
                    reading is cf for ret, _typed, reading in self.returned if self.scope_of(ret) is fns[0]):
                out.append(ReturnSig(qualname, cf.route.op.id, typed.shape))
        return tuple(out)

    def _module_facts(self):
        """Module-level string constants (bound once, to a literal spelled as its value) and `from X import`
        edges: what other files of the run may read of this one (codemod.crossfile)."""
        from codemod.analysis.syntax import literal_value
        from codemod.crossfile import ModuleFacts

        constants = {}
        for name, entries in self.ix.assigns.get(None, {}).items():
            literal = constant_literal(entries[0][0]) if len(entries) == 1 else None
            if literal is not None:
                value, editable = literal_value(literal)
                if value is not None and editable:
                    constants[name] = value
        imports = []
        stack = list(self.module.body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                        module = (dotted(small.module) or "") if small.module is not None else ""
                        for alias in small.names:
                            if isinstance(alias.name, cst.Name):
                                local = alias.asname.name.value if alias.asname is not None and isinstance(
                                    alias.asname.name, cst.Name) else alias.name.value
                                imports.append((len(small.relative), module, alias.name.value, local))
            elif isinstance(stmt, (cst.If, cst.Try)):  # `try: from .consts import BASE except ImportError: ...`
                blocks = [stmt.body] + [h.body for h in getattr(stmt, "handlers", ())]
                for extra in (stmt.orelse, getattr(stmt, "finalbody", None)):
                    if extra is not None:
                        blocks.append(extra.body)
                for block in blocks:
                    if isinstance(block, cst.IndentedBlock):
                        stack.extend(block.body)
        for stmt in self.module.body:  # `import rp`, `import pkg.api as api`: a module imported whole
            for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()):
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        module = dotted(alias.name) or ""
                        local = alias.asname.name.value if alias.asname is not None and isinstance(
                            alias.asname.name, cst.Name) else module.split(".")[0]
                        if module and (alias.asname is not None or "." not in module) and not _installed(module):
                            imports.append((0, module, "", local))
        helpers = self._module_helpers()
        fields = self._class_fields(constants)
        views = tuple(sorted(self.compat_answers))
        returns = self._returns()
        method_calls = tuple(sorted({  # (`requests.get(...)`: a module's function, no method)
            (call.func.attr.value, dotted(call.func) or "", self._method_spelling(call)) for call in self.ix.calls
            if isinstance(call.func, cst.Attribute) and not (isinstance(call.func.value, cst.Name)
                                                             and call.func.value.value in self.ix.imports)}))
        if not constants and not imports and not helpers and not views and not returns and not method_calls:
            return None
        whole = {local for _level, _module, name, local in imports if not name} | {
            local for level, module, name, local in imports if level and not module}  # `from . import constants`
        attributes = sorted({f"{use.value}.{parent.attr.value}" for scope in self.ix.names.values()
                             for local in whole for use in scope.get(local, ())
                             if isinstance(parent := self.parent(use), cst.Attribute) and parent.value is use})
        factories = tuple((f.name, "factory", f"{f.name}()") for f in self.facts.client_factories)
        return ModuleFacts(self.path, constants, tuple(imports), helpers, relative=bool(self.facts.relative),
                           attributes=tuple(attributes), fields=fields,
                           instances=tuple(sorted(self._instances(helpers, returns) + factories)),
                           views=views, returns=returns, method_calls=method_calls)

    def _instances(self, helpers: tuple, returns: tuple = ()) -> tuple:
        """(name, "instance" | "factory", class) of the module-level instances of this module's client classes
        (`SESSION = RunPodSession()`) and of its functions that return one (annotated `-> RunPodSession`, or every
        `return RunPodSession(...)`): another file calls the class's helpers, or its methods returning an answer
        (RETURNS), on what it imports."""
        classes = {sig.name.split(".")[0] for sig in helpers + returns if "." in sig.name}
        if not classes:
            return ()

        def made(value) -> str | None:
            return value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                and value.func.value in classes else None

        out = []
        for name, entries in self.ix.assigns.get(None, {}).items():
            if len(entries) == 1 and made(entries[0][0]) is not None:
                out.append((name, "instance", made(entries[0][0])))
        for name, fns in self.ix.functions.items():
            fn = fns[0] if len(fns) == 1 and isinstance(self.parent(fns[0]), cst.Module) else None
            if fn is None:
                continue
            returned = fn.returns.annotation if fn.returns is not None else None
            if isinstance(returned, cst.SimpleString):  # `-> "RunPodSession"`
                returned = cst.Name(returned.evaluated_value) if returned.evaluated_value in classes else None
            cls = returned.value if isinstance(returned, cst.Name) and returned.value in classes else None
            if cls is None:
                values = {made(node.value) for node in descendants(fn, lambda n: isinstance(n, (
                    cst.Lambda, cst.FunctionDef, cst.ClassDef)) and n is not fn) if isinstance(node, cst.Return)}
                cls = values.pop() if len(values) == 1 and None not in values else None
            if cls is not None:
                out.append((name, "factory", cls))
        return tuple(sorted(out))

    def class_field_constant(self, name: str) -> cst.Name | None:
        """The module constant `Class.field` defaults to, a field of a module-level class: `api_url: str =
        DEFAULT_URL`, `field(default=...)`, `field(default_factory=lambda: os.environ.get("VAR", DEFAULT_URL))`
        (the value a run without the variable uses)."""
        cls_name, _, attr = name.partition(".")
        cls = self.ix.classes.get(cls_name)
        values = self.ix.class_attrs.get(id(cls), {}).get(attr, ()) if cls is not None \
            and isinstance(self.parent(cls), cst.Module) else ()
        if len(values) != 1:
            return None
        value = values[0]
        if isinstance(value, cst.Call) and self._origin(dotted(value.func) or "") == "dataclasses.field":
            given = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
            value = given.get("default")
            factory = given.get("default_factory")
            if value is None and isinstance(factory, cst.Lambda):
                value = factory.body
        if isinstance(value, cst.Call) and self._origin(dotted(value.func) or "") in ENV_GETTERS \
                and len(value.args) == 2 and value.args[1].keyword is None:
            value = value.args[1].value
        return value if isinstance(value, cst.Name) else None

    def field_defaults(self) -> set[int]:
        """id() of the module-constant reads that are a class field's default (`field(default_factory=lambda:
        os.environ.get("VAR", DEFAULT_URL))`): the files that read the field decide on the constant."""
        return {id(constant) for field_name, _constant in (self.facts.module_facts.fields
                                                            if self.facts.module_facts is not None else ())
                if (constant := self.class_field_constant(field_name)) is not None}

    def _class_fields(self, constants: dict) -> tuple:
        """(`Class.field`, the module constant it defaults to) of this module's classes: another file reads
        `self.settings.api_url` of an instance made there as it reads the constant (codemod.crossfile)."""
        out = []
        for cls_name, cls in self.ix.classes.items():
            if not isinstance(self.parent(cls), cst.Module):
                continue
            for attr in self.ix.class_attrs.get(id(cls), {}):
                constant = self.class_field_constant(f"{cls_name}.{attr}")
                if constant is not None and constant.value in constants:
                    out.append((f"{cls_name}.{attr}", constant.value))
        return tuple(sorted(out))

    # ------------------------------------------------------------- positions
    def where(self, node: cst.CSTNode) -> tuple[int, int, str]:
        try:
            p = self.pos[node].start
        except KeyError:
            return 0, 0, ""
        line = self.lines[p.line - 1] if 0 < p.line <= len(self.lines) else ""
        return p.line, p.column + 1, line.strip()

    _where = where

    def line_of(self, node: cst.CSTNode) -> int:
        """`where(node)[0]`, without generating code where CPython's `ast` already says (LazyPositions.line_of)."""
        try:
            return self.pos.line_of(node)
        except KeyError:
            return 0

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        cur: cst.CSTNode | None = node
        while cur is not None:
            if isinstance(cur, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return cur
            cur = self.ix.parent.get(id(cur))
        return None

    def code_of(self, node: cst.CSTNode) -> str:
        """Source of a node without its surrounding whitespace: a slice of the line when it fits on one
        or lines (libcst's code_for_node regenerates the node: slow); regenerated if unsure."""
        try:
            r = self.pos[node]
        except KeyError:
            r = None
        if r is not None and 0 < r.start.line <= r.end.line <= len(self.lines) and not self.odd_breaks \
                and not getattr(node, "lpar", None):  # positions leave a node's parentheses out
            if r.start.line == r.end.line:
                return self.lines[r.start.line - 1][r.start.column: r.end.column]
            # libcst renders a nested node without the indentation of its enclosing blocks: the
            # leading whitespace of the line its statement starts on
            stmt = self.statement_of(node)
            start = self.pos.get(stmt) if stmt is not None else None
            if start is not None:
                first = self.lines[start.start.line - 1]
                indent = first[: len(first) - len(first.lstrip(" \t"))]
                chunk = self.lines[r.start.line - 1: r.end.line]
                chunk[-1] = chunk[-1][: r.end.column]
                chunk[0] = chunk[0][r.start.column:]
                if all(line.startswith(indent) for line in chunk[1:]):
                    chunk[1:] = [line[len(indent):] for line in chunk[1:]]
                    return self.module.default_newline.join(chunk)
        return code(node, self.module).strip()

    def commented_statements(self) -> list[cst.CSTNode]:
        """Statements with a `# v1bridge:` comment line above them (an earlier run's flags)."""
        out: list[cst.CSTNode] = []
        stack: list[cst.CSTNode] = list(self.module.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                if any(line.comment is not None and line.comment.value.startswith("# v1bridge:")
                       for line in node.leading_lines):
                    out.append(node)
            if isinstance(node, cst.BaseCompoundStatement) or isinstance(node, (cst.BaseSuite, cst.Else,
                                                                                cst.ExceptHandler, cst.Finally)):
                stack.extend(c for c in node.children if isinstance(c, (cst.BaseStatement, cst.BaseSuite, cst.Else,
                                                                         cst.ExceptHandler, cst.Finally,
                                                                         cst.BaseCompoundStatement)))
        return out

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.ix.parent.get(id(node))

    def scope_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        scope = self.ix.scope_of.get(id(node))
        return scope if isinstance(scope, cst.FunctionDef) else None

    def calls_in(self, fn: cst.FunctionDef | None) -> list[cst.Call]:
        """The calls whose enclosing function is FN, in the module's order (indexed once: asking every function
        of a large module for its calls by scanning all of them was quadratic)."""
        if self._calls_by_fn is None:
            self._calls_by_fn = {}
            for call in self.ix.calls:
                self._calls_by_fn.setdefault(id(self.scope_of(call)), []).append(call)
        return self._calls_by_fn.get(id(fn), [])

    # ----------------------------------------------------------- call facts
    def _site_fact(self, site: CallSite) -> None:
        """Resolve a call site's route: a v1 call becomes a CallFact; v2 and job-API calls only mark the file."""
        info = site.url
        kb = self.kb
        if info is None:
            return
        if info.kind in ("runtime", "v2"):
            self.other_answers.add(id(site.call))
            if info.kind == "runtime":
                self.facts.serverless_runtime = True
            else:
                self.facts.uses_v2 = True
            helper = site.helper
            while helper is not None:  # helpers that also serve calls v1bridge must leave as they are
                self.facts.shared_helpers.add(id(helper.fn))
                helper = helper.inner.helper if helper.inner is not None else None
            return
        if info.kind in ("unknown", "relative"):
            flat = flatten(info.pieces)
            path = flat[info.path_start: info.path_end].lstrip(HOLE)
            routes = kb.match(path, site.method)
            if routes:
                if info.kind == "unknown" or flat.startswith(HOLE):
                    self.facts.unresolved.append((site, routes[0]))  # a base from elsewhere (env, argument)
                else:
                    self.facts.relative.append((site, routes[0]))  # no base at all: a server route, a test client
            return
        if info.kind == "wrong-host":
            flat = flatten(info.pieces)
            self.facts.unmatched.append((site, flat[info.path_start: info.path_end], []))
            return
        if info.kind != "v1":
            return
        flat = flatten(info.pieces)
        path = flat[info.path_start: info.path_end]
        if path.endswith("/") and len(path) > 1:
            path = path[:-1]
        routes = kb.match(path, site.method)
        if site.method is None and len({r.method for r in routes}) > 1:
            routes = []  # the method is not known and the path is several routes: no guess (flagged below)
        verb = None
        if not routes:
            verb = self._verb_choice(site, path)
            routes = [next(iter(verb.routes.values()))] if verb is not None else []
        if not routes:
            any_method = kb.match(path, None)
            if any_method and site.method is None:
                routes = any_method if len({r.v2_segments for r in any_method}) == 1 else []
            if not routes:
                fn = self.scope_of(site.call)
                own_path = flat[info.path_start:].lstrip("/")
                helper = self._helper(fn) if fn is not None else None
                # the call a helper makes for its callers (after a partial base, `.../v1/billing` + path)
                if helper is not None and (own_path.startswith(HOLE) or helper.tail_at is not None):
                    return  # the call a helper makes for its callers: each caller is a call site of its own
                if site.url.ours or (site.base is not None and site.base.ours):
                    # this service's v1, but no v1 route: a verb or segment only known at run time, or a
                    # route v1 never had; it cannot be migrated, and neither can what shares its base
                    self.facts.unmatched.append((site, path, self.kb.could_match(path, site.method, HOLE)))
                else:
                    self.facts.foreign.append(site)  # a /v1 on another host that is not a v1 route of ours
                return
        site.route = routes[0]
        cf = CallFact(site, routes[0], path, verb=verb)
        self._body_fact(cf)
        self.facts.calls.append(cf)

    def _verb_choice(self, site: CallSite, path: str) -> VerbChoice | None:
        """The last segment of the path is `{verb}` and a guard limits `verb` to values that are each one v1
        route of the same v2 call (`if verb not in ("start", "stop", "restart"): raise ...`)."""
        expr = site.url_expr
        if not path.endswith("/" + HOLE) or not isinstance(expr, cst.FormattedString) or site.method is None:
            return None
        last = expr.parts[-1] if expr.parts else None
        if not (isinstance(last, cst.FormattedStringExpression) and isinstance(last.expression, cst.Name)
                and not last.format_spec and not last.conversion):
            return None
        values = self.guarded_values(last.expression, site.call)
        if not values:
            return None
        routes = {}
        for value in values:
            matched = self.kb.match(path[:-1] + value, site.method)
            if len(matched) != 1 or matched[0].action_body is None:
                return None
            routes[value] = matched[0]
        if len({(r.v2_method, r.v2_segments) for r in routes.values()}) != 1:
            return None
        return VerbChoice(last, last.expression, routes)

    def _body_fact(self, cf: CallFact) -> None:
        """The dict literal a request body comes from: at the call, or one assignment of a name never mutated."""
        node = cf.site.body_expr
        if node is None or cf.route.op.request is None:
            return
        scope = self.scope_of(cf.call)
        if isinstance(node, cst.Name):
            assigned = self.ix.assigns.get(id(scope) if scope else None, {}).get(node.value)
            if not assigned or len(assigned) != 1:  # built elsewhere
                return
            if self._mutated(node.value, scope):
                writes = self._body_writes(node, assigned[0][1], cf, scope)
                if writes is None:  # built elsewhere
                    return
                cf.body_writes = writes
            node = assigned[0][0]
        self.read_keys.add(id(node))  # judged as a request body: its keys are not reported again
        if not isinstance(node, cst.Dict):
            return
        cf.body = node

    def _body_writes(self, use: cst.Name, assign: cst.CSTNode, cf: CallFact, scope) -> list[BodyWrite] | None:
        """The `name["k"] = v` statements that extend a body dict between its literal and the call, when that is
        all that happens to it there: each a statement of the function's body, or of an `if` (no else) that is
        one; literal keys; no other mutation; other reads only of keys v2 keeps. None otherwise."""
        if scope is None or not isinstance(scope.body, cst.IndentedBlock):
            return None
        top = scope.body.body
        assign_line = self.parent(assign)
        if assign_line not in top:
            return None
        call_stmt = self.statement_of(cf.call)
        start, end = self.where(assign)[0], self.where(call_stmt)[0]
        spec = self.kb.mappings.requests.get(cf.route.op.request) if cf.route.op.request else None
        writes = []
        for n in self.ix.names.get(id(scope), {}).get(use.value, []):
            line = self.where(n)[0]
            parent = self.parent(n)
            if n is use or isinstance(parent, cst.AssignTarget) and self.parent(parent) is assign:
                continue
            sub = parent if isinstance(parent, cst.Subscript) and parent.value is n else None
            key = sub.slice[0].slice.value if sub is not None and len(sub.slice) == 1 \
                and isinstance(sub.slice[0].slice, cst.Index) else None
            if sub is not None and isinstance(self.parent(sub), cst.AssignTarget):
                stmt = self.parent(self.parent(self.parent(sub)))
                if not (start < line < end and isinstance(key, cst.SimpleString) and str_of(key) is not None
                        and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                        and len(stmt.body[0].targets) == 1):
                    return None
                block = self.parent(stmt)
                if block is scope.body:
                    conditional = False
                else:
                    branch = self.parent(block)
                    if not (isinstance(branch, cst.If) and branch.orelse is None and branch in top
                            and isinstance(block, cst.IndentedBlock)):
                        return None
                    conditional = True
                writes.append(BodyWrite(stmt, key, stmt.body[0].value, conditional))
                continue
            if line >= end:
                continue  # after the call: not part of what is sent
            field = spec.fields.get(str_of(key) or "") if spec is not None and key is not None else None
            if field is None or field.to != str_of(key) or isinstance(self.parent(sub), (cst.Del, cst.AugAssign)):
                return None  # a read (or change) of a key v2 moves, or of the whole dict, before the call
        keys = [str_of(w.key) for w in writes]
        return writes if writes and len(set(keys)) == len(keys) else None

    def _mutated(self, name: str, scope) -> bool:
        for n in self.ix.names.get(id(scope) if scope else None, {}).get(name, []):
            p = self.parent(n)
            if isinstance(p, cst.Subscript) and isinstance(self.parent(p), cst.AssignTarget):
                return True
            if isinstance(p, cst.Attribute) and p.attr.value in ("update", "setdefault", "pop"):
                return True
        return False

    # ------------------------------------------------------------ v1 names
    def _compat_calls(self) -> None:
        """Calls of the generated compat module (`v1bridge_compat.call_v1(...)`, state 2 of a rewrite): working v2
        code that keeps a v1 shape on purpose. Listed for the audit; the v1 bodies and queries handed to them (a
        dict at the call, or the one dict a name passed there is bound to, and `name["k"] = v` on it) are theirs
        to convert, not v1 names left in the code."""
        from codemod.compat_call import MODULE_NAME

        if MODULE_NAME not in self.source:
            return
        for call in self.ix.calls:
            name = dotted(call.func) or ""
            if not name.startswith(MODULE_NAME + "."):
                continue
            self.facts.compat_calls.append((self.where(call)[0], name.split(".", 1)[1]))
            scope = self.scope_of(call)
            holder = self.parent(call)
            if isinstance(holder, cst.CompFor) and holder.iter is call:  # `[p for p in call_v1(...) if ...]`
                holder = self.parent(self.parent(holder))
            if isinstance(holder, cst.Await):  # `return await v1bridge_compat.av1_view(...)`
                holder = self.parent(holder)
            if isinstance(holder, cst.Return) and scope is not None:
                self.compat_answers.add(scope.name.value)  # `return v1bridge_compat.call_v1(...)`: a v1 answer
            bound = self._bound_name(self.parent(call) if isinstance(self.parent(call), cst.Await) else call)
            if bound is not None and scope is not None and any(  # `r = call_v1(...)`; `return r.json()` (or `r`)
                    (returned := returned_name(ret)) is not None and returned.value == bound[0]
                    for ret in self.ix.returns.get(id(scope), [])):
                self.compat_answers.add(scope.name.value)
            for arg in call.args:
                value = arg.value
                if isinstance(value, cst.Name):
                    assigned = self.ix.assigns.get(id(scope) if scope else None, {}).get(value.value, [])
                    for use in self.ix.names.get(id(scope) if scope else None, {}).get(value.value, []):
                        sub = self.parent(use)
                        if isinstance(sub, cst.Subscript) and sub.value is use and len(sub.slice) == 1 \
                                and isinstance(sub.slice[0].slice, cst.Index):
                            self.read_keys.add(id(sub.slice[0].slice.value))
                    value = assigned[0][0] if len(assigned) == 1 else None
                # each dict it may be (`params = {"desiredStatus": s} if s else None`, `body or {}`) and those in it
                stack = [value] if value is not None else []
                while stack:
                    d = stack.pop()
                    if isinstance(d, cst.IfExp):
                        stack += [d.body, d.orelse]
                    elif isinstance(d, cst.BooleanOperation):
                        stack += [d.left, d.right]
                    elif isinstance(d, cst.Dict):
                        self.read_keys.add(id(d))
                        for el in d.elements:
                            if isinstance(el, cst.DictElement):
                                self.read_keys.add(id(el.key))
                                stack.append(el.value)

    def _handed_in_reads(self) -> None:
        """v1-only names read on objects the analysis cannot type (a parameter, a loop variable over data
        from elsewhere): the audit reports them; the rewrite only changes what it can tie to a v1 call."""
        from codemod.knowledge import handed_in_fields

        names = handed_in_fields()
        out: list[tuple[str, cst.CSTNode, bool]] = []
        for sub in self.ix.subscripts:
            if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
                key_node = sub.slice[0].slice.value
                name = str_of(key_node)
                if name in names:
                    out.append((name, key_node, isinstance(self.parent(sub), cst.AssignTarget)))
        for call in self.ix.calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "get" and call.args:
                name = str_of(call.args[0].value)
                if name in names:
                    out.append((name, call.args[0].value, False))
        for d in self.ix.dicts:
            if id(d) in self.read_keys:
                continue
            for el in d.elements:
                if isinstance(el, cst.DictElement):
                    name = str_of(el.key)
                    if name in names:
                        out.append((name, el.key, True))
        self.facts.handed_in = [r for r in out if id(r[1]) not in self.read_keys and not self.foreign_answer(r[1])]

    def _v1_string(self, node: cst.CSTNode) -> None:
        """A v1 address in any string (a base constant, a URL in a dict)."""
        pieces = self.evaluate(node, self.scope_of(node), MAX_DEPTH - 1)
        if not any(p.node is not None for p in pieces):
            return
        flat = flatten(pieces)
        kind, start, host_edit = self.classify(flat)
        if kind == "runtime":
            self.facts.serverless_runtime = True
            return
        if kind == "v2":
            self.facts.uses_v2 = True
            return
        if kind != "v1" or host_edit is None or not SCHEME.match(flat):
            return
        self.facts.v1_strings.append((node, UrlInfo("v1", pieces, start, len(flat), host_edit), flat))


@functools.lru_cache(maxsize=None)
def _installed(module: str) -> bool:
    """A standard-library or installed distribution's module (`import requests`): never a file of the run, so
    it does not make the file share anything with the others (its text is not held back for the cross-file pass)."""
    import importlib.metadata
    import sys

    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top in _distribution_modules()


@functools.lru_cache(maxsize=1)
def _distribution_modules() -> frozenset:
    import importlib.metadata

    return frozenset(importlib.metadata.packages_distributions())


def analyze(source: str, path: str, *, v2_base: str | None = None, externals: dict | None = None,
            exports: dict | None = None) -> tuple[Analyzer, FileFacts]:
    """Parse and analyse one module. Never raises on bad input (the facts carry the error)."""
    an = Analyzer(source, path, knowledge(), v2_base, externals, exports)
    try:
        return an, an.run()
    except RecursionError:
        return an, FileFacts(path, error="too deeply nested to analyse")
