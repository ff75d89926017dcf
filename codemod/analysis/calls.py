"""Call sites and helpers: which calls are HTTP calls, with which method, URL, body and query.

HTTP layers: requests (functions, `Session`, `request()`), httpx (functions,
`Client(base_url=...)`, `AsyncClient`), aiohttp `ClientSession`, urllib
`Request`/`urlopen`; and the module's own helpers (`_request(method, path)`,
`_get(path)`, ...) inferred from the call they make with a parameter in the URL.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from codemod.analysis.syntax import Piece, dotted, flatten, pieces_from, str_of
from codemod.knowledge import HOLE, SCHEME, Route

VERBS = {"get", "post", "put", "patch", "delete", "head", "options"}
REQUEST_FUNCS = {"request", "stream"}
URLENCODE = {"urllib.parse.urlencode", "urllib.urlencode"}  # functions that encode a mapping as a query string

CLIENT_FACTORIES = {
    ("httpx", "Client"), ("httpx", "AsyncClient"), ("aiohttp", "ClientSession"),
    ("requests", "Session"), ("requests", "session"),
}
ASYNC_CLIENTS = {("httpx", "AsyncClient"), ("aiohttp", "ClientSession")}



@dataclass
class UrlInfo:
    kind: str  # v1 | v2 | runtime | unknown | relative
    pieces: list[Piece]
    path_start: int = 0  # where the v1 resource path starts in the flat text
    path_end: int = 0
    host_edit: tuple[int, int, str] | None = None  # flat span -> replacement (base address)
    base_known: bool = False
    ours: bool = False  # on one of this service's hosts (not only a /v1 path on another host)


@dataclass
class CallSite:
    call: cst.Call
    method: str | None
    method_node: cst.CSTNode | None  # Attribute name / SimpleString spelling the method
    url_expr: cst.CSTNode | None
    url: UrlInfo | None
    library: str  # requests | httpx | aiohttp | urllib | helper | client
    body_expr: cst.CSTNode | None = None
    body_kw: str | None = None  # keyword used for a JSON body at this call
    params_expr: cst.CSTNode | None = None
    returns: str = "response"  # response | json
    is_async: bool = False
    helper: "HelperInfo | None" = None
    json_at: int | None = None  # returns == "json": the answer is item `json_at` of the tuple returned (status, data)
    route: Route | None = None
    indirect: bool = False
    base: UrlInfo | None = None  # the base the URL is relative to: a client's base_url, a helper's prefix
    refs: list = field(default_factory=list)  # Name/Attribute nodes read to build the URL (its base included)
    # the call's arguments that are its query, through a helper whose `**kwargs` are the query (`get("/pods",
    # name=name)`, `get("/billing/pods", **q)`): keywords and `**mapping`, in the call's order
    query_args: tuple = ()


@dataclass
class HelperInfo:
    """A function of this module that makes the HTTP call for its caller."""

    fn: cst.FunctionDef
    params: list[str]
    path_param: str
    method_param: str | None
    method: str | None
    body_param: str | None
    kwargs_param: str | None
    base: UrlInfo | None
    base_kind: str
    returns: str
    is_async: bool
    slash_join: bool = False  # the helper puts "/" between base and path (callers may omit the leading slash)
    kwargs_query: bool = False  # its `**kwargs` are the query's parameters (`get(path, **params)`: `params=params`)
    tail_at: int | None = None  # a partial base (`.../v1/billing`): where its path part starts in the base text
    inner: "CallSite | None" = None  # the call the helper makes
    refs: list = field(default_factory=list)
    json_at: int | None = None  # every `return` is a tuple (`return resp.status, json.loads(raw)`): the answer's item
    # a helper of another file of the run (codemod.crossfile.HelperSig): `fn` stands for its signature only, its
    # request is not in this file (`inner` is None) and its base is the literal `origin`'s agreement moves
    sig: object = None
    origin: str | None = None

    @property
    def takes_whole_urls(self) -> bool:
        """Its callers give it whole URLs (`_get(url, params=None)`): it puts no base of its own before them."""
        return self.base is None or not self.base.pieces




class Calls:
    """Mixin of the file analyzer: call-site and helper inference."""

    def traced(self, refs: list, fn, *args):
        """Run an evaluation recording every name and attribute it reads into `refs`."""
        previous, self.refs = self.refs, refs
        try:
            return fn(*args)
        finally:
            self.refs = previous

    def _call_site(self, call: cst.Call) -> CallSite | None:
        if isinstance(self.parent(call), cst.Decorator):
            return None  # `@routes.get("/pods")`, `@app.post(...)`: a route a server defines, never a request
        if self.helper_refs:
            through = self._imported_site(call)
            if through is not None:
                return through
        func = call.func
        name = dotted(func) or ""
        origin = self._origin(name)
        scope = self.scope_of(call)
        args = [a for a in call.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        method = None
        method_node = None
        url_expr = None
        library = "client"
        base: UrlInfo | None = None
        base_refs: list = []
        base_kind = None
        attr = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else "")
        lib_root = origin.split(".")[0]
        is_async = isinstance(self.parent(call), cst.Await)
        opener = attr == "open" and isinstance(func, cst.Attribute) and self._is_opener(func.value, scope)
        if origin in ("urllib.request.Request", "urllib.request.urlopen") or opener:
            library = "urllib"
            url_expr = args[0].value if args else kw.get("url" if not opener else "fullurl")
            if not origin.endswith("Request") and isinstance(url_expr, cst.Call):
                return None  # the inner Request(...) is the call site
            mnode = kw.get("method")
            method = str_of(mnode) if mnode is not None else ("POST" if "data" in kw or len(args) > 1 else "GET")
            method_node = mnode if isinstance(mnode, cst.SimpleString) else None
        elif attr in VERBS | REQUEST_FUNCS:
            if lib_root in ("requests", "httpx") and origin.count(".") == 1:
                library = lib_root
            elif lib_root in ("requests", "httpx", "aiohttp", "urllib"):
                return None
            else:
                inherited = self._inherited_verb_site(call, scope) if attr in VERBS else None
                if inherited is not None:
                    return inherited
                # receiver: client object, maybe with base_url
                if isinstance(func, cst.Attribute):
                    factory, base, base_refs = self._client_of(func.value, scope)
                    if factory:
                        library = factory
                        # an async client's call, awaited later (`asyncio.gather(c.get(a), c.get(b))`)
                        is_async = is_async or self._async_client(func.value, scope)
                    elif self._is_helper_call(call):
                        helper_site = self._helper_site(call)
                        if helper_site is not None:
                            return helper_site
                        # a function of that name that makes no call of its own (a Protocol stub): an HTTP
                        # object handed in (`self.http.request(...)`), read like any client
                elif self._is_helper_call(call):
                    return self._helper_site(call)
            if attr in REQUEST_FUNCS:
                if not args:
                    mexpr = kw.get("method")
                    url_expr = kw.get("url")
                else:
                    mexpr = args[0].value
                    url_expr = args[1].value if len(args) > 1 else kw.get("url")
                method = (self.const_str(mexpr) or "").upper() or None if mexpr is not None else None
                method_node = mexpr if isinstance(mexpr, cst.SimpleString) else None
            else:
                method = attr.upper()
                method_node = func.attr if isinstance(func, cst.Attribute) else None
                url_expr = args[0].value if args else kw.get("url")
        elif self._is_helper_call(call):
            return self._helper_site(call)
        else:
            return None
        if url_expr is None:
            return None
        refs = list(base_refs)
        pieces = self.traced(refs, self.evaluate, url_expr, scope)
        if base is not None:
            base_kind = base.kind if base.kind in ("v1", "v2", "runtime") else None
        info = self._url_info(pieces, base_kind, base.ours if base is not None else False)
        if info is None:
            return None
        body_kw = "json"
        body = kw.get("json")
        if body is None and "data" in kw:
            body, body_kw = self._data_body(kw["data"], library, scope)
        return CallSite(call, method, method_node, url_expr, info, library, body, body_kw, kw.get("params"), "response",
                        is_async, base=base if base is not None and base_kind else None, refs=refs)

    def _data_body(self, data: cst.CSTNode, library: str, scope=None) -> tuple[cst.CSTNode | None, str | None]:
        """`data=json.dumps(payload)` sends `payload` as JSON; urllib's `data=` is the body itself.

        A local that is only ever None or `json.dumps(x)` (`data = None; if body is not None: data =
        json.dumps(body).encode()`) sends `x`."""
        if isinstance(data, cst.IfExp) and isinstance(data.orelse, cst.Name) and data.orelse.value == "None":
            data = data.body  # `json.dumps(body) if body is not None else None`
        if isinstance(data, cst.Call) and isinstance(data.func, cst.Attribute) and data.func.attr.value == "encode" \
                and isinstance(data.func.value, cst.Call):
            data = data.func.value  # json.dumps(body).encode()
        if isinstance(data, cst.Call) and self._origin(dotted(data.func) or "") == "json.dumps" and data.args:
            return data.args[0].value, "data-json"
        if isinstance(data, cst.Name) and scope is not None:
            values = [v for v, _stmt in self.ix.assigns.get(id(scope), {}).get(data.value, [])]
            dumped = [self._data_body(v, "", None)[0] for v in values
                      if not (isinstance(v, cst.Name) and v.value == "None")]
            if len(dumped) == 1 and dumped[0] is not None:
                return dumped[0], "data-json"
        if library == "urllib":
            return data, "data"
        return None, None

    def _url_info(self, pieces: list[Piece], base_kind: str | None, base_ours: bool = False) -> UrlInfo | None:
        flat = flatten(pieces)
        kind, start, host_edit = self.classify(flat, base_kind)
        if kind == "none":
            if any(p.param for p in pieces):
                return UrlInfo("param", pieces, 0, len(flat))
            return None
        end = len(flat)
        q = flat.find("?", start)
        if q >= 0:
            end = q
        return UrlInfo(kind, pieces, start, end, host_edit, base_known=base_kind is not None,
                       ours=self.is_ours(flat) or (base_ours and not SCHEME.match(flat)))

    def _client_of(self, receiver: cst.CSTNode, scope) -> tuple[str | None, UrlInfo | None, list]:
        """(library, base) of a client object: httpx.Client(base_url=...), requests.Session(), ..."""
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            # `super().request(method, url)` in a `requests.Session` subclass: the library's own request
            cls = self._class_of(scope)
            return (self.client_base(cls), None, []) if cls is not None else (None, None, [])
        value, scope = self._receiver_value(receiver, scope)
        if not isinstance(value, cst.Call):
            return None, None, []
        parts = self._factory(value)
        if parts not in CLIENT_FACTORIES:
            made = self._subclass_made(value)
            if made is None:
                return None, None, []
            parts, value, scope = made
        base_expr = next((a.value for a in value.args if a.keyword and a.keyword.value == "base_url"), None)
        if base_expr is None and parts[0] == "aiohttp":
            pos = [a.value for a in value.args if a.keyword is None]
            base_expr = pos[0] if pos else None
        if base_expr is None:
            return parts[0], None, []
        refs: list = []
        pieces = self.traced(refs, self.evaluate, base_expr, scope)
        flat = flatten(pieces)
        kind, start, host_edit = self.classify(flat)
        return parts[0], UrlInfo(kind, pieces, start, len(flat), host_edit, ours=self.is_ours(flat)), refs

    def _async_client(self, receiver: cst.CSTNode, scope) -> bool:
        """Is the receiver an `httpx.AsyncClient` or an `aiohttp.ClientSession` (its calls answer awaitables)?"""
        value, _scope = self._receiver_value(receiver, scope)
        return isinstance(value, cst.Call) and self._factory(value) in ASYNC_CLIENTS

    def factory_helpers(self) -> list[tuple[str, HelperInfo]]:
        """(name, the function as a helper) of this module's functions that return an httpx client made on a base of
        this service (`def rest(): return httpx.Client(base_url=config.REST_URL)`, or a module global made once and
        returned): what other files call on it (`rest().get("/templates")`) is a request to that base plus their
        path (httpx joins them)."""
        out = []
        for name, fns in sorted(self.ix.functions.items()):
            fn = fns[0] if len(fns) == 1 and isinstance(self.parent(fns[0]), cst.Module) else None
            made = self._returned_client(fn) if fn is not None else None
            if made is None or self._factory(made)[0] != "httpx":
                continue
            _library, base, refs = self._client_of(made, fn)
            if base is None or base.kind not in ("v1", "v2") or not any(p.node is not None for p in base.pieces) \
                    or any(p.text is None or p.param for p in base.pieces) or base.kind == "v1" and base.host_edit is None:
                continue
            is_async = self._factory(made) in ASYNC_CLIENTS
            inner = CallSite(made, None, None, None, None, "httpx", base=base, refs=list(refs))
            out.append((name, HelperInfo(fn, [], "url", None, None, None, "kwargs", base, base.kind, "response",
                                         is_async, slash_join=True, inner=inner, refs=list(refs))))
        return out

    def _returned_client(self, fn: cst.FunctionDef) -> cst.Call | None:
        """The one client construction every `return` of FN answers: `return httpx.Client(...)`, or a name whose every
        binding but None, in FN and at module level, is that construction (`global _rest; if _rest is None: _rest =
        httpx.Client(...); return _rest`)."""
        found = set()
        made: cst.Call | None = None
        for ret in self.ix.returns.get(id(fn), []):
            value = ret.value
            if isinstance(value, cst.Name):
                bound = [v for scope in (id(fn), None) for v, _stmt in self.ix.assigns.get(scope, {}).get(value.value, [])
                         if not (isinstance(v, cst.Name) and v.value == "None")]
                value = bound[0] if len(bound) == 1 else None
            if not isinstance(value, cst.Call) or not self.is_client_factory(value):
                return None
            found.add(id(value))
            made = value
        return made if len(found) == 1 else None

    def client_base(self, cls: cst.ClassDef) -> str | None:
        """The library of the client class CLS subclasses (`class RunPodSession(requests.Session)`), or None."""
        for arg in cls.bases:
            parts = self._factory_name(dotted(arg.value) or "")
            if parts in CLIENT_FACTORIES:
                return parts[0]
        return None

    def _subclass_made(self, made: cst.Call):
        """`RunPod(...)` of this module's `httpx.Client` subclass that overrides no `request()` and hands its base to
        the library (`super().__init__(base_url=REST, ...)`): (the library's factory, that `super().__init__(...)`
        call, its `__init__`), read as the client it makes."""
        cls = self.ix.classes.get(made.func.value) if isinstance(made.func, cst.Name) else None
        library = self.client_base(cls) if cls is not None else None
        if library is None:
            return None
        methods = {fn.name.value: fn for fns in self.ix.functions.values() for fn in fns
                   if self.ix.class_of_fn.get(id(fn)) is cls}
        init = methods.get("__init__")
        if "request" in methods or init is None:
            return None
        for call in self.calls_in(init):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call) \
                    and isinstance(func.value.func, cst.Name) and func.value.func.value == "super":
                return (library, "Client"), call, init
        return None

    def _inherited_verb_site(self, call: cst.Call, scope) -> CallSite | None:
        """`s.get("/pods")` on an instance of this module's `requests.Session` (or httpx client) subclass whose
        `request()` it overrides (`s = RunPodSession()`, or `self` in its methods): the verb it inherits sends
        through that override, a helper with the method fixed."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if isinstance(func.value, cst.Name) and func.value.value == "self":
            cls = self._class_of(scope)
        else:
            value, _scope = self._receiver_value(func.value, scope)
            cls = self.ix.classes.get(value.func.value) if isinstance(value, cst.Call) \
                and isinstance(value.func, cst.Name) else None
        if cls is None or self.client_base(cls) is None:
            return None
        methods = {fn.name.value: fn for fns in self.ix.functions.values() for fn in fns
                   if self.ix.class_of_fn.get(id(fn)) is cls}
        request = methods.get("request")
        info = self._helper(request) if request is not None and func.attr.value not in methods else None
        if info is None or info.method_param is None:
            return None
        verb = replace(info, params=[info.path_param], method=func.attr.value.upper(), method_param=None,
                       body_param=None, kwargs_param=info.kwargs_param or "kwargs", kwargs_query=False)
        return self._site_through(call, verb, func.attr.value)

    def _is_opener(self, receiver: cst.CSTNode, scope) -> bool:
        """Is the receiver a urllib opener (`opener = urllib.request.build_opener(...)`, `self.opener = ...`)?"""
        value, _scope = self._receiver_value(receiver, scope)
        return isinstance(value, cst.Call) and self._origin(dotted(value.func) or "") == "urllib.request.build_opener"

    def _receiver_value(self, receiver: cst.CSTNode, scope) -> tuple[cst.CSTNode | None, object]:
        """The value a call's receiver was bound to (a name in its scope or the module, `self.x`, a call), and the
        scope to evaluate it in."""
        value = None
        if isinstance(receiver, cst.Name):
            fn = scope
            while fn is not None and value is None:
                got = self.ix.assigns.get(id(fn), {}).get(receiver.value)
                if got:
                    value = got[0][0]
                fn = self.scope_of(fn)
            if value is None:
                got = self.ix.assigns.get(None, {}).get(receiver.value)
                if got:
                    value = got[0][0]
        elif isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
            cls = self._class_of(scope)
            if cls is not None:
                inst = self.ix.self_attrs.get(id(cls), {}).get(receiver.attr.value)
                if inst:
                    value, scope = inst[0][0], inst[0][1]
        elif isinstance(receiver, cst.Call):
            value = receiver
        if isinstance(value, cst.Await):
            value = value.expression
        return value, scope

    def _factory(self, call: cst.Call) -> tuple[str, str]:
        return self._factory_name(dotted(call.func) or "")

    def _factory_name(self, name: str) -> tuple[str, str]:
        origin = self._origin(name)
        return tuple(origin.rsplit(".", 1)) if "." in origin else ("", origin)  # type: ignore[return-value]

    def is_client_factory(self, call: cst.Call) -> bool:
        """`httpx.Client(...)`, `requests.Session()`, `aiohttp.ClientSession(...)` (however imported)."""
        return self._factory(call) in CLIENT_FACTORIES

    # ---------------------------------------------------------------- guards
    def guarded_values(self, name: cst.Name, at: cst.CSTNode) -> list[str] | None:
        """The string values a guard proves `name` holds where `at` runs: `at` inside `if name in X:`, or after
        `if name not in X: raise/return` in the same function body (X a literal tuple, list or set of strings,
        or a module constant holding one). None when no guard, or when the function assigns the name."""
        fn = self.scope_of(at)
        if fn is None or name.value in self.ix.assigns.get(id(fn), {}):
            return None
        child: cst.CSTNode = at
        cur = self.parent(at)
        while cur is not None and cur is not fn:
            if isinstance(cur, cst.If) and child is cur.body:
                values = self._membership(cur.test, name.value, cst.In)
                if values:
                    return values
            if isinstance(cur, cst.IndentedBlock) and self.parent(cur) is fn:
                for stmt in cur.body[: cur.body.index(child)] if child in cur.body else ():
                    if isinstance(stmt, cst.If) and stmt.orelse is None and self._exits_only(stmt.body):
                        values = self._membership(stmt.test, name.value, cst.NotIn)
                        if values:
                            return values
            child, cur = cur, self.parent(cur)
        return None

    def _membership(self, test: cst.CSTNode, name: str, op) -> list[str] | None:
        if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == name
                and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, op)):
            return None
        container = test.comparisons[0].comparator
        if isinstance(container, cst.Name):
            assigned = self.ix.assigns.get(None, {}).get(container.value, [])
            container = assigned[0][0] if len(assigned) == 1 else None
        if not isinstance(container, (cst.Tuple, cst.List, cst.Set)) or not container.elements:
            return None
        values = [str_of(el.value) if isinstance(el, cst.Element) else None for el in container.elements]
        return values if all(v is not None for v in values) else None

    @staticmethod
    def _exits_only(body: cst.BaseSuite) -> bool:
        stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
        last = stmts[-1] if stmts else None
        small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else last
        return isinstance(small, (cst.Raise, cst.Return))

    # --------------------------------------------------------------- helpers
    def _is_helper_call(self, call: cst.Call) -> bool:
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (call.func.value if isinstance(call.func, cst.Name) else None)
        return bool(name) and name in self.ix.functions

    def _fills_a_route(self, fn: cst.FunctionDef, kind: str, path: str, method: str | None) -> bool:
        """Does a function's request name one v1 route whole, its parameters only filling the route's own holes
        (`f"{API}/pods/{pod_id}"`)? Then it is no helper: the route is read in its module, and what a module-level
        function returns reaches its callers as an answer (codemod.crossfile.ReturnSig), not as a call they spell.
        A method is taken so only when it returns nothing (`stop_pod(self, pod_id)`): what a method returns is not
        followed into other modules, so one that returns an answer stays a helper its callers' reads go through."""
        qualname = self.qualname(fn)
        if kind != "v1" or qualname is None or not path.startswith("/") \
                or not path.strip("/").split("/")[0].strip(HOLE):
            return False
        if "." in qualname and any(ret.value is not None for ret in self.ix.returns.get(id(fn), ())):
            return False
        routes = self.kb.match(path.split("?")[0], method)
        return len(routes) == 1

    def _helper(self, fn: cst.FunctionDef) -> HelperInfo | None:
        if id(fn) in self.helpers:
            return self.helpers[id(fn)]
        self.helpers[id(fn)] = None  # recursion guard
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
        kwargs_param = fn.params.star_kwarg.name.value if isinstance(fn.params.star_kwarg, cst.Param) else None
        info = None
        for call in self.calls_in(fn):
            inner = self._helper_site(call, inner=True) if self._is_helper_call(call) else None
            if inner is None:
                inner = self._call_site_no_helper(call)
            if inner is None or inner.url is None:
                continue
            path_param = next((p.param for p in inner.url.pieces if p.param), None)
            if path_param is None:
                continue
            tail_at = None
            flat = flatten(inner.url.pieces)
            hole_at = next(i for i, p in enumerate(inner.url.pieces) if p.param == path_param)
            prefix_pieces = inner.url.pieces[:hole_at]
            prefix_flat = flatten(prefix_pieces)
            if inner.helper is not None:
                base_kind = inner.helper.base_kind
                base = inner.helper.base
            else:
                kind, start, host_edit = self.classify(prefix_flat + "/pods")  # shape of a base followed by a path
                if inner.url.base_known:
                    kind = inner.url.kind
                on_client = kind == "relative" and not prefix_flat.strip(HOLE) and inner.base is not None \
                    and inner.base.kind in ("v1", "v2")  # `self._http.request(method, path)`: the client's base_url
                if kind == "relative":
                    kind = inner.base.kind if on_client else "v1" if self.v1_evidence else "unknown"
                base_kind = kind
                if (inner.url.base_known or on_client) and inner.base is not None and not prefix_flat.strip(HOLE):
                    base = inner.base  # `self.client.get(path)` on `httpx.Client(base_url=...)`: the client's base
                else:
                    ours = inner.url.ours if inner.url.base_known else self.is_ours(prefix_flat)
                    base = UrlInfo(kind, prefix_pieces, 0, len(prefix_flat), host_edit, ours=ours)
                    rest = prefix_flat[start:].rstrip("/")
                    if self._fills_a_route(fn, kind, flat[start:], inner.method):
                        continue  # `get_pod(pod_id)`: its caller gives an id, not a path; the route is read here
                    if kind == "v1" and rest.startswith("/") and HOLE not in rest \
                            and hole_at == len(inner.url.pieces) - 1 and not self.kb.match(rest, None):
                        # the parameter is the rest of the URL, after a path that is no route of its own
                        tail_at = start  # a partial base (`.../v1/billing`): its path leads every caller's path
            method_param = None
            method = inner.method
            if inner.helper is not None and inner.helper.method_param:
                method_param = self._arg_param(inner, inner.helper.method_param)
            elif inner.method_node is None and inner.method is None:
                mexpr = next((a.value for a in inner.call.args if a.keyword and a.keyword.value == "method"), None)
                if mexpr is None and inner.library != "urllib":  # urllib's Request(url, ...) has no method first
                    mexpr = inner.call.args[0].value if inner.call.args else None
                if isinstance(mexpr, cst.Name) and mexpr.value in params:
                    method_param = mexpr.value
            if isinstance(inner.method_node, cst.SimpleString) is False and inner.method is None and method_param is None:
                pass
            body_param = None
            body_expr = inner.body_expr
            if body_expr is None and inner.helper is None:  # `kwargs["json"] = body or {}` handed on as **kwargs
                body_expr = self.keyword_sent(inner.call, fn, "json")
            if isinstance(body_expr, cst.BooleanOperation) and isinstance(body_expr.operator, cst.Or) \
                    and isinstance(body_expr.right, (cst.Dict, cst.List)) and not body_expr.right.elements:
                body_expr = body_expr.left  # `json=body or {}`: the caller's body, an empty one when none is given
            if isinstance(body_expr, cst.Name) and body_expr.value in params:
                body_param = body_expr.value
            elif inner.helper is not None and inner.helper.body_param:
                body_param = self._arg_param(inner, inner.helper.body_param)
            kwargs_query = kwargs_param is not None and self._kwargs_query(inner, kwargs_param)
            returns = "json" if self._returns_json(fn, inner) else "response"
            json_at = self._tuple_json_at(fn) if returns == "response" and inner.helper is None else None
            returns = "json" if json_at is not None else returns
            info = HelperInfo(fn, params, path_param, method_param, method if method_param is None else None, body_param,
                              kwargs_param, base, base_kind, returns, isinstance(fn.asynchronous, cst.Asynchronous),
                              slash_join=prefix_flat.endswith("/"), inner=inner, refs=list(inner.refs),
                              tail_at=tail_at, json_at=json_at, kwargs_query=kwargs_query)
            break
        self.helpers[id(fn)] = info
        return info

    @staticmethod
    def _kwargs_query(inner: CallSite, kwargs_param: str) -> bool:
        """Are a helper's `**KWARGS_PARAM` the query of the request INNER makes: handed to the library as its query
        (`params=params`, `params=params or None`), or on as `**params` to a helper whose own are?"""
        if inner.helper is not None:
            return inner.helper.kwargs_query and any(
                a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == kwargs_param
                for a in inner.call.args)
        sent = inner.params_expr
        if isinstance(sent, cst.BooleanOperation) and isinstance(sent.operator, cst.Or) \
                and isinstance(sent.right, cst.Name) and sent.right.value == "None":
            sent = sent.left  # `params=params or None`: no query string when none is given
        return isinstance(sent, cst.Name) and sent.value == kwargs_param

    def keyword_sent(self, call: cst.Call, fn: cst.FunctionDef, key: str) -> cst.CSTNode | None:
        """The value CALL sends as keyword KEY through a dict of keywords FN builds itself and hands on as
        `**kwargs` (`kwargs = {"params": params}`, `kwargs["json"] = body or {}`), when it is set once."""
        star = next((a.value for a in call.args if a.star == "**" and isinstance(a.value, cst.Name)), None)
        assigned = self.ix.assigns.get(id(fn), {}).get(star.value, []) if star is not None else []
        if len(assigned) != 1 or not isinstance(assigned[0][0], cst.Dict):
            return None
        found = [el.value for el in assigned[0][0].elements if isinstance(el, cst.DictElement)
                 and str_of(el.key) == key]
        for use in self.ix.names.get(id(fn), {}).get(star.value, []):
            sub = self.parent(use)
            stmt = self.parent(self.parent(sub)) if isinstance(sub, cst.Subscript) else None
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and stmt.targets[0].target is sub \
                    and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) \
                    and str_of(sub.slice[0].slice.value) == key:
                found.append(stmt.value)
        return found[0] if len(found) == 1 else None

    def _arg_param(self, site: CallSite, param: str) -> str | None:
        """Which parameter of the enclosing function feeds `param` of the inner helper call."""
        expr = self._bind(site.helper, site.call).get(param) if site.helper else None
        return expr.value if isinstance(expr, cst.Name) else None

    def _enclosing_fn(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return self.scope_of(node)

    def _returns_json(self, fn: cst.FunctionDef, inner: CallSite) -> bool:
        if inner.helper is not None and inner.helper.returns == "json":
            return self._returned(inner.call, fn)
        for node in self.calls_in(fn):
            # `resp.json()`, or the body read and parsed by hand (`json.loads(resp.read())`, urllib)
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "json" \
                    or self._origin(dotted(node.func) or "") in ("json.loads", "json.load"):
                p = self.parent(node)
                while isinstance(p, (cst.Await, cst.IfExp, cst.BooleanOperation)):
                    p = self.parent(p)
                if isinstance(p, cst.Return) or self._returned_by_name(p, fn):
                    return True
        return False

    def _returned_by_name(self, stmt: cst.CSTNode, fn: cst.FunctionDef) -> bool:
        """`data = await resp.json()` ... `return data`: the name is bound once in the helper and returned as is."""
        if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name):
            return False
        name = stmt.targets[0].target.value
        if len(self.ix.assigns.get(id(fn), {}).get(name, [])) != 1:
            return False
        return any(isinstance(self.parent(use), cst.Return) for use in self.ix.names.get(id(fn), {}).get(name, []))

    def url_queries(self, expr: cst.CSTNode | None, scope, depth: int = 0) -> list[cst.CSTNode] | None:
        """The mappings a URL's query string is encoded from: `BASE + "/billing/pods?" + urlencode({...})`, also
        through a name bound once (`query = urllib.parse.urlencode(params)`). None when a part of the URL is a call
        the rewrite cannot read (its query, if any, is unknown)."""
        if expr is None or depth > 4:
            return []
        if isinstance(expr, cst.Name):
            assigned = self.ix.assigns.get(id(scope) if scope else None, {}).get(expr.value, [])
            if len(assigned) != 1:
                return []
            return self.url_queries(assigned[0][0], scope, depth + 1)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            left, right = self.url_queries(expr.left, scope, depth + 1), self.url_queries(expr.right, scope, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(expr, cst.FormattedString):
            out: list[cst.CSTNode] = []
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    got = self.url_queries(part.expression, scope, depth + 1)
                    if got is None:
                        return None
                    out += got
            return out
        if isinstance(expr, cst.Call) and self._origin(dotted(expr.func) or "") in URLENCODE:
            return [expr.args[0].value] if expr.args and expr.args[0].keyword is None else None
        return []

    def _tuple_json_at(self, fn: cst.FunctionDef) -> int | None:
        """A helper whose every `return` is a tuple of one length, one item of which is the parsed answer
        (`return resp.status, json.loads(raw)`; `payload = json.loads(err.read()); return err.code, payload`):
        that item's index. None when the answer is not in the same place in every return."""
        returns = self.ix.returns.get(id(fn), [])
        if not returns or not all(isinstance(r.value, cst.Tuple) for r in returns):
            return None
        sizes = {len(r.value.elements) for r in returns}  # type: ignore[union-attr]
        if len(sizes) != 1 or any(not isinstance(e, cst.Element) for r in returns for e in r.value.elements):  # type: ignore[union-attr]
            return None
        found = {i for r in returns for i, e in enumerate(r.value.elements)  # type: ignore[union-attr]
                 if self._parsed_answer(e.value, fn)}
        return found.pop() if len(found) == 1 else None

    def _parsed_answer(self, expr: cst.CSTNode, fn: cst.FunctionDef) -> bool:
        """`json.loads(...)`/`resp.json()` (awaited, in a conditional or `or`), or a name of FN bound once to one."""
        while isinstance(expr, (cst.Await, cst.IfExp, cst.BooleanOperation)):
            expr = expr.expression if isinstance(expr, cst.Await) else (
                expr.body if isinstance(expr, cst.IfExp) else expr.left)
        if isinstance(expr, cst.Name):
            assigned = self.ix.assigns.get(id(fn), {}).get(expr.value, [])
            return len(assigned) == 1 and not isinstance(assigned[0][0], cst.Name) \
                and self._parsed_answer(assigned[0][0], fn)
        return isinstance(expr, cst.Call) and (
            isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "json"
            or self._origin(dotted(expr.func) or "") in ("json.loads", "json.load"))

    def _returned(self, node: cst.CSTNode, fn) -> bool:
        p = self.parent(node)
        if isinstance(p, cst.Await):
            p = self.parent(p)
        return isinstance(p, cst.Return)

    def _call_site_no_helper(self, call: cst.Call) -> CallSite | None:
        site = self._call_site(call)
        return site if site is not None and site.helper is None else site

    def _bind(self, helper: HelperInfo | None, call: cst.Call) -> dict[str, cst.CSTNode]:
        if helper is None:
            return {}
        params = list(helper.params)
        if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            params = params[1:]
        bound: dict[str, cst.CSTNode] = {}
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        for name, value in zip(params, positional):
            bound[name] = value
        for a in call.args:
            if a.keyword is not None:
                bound[a.keyword.value] = a.value
        return bound

    def _helper_site(self, call: cst.Call, inner: bool = False) -> CallSite | None:
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value  # type: ignore[union-attr]
        fns = self.ix.functions.get(name, [])
        if len(fns) != 1:
            return None
        fn = fns[0]
        if self._enclosing_fn(call) is fn:
            return None
        helper = self._helper(fn)
        if helper is None:
            return None
        return self._site_through(call, helper, name, inner)

    def _imported_site(self, call: cst.Call) -> CallSite | None:
        """A call through a helper of another file of the run that its callers plan (codemod.crossfile): read like
        a call through a helper of this file, on that helper's signature and base."""
        if isinstance(call.func, cst.Name) and call.func.value in self.ix.functions:
            return None  # a function of this module by that name
        found = self._imported_helper(call)
        if found is None:
            return None
        ref, sig = found
        if ref.kind == "local" or not (sig.readable or sig.api == "v2") or sig.name in ref.blocked:
            return None
        helper = self._imported_helper_info(ref.origin, sig)
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value  # type: ignore
        site = self._site_through(call, helper, name)
        if site is not None:
            self.planned_through.add(id(call))
        return site

    def _imported_helper_info(self, origin: str, sig) -> HelperInfo:
        """The HelperInfo standing for a helper of ORIGIN: its parameters (and their defaults) as a bodiless
        function, its base as a literal that is not part of this file (edits planned on it are this file's word on
        moving that helper's base, codemod.crossfile)."""
        key = (origin, sig.name)
        cache = self.__dict__.setdefault("_imported_helpers", {})
        if key in cache:
            return cache[key]
        defaults = dict(sig.defaults)
        params = ", ".join(p + (f"={defaults[p]}" if p in defaults else "") for p in sig.params)
        if sig.kwargs_param:
            params += (", " if params else "") + f"**{sig.kwargs_param}"
        fn = cst.parse_statement(f"{'async ' if sig.is_async else ''}def {sig.name.split('.')[-1]}({params}): pass\n")
        if sig.whole_urls:  # the caller's URL is the whole of it, read at the call
            base = UrlInfo("v1", [])
        else:
            node = cst.SimpleString('"' + sig.base + '"')
            kind, _start, host_edit = self.classify(sig.base + "/pods")
            base = UrlInfo(kind, [Piece(sig.base, node)], 0, len(sig.base), host_edit, ours=self.is_ours(sig.base))
        info = HelperInfo(fn, list(sig.params), sig.path_param, sig.method_param, sig.method, sig.body_param,
                          sig.kwargs_param, base, sig.api, sig.returns, sig.is_async, slash_join=sig.slash_join,
                          kwargs_query=sig.kwargs_query, sig=sig, origin=origin)
        cache[key] = info
        return info

    def _site_through(self, call: cst.Call, helper: HelperInfo, name: str, inner: bool = False) -> CallSite | None:
        """The call site of a call through HELPER (named NAME at the call): its route read from the path the call
        passes after the helper's base."""
        bound = self._bind(helper, call)
        path_expr = bound.get(helper.path_param)
        if path_expr is None:
            return None
        scope = self.scope_of(call)
        refs = list(helper.refs)
        pieces = self.traced(refs, self.evaluate, path_expr, scope)
        flat = flatten(pieces)
        if helper.slash_join and flat and not flat.startswith("/") and not SCHEME.match(flat):
            pieces = [Piece("/")] + pieces  # `f"{base}/{path.lstrip('/')}"`: "pods/x/stop" is /pods/x/stop
        if helper.tail_at is not None and helper.base is not None and not SCHEME.match(flat):
            pieces = pieces_from(helper.base.pieces, helper.tail_at) + pieces  # `.../v1/billing` + "/pods"
        base_kind = helper.base_kind if helper.base_kind in ("v1", "v2", "runtime") else None
        info = self._url_info(pieces, base_kind, helper.base.ours if helper.base is not None else False)
        if info is None:
            return None
        if info.kind == "relative" and not inner:
            info.kind = "unknown"
        method = helper.method
        method_node = None
        if helper.method_param:
            mexpr = bound.get(helper.method_param)
            if mexpr is None:  # not passed: the parameter's default (`method="GET"`)
                mexpr = next((p.default for p in (*helper.fn.params.params, *helper.fn.params.kwonly_params)
                              if p.name.value == helper.method_param), None)
                method_node = None
            else:
                method_node = mexpr if isinstance(mexpr, cst.SimpleString) else None
            method = (self.const_str(mexpr) or "").upper() or None if mexpr is not None else None
        if method is None and not helper.method_param:
            low = name.lower().strip("_")
            method = next((v.upper() for v in VERBS if low == v or low.endswith("_" + v) or low.startswith(v + "_")), None)
        body = bound.get(helper.body_param) if helper.body_param else None
        body_kw = helper.body_param
        query_args: tuple = ()
        if helper.kwargs_query:  # every keyword the helper does not name, and `**mapping`, is the query
            named = set(helper.params)
            query_args = tuple(a for a in call.args if a.star == "**" or (
                a.keyword is not None and a.keyword.value not in named))
        elif body is None and helper.kwargs_param:
            body = bound.get("json")
            body_kw = "json"
            if body is None and "data" in bound:
                body, body_kw = self._data_body(bound["data"], "helper")
        is_async = helper.is_async
        query = helper.sig.query_param if helper.sig is not None and helper.sig.query_param else "params"
        params = bound.get(query)
        if query_args:  # a mapping handed on whole (`**q`) is the query's expression, as `params=q` would be
            params = query_args[0].value if len(query_args) == 1 and query_args[0].star == "**" else None
        site = CallSite(call, method, method_node, path_expr, info, "helper", body, body_kw, params,
                        helper.returns, is_async, helper, base=helper.base if base_kind else None, refs=refs,
                        json_at=helper.json_at, query_args=query_args)
        return site
