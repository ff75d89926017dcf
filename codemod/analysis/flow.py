"""Value flow of answers: where the JSON of a v1 call goes, and which reads of it are v1 reads.

Follows a parsed answer through variables, loops, comprehensions, indexing,
returns (calls to a function that returns it are followed in turn) and the
`except` blocks around the call. Produces `Read` facts (list reads, error
reads, field reads, status loops); the rules decide what to do with them.
"""
from __future__ import annotations

import libcst as cst

from codemod.analysis.facts import CallFact, Read, Typed
from codemod.analysis.calls import CallSite
from codemod.analysis.syntax import descendants, dotted, returned_name, str_of
from codemod.knowledge import Route


# libraries whose calls hand back HTTP answers (or parse them): what they return may be this API's v1 JSON
_ANSWER_LIBRARIES = {"requests", "httpx", "aiohttp", "urllib", "urllib3", "http", "json", "orjson", "ujson"}


def _same_records(value: cst.CSTNode, name: str) -> bool:
    """Is VALUE some of the records NAME holds, as they are (`[p for p in pods if ...]`)?"""
    if not isinstance(value, cst.ListComp) or value.for_in.inner_for_in is not None:
        return False
    loop = value.for_in
    return isinstance(loop.iter, cst.Name) and loop.iter.value == name and isinstance(loop.target, cst.Name) \
        and isinstance(value.elt, cst.Name) and value.elt.value == loop.target.value


class Flow:
    """Mixin of the file analyzer: answer flow."""

    def _responses(self, cf: CallFact) -> None:
        site, route = cf.site, cf.route
        self._reading = cf
        shape = "list" if self.kb.list_key(route) else ("object" if route.op.response else None)
        typed = Typed(route, shape) if shape else None
        call_expr: cst.CSTNode = site.call
        if isinstance(self.parent(call_expr), cst.Await):
            call_expr = self.parent(call_expr)
        if site.returns == "json" and site.json_at is not None:
            for json_expr in self._tuple_item_uses(call_expr, site.json_at):
                self._json_site(json_expr, typed, site)
            return
        if site.returns == "json":
            cf.answers.append(call_expr)
            self._json_site(call_expr, typed, site)
            return
        uses = self._urllib_json(call_expr) if site.library == "urllib" else self._json_uses(call_expr)
        cf.answers.extend(uses)
        for json_expr in uses:
            self._json_site(json_expr, typed, site)
        self._returned_response(call_expr, cf, typed)

    def _returned_response(self, expr: cst.CSTNode, cf: CallFact, typed: Typed | None, depth: int = 0) -> None:
        """`return resp` (or `return session.post(...)`): the callers read the answer; follow them too."""
        holders = [expr]
        var = self._bound_name(expr)
        if var is not None:
            holders += [use for use in self._uses_after(*var)]
        for holder in holders:
            parent = self.parent(holder)
            if isinstance(parent, cst.Return):
                fn = self.scope_of(parent)
                if fn is None or depth > 2 or len(self.ix.functions.get(fn.name.value, [])) != 1:
                    continue
                for call in self.ix.calls:
                    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (
                        call.func.value if isinstance(call.func, cst.Name) else None)
                    if name != fn.name.value or self.scope_of(call) is fn:
                        continue
                    caller: cst.CSTNode = call
                    if isinstance(self.parent(call), cst.Await):
                        caller = self.parent(call)
                    self._reading = cf
                    for json_expr in self._json_uses(caller):
                        self._json_site(json_expr, typed, cf.site)
                    self._returned_response(caller, cf, typed, depth + 1)

    def _v1_response_names(self) -> set[tuple[int, str]]:
        """(id(scope), name) of every variable a v1 call's response is bound to (`r = s.get(..)`, `as resp`)."""
        out = set()
        for cf in self.facts.calls:
            call_expr: cst.CSTNode = cf.call
            if isinstance(self.parent(call_expr), cst.Await):
                call_expr = self.parent(call_expr)
            var = self._bound_name(call_expr)
            if var is not None and cf.site.returns == "response":
                out.add((id(self.scope_of(call_expr)), var[0]))
        return out

    def _passed_response_error_reads(self, cf: CallFact, v1_responses: set[tuple[int, str]]) -> None:
        """`_check(resp)`: error reads of the response inside a module function it is handed to, when every
        call of that function hands it the response of a v1 call (else the function serves other answers)."""
        call_expr: cst.CSTNode = cf.call
        if isinstance(self.parent(call_expr), cst.Await):
            call_expr = self.parent(call_expr)
        var = self._bound_name(call_expr)
        if var is None or cf.site.returns != "response":
            return
        for use in self._uses_after(*var):
            arg = self.parent(use)
            call = self.parent(arg) if isinstance(arg, cst.Arg) and arg.keyword is None else None
            if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
                continue
            fns = self.ix.functions.get(call.func.value, [])
            if len(fns) != 1 or self.scope_of(fns[0]) is not None or fns[0].params.star_arg is not cst.MaybeSentinel.DEFAULT:
                continue
            fn = fns[0]
            position = [a for a in call.args if a.keyword is None].index(arg)
            params = [*fn.params.posonly_params, *fn.params.params]
            if position >= len(params) or not self._only_v1_responses(fn.name.value, position, v1_responses):
                continue
            param = params[position].name.value
            for name in self.ix.names.get(id(fn), {}).get(param, []):
                for read in self._error_reads_of_response(name, cf.route):
                    self.read_keys.add(id(read.node))
                    if not any(r.node is read.node for r in cf.reads):
                        cf.reads.append(read)  # one read serves every caller: each call plans it (one family)

    def _only_v1_responses(self, fn_name: str, position: int, v1_responses: set[tuple[int, str]]) -> bool:
        for call in self.ix.calls:
            if not (isinstance(call.func, cst.Name) and call.func.value == fn_name):
                continue
            args = [a for a in call.args if a.keyword is None]
            if position >= len(args) or not isinstance(args[position].value, cst.Name) \
                    or (id(self.scope_of(call)), args[position].value.value) not in v1_responses:
                return False
        return True

    def _error_reads_of_response(self, name: cst.Name, route: Route | None) -> list[Read]:
        """Error reads of `name.json()` (awaited or not), chained or through the variable it is stored in."""
        up = self.parent(name)
        if not (isinstance(up, cst.Attribute) and up.value is name and up.attr.value == "json"
                and isinstance(self.parent(up), cst.Call)):
            return []
        json_expr = self.parent(up)
        if isinstance(self.parent(json_expr), cst.Await):
            json_expr = self.parent(json_expr)
        return [Read("error", key[1], route, key[0], key[2]) for key in self._error_keys_on(json_expr)]

    def _helper_error_reads(self, cf: CallFact) -> None:
        """Error reads inside the helper(s) a call goes through (`raise X(resp.json()["message"])`)."""
        helper = cf.site.helper
        seen = set()
        while helper is not None and helper.inner is not None and id(helper.fn) not in seen:
            seen.add(id(helper.fn))
            inner = helper.inner
            for read in self.error_reads_of(inner.call, cf.route):
                self.read_keys.add(id(read.node))
                cf.reads.append(read)
            helper = inner.helper

    def error_reads_of(self, call: cst.Call, route: Route | None = None) -> list[Read]:
        """The v1 error reads (`r.json()["message"]`) of one call's answer, parsed where the call is made."""
        call_expr: cst.CSTNode = call
        if isinstance(self.parent(call_expr), cst.Await):
            call_expr = self.parent(call_expr)
        out = []
        for json_expr in self._json_uses(call_expr):
            out += [Read("error", key[1], route, key[0], key[2]) for key in self._error_keys_on(json_expr)]
        return out

    def _error_keys_on(self, body: cst.CSTNode) -> list[tuple[str, cst.CSTNode, str]]:
        """v1 error keys read on a parsed error body, directly or through the name it is bound to."""
        keys = [self._read_key(body)]
        var = self._bound_name(body)
        if var is not None:
            keys += [self._read_key(use) for use in self._uses_after(*var)]
        return [key for key in keys if key is not None and key[0] in self.kb.error_keys]

    def read_on(self, key: cst.CSTNode) -> cst.CSTNode | None:
        """The object KEY is read on: `x` of `x["k"]` and of `x.get("k")`; None for a key read otherwise."""
        parent = self.parent(key)
        if isinstance(parent, cst.Arg):  # x.get("k")
            call = self.parent(parent)
            return call.func.value if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) else None
        sub = self.parent(self.parent(parent)) if isinstance(parent, cst.Index) else None  # x["k"]
        return sub.value if isinstance(sub, cst.Subscript) else None

    def foreign_answer(self, key: cst.CSTNode) -> bool:
        """Is the object `key` is read on (`x["k"]`, `x.get("k")`) what a call into another library returns
        (`for p in runpod.get_pods()`, `pod = sdk.get_pod(i)`), or the answer of a call to the job API or to v2
        (`health = call("GET", f"{JOB_API}/{id}/health")`)? Those answers keep their own shape when this
        file's v1 calls move to v2."""
        obj = self.read_on(key)
        for _ in range(4):  # through a name bound to it (an assignment, a loop or comprehension target) and the
            # objects read on it (`ep["workers"]["idleTimeout"]`)
            if isinstance(obj, cst.Subscript):
                obj = obj.value
            elif isinstance(obj, cst.Name):
                obj = self._bound_value(obj)
            else:
                break
        if isinstance(obj, cst.Await):
            obj = obj.expression
        if not isinstance(obj, cst.Call):
            return False
        answer = obj.func.value if isinstance(obj.func, cst.Attribute) and obj.func.attr.value == "json" else obj
        for _ in range(3):  # `resp = await client.get(...)` ... `resp.json()["k"]`: the call the name is bound to
            if not isinstance(answer, cst.Name):
                break
            answer = self._bound_value(answer)
        if isinstance(answer, cst.Await):
            answer = answer.expression
        if id(answer) in self.other_answers:
            return True
        name = dotted(obj.func) or ""
        if name.rsplit(".", 1)[-1] in self.compat_answers:
            return True  # a function returning what v1bridge_compat answers: v1's shape, kept on purpose
        head = name.split(".")[0]
        origin = self.ix.imports.get(head)
        return "." in name and origin is not None and origin.split(".")[0] not in _ANSWER_LIBRARIES \
            and head not in self.ix.functions and not any(cf.call is obj for cf in self.facts.calls)

    def _bound_value(self, name: cst.Name):
        """What a name read in a loop or comprehension body iterates over, or its one assignment's value."""
        cur = self.parent(name)
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            fors = [cur] if isinstance(cur, cst.For) else []
            if isinstance(cur, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                f = cur.for_in
                while f is not None:
                    fors.append(f)
                    f = f.inner_for_in
            for f in fors:
                if isinstance(f.target, cst.Name) and f.target.value == name.value:
                    return f.iter
            cur = self.parent(cur)
        scope = self.scope_of(name)
        assigned = self.ix.assigns.get(id(scope) if scope else None, {}).get(name.value, [])
        if not assigned:  # `h, ep = await asyncio.gather(c.get(a), c.get(b))`: `ep` is the answer of `c.get(b)`
            for use in self.ix.names.get(id(scope) if scope else None, {}).get(name.value, []):
                element = self.parent(use)
                target = self.parent(element) if isinstance(element, cst.Element) else None
                stmt = self.parent(self.parent(target)) if isinstance(target, (cst.Tuple, cst.List)) else None
                value = stmt.value.expression if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Await) \
                    else None
                if isinstance(value, cst.Call) and len(value.args) == len(target.elements):
                    arg = value.args[next(i for i, e in enumerate(target.elements) if e is element)]
                    if self._gathered_name(arg) == (name.value, stmt):
                        return arg.value
        return assigned[0][0] if len(assigned) == 1 else None

    def _json_uses(self, response_expr: cst.CSTNode) -> list[cst.CSTNode]:
        """`.json()` reads of a response: chained, or through the variable it is stored in."""
        out = []
        p = self.parent(response_expr)
        if isinstance(p, cst.Attribute) and p.attr.value == "json" and isinstance(self.parent(p), cst.Call):
            call = self.parent(p)
            out.append(self.parent(call) if isinstance(self.parent(call), cst.Await) else call)
            return out
        var = self._bound_name(response_expr)
        if var is None:
            return out
        name, stmt = var
        for use in self._uses_after(name, stmt):
            up = self.parent(use)
            if isinstance(up, cst.Attribute) and up.attr.value == "json" and isinstance(self.parent(up), cst.Call):
                call = self.parent(up)
                out.append(self.parent(call) if isinstance(self.parent(call), cst.Await) else call)
        return out

    def _tuple_item_uses(self, expr: cst.CSTNode, at: int) -> list[cst.CSTNode]:
        """Where item AT of a returned tuple is read: each use of the name it is unpacked to (`status, data = ...`),
        or `resp[AT]` when the tuple is kept whole (`resp = ...`). Any other use of a kept tuple hands the answer on
        out of sight (its reads are then not traced)."""
        stmt = self.parent(expr)
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Tuple):
            items = stmt.targets[0].target.elements
            if len(items) <= at or any(isinstance(e, cst.StarredElement) for e in items) \
                    or not isinstance(items[at].value, cst.Name):
                return []
            return self._uses_until_rebound(items[at].value, stmt)
        var = self._bound_name(expr)
        if var is None:
            return []
        out = []
        for use in self._uses_after(*var):
            sub = self.parent(use)
            if isinstance(sub, cst.Subscript) and sub.value is use and len(sub.slice) == 1 \
                    and isinstance(sub.slice[0].slice, cst.Index) and isinstance(sub.slice[0].slice.value, cst.Integer) \
                    and int(sub.slice[0].slice.value.value) == at:
                out.append(sub)
        return out

    def _uses_until_rebound(self, target: cst.Name, stmt: cst.CSTNode) -> list[cst.Name]:
        """Reads of TARGET's name after STMT in its scope, up to the next statement that binds the name again
        (an assignment, an unpacking, a loop or `with` target)."""
        scope = self.scope_of(stmt)
        start = self._where(stmt)
        out = []
        for name in sorted(self.ix.names.get(id(scope) if scope else None, {}).get(target.value, []),
                           key=lambda n: self._where(n)[:2]):
            if name is target or self._where(name)[:2] <= start[:2]:
                continue
            if self._binds(name):
                break
            out.append(name)
        return out

    def _binds(self, name: cst.Name) -> bool:
        cur, child = self.parent(name), name
        while isinstance(cur, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
            cur, child = self.parent(cur), cur
        return isinstance(cur, (cst.AssignTarget, cst.AsName)) or isinstance(cur, (cst.For, cst.CompFor)) \
            and child is cur.target or isinstance(cur, cst.AugAssign) and child is cur.target \
            or isinstance(cur, cst.AnnAssign) and child is cur.target

    def _urllib_json(self, call_expr: cst.CSTNode) -> list[cst.CSTNode]:
        """The parsed JSON of a urllib request: `json.load(R)` or `json.loads(R.read())` (`.decode()` allowed) where R
        is the response the request is opened into (`urlopen(req)`, `opener.open(req)`, `with ... as resp`)."""
        return [json for response in self.urllib_responses(call_expr) for json in self._parsed_json(response)]

    def urllib_responses(self, call_expr: cst.CSTNode) -> list[cst.CSTNode]:
        """The calls that open a urllib request: the call itself (`urlopen(url)`), or `urlopen(req)` /
        `opener.open(req)` on the Request it builds (passed directly or through the name it is bound to)."""
        if isinstance(call_expr, cst.Call) and (self._origin(dotted(call_expr.func) or "") == "urllib.request.urlopen"
                                                or isinstance(call_expr.func, cst.Attribute)
                                                and call_expr.func.attr.value == "open"):
            return [call_expr]  # opened on its URL (`urlopen(url)`, `opener.open(url)`): the call is the response
        holders = [call_expr]
        var = self._bound_name(call_expr)
        if var is not None:
            holders += self._uses_after(*var)
        out = []
        for holder in holders:
            arg = self.parent(holder)
            call = self.parent(arg) if isinstance(arg, cst.Arg) and arg.keyword is None else None
            if isinstance(call, cst.Call) and call.args and call.args[0] is arg and (
                    self._origin(dotted(call.func) or "") == "urllib.request.urlopen"
                    or isinstance(call.func, cst.Attribute) and call.func.attr.value == "open"):
                out.append(call)
        return out

    def _parsed_json(self, response: cst.CSTNode) -> list[cst.CSTNode]:
        out = []
        holders = [response]
        var = self._bound_name(response)
        if var is not None:
            holders += self._uses_after(*var)
        for holder in holders:
            node = self.parent(holder)
            if isinstance(node, cst.Attribute) and node.value is holder and node.attr.value == "read" \
                    and isinstance(self.parent(node), cst.Call):
                node = self.parent(node)  # R.read()
                up = self.parent(node)
                if isinstance(up, cst.Attribute) and up.attr.value == "decode" and isinstance(self.parent(up), cst.Call):
                    node = self.parent(up)  # R.read().decode("utf-8")
                arg, origin = self.parent(node), "json.loads"
            else:
                arg, origin = node, "json.load"
            call = self.parent(arg) if isinstance(arg, cst.Arg) and arg.keyword is None else None
            if isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0] is arg \
                    and self._origin(dotted(call.func) or "") == origin:
                out.append(call)
        return out

    def _bound_name(self, expr: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
        p = self.parent(expr)
        if isinstance(p, cst.Assign) and len(p.targets) == 1 and isinstance(p.targets[0].target, cst.Name):
            return p.targets[0].target.value, p
        if isinstance(p, cst.AnnAssign) and isinstance(p.target, cst.Name):
            return p.target.value, p
        if isinstance(p, cst.WithItem) and p.asname is not None and isinstance(p.asname.name, cst.Name):
            return p.asname.name.value, p
        if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
            return self._gathered_name(p)
        return None

    def _gathered_name(self, arg: cst.Arg) -> tuple[str, cst.CSTNode] | None:
        """`h, ep = await asyncio.gather(c.get(a), c.get(b))`: the name the answer of one awaitable is unpacked to."""
        gather = self.parent(arg)
        if not isinstance(gather, cst.Call) or self._origin(dotted(gather.func) or "") != "asyncio.gather" \
                or any(a.keyword is not None or a.star for a in gather.args):
            return None
        awaited = self.parent(gather)
        stmt = self.parent(awaited) if isinstance(awaited, cst.Await) else None
        if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1 \
                or not isinstance(stmt.targets[0].target, (cst.Tuple, cst.List)):
            return None
        names = stmt.targets[0].target.elements
        at = next(i for i, a in enumerate(gather.args) if a is arg)
        if len(names) != len(gather.args) or not isinstance(names[at], cst.Element) \
                or not isinstance(names[at].value, cst.Name):
            return None
        return names[at].value.value, stmt

    def _uses_after(self, name: str, stmt: cst.CSTNode) -> list[cst.Name]:
        """The reads of NAME that may see the value STMT binds: those after STMT that no later binding of NAME
        certainly comes before. A binding is certain for the reads after it in its own block (and in the body of its
        `with`); a binding under an `if`, in a loop or a `try` is only possible for the reads after that statement
        (`if prefix: pods = [p for p in pods if ...]` then `return pods`: both values may reach the return). The
        reads in a binding's own value read the value before it; a read in another branch of an if/elif chain around
        STMT never sees it."""
        scope = self.scope_of(stmt)
        key = id(scope) if scope else None
        start = self.line_of(stmt)
        later = [other for _value, other in self.ix.assigns.get(key, {}).get(name, [])
                 if other is not stmt and self.line_of(other) >= start]
        branches = self._branches_of(stmt)
        out = []
        for n in self.ix.names.get(key, {}).get(name, []):
            p = self.parent(n)
            if self.line_of(n) < start or isinstance(p, (cst.AssignTarget, cst.AsName)) \
                    or isinstance(p, cst.Attribute) and p.attr is n or isinstance(p, cst.Arg) and p.keyword is n \
                    or self._within(n, stmt) or not self._same_branches(n, branches) \
                    or any(self._rebound_for(n, other) for other in later):
                continue  # (`client.pod(...)`, `f(pod=...)`: another thing of that name)
            out.append(n)
        return out

    def _rebound_for(self, node: cst.CSTNode, binding: cst.CSTNode) -> bool:
        """Does BINDING certainly run before NODE reads its name: NODE in a later statement of BINDING's block (or
        under one), or in the body of BINDING's `with`?"""
        block = self._block_of(binding)
        held, at = self._statement_in(binding, block), self._statement_in(node, block)
        if held is None or at is None:
            return False
        if at is held:
            return isinstance(binding, cst.WithItem) and not self._within(node, binding)
        statements = list(block.body)
        return next(i for i, s in enumerate(statements) if s is at) > next(i for i, s in enumerate(statements)
                                                                            if s is held)

    def _statement_in(self, node: cst.CSTNode, block: cst.CSTNode | None) -> cst.CSTNode | None:
        """The statement of BLOCK that NODE is (or is in); None when NODE is not in BLOCK."""
        while node is not None:
            parent = self.parent(node)
            if parent is block:
                return node
            node = parent
        return None

    def _branches_of(self, node: cst.CSTNode) -> dict[int, int]:
        """{id of an `if` around NODE: id of its branch NODE is in} (an `elif` or `else` is its `if`'s `orelse`)."""
        out: dict[int, int] = {}
        prev, cur = node, self.parent(node)
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.Module)):
            if isinstance(cur, cst.If) and prev is not cur.test:
                out[id(cur)] = id(prev)
            prev, cur = cur, self.parent(cur)
        return out

    def _same_branches(self, node: cst.CSTNode, branches: dict[int, int]) -> bool:
        """Is NODE in no other branch of the `if`s BRANCHES names than the one they name (code in another branch of
        an if/elif chain never runs after the statement)?"""
        prev, cur = node, self.parent(node)
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.Module)):
            if id(cur) in branches and prev is not cur.test and id(prev) != branches[id(cur)]:
                return False
            prev, cur = cur, self.parent(cur)
        return True

    def _block_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The block (or module) whose statement NODE is or is in."""
        block = self.parent(node)
        while block is not None and not isinstance(block, (cst.IndentedBlock, cst.Module)):
            block = self.parent(block)
        return block

    def _json_site(self, json_expr: cst.CSTNode, typed: Typed | None, site: CallSite) -> None:
        """A parsed v1 JSON body: error reads, list wrapping, field reads, where it flows."""
        route = site.route
        kb = self.kb
        key = self._read_key(json_expr)
        if key is not None and key[0] in kb.error_keys:
            self._error_read(key, route)
            return
        if typed is None:
            return
        if typed.shape == "list":
            list_key = kb.list_key(typed.route)
            if key is not None and key[0] == list_key:
                return
            self._read(Read("list", json_expr, typed.route, list_key))
        self._flow(json_expr, typed, depth=0)

    def _read_key(self, expr: cst.CSTNode) -> tuple[str, cst.CSTNode, str] | None:
        """(key, key node, how) when `expr` is read as expr["key"] or expr.get("key")."""
        p = self.parent(expr)
        if isinstance(p, cst.BooleanOperation) and isinstance(p.operator, cst.Or) and p.left is expr \
                and isinstance(p.right, cst.Dict) and not p.right.elements:
            expr, p = p, self.parent(p)  # `(answer or {}).get("pods", [])`
        if isinstance(p, cst.Subscript) and p.value is expr and len(p.slice) == 1:
            el = p.slice[0].slice
            if isinstance(el, cst.Index):
                k = str_of(el.value)
                if k is not None:
                    return k, el.value, "subscript"
        if isinstance(p, cst.Attribute) and p.value is expr and p.attr.value == "get":
            call = self.parent(p)
            if isinstance(call, cst.Call) and call.args:
                k = str_of(call.args[0].value)
                if k is not None:
                    return k, call.args[0].value, "get"
        return None

    def _read(self, read: Read) -> None:
        if read.kind in ("error", "field"):
            if id(read.node) in self.read_keys:
                return
            self.read_keys.add(id(read.node))
        self._reading.reads.append(read)

    def _error_read(self, key: tuple[str, cst.CSTNode, str], route: Route | None) -> None:
        self._read(Read("error", key[1], route, key[0], key[2], matched=self._text_matched(key[1])))

    _TEXT_TESTS = {"startswith", "endswith", "find", "index", "count", "__contains__"}
    _TEXT_CASE = {"lower", "upper", "casefold", "strip", "lstrip", "rstrip"}

    def _text_matched(self, key: cst.CSTNode) -> int:
        """Line where the error text read at `key` is matched against words (`marker in text`, `== "..."`,
        `.startswith(...)`, `re.search`), through variables and the module's own functions; 0 if nowhere."""
        expr = self.parent(key)
        while expr is not None and not isinstance(expr, (cst.Subscript, cst.Call)):
            expr = self.parent(expr)
        return self._matched(expr, 0) if expr is not None else 0

    def _matched(self, expr: cst.CSTNode, depth: int) -> int:
        if depth > 4:
            return 0
        p = self.parent(expr)
        if isinstance(p, cst.BooleanOperation) or (isinstance(p, cst.Call) and p.func is expr):
            return self._matched(p, depth)  # `text or ""`, `(...)()`
        if isinstance(p, cst.Attribute) and p.value is expr:
            call = self.parent(p)
            if not isinstance(call, cst.Call):
                return 0
            if p.attr.value in self._TEXT_TESTS:
                return self._where(call)[0]
            return self._matched(call, depth) if p.attr.value in self._TEXT_CASE else 0
        if isinstance(p, cst.ComparisonTarget):
            p = self.parent(p)
        if isinstance(p, cst.Comparison):
            ops = [c.operator for c in p.comparisons]
            if any(isinstance(o, (cst.In, cst.NotIn)) for o in ops) or any(
                    isinstance(o, (cst.Equal, cst.NotEqual)) and isinstance(c.comparator, cst.SimpleString)
                    for o, c in zip(ops, p.comparisons)) or (
                    isinstance(p.left, cst.SimpleString) and any(isinstance(o, (cst.Equal, cst.NotEqual)) for o in ops)):
                return self._where(p)[0]
            return 0
        if isinstance(p, cst.Arg) and p.keyword is None:
            call = self.parent(p)
            if not isinstance(call, cst.Call):
                return 0
            if self._origin(dotted(call.func) or "").startswith("re."):
                return self._where(call)[0]
            name = call.func.value if isinstance(call.func, cst.Name) else None
            fns = self.ix.functions.get(name or "", [])
            if len(fns) == 1 and fns[0].params.star_arg is cst.MaybeSentinel.DEFAULT:
                params = [*fns[0].params.posonly_params, *fns[0].params.params]
                at = [a for a in call.args if a.keyword is None].index(p)
                if at < len(params):
                    for use in self.ix.names.get(id(fns[0]), {}).get(params[at].name.value, []):
                        if use is not params[at].name and (line := self._matched(use, depth + 1)):
                            return line
            return 0
        var = self._bound_name(expr)
        if var is not None:
            for use in self._uses_after(*var):
                if not isinstance(self.parent(use), cst.AssignTarget) and (line := self._matched(use, depth + 1)):
                    return line
        return 0

    def _flow(self, expr: cst.CSTNode, typed: Typed, depth: int) -> None:
        """Follow a typed expression: variables, loops, indexing, returns, field reads."""
        if depth > 6:
            return
        key = self._read_key(expr)
        if key is not None:
            if key[0] in self.kb.error_keys:
                self._error_read(key, typed.route)
                return
            if typed.shape == "object":
                self._field_read(key, typed)
            return
        p = self.parent(expr)
        if typed.shape == "list":
            if isinstance(p, cst.Subscript) and p.value is expr:
                self._flow(p, Typed(typed.route, "object"), depth + 1)
                return
            if isinstance(p, (cst.For, cst.CompFor)) and p.iter is expr:
                target = p.target
                if isinstance(target, cst.Name):
                    if isinstance(p, cst.For):
                        for use in self._names_in(p.body, target.value):
                            self._flow(use, Typed(typed.route, "object"), depth + 1)
                    else:
                        comp = self.parent(p)
                        for use in self._names_in(comp, target.value):
                            if use is not target:
                                self._flow(use, Typed(typed.route, "object"), depth + 1)
                        if isinstance(comp, cst.ListComp) and isinstance(comp.elt, cst.Name) \
                                and comp.elt.value == target.value and comp.for_in is p:
                            self._flow(comp, typed, depth + 1)  # `[p for p in pods if ...]`: a list of the same
                return
        if isinstance(p, cst.IfExp) and expr is not p.test or isinstance(p, cst.BooleanOperation):
            # `data if isinstance(data, list) else []`, `data or []`: the answer flows on
            self._flow(p, typed, depth + 1)
            return
        if isinstance(p, cst.Arg) and p.keyword is None and typed.shape == "list":
            call = self.parent(p)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.args[0] is p \
                    and call.func.value in ("sorted", "list", "reversed") and call.func.value not in self.ix.functions:
                self._flow(call, typed, depth + 1)  # `sorted(pods, key=...)`: the same records, in another order
                return
        if isinstance(p, cst.Arg) and p.keyword is None and typed.shape == "object":
            holder = self._appended_to(p)
            if holder is not None:  # `created.append(resp.json())`: a list of answers
                for use in self.ix.names.get(id(self.scope_of(holder)), {}).get(holder.value, []):
                    if use is not holder and not isinstance(self.parent(use), cst.AssignTarget):
                        self._flow(use, Typed(typed.route, "list"), depth + 1)
                return
        if isinstance(p, cst.Return):
            fn = self.scope_of(p)
            if fn is not None:
                self.fn_returns.setdefault(fn.name.value, (typed, self._reading))
                self.returned.append((p, typed, self._reading))
            return
        var = self._bound_name(expr)
        if var is not None:
            name, stmt = var
            for use in self._uses_after(name, stmt):
                if self._where(use)[0] == self._where(stmt)[0] and isinstance(self.parent(use), cst.AssignTarget):
                    continue
                self._flow(use, typed, depth + 1)

    def returns_only(self, ret: cst.Return, call: cst.Call) -> bool:
        """Does RET return the answer of CALL on every path: the call in its value, or a name bound once in the
        function (`pod = get(...)`, a loop variable over its list, the response of `r = get(...)` returned as
        `r.json()`), never another value on another path? The first record of its list, or None when it is empty
        (`pods[0] if pods else None`), is its answer too."""
        if ret.value is None:
            return False
        if any(node is call for node in descendants(ret.value)):
            return True
        value = ret.value
        if isinstance(value, cst.IfExp) and isinstance(value.orelse, cst.Name) and value.orelse.value == "None":
            value = value.body
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index) \
                and isinstance(value.slice[0].slice.value, cst.Integer):
            value = value.value
        name = returned_name(ret) if value is ret.value else value if isinstance(value, cst.Name) else None
        fn = self.scope_of(ret)
        return name is not None and len([
            value for value, _stmt in self.ix.assigns.get(id(fn) if fn is not None else None, {}).get(name.value, [])
            if not _same_records(value, name.value)]) <= 1

    def escapes(self, expr: cst.CSTNode, shape: str, depth: int = 0) -> int:
        """Line where an answer (EXPR, an object or a list of them) goes where the rewrite cannot read what is read
        of it (handed to a call, returned, stored, formatted whole); 0 when every use is one the flow follows: a
        key read, a loop over it, an item of it, a name bound to it, a test of it, nothing at all."""
        line = self._where(expr)[0]
        if depth > 6:
            return line
        if self._read_key(expr) is not None:
            return 0
        p = self.parent(expr)
        if isinstance(p, cst.Expr) or isinstance(p, cst.Comparison) and p.left is expr \
                or isinstance(p, cst.ComparisonTarget) or isinstance(p, cst.UnaryOperation) \
                or isinstance(p, (cst.If, cst.While)) and p.test is expr:
            return 0  # discarded, or tested (`is None`, `not x`, `if x:`)
        if isinstance(p, cst.BooleanOperation) and isinstance(p.operator, cst.Or) and p.left is expr \
                and isinstance(p.right, (cst.Dict, cst.List)) and not p.right.elements:
            return self.escapes(p, shape, depth + 1)  # `x or {}`
        if shape == "list":
            if isinstance(p, cst.Subscript) and p.value is expr and len(p.slice) == 1 \
                    and isinstance(p.slice[0].slice, cst.Index) and isinstance(p.slice[0].slice.value, cst.Integer):
                return self.escapes(p, "object", depth + 1)
            if isinstance(p, (cst.For, cst.CompFor)) and p.iter is expr and isinstance(p.target, cst.Name):
                root = p.body if isinstance(p, cst.For) else self.parent(p)
                for use in self._names_in(root, p.target.value):
                    if use is not p.target and (found := self.escapes(use, "object", depth + 1)):
                        return found
                comp = self.parent(p)
                if isinstance(p, cst.CompFor) and isinstance(comp, cst.ListComp) and isinstance(comp.elt, cst.Name) \
                        and comp.elt.value == p.target.value:
                    return self.escapes(comp, "list", depth + 1)  # `[p for p in pods if ...]`: the same records
                return 0
        var = self._bound_name(expr)
        if var is not None and isinstance(p, cst.Assign):
            for use in self._uses_after(*var):
                if found := self.escapes(use, shape, depth + 1):
                    return found
            return 0
        if isinstance(p, cst.Comparison) or isinstance(expr, cst.Name) and isinstance(p, cst.ListComp) \
                and p.elt is expr:
            return 0  # a comparison of it, or the loop variable handed back (judged with its comprehension)
        return line

    def _appended_to(self, arg: cst.Arg) -> cst.Name | None:
        """The local list `arg` is appended to (`created.append(x)`), when it is a plain name of a function."""
        call = self.parent(arg)
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
                and isinstance(call.func.value, cst.Name) and len(call.args) == 1):
            return None
        holder = call.func.value
        scope = self.scope_of(holder)
        if scope is None:
            return None
        assigned = self.ix.assigns.get(id(scope), {}).get(holder.value, [])
        if len(assigned) != 1 or not isinstance(assigned[0][0], cst.List) or assigned[0][0].elements:
            return None  # not `created = []` once in the function: its other items are not known
        return holder

    def _names_in(self, root: cst.CSTNode, name: str) -> list[cst.Name]:
        return [node for node in descendants(root) if isinstance(node, cst.Name) and node.value == name]

    def _field_read(self, key: tuple[str, cst.CSTNode, str], typed: Typed) -> None:
        map_id = typed.route.op.response
        if map_id is None:
            return
        spec = self.kb.mappings.responses[map_id].fields.get(key[0])
        if spec is None:
            return
        self._read(Read("field", key[1], typed.route, key[0], key[2]))
        if spec.values and spec.rule is not None:
            self._polling_loop(key[1], spec.rule, typed.route)

    def _propagate_returns(self) -> bool:
        """Calls to module functions that return v1 JSON are v1 JSON too."""
        changed = False
        for call in self.ix.calls:
            name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (call.func.value if isinstance(call.func, cst.Name) else None)
            if not name or name not in self.fn_returns or id(call) in self.typed_exprs:
                continue
            fns = self.ix.functions.get(name, [])
            if len(fns) != 1:
                continue
            if isinstance(call.func, cst.Attribute) and isinstance(self.parent(fns[0]), cst.Module):
                continue  # `name.find("-")`, `rp.get(...)`: a method of some object, not the module's function
            typed, self._reading = self.fn_returns[name]
            self.typed_exprs[id(call)] = typed
            expr: cst.CSTNode = call
            if isinstance(self.parent(call), cst.Await):
                expr = self.parent(call)
            self._flow(expr, typed, 0)
            changed = True
        return changed

    def _polling_loop(self, key_node: cst.CSTNode, rule: str, route: Route) -> None:
        """A field whose values changed meaning, tested to end a loop: the loop gets the rule's remedy.

        `while pod["desiredStatus"] != "RUNNING"` (or an `if ...: break` inside a loop) waits for
        a value; in v2 the field may also take values v1 never had (ERROR), so a loop written
        for v1 can spin forever. The field rename is still made; the loop needs a human.
        """
        child: cst.CSTNode = key_node
        cur = self.parent(key_node)
        while cur is not None:
            if isinstance(cur, cst.While) and cur.test is child:
                self._read(Read("loop", cur, route, rule=rule))
                return
            if isinstance(cur, cst.If) and cur.test is child:
                if not self._exits(cur.body):
                    return
                loop = self.parent(cur)
                while loop is not None and not isinstance(loop, (cst.While, cst.For, cst.FunctionDef)):
                    loop = self.parent(loop)
                if isinstance(loop, (cst.While, cst.For)):
                    self._read(Read("loop", loop, route, rule=rule))
                return
            if isinstance(cur, (cst.BaseStatement, cst.BaseSuite, cst.Lambda)):
                return
            child, cur = cur, self.parent(cur)

    @staticmethod
    def _exits(body: cst.CSTNode) -> bool:
        """Does BODY return or break (not counting the functions defined in it)?"""
        return any(isinstance(node, (cst.Break, cst.Return))
                   for node in descendants(body, lambda node: isinstance(node, cst.FunctionDef)))

    def _except_error_reads(self, cf: CallFact) -> None:
        """`except HTTPError as e:` around a v1 call (or around the request a helper makes for it) reads a v1 error
        body: `e.response.json()["message"]` (requests, httpx), `json.loads(e.read())["message"]` (urllib)."""
        self._reading = cf
        anchors: list[tuple[cst.CSTNode, bool]] = [(cf.call, False)]
        helper, seen = cf.site.helper, set()
        while helper is not None and helper.inner is not None and id(helper.fn) not in seen:
            seen.add(id(helper.fn))
            anchors.append((helper.inner.call, True))
            helper = helper.inner.helper
        for call, in_helper in list(anchors):
            # `req = Request(...)` then `urlopen(req)` / `opener.open(req)`: the try is around the opening call
            bound = self._bound_name(call)
            if bound is not None:
                anchors += [(use_call, in_helper) for use_call in self._calls_passed(*bound)]
        for call, in_helper in anchors:
            for key in self._handler_error_keys(call):
                if in_helper:  # one read in the helper, read by every caller's family (as _helper_error_reads)
                    self.read_keys.add(id(key[1]))
                    cf.reads.append(Read("error", key[1], cf.route, key[0], key[2], matched=self._text_matched(key[1])))
                else:
                    self._error_read(key, cf.route)

    def _calls_passed(self, name: str, stmt: cst.CSTNode) -> list[cst.Call]:
        """The calls a name is handed to as their first argument after `stmt` (`urlopen(req)`)."""
        out = []
        for use in self._uses_after(name, stmt):
            arg = self.parent(use)
            call = self.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(call, cst.Call) and call.args and call.args[0] is arg:
                out.append(call)
        return out

    def _handler_error_keys(self, call: cst.CSTNode) -> list[tuple[str, cst.CSTNode, str]]:
        keys = []
        child: cst.CSTNode = call
        cur = self.parent(child)
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(cur, (cst.Try, cst.TryStar)) and cur.body is child:
                for handler in cur.handlers:
                    if handler.name is None or not isinstance(handler.name.name, cst.Name):
                        continue
                    for use in self._names_in(handler.body, handler.name.name.value):
                        body = self._error_body_of(use)
                        if body is None:
                            continue
                        keys += self._error_keys_on(body)
            child, cur = cur, self.parent(cur)
        return keys

    def _error_body_of(self, exc: cst.Name) -> cst.CSTNode | None:
        """The parsed error body of an exception: `e.response.json()`, `json.loads(e.read()[.decode()] [or "{}"])`,
        `json.load(e)`."""
        up = self.parent(exc)
        if isinstance(up, cst.Attribute) and up.value is exc and up.attr.value == "response":
            json_attr = self.parent(up)
            call = self.parent(json_attr)
            if isinstance(json_attr, cst.Attribute) and json_attr.attr.value == "json" and isinstance(call, cst.Call) \
                    and not call.args:
                return call
            return None
        expr: cst.CSTNode = exc
        if isinstance(up, cst.Attribute) and up.value is exc and up.attr.value == "read" \
                and isinstance(self.parent(up), cst.Call):
            expr = self.parent(up)
            while True:  # `.decode()`, `.decode("utf-8")`, `or "{}"`
                p = self.parent(expr)
                if isinstance(p, cst.Attribute) and p.value is expr and p.attr.value == "decode" \
                        and isinstance(self.parent(p), cst.Call):
                    expr = self.parent(p)
                elif isinstance(p, cst.BooleanOperation) and p.left is expr:
                    expr = p
                else:
                    break
        arg = self.parent(expr)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(call, cst.Call) and call.args and call.args[0] is arg \
                and self._origin(dotted(call.func) or "") in ("json.loads", "json.load") \
                and (expr is not exc or self._origin(dotted(call.func) or "") == "json.load"):
            return call
        return None

