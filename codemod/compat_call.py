"""State 2 at a call site: the `v1bridge_compat` call that replaces a call the rules cannot make plain v2.

The rules make a call plain v2 (state 1) when they can read its route, body,
query and answer reads. When one part is out of their reach (a GPU fallback
list, `reset`, a verb or query only known at run time, a body built
elsewhere, a v1-only field read on the answer), the decision
(`codemod.decide`) asks this module whether the call can go through the
generated compat module's run-time translation instead
(`v1bridge_compat.call_v1(send, method, url, json=..., params=...)`, see
/work/notes/compat-api.md): the call's own method, URL, body and query are
handed over unchanged, `send` is the client's own request (same receiver,
headers, timeouts, retries, test mocks), and the answer comes back in v1's
shape, so the reads of it stay as they are. A call this module cannot wrap
(urllib, aiohttp, a body sent as `data=`, a method only known at run time)
is left to state 3 (flagged).

Nothing is built until the decision keeps the change: `plan_wrap` returns
the `Wrap` data, `apply` (the `compat-call` edit kind) makes it on the tree
from the call's own argument nodes, `apply_import` (`compat-import`) adds the
module's import once.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import libcst as cst

from codemod.analysis.syntax import dotted, str_of

MODULE_NAME = "v1bridge_compat"
CALL_V1 = "call_v1"
ACALL_V1 = "acall_v1"

# HTTP layers whose one `request(method, url, **kw)` can stand for the call (its receiver or module)
_REQUEST_LAYERS = ("requests", "httpx", "client")
_VERBS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Wrap:
    """What the call becomes: `call_v1(<send>, "<METHOD>", <url>, json=<body>, params=<params>)`."""

    send: str  # source of the `send` callable (a lambda calling the client's request, or by_method(...))
    method: str
    url: int  # index in the call's arguments of the URL (or path)
    body: int | None  # ... of the JSON body
    params: int | None  # ... of the query
    others: tuple[int, ...]  # ... of the other keyword arguments (headers, timeout): handed to the client's request
    is_async: bool
    method_code: str | None = None  # the method as code (a helper's own `method` parameter), when not a literal
    star: int | None = None  # ... of a helper's `**kwargs` handed on (json=, params= and the rest: call_v1 sorts them)
    query: tuple[int, ...] = ()  # ... of the keywords (and `**mapping`s) that are the query, through a helper whose
    # `**kwargs` are its query (`get("/pods", name=name)`): one `params={"name": name}` in the first one's place


def _at(call: cst.Call, node) -> int | None:
    return next((i for i, a in enumerate(call.args) if node is not None and a.value is node), None)


def _wrap(call, send: str, site, others) -> tuple["Wrap | None", str]:
    url, body, params = _at(call, site.url_expr), _at(call, site.body_expr), _at(call, site.params_expr)
    if url is None or (site.body_expr is not None and body is None) or (site.params_expr is not None and params is None):
        return None, "its URL, body or query is not an argument of the call"
    query = () if params is not None else tuple(i for i, a in enumerate(call.args) if a in site.query_args)
    return Wrap(send, site.method, url, body, params, tuple(_at(call, a.value) for a in others), site.is_async,
                query=query), ""


def plan_wrap(an, site, refused_ok: bool = False) -> tuple[Wrap | None, str]:
    """(the wrap, "") when the call can go through the run-time translation; (None, why not) otherwise.

    REFUSED_OK: a body or query asking for what the mapping refuses by default (interruptible, a filter v2 cannot
    rebuild) is wrapped too: the compat module then refuses it at run time with the mapping's words, and the call
    stays flagged."""
    call = site.call
    if site.url is not None and site.url.kind == "wrong-host":
        return None, "it calls /v1 on the v2 host, where v1 was never served: what it should do is not known"
    if site.method is None:
        return None, "its HTTP method is only known at run time"
    if site.url_expr is None:
        return None, "its URL cannot be read"
    if site.body_kw not in (None, "json") and site.body_expr is not None and not (
            site.library == "helper" and site.helper is not None and site.body_kw == site.helper.body_param):
        return None, "its body is sent encoded (data=), which the run-time translation cannot read"
    strict = None if refused_ok else _strict_policy(an, site)
    if strict:
        return None, f"its body asks for {strict!r}, which v2 refuses and the compat module does not emulate"
    unsupported = None if refused_ok else _unsupported_query(an, site)
    if unsupported:
        return None, f"v2 cannot answer its v1 query parameter {unsupported!r}, not even at run time"
    if site.library == "helper":
        return _helper_wrap(an, site)
    if site.library not in _REQUEST_LAYERS or not isinstance(call.func, cst.Attribute):
        return None, f"calls through {site.library}, which the run-time translation does not drive"
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None, "its arguments are unpacked (*args/**kwargs)"
    attr = call.func.attr.value
    if attr in ("request", "stream"):
        if len(positional) > 2 or attr == "stream":
            return None, "its request is streamed or has extra positional arguments"
    elif len(positional) > 1:
        return None, "it has positional arguments after the URL"
    taken = {"json", "params", "url", "method"}
    others = tuple(a for a in call.args if a.keyword is not None and a.keyword.value not in taken)
    if any(a.keyword.value in ("data", "content", "files") for a in others):
        return None, "its body is sent encoded (data=), which the run-time translation cannot read"
    receiver = an.code_of(call.func.value)
    if "\n" in receiver:
        return None, "its client expression spans several lines"
    return _wrap(call, f"lambda method, url, **kw: {receiver}.request(method, url, **kw)", site, others)


def plan_helper_wrap(an, helper) -> tuple[Wrap | None, str]:
    """The request a helper makes for its callers (`requests.get(BASE_URL + path, ...)`, `self.session.request(
    method, f"{self.base}/{path}", **kwargs)`) wrapped in the run-time translation: every call through the helper,
    from any module, is then translated when it runs (its v1 path, body and query; a v2 path goes as it is), and
    the helper answers as v1 did. (None, why not) when its request cannot be handed over."""
    site = helper.inner
    if site is None:
        return None, "its request is made in another file of the run"
    call = site.call
    if helper.tail_at is not None:
        return None, "it joins the path to a partial base (.../v1/billing)"
    if not _path_ends_url(helper):
        return None, "it joins something after the path, where the translation puts the query"
    if isinstance(an.parent(call), cst.WithItem):
        return None, "its request is used as a context manager (`async with ... as resp`)"
    method_code = f'"{site.method}"' if site.method else helper.method_param
    if method_code is None:
        return None, "its HTTP method is only known at run time"
    if site.library not in _REQUEST_LAYERS or not isinstance(call.func, cst.Attribute):
        return None, f"it sends through {site.library}, which the run-time translation does not drive"
    if site.body_kw not in (None, "json") and site.body_expr is not None:
        return None, "it sends its body encoded (data=), which the run-time translation cannot read"
    star = None
    inherited = _super_request(an, helper)  # `super().request(method, url, *args, **kwargs)` of a Session subclass
    for i, a in enumerate(call.args):
        if a.star == "**" and isinstance(a.value, cst.Name) and i == len(call.args) - 1 and (
                a.value.value == helper.kwargs_param or _keywords_dict(an, helper.fn, a.value.value)):
            star = i
        elif a.star == "*" and inherited is not None and isinstance(a.value, cst.Name) \
                and isinstance(helper.fn.params.star_arg, cst.Param) \
                and a.value.value == helper.fn.params.star_arg.name.value:
            pass  # the override's own `*args`, handed on as they came
        elif a.star:
            return None, "its request's arguments are unpacked (*args)"
    positional = [a for a in call.args if a.keyword is None and not a.star]
    attr = call.func.attr.value
    if attr == "stream" or len(positional) > (2 if attr == "request" else 1):
        return None, "its request is streamed or has extra positional arguments"
    taken = {"json", "params", "url", "method"}
    others = tuple(a for a in call.args if a.keyword is not None and a.keyword.value not in taken)
    if any(a.keyword.value in ("data", "content", "files") for a in others):
        return None, "it sends its body encoded (data=), which the run-time translation cannot read"
    receiver = an.code_of(call.func.value) if inherited is None else inherited
    others = tuple(a for a in call.args if a.star == "*") + others
    if "\n" in receiver:
        return None, "its client expression spans several lines"
    wrap, why = _wrap(call, f"lambda method, url, **kw: {receiver}.request(method, url, **kw)", site, others)
    if wrap is None:
        return None, why
    from dataclasses import replace

    return replace(wrap, method=site.method or "", method_code=method_code, star=star), ""


def _super_request(an, helper) -> str | None:
    """`super(RunPodSession, self)` for `super().request(...)` in a method of a client subclass: the lambda handed to
    call_v1 cannot call `super()` bare (a lambda has no class cell and takes `method` first)."""
    call = helper.inner.call
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"
            and not receiver.args):
        return None
    qualname = an.qualname(helper.fn) or ""
    params = helper.fn.params.params
    if "." not in qualname or not params:
        return None
    return f"super({qualname.split('.')[0]}, {params[0].name.value})"


def _keywords_dict(an, fn, name: str) -> bool:
    """Is NAME a dict of request keywords the helper builds itself (`kwargs = {"params": params}`, then
    `kwargs["json"] = body or {}`), every key a literal the run-time translation sorts (json=, params=) or hands to
    the request as it is (headers=, timeout=)?"""
    assigned = an.ix.assigns.get(id(fn), {}).get(name, [])
    if len(assigned) != 1 or not isinstance(assigned[0][0], cst.Dict):
        return False
    keys = [str_of(el.key) if isinstance(el, cst.DictElement) else None for el in assigned[0][0].elements]
    for use in an.ix.names.get(id(fn), {}).get(name, []):
        sub = an.parent(use)
        if isinstance(sub, cst.Subscript) and sub.value is use:
            index = sub.slice[0].slice if len(sub.slice) == 1 else None
            keys.append(str_of(index.value) if isinstance(index, cst.Index) else None)
    return all(key is not None and key not in ("data", "content", "files", "url", "method") for key in keys)


def _strict_policy(an, site) -> str | None:
    """A body field (a literal key of the dict at the call) whose policy (mappings/data/requests.yaml) is strict by
    default in mappings/data/policies.yaml: the compat module refuses it as the proxy does without --emulate."""
    route = site.route
    rid = route.op.request if route is not None else None
    body = site.body_expr
    if isinstance(body, cst.Name):  # the one dict literal the name is bound to
        scope = an.scope_of(site.call)
        assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(body.value, [])
        body = assigned[0][0] if len(assigned) == 1 else None
    if rid is None or not isinstance(body, cst.Dict):
        return None
    spec = an.kb.mappings.requests.get(rid)
    policies = an.kb.mappings.policies
    for el in body.elements:
        key = str_of(el.key) if isinstance(el, cst.DictElement) else None
        field = spec.fields.get(key or "") if spec is not None else None
        policy = getattr(field, "policy", None) if field is not None else None
        if policy and getattr(policies.get(policy), "default", None) == "strict" and str_of(el.value) != "False" \
                and not (isinstance(el.value, cst.Name) and el.value.value == "False"):
            return key
    return None


def _unsupported_query(an, site) -> str | None:
    """A query parameter of the call (a literal key of its `params` dict, at the call or in the one dict its
    variable is bound to, or `params["k"] = v` on it) that mappings/data/queries.yaml marks `unsupported`."""
    route = site.route
    qid = route.op.query if route is not None else None
    if qid is None or site.params_expr is None and not site.query_args:
        return None
    spec = an.kb.mappings.queries[qid].params
    return next((k for k in query_keys(an, site) if k in spec and spec[k].unsupported), None)


def query_keys(an, site) -> list:
    """The literal keys of the call's query: its `params` dict (at the call, or the one dict its variable is bound
    to, and `params["k"] = v` on it) and the keywords that are its query."""
    node, keys = site.params_expr, []
    if isinstance(node, cst.Name):
        scope = an.scope_of(site.call)
        assigned = an.ix.assigns.get(id(scope) if scope else None, {}).get(node.value, [])
        for use in an.ix.names.get(id(scope) if scope else None, {}).get(node.value, []):
            sub = an.parent(use)
            if isinstance(sub, cst.Subscript) and sub.value is use and isinstance(sub.slice[0].slice, cst.Index):
                keys.append(str_of(sub.slice[0].slice.value))
        node = assigned[0][0] if len(assigned) == 1 else None
    if isinstance(node, cst.Dict):
        keys += [str_of(el.key) for el in node.elements if isinstance(el, cst.DictElement)]
    keys += [a.keyword.value for a in site.query_args if a.keyword is not None]
    return keys


def _helper_wrap(an, site) -> tuple[Wrap | None, str]:
    """A call through the module's own helper: `send` is the helper itself (`_request(method, path, json=)`), or
    the module's per-verb helpers joined by `v1bridge_compat.by_method(get=_get, post=_post, ...)`."""
    helper, call = site.helper, site.call
    if helper.tail_at is not None:
        return None, "its helper joins the path to a partial base (.../v1/billing)"
    if not _path_ends_url(helper):
        return None, "its helper joins something after the path, where the translation puts the query"
    if helper.json_at is not None or (helper.sig.answers_tuple if helper.sig is not None else _returns_tuple(an.ix.returns.get(id(helper.fn), []))):
        return None, "its helper answers a tuple, not the answer itself"
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value  # type: ignore[union-attr]
    head = an.code_of(func.value) + "." if isinstance(func, cst.Attribute) else ""
    if "\n" in head:
        return None, "its helper expression spans several lines"
    if any(a.star and a not in site.query_args for a in call.args):
        return None, "its arguments are unpacked (*args/**kwargs)"
    if helper.sig is not None and helper.sig.library:  # `rest().post(...)`: the library client's own request
        others = tuple(a for a in call.args if a.keyword is not None
                       and a.keyword.value not in ("json", "params", "url", "method"))
        if any(a.keyword.value in ("data", "content", "files") for a in others):
            return None, "its body is sent encoded (data=), which the run-time translation cannot read"
        return _wrap(call, f"lambda method, url, **kw: {an.code_of(func.value)}.request(method, url, **kw)", site,
                     others)
    taken = {helper.path_param, helper.method_param, helper.body_param, site.body_kw, "params",
             helper.sig.query_param if helper.sig is not None else None}
    bound = an._bind(helper, call)
    by_node = {id(v): p for p, v in bound.items()}
    if any(by_node.get(id(a.value)) not in taken for a in call.args if a.keyword is None and not a.star):
        send = _bound_verb_send(an, site, head + name)
        if send is None:
            return None, "its helper takes positional arguments the run-time translation cannot pass on"
        return _wrap(call, send, site, ())
    others = tuple(a for a in call.args if a.keyword is not None and a.keyword.value not in taken
                   and a not in site.query_args)
    if site.params_expr is not None and helper.kwargs_param is None and "params" not in helper.params \
            and not (helper.sig is not None and helper.sig.query_param):
        return None, "its helper has no query channel"
    if site.query_args and helper.method_param:  # the helper's own keywords would have to be the query
        return None, "its helper takes the query as its keyword arguments, which its send cannot hand on"
    body_arg = _param_arg(helper, "json")
    if helper.method_param:
        tail = (f", {body_arg}" if body_arg else "") + (", **kw" if helper.kwargs_param else "")
        send = (f"lambda method, path, json=None{', **kw' if helper.kwargs_param else ''}: {head}{name}("
                f"{helper.method_param}=method, {helper.path_param}=path{tail})")
        return _wrap(call, send, site, others)
    verbs = _verb_helpers(an, helper, name, whole=bool(head))
    v2_method = site.route.v2_method if site.route is not None and site.route.v2_method else site.method
    for method in dict.fromkeys((site.method, v2_method)):
        if method.lower() not in verbs:
            return None, f"no helper of the module sends {method}" + (
                f" (v2 answers it with {v2_method})" if method != site.method else "")
    if others or site.query_args and helper.sig is None:
        # (the query goes into the path the translation hands on, which ends the helper's URL)
        return None, "its per-verb helper takes other arguments the run-time translation cannot pass on"
    send = f"{MODULE_NAME}.by_method(" + ", ".join(f"{v}={head}{fn}" for v, fn in sorted(verbs.items())) + ")"
    return _wrap(call, send, site, ())


def _bound_verb_send(an, site, callee: str) -> str | None:
    """`v1bridge_compat.by_method(get=lambda path: _get(path, api_key))`: a per-verb helper with no body whose other
    arguments are the caller's own (a key, a timeout), given again on each call the translation makes with the
    helper's one method (None: another shape)."""
    helper, call = site.helper, site.call
    v2_method = site.route.v2_method if site.route is not None and site.route.v2_method else site.method
    if helper.method_param or helper.method not in ("GET", "DELETE") or v2_method != helper.method \
            or helper.body_param or site.body_expr is not None or site.params_expr is not None:
        return None
    args = []
    for arg in call.args:
        if arg.value is site.url_expr:
            args.append(("" if arg.keyword is None else arg.keyword.value + "=") + "path")
            continue
        code = an.code_of(arg).strip().rstrip(",").strip()
        if "\n" in code or arg.star or re.search(r"\bpath\b", code):
            return None
        args.append(code)
    if len(args) == len(call.args) and "path" not in " ".join(args):
        return None
    return f"{MODULE_NAME}.by_method({helper.method.lower()}=lambda path: {callee}({', '.join(args)}))"


def _path_ends_url(helper) -> bool:
    """Does the path the helper is given end the URL it requests (at every helper level)?"""
    while helper is not None:
        if helper.sig is not None:  # a helper of another file: as that file read it
            return helper.sig.ends_url
        inner = helper.inner
        if inner is None or inner.url is None or not inner.url.pieces:
            return False
        if inner.helper is None:
            return inner.url.pieces[-1].param == helper.path_param
        helper = inner.helper
    return False


def _returns_tuple(returns: list[cst.Return]) -> bool:
    """Does a helper whose own `return`s are RETURNS (the Indexer's `returns` of it) answer a tuple anywhere
    (`return resp.status_code, resp.json()`)?"""
    return any(isinstance(node.value, cst.Tuple) for node in returns)


def _param_arg(helper, kw: str) -> str | None:
    """How the JSON body reaches the helper: its body parameter, or `json=` through its **kwargs."""
    if helper.body_param:
        return f"{helper.body_param}={kw}"
    if helper.kwargs_param:
        return f"json={kw}"
    return None


def _verb_helpers(an, helper, name: str, whole: bool = False) -> dict[str, str]:
    """The module's per-verb helpers beside `name` (`_get`, `_post`, ...: one method each, path first, the body
    second when there is one), on the same base: verb -> function name."""
    out: dict[str, str] = {}
    if helper.sig is not None:  # per-verb helpers of another file: those this file imports with it, or its
        # module's (class's) others when the call names them through it (`api._post`, `client.post`)
        for local, ref in sorted(an.helper_refs.items()):
            if ref.origin != helper.origin or (ref.kind == "function") == whole:
                continue
            for sig in ref.sigs:
                if whole and (helper.sig not in ref.sigs or sig.name.rpartition(".")[0]
                              != helper.sig.name.rpartition(".")[0]):
                    continue
                if sig.method_param or sig.method is None or sig.is_async != helper.is_async or sig.answers_tuple \
                        or sig.params[:1] != (sig.path_param,) or sig.base != helper.sig.base:
                    continue
                if sig.body_param is not None and sig.params[1:2] != (sig.body_param,):
                    continue
                out.setdefault(sig.method.lower(), sig.name.rpartition(".")[2] if whole else local)
        return {v: f for v, f in out.items() if v in _VERBS}
    for fname, fns in an.ix.functions.items():
        if len(fns) != 1:
            continue
        other = an._helper(fns[0])
        if other is None or other.method_param or other.method is None or other.is_async != helper.is_async:
            continue
        if other.tail_at is not None or other.json_at is not None or other.params[:1] != [other.path_param]:
            continue
        if other.body_param is not None and other.params[1:2] != [other.body_param]:
            continue
        base, mine = other.base, helper.base
        if (base is None) != (mine is None) or base is not None and [p.node for p in base.pieces] != [
                p.node for p in mine.pieces]:
            continue
        out.setdefault(other.method.lower(), fname)
    return {v: f for v, f in out.items() if v in _VERBS}


def apply(node: cst.CSTNode, wrap: Wrap) -> cst.CSTNode:
    """The compat call, made of the call's own (already edited) argument nodes, their formatting kept."""
    if not isinstance(node, cst.Call):
        return node
    args = node.args
    send = cst.parse_expression(wrap.send)
    if wrap.others and isinstance(send, cst.Lambda) and isinstance(send.body, cst.Call):
        inner = list(send.body.args)
        at = len(inner) - 1 if inner and inner[-1].star == "**" else len(inner)
        inner[at:at] = [_bare(args[i]) for i in wrap.others]
        send = send.with_changes(body=send.body.with_changes(args=inner))
    # the call's own URL, body and query arguments keep their place, keyword and layout (a call written one
    # argument a line stays so); the send and the method lead, on the first argument's line
    query = wrap.query[0] if wrap.query else None
    kept = sorted(i for i in (wrap.url, wrap.body, wrap.params, wrap.star, query) if i is not None)
    first_comma = args[0].comma if isinstance(args[0].comma, cst.Comma) else cst.MaybeSentinel.DEFAULT
    method = cst.parse_expression(wrap.method_code) if wrap.method_code else cst.SimpleString(f'"{wrap.method}"')
    new_args = [cst.Arg(send), cst.Arg(method, comma=first_comma)]
    for n, i in enumerate(kept):
        arg = args[i]
        if i == wrap.star:
            pass
        elif i == wrap.url:
            arg = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
        elif i == wrap.body and (arg.keyword is None or arg.keyword.value != "json"):
            arg = _kw("json", arg.value).with_changes(comma=arg.comma)
        elif i == wrap.params and (arg.keyword is None or arg.keyword.value != "params"):
            arg = _kw("params", arg.value).with_changes(comma=arg.comma)
        elif i == query:
            arg = _kw("params", _query_dict([args[j] for j in wrap.query])).with_changes(comma=arg.comma)
        if n == len(kept) - 1:
            arg = arg.with_changes(comma=args[-1].comma)  # the call's own last comma (a trailing one, a newline)
        elif isinstance(args[kept[n + 1] - 1].comma, cst.Comma):
            arg = arg.with_changes(comma=args[kept[n + 1] - 1].comma)
        new_args.append(arg)
    fn = ACALL_V1 if wrap.is_async else CALL_V1
    return cst.Call(func=cst.Attribute(cst.Name(MODULE_NAME), cst.Name(fn)), args=new_args,
                    lpar=node.lpar, rpar=node.rpar, whitespace_before_args=node.whitespace_before_args,
                    whitespace_after_func=node.whitespace_after_func)


V1_VIEW = "v1_view"
AV1_VIEW = "av1_view"


@dataclass(frozen=True)
class View:
    """What a returned v2 answer becomes for callers that read it as v1 answered it: `v1_view("<kind>", <the
    answer>)`, with `send=<the client's call>` when the v1 record needs a v2 read of its own (an endpoint's
    gpuTypeIds: the GPU catalog), then awaited through `av1_view` when that call is async."""

    kind: str  # the response map (mappings/data/responses.yaml id)
    send: str | None
    is_async: bool
    includes: tuple[str, ...] = ()  # v1 fields the call asked for (`?includeMachine=true`: machine), the view builds
    asked: str | None = None  # code of the v1 query whose include flags the view honours when it runs


def apply_view(node: cst.CSTNode, view: View) -> cst.CSTNode:
    """The returned answer (already edited to v2) inside the v1 view its callers read."""
    if not isinstance(node, cst.BaseExpression):
        return node
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [cst.Arg(cst.SimpleString(f'"{view.kind}"'), comma=comma), cst.Arg(node)]
    if view.send is not None:
        args[-1] = args[-1].with_changes(comma=comma)
        args.append(_kw("send", cst.parse_expression(view.send)))
    if view.includes:
        args[-1] = args[-1].with_changes(comma=comma)
        names = ", ".join(f'"{name}"' for name in view.includes)
        args.append(_kw("includes", cst.parse_expression(f"({names},)" if len(view.includes) == 1 else f"({names})")))
    elif view.asked is not None:
        args[-1] = args[-1].with_changes(comma=comma)
        args.append(_kw("includes", cst.parse_expression(view.asked)))
    fn = AV1_VIEW if view.send is not None and view.is_async else V1_VIEW
    call = cst.Call(func=cst.Attribute(cst.Name(MODULE_NAME), cst.Name(fn)), args=args)
    return cst.Await(call) if fn == AV1_VIEW else call


CREATE_WITH_FALLBACK = "create_with_fallback"
ACREATE_WITH_FALLBACK = "acreate_with_fallback"
_CREATED = "v2_body"  # the parameter of the create lambda: the v2 body create_with_fallback sends


@dataclass(frozen=True)
class CreateWrap:
    """A plain v2 create with what v2 lacks kept around it: `create_with_fallback(lambda v2_body: <the call, its
    body replaced>, <the v2 body>, <choices>, at=..., rank_with=<send>, after=..., send=<send>)`."""

    body: int  # index in the call's arguments of the (already converted) body
    choices: str | None  # code
    at: str | None
    ranked: bool
    after: str | None  # code of the v1 fields PATCHed after the create
    send: str | None  # code of a send(method, path, **kw) on the client's own base, for the ranking and the PATCH
    is_async: bool


def relative_send(src, site) -> str | None:
    """`lambda method, path, **kw: <the call's client>.request(method, <its base> + path, <its other arguments>,
    **kw)`: the client's own call on a v2 path, made of a request whose URL is `<base> + "<path>"`,
    `f"{base}<path>"` or the path alone (a client with its base_url); None for any other shape."""
    call, url = site.call, site.url_expr
    if site.library not in _REQUEST_LAYERS or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value not in _VERBS or url is None or any(a.star for a in call.args):
        return None
    if isinstance(url, cst.BinaryOperation) and isinstance(url.operator, cst.Add) and str_of(url.right):
        base = src.code_of(url.left).strip() + " + path"
    elif isinstance(url, cst.FormattedString) and url.parts and isinstance(url.parts[-1], cst.FormattedStringText) \
            and url.parts[-1].value.startswith("/") and len(url.parts) > 1:
        head = url.parts[:-1]
        only = head[0] if len(head) == 1 and isinstance(head[0], cst.FormattedStringExpression) else None
        base = (src.code_of(only.expression).strip() if only is not None and only.conversion is None
                and only.format_spec is None else cst.Module([]).code_for_node(url.with_changes(parts=head))) + " + path"
    elif str_of(url) is not None and str_of(url).startswith("/"):
        base = "path"
    else:
        return None
    receiver = src.code_of(call.func.value)
    if "\n" in receiver or "\n" in base:
        return None
    others = [src.code_of(a).strip().rstrip(",").strip() for a in call.args if a.keyword is not None
              and a.keyword.value not in ("json", "params", "url", "method", "data", "content", "files")]
    if any("\n" in o for o in others):
        return None
    return f"lambda method, path, **kw: {receiver}.request(method, {', '.join([base, *others])}, **kw)"


def record_id(src, site) -> dict | None:
    """{"id": <code>} of the one expression of the call's URL that is not a literal (`f"/endpoints/{endpoint_id}"`,
    `BASE + "/pods/" + pod_id`): the id of the record an update converts its body against; None when not one."""
    found: list = []

    def walk(node) -> None:
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    walk(part.expression)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            walk(node.left)
            walk(node.right)
        elif not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not src.known_text(node, site.call):
            found.append(node)  # not a constant the analysis reads whole (a base)

    if site.url_expr is None:
        return None
    walk(site.url_expr)
    code = src.code_of(found[0]).strip() if len(found) == 1 else ""
    return {"id": code} if code and "\n" not in code else None


def _send_v2_body(node: cst.Call, at: int) -> tuple[cst.Lambda, cst.Arg]:
    """(`lambda v2_body: <the call with v2_body as its body argument>`, the body argument it had): the call the
    compat module makes with the v2 body it built."""
    args = list(node.args)
    body = args[at]
    args[at] = body.with_changes(value=cst.Name(_CREATED))
    return cst.Lambda(params=cst.Parameters([cst.Param(cst.Name(_CREATED))]),
                      body=node.with_changes(args=args, lpar=(), rpar=())), body


def apply_create(node: cst.CSTNode, wrap: CreateWrap) -> cst.CSTNode:
    """The compat create around the call's own (already edited) node: its body argument becomes the lambda's."""
    if not isinstance(node, cst.Call):
        return node
    create, body = _send_v2_body(node, wrap.body)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new_args = [cst.Arg(create, comma=comma), cst.Arg(body.value, comma=comma),
                cst.Arg(cst.parse_expression(wrap.choices or "None"))]
    extra = [("at", f'"{wrap.at}"' if wrap.at else None), ("rank_with", wrap.send if wrap.ranked else None),
             ("after", wrap.after), ("send", wrap.send if wrap.after and not wrap.ranked else None)]
    for name, code in extra:
        if code is not None:
            new_args[-1] = new_args[-1].with_changes(comma=comma)
            new_args.append(_kw(name, cst.parse_expression(code)))
    fn = ACREATE_WITH_FALLBACK if wrap.is_async else CREATE_WITH_FALLBACK
    return cst.Call(func=cst.Attribute(cst.Name(MODULE_NAME), cst.Name(fn)), args=new_args,
                    lpar=node.lpar, rpar=node.rpar)


ALL_PAGES = "all_pages"
AALL_PAGES = "aall_pages"


@dataclass(frozen=True)
class Pages:
    """A v1 list call whose filters v2 ignores: `all_pages(<send>, "<v2 path>" or its URL, <its v1 query>, op=...)`,
    every page of the v2 list with the v1 filters applied to its records (v2's records, v2's field names)."""

    send: str
    path: str
    params: str | None  # code of the query
    op: str
    is_async: bool
    url: int | None = None  # the call's URL argument, given instead of the path (a helper given whole URLs)


def apply_pages(node: cst.CSTNode, pages: Pages) -> cst.CSTNode:
    """The list call replaced by the compat module's pages of it (an `await` around it stays)."""
    if not isinstance(node, cst.Call):
        return node
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    path = node.args[pages.url].value if pages.url is not None else cst.SimpleString(f'"{pages.path}"')
    args = [cst.Arg(cst.parse_expression(pages.send), comma=comma), cst.Arg(path, comma=comma)]
    if pages.params is not None:
        args.append(cst.Arg(cst.parse_expression(pages.params), comma=comma))
    args.append(_kw("op", cst.SimpleString(f'"{pages.op}"')))
    fn = AALL_PAGES if pages.is_async else ALL_PAGES
    return cst.Call(func=cst.Attribute(cst.Name(MODULE_NAME), cst.Name(fn)), args=args, lpar=node.lpar,
                    rpar=node.rpar)


def _query_dict(args: list[cst.Arg]) -> cst.Dict:
    """`{"name": name, **q}` of the call's keywords and `**mapping`s that are its query."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [cst.StarredDictElement(a.value) if a.star == "**" else
                cst.DictElement(cst.SimpleString(f'"{a.keyword.value}"'), a.value) for a in args]
    return cst.Dict([el.with_changes(comma=comma) for el in elements[:-1]] + elements[-1:])


WITH_V1_BODY = "with_v1_body"
AWITH_V1_BODY = "awith_v1_body"


@dataclass(frozen=True)
class BodyWrap:
    """A call on its v2 route whose v1 body is converted when it runs (values only known then): `with_v1_body(
    lambda v2_body: <the call, its body replaced>, "<v1 operation>", <the v1 body>, send=<the client's call>)`."""

    body: int  # index in the call's arguments of the v1 body
    op: str  # the v1 operation (mappings/data/operations.yaml id) whose request map converts it
    send: str | None  # code of a send(method, path) on the client, for the v2 reads a conversion needs (the catalog)
    is_async: bool
    ids: dict | None = None  # an update: {"id": <code>} of the record (a conversion may read it first)


def apply_body(node: cst.CSTNode, wrap: BodyWrap) -> cst.CSTNode:
    """The call (already edited to its v2 route) inside the compat body converter; its body argument becomes the
    lambda's `v2_body`."""
    if not isinstance(node, cst.Call):
        return node
    create, body = _send_v2_body(node, wrap.body)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new_args = [cst.Arg(create, comma=comma), cst.Arg(cst.SimpleString(f'"{wrap.op}"'), comma=comma),
                cst.Arg(body.value)]
    if wrap.send is not None:
        new_args[-1] = new_args[-1].with_changes(comma=comma)
        new_args.append(_kw("send", cst.parse_expression(wrap.send)))
    if wrap.ids:
        new_args[-1] = new_args[-1].with_changes(comma=comma)
        new_args.append(_kw("ids", cst.parse_expression(
            "{" + ", ".join(f'"{key}": {code}' for key, code in wrap.ids.items()) + "}")))
    fn = AWITH_V1_BODY if wrap.is_async else WITH_V1_BODY
    return cst.Call(func=cst.Attribute(cst.Name(MODULE_NAME), cst.Name(fn)), args=new_args,
                    lpar=node.lpar, rpar=node.rpar)


def _bare(arg: cst.Arg) -> cst.Arg:
    return arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                                       cst.SimpleWhitespace("")))


# isort's sections, in their order (its defaults: known_future_library, stdlib, default_section THIRDPARTY)
_SECTIONS = ("future", "stdlib", "third", "first", "local")


class ImportLine(str):
    """The statement importing the compat module, with the top-level names the project's own code has there
    (isort's first party: what it finds beside the compat module), to place it as isort would."""

    first_party: frozenset = frozenset()

    def __new__(cls, line: str, first_party=frozenset()):
        self = super().__new__(cls, line)
        self.first_party = frozenset(first_party)
        return self


def _import_key(stmt: cst.SimpleStatementLine, first_party: frozenset) -> tuple[int, int, str] | None:
    """(section, 0 for `import x` / 1 for `from x import`, module) of a one-import statement, isort's order."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)):
        return None
    node = stmt.body[0]
    if isinstance(node, cst.ImportFrom):
        dots = "." * len(node.relative)
        module = dots + ((dotted(node.module) or "") if node.module is not None else "")
        kind = 1
    else:
        module = dotted(node.names[0].name) or ""
        kind = 0
    top = module.split(".")[0]
    if module.startswith("."):
        section = "local"
    elif top == "__future__":
        section = "future"
    elif top in sys.stdlib_module_names:
        section = "stdlib"
    elif top in first_party or top == MODULE_NAME:
        section = "first"
    else:
        section = "third"
    return _SECTIONS.index(section), kind, module.lower()


def apply_import(node: cst.CSTNode, line: str) -> cst.CSTNode:
    """The compat module's import where isort puts it: in its section (first party, or local for a relative
    import) in sorted order, or as a section of its own after the sections before it (one blank line between
    sections); nothing when the module imports it already. A module without imports gets it after its docstring."""
    if not isinstance(node, cst.Module):
        return node
    first_party = getattr(line, "first_party", frozenset())
    body = list(node.body)
    new = cst.parse_statement(line.rstrip("\n") + "\n")
    key = _import_key(new, first_party)
    imports: list[tuple[int, tuple]] = []  # the leading run of imports: (index, key)
    start = 1 if body and _is_docstring(body[0]) else 0
    for i in range(start, len(body)):
        stmt = body[i]
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
        if not smalls or not all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in smalls):
            break
        for s in smalls:
            names = list(s.names) if not isinstance(s.names, cst.ImportStar) else []
            if any(dotted(a.name) == MODULE_NAME for a in names):
                return node
        found = _import_key(stmt, first_party)
        imports.append((i, found if found is not None else (key[0] if key else 0, 0, "")))
    blank = [cst.EmptyLine()]
    if not imports:  # after the docstring, in the place of the statement it goes before
        if start < len(body):
            new = new.with_changes(leading_lines=body[start].leading_lines)
            body[start] = body[start].with_changes(leading_lines=blank)
        body.insert(start, new)
        return node.with_changes(body=body)
    same = [(i, k) for i, k in imports if k[0] == key[0]]
    if same:
        after = next(((i, k) for i, k in same if k[1:] > key[1:]), None)
        if after is None:  # last of its section
            body.insert(same[-1][0] + 1, new)
        else:  # before the first that sorts after it, in its place (its leading blank line or comments)
            i = after[0]
            new = new.with_changes(leading_lines=body[i].leading_lines)
            body[i] = body[i].with_changes(leading_lines=[])
            body.insert(i, new)
        return node.with_changes(body=body)
    before = [i for i, k in imports if k[0] < key[0]]
    if before:  # a section of its own after the sections before it
        at = before[-1] + 1
        body.insert(at, new.with_changes(leading_lines=blank))
        if at in {i for i, _k in imports} and not body[at + 1].leading_lines:  # a later section follows
            body[at + 1] = body[at + 1].with_changes(leading_lines=blank)
        return node.with_changes(body=body)
    first = imports[0][0]  # every import sorts after it: it opens the imports
    new = new.with_changes(leading_lines=body[first].leading_lines)
    body[first] = body[first].with_changes(leading_lines=blank)
    body.insert(first, new)
    return node.with_changes(body=body)


def _is_docstring(stmt) -> bool:
    smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
    return bool(smalls) and isinstance(smalls[0], cst.Expr) and isinstance(smalls[0].value, cst.SimpleString)
