"""String and URL evaluation: what text an expression holds, and whether it is a URL of this service.

Every string expression is evaluated into *pieces* (literal text tied to the
source node it came from, or a hole for what cannot be known statically)
through literals, f-strings, `+`, `%`, `.format`, `urljoin`, `rstrip`, names
(function locals, parameters with defaults, module constants, class and
instance attributes, `os.getenv` / `os.environ.get` defaults). `classify`
then says whether the flattened text is a v1 call of this API, v2, the
serverless job API, or nobody's.
"""
from __future__ import annotations

import string
from typing import Any

import libcst as cst

from codemod.analysis.syntax import Piece, descendants, dotted, flatten, literal_value, slice_pieces, str_of
from codemod.knowledge import HOLE, SCHEME

MAX_DEPTH = 12


class Strings:
    """Mixin of the file analyzer: needs `self.ix` (syntax index), `self.kb` (shared index), `self.v2_base`."""

    def scope_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        scope = self.ix.scope_of.get(id(node))
        return scope if isinstance(scope, cst.FunctionDef) else None

    def evaluate(self, node: cst.CSTNode, scope: cst.FunctionDef | None, depth: int = 0) -> list[Piece]:
        hole = [Piece(None)]
        if depth > MAX_DEPTH:
            return hole
        ev = lambda n, s=scope: self.evaluate(n, s, depth + 1)  # noqa: E731
        if isinstance(node, cst.SimpleString):
            value, editable = literal_value(node)
            if value is None:
                return hole
            return [Piece(value, node if editable else None, 0)]
        if isinstance(node, cst.ConcatenatedString):
            return ev(node.left) + ev(node.right)
        if isinstance(node, cst.FormattedString):
            out: list[Piece] = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    raw = part.value
                    text = raw.replace("{{", "{").replace("}}", "}")
                    editable = text == raw and "\\" not in raw
                    out.append(Piece(text, part if editable else None, 0))
                elif isinstance(part, cst.FormattedStringExpression):
                    if part.format_spec or part.conversion:
                        out.append(Piece(None))
                    else:
                        out.extend(ev(part.expression))
            return out
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Add):
                return ev(node.left) + ev(node.right)
            if isinstance(node.operator, cst.Modulo) and isinstance(node.left, cst.SimpleString):
                return self._percent(node, scope, depth)
            return hole
        if isinstance(node, cst.Name):
            return self._resolve_name(node, scope, depth)
        if isinstance(node, cst.Attribute):
            return self._resolve_attr(node, scope, depth)
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
            left = ev(node.left)
            if all(p.text is None for p in left):
                right = ev(node.right)
                if any(p.text is not None for p in right):
                    return right
            return left
        if isinstance(node, cst.Call):
            return self._eval_call(node, scope, depth)
        return hole

    def _percent(self, node: cst.BinaryOperation, scope, depth: int) -> list[Piece]:
        fmt = node.left
        value, editable = literal_value(fmt)
        if value is None or "%%" in value or "%(" in value:
            return [Piece(None)]
        args = list(node.right.elements) if isinstance(node.right, cst.Tuple) else [node.right]
        out: list[Piece] = []
        i = last = 0
        arg_i = 0
        while i < len(value):
            if value[i] == "%" and i + 1 < len(value):
                out.append(Piece(value[last:i], fmt if editable else None, last))
                j = i + 1
                while j < len(value) and value[j] not in "sdifrx":
                    j += 1
                arg = args[arg_i] if arg_i < len(args) else None
                arg_i += 1
                if arg is not None and value[j: j + 1] == "s":
                    expr = arg.value if isinstance(arg, cst.Element) else arg
                    out.extend(self.evaluate(expr, scope, depth + 1))
                else:
                    out.append(Piece(None))
                i = last = j + 1
                continue
            i += 1
        out.append(Piece(value[last:], fmt if editable else None, last))
        return [p for p in out if p.text != ""]

    def _format(self, node: cst.Call, fmt: cst.SimpleString, scope, depth: int) -> list[Piece]:
        value, editable = literal_value(fmt)
        if value is None or "{{" in value or "}}" in value:
            return [Piece(None)]
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        out: list[Piece] = []
        pos = 0
        auto = 0
        try:
            parsed = list(string.Formatter().parse(value))
        except ValueError:
            return [Piece(None)]
        for literal, field_name, spec, conv in parsed:
            if literal:
                out.append(Piece(literal, fmt if editable else None, pos))
            pos += len(literal)
            if field_name is None:
                continue
            pos += len(field_name) + 2 + (len(spec) + 1 if spec else 0) + (2 if conv else 0)
            expr = None
            if field_name == "":
                expr = positional[auto] if auto < len(positional) else None
                auto += 1
            elif field_name.isdigit():
                idx = int(field_name)
                expr = positional[idx] if idx < len(positional) else None
            else:
                expr = named.get(field_name)
            if expr is None or spec or conv:
                out.append(Piece(None))
            else:
                out.extend(self.evaluate(expr, scope, depth + 1))
        return out

    def _eval_call(self, node: cst.Call, scope, depth: int) -> list[Piece]:
        func = node.func
        name = dotted(func) or ""
        origin = self._origin(name)
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, cst.SimpleString):
            return self._format(node, func.value, scope, depth)
        if isinstance(func, cst.Attribute) and func.attr.value == "join" and str_of(func.value) is not None \
                and len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple, cst.BinaryOperation)):
            return self._join(func.value, args[0], scope, depth)
        if isinstance(func, cst.Attribute) and func.attr.value in ("rstrip", "strip", "lstrip") and (
                not args or (len(args) == 1 and str_of(args[0]) == "/")):
            pieces = self.evaluate(func.value, scope, depth + 1)
            how = func.attr.value
            if how != "lstrip" and pieces and pieces[-1].text and pieces[-1].text.endswith("/"):
                last = pieces[-1]
                pieces = pieces[:-1] + [Piece(last.text.rstrip("/"), last.node, last.offset)]
            if how != "rstrip" and pieces and pieces[0].text and pieces[0].text.startswith("/"):
                first = pieces[0]
                cut = len(first.text) - len(first.text.lstrip("/"))
                pieces = [Piece(first.text[cut:], first.node, first.offset + cut)] + pieces[1:]
            return pieces
        if origin in ("os.getenv", "os.environ.get", "os.environ.setdefault") or name.endswith("environ.get"):
            default = args[1] if len(args) > 1 else next((a.value for a in node.args if a.keyword and a.keyword.value == "default"), None)
            return self.evaluate(default, scope, depth + 1) if default is not None else [Piece(None)]
        if origin == "str" and len(args) == 1:
            return self.evaluate(args[0], scope, depth + 1)
        if origin.endswith("urljoin") and len(args) == 2:
            base = self.evaluate(args[0], scope, depth + 1)
            rel = self.evaluate(args[1], scope, depth + 1)
            flat_rel = flatten(rel)
            if SCHEME.match(flat_rel):
                return rel
            flat_base = flatten(base)
            m = SCHEME.match(flat_base)
            if flat_rel.startswith("/"):
                if m and HOLE not in flat_base[: flat_base.find("/", m.end()) if "/" in flat_base[m.end():] else len(flat_base)]:
                    cut = flat_base.find("/", m.end())
                    return slice_pieces(base, cut if cut >= 0 else len(flat_base)) + rel
                return [Piece(None)] + rel
            cut = flat_base.rfind("/")
            if cut < 0:
                return [Piece(None)] + rel
            return slice_pieces(base, cut + 1) + rel
        builder = self._url_builder(func)
        if builder is not None:
            return self._inline(builder, node, scope, depth)
        return [Piece(None)]

    def _join(self, sep_node: cst.SimpleString, seq, scope, depth: int) -> list[Piece]:
        """`"/".join([base, *parts])`, `"/".join([base] + [str(p).strip("/") for p in parts])`: the items in
        order, a `*parts` of a URL builder expanded to its arguments."""
        sep = str_of(sep_node)
        items = self._join_items(seq, scope)
        if items is None:
            return [Piece(None)]
        out: list[Piece] = []
        for i, (expr, where, var) in enumerate(items):
            if i:
                out.append(Piece(sep))  # not editable: the separator is shared by every item
            if var is None:
                out.extend(self.evaluate(expr, where, depth + 1))
                continue
            name, arg = var  # one item of a comprehension over `*parts`: its variable bound to the argument
            self.comprehension_items[(id(scope), name)] = arg
            try:
                out.extend(self.evaluate(expr, where, depth + 1))
            finally:
                del self.comprehension_items[(id(scope), name)]
        return out

    def _join_items(self, seq, scope) -> list | None:
        """(expression, scope, comprehension binding) of each joined item, or None when the items are not known."""
        if isinstance(seq, cst.BinaryOperation):
            if not isinstance(seq.operator, cst.Add):
                return None
            left, right = self._join_items(seq.left, scope), self._join_items(seq.right, scope)
            return None if left is None or right is None else left + right
        if isinstance(seq, cst.ListComp):
            comp = seq.for_in
            if comp.inner_for_in is not None or comp.ifs or not isinstance(comp.target, cst.Name):
                return None
            star = self._star_args(comp.iter, scope)
            if star is None:
                return None
            return [(seq.elt, scope, (comp.target.value, arg)) for arg in star]
        if not isinstance(seq, (cst.List, cst.Tuple)):
            return None
        items: list = []
        for el in seq.elements:
            if isinstance(el, cst.StarredElement):
                star = self._star_args(el.value, scope)
                if star is None:
                    return None
                items.extend((expr, where, None) for expr, where in star)
            else:
                items.append((el.value, scope, None))
        return items

    def _star_args(self, node, scope) -> list | None:
        """The arguments a `*name` parameter of a URL builder being evaluated holds, with their scope."""
        if not isinstance(node, cst.Name) or scope is None:
            return None
        bound = self.bindings.get(id(scope))
        if bound is None or not isinstance(bound[0].get(node.value), tuple):
            return None
        return [(expr, bound[1]) for expr in bound[0][node.value]]

    def _url_builder(self, func: cst.CSTNode) -> tuple[cst.FunctionDef, cst.BaseExpression] | None:
        """A function of this module whose body is one `return <expression>` (a docstring allowed): `_url(path)`,
        `self._url(path)`. Its result is evaluated in place, its parameters bound to the call's arguments."""
        if isinstance(func, cst.Name):
            name = func.value
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            name = func.attr.value
        else:
            return None
        fns = self.ix.functions.get(name, ())
        if len(fns) != 1 or not isinstance(fns[0].body, cst.IndentedBlock):
            return None
        body = list(fns[0].body.body)
        if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
                and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            body = body[1:]  # the docstring
        # straight-line statements before it (`url = BASE + "/pods/"; url = url + pod_id; return url`): the
        # names they bind are evaluated by their reaching definition (Strings._reaching)
        if not body or not all(isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 for stmt in body):
            return None
        ret = body[-1].body[0]
        if not isinstance(ret, cst.Return) or ret.value is None or _count_returns(fns[0]) != 1:
            return None
        return fns[0], ret.value

    def _inline(self, builder, call: cst.Call, scope, depth: int) -> list[Piece]:
        fn, expr = builder
        if id(fn) in self.bindings:
            return [Piece(None)]  # recursion
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
        if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            params = params[1:]
        bound: dict[str, object] = {}
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional):
            return [Piece(None)]
        for name, arg in zip(params, positional):
            bound[name] = arg.value
        star = fn.params.star_arg
        if isinstance(star, cst.Param):
            bound[star.name.value] = tuple(a.value for a in positional[len(params):])  # `*parts`
        elif len(positional) > len(params):
            return [Piece(None)]
        for arg in call.args:
            if arg.keyword is not None:
                bound[arg.keyword.value] = arg.value
        self.bindings[id(fn)] = (bound, scope)
        try:
            return self.evaluate(expr, fn, depth + 1)
        finally:
            del self.bindings[id(fn)]

    def _origin(self, qualified: str) -> str:
        if not qualified:
            return ""
        head, _, rest = qualified.partition(".")
        origin = self.ix.imports.get(head, head)
        return f"{origin}.{rest}" if rest else origin

    def _single(self, entries: list) -> Any:
        return entries[0] if len(entries) == 1 else None

    def _resolve_name(self, node: cst.Name, scope, depth: int) -> list[Piece]:
        out = self._resolve_name_value(node, scope, depth)
        if self.refs is not None:
            self.refs.append((node, frozenset(id(p.node) for p in out if p.node is not None)))
        return out

    def _resolve_name_value(self, node: cst.Name, scope, depth: int) -> list[Piece]:
        name = node.value
        item = self.comprehension_items.get((id(scope), name))
        if item is not None:
            return self.evaluate(item[0], item[1], depth + 1)
        fn = scope
        while fn is not None:
            # an `x += ...` under an if or loop is left out, as before AugAssign was followed at all (a trailing
            # "/" added when missing): only straight-line concatenation is evaluated
            assigned = [a for a in self.ix.assigns.get(id(fn), {}).get(name, ())
                        if not isinstance(a[0], cst.AugAssign) or self._top_level(a[1], fn)]
            if assigned and not isinstance(assigned[0][0], cst.AugAssign):
                # `url = f"{self.base_url}/{url.lstrip('/')}"`: the `url` it reads is the value before (a parameter)
                assigned = [a for a in assigned if not self._within(node, a[0])]
            if assigned:
                one = self._single(assigned) or self._reaching(assigned, node, fn)
                if one is None:
                    return [Piece(None)]
                return self._definition_value(one, name, fn, depth)
            param = self._param(fn, name)
            bound = self.bindings.get(id(fn))
            if param is not None and bound is not None and name in bound[0]:
                if isinstance(bound[0][name], tuple):
                    return [Piece(None)]  # `*parts` used as one string
                return self.evaluate(bound[0][name], bound[1], depth + 1)  # a URL builder's argument
            if param is not None:
                if param.default is not None:
                    default = self.evaluate(param.default, self.scope_of(fn), depth + 1)
                    if all(p.text is None for p in default):
                        return [Piece(None, param=name)]
                    return default
                return [Piece(None, param=name)]
            fn = self.scope_of(fn)
        assigned = self.ix.assigns.get(None, {}).get(name)
        if assigned:
            one = self._single(assigned)
            if one is None:
                return [Piece(None)]
            return self.evaluate(one[0], None, depth + 1)
        ext = self.externals.get(name)
        if ext is not None and self.ix.imports.get(name):
            return [Piece(ext.value, self.external_node(name), 0)]
        return [Piece(None)]

    def _within(self, node: cst.CSTNode, value: cst.CSTNode) -> bool:
        """Is NODE part of the expression VALUE?"""
        cur: cst.CSTNode | None = node
        while cur is not None:
            if cur is value:
                return True
            if isinstance(cur, (cst.BaseStatement, cst.BaseSmallStatement)):
                return False
            cur = self.parent(cur)
        return False

    def _reaching(self, assigned: list, use: cst.CSTNode, fn) -> tuple | None:
        """The definition of a name that reaches `use` in straight-line code: every definition a statement of
        the function's own body (none under an if, loop or try), the last one before the use's statement."""
        if not all(self._top_level(stmt, fn) for _value, stmt in assigned):
            return None
        use_line = self.where(use)[0]
        before = [a for a in assigned if self.where(a[1])[0] < use_line]
        return max(before, key=lambda a: self.where(a[1])[0]) if before else None

    def _top_level(self, stmt: cst.CSTNode, fn) -> bool:
        line = self.parent(stmt)
        return isinstance(line, cst.SimpleStatementLine) and self.parent(line) is fn.body

    def _definition_value(self, definition: tuple, name: str, fn, depth: int) -> list[Piece]:
        value, stmt = definition
        if isinstance(value, cst.AugAssign):  # `url += "/start"`: what reached it, then the added text
            if not isinstance(value.operator, cst.AddAssign):
                return [Piece(None)]
            previous = self._reaching(self.ix.assigns.get(id(fn), {}).get(name, []), stmt, fn)
            if previous is not None:
                before = self._definition_value(previous, name, fn, depth + 1)
            else:
                param = self._param(fn, name)
                if param is None:
                    return [Piece(None)]
                before = self.evaluate(param.default, self.scope_of(fn), depth + 1) if param.default is not None \
                    else [Piece(None, param=name)]
            return before + self.evaluate(value.value, fn, depth + 1)
        return self.evaluate(value, fn, depth + 1)

    def external_node(self, name: str) -> cst.SimpleString:
        """The literal standing for an imported constant's value: edits planned on it are the importer's
        verdict on that constant (codemod.crossfile); it is not part of this file's tree."""
        node = self.ext_nodes.get(name)
        if node is None:
            node = self.ext_nodes[name] = cst.SimpleString('"' + self.externals[name].value + '"')
        return node

    def const_str(self, node: cst.CSTNode | None) -> str | None:
        """The text of a literal, or of a name bound once at module level to one (here or imported)."""
        if isinstance(node, cst.Name):
            pieces = self._resolve_name_value(node, self.scope_of(node), MAX_DEPTH - 1)
            return pieces[0].text if len(pieces) == 1 else None
        return str_of(node)

    @staticmethod
    def _param(fn: cst.FunctionDef, name: str) -> cst.Param | None:
        for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
            if param.name.value == name:
                return param
        return None

    def _class_of(self, scope) -> cst.ClassDef | None:
        fn = scope
        while fn is not None:
            cls = self.ix.class_of_fn.get(id(fn))
            if cls is not None:
                return cls
            fn = self.scope_of(fn)
        return None

    def _resolve_attr(self, node: cst.Attribute, scope, depth: int) -> list[Piece]:
        out = self._resolve_attr_value(node, scope, depth)
        if self.refs is not None:
            self.refs.append((node, frozenset(id(p.node) for p in out if p.node is not None)))
        return out

    def _resolve_attr_value(self, node: cst.Attribute, scope, depth: int) -> list[Piece]:
        owner = node.value
        attr = node.attr.value
        cls = None
        if isinstance(owner, cst.Name):
            if owner.value in ("self", "cls"):
                cls = self._class_of(scope)
            else:
                cls = self.ix.classes.get(owner.value)
        elif isinstance(owner, cst.Attribute) and isinstance(owner.value, cst.Name) and owner.value.value == "self":
            held = self._class_held(owner, scope)  # `self.settings.rest_url`
            cls = self.ix.classes.get(held) if held is not None else None
            if cls is None and f"{held}.{attr}" in self.externals:  # a class another file of the run defines
                return [Piece(self.externals[f"{held}.{attr}"].value, self.external_node(f"{held}.{attr}"), 0)]
        if cls is None:
            if isinstance(owner, cst.Name) and f"{owner.value}.{attr}" in self.externals \
                    and not self.ix.assigns.get(None, {}).get(owner.value):  # `constants.REST_URL`: a module
                name = f"{owner.value}.{attr}"
                return [Piece(self.externals[name].value, self.external_node(name), 0)]
            return [Piece(None)]
        class_level = self.ix.class_attrs.get(id(cls), {}).get(attr)
        if class_level and len(class_level) == 1:
            return self.evaluate(class_level[0], self.scope_of(cls), depth + 1)
        inst = self.ix.self_attrs.get(id(cls), {}).get(attr)
        if inst:
            chosen = inst[0] if len(inst) == 1 else next((i for i in inst if i[1].name.value == "__init__"), None)
            if chosen is not None:
                return self.evaluate(chosen[0], chosen[1], depth + 1)
        return [Piece(None)]

    def _class_held(self, attr: cst.Attribute, scope) -> str | None:
        """The name of the one class an instance attribute holds, defined in this module or imported from another
        file of the run: `self.settings = settings or Settings()` (an instance made here), or a parameter annotated
        with the class (`settings: Settings | None`)."""
        owner = self._class_of(scope)
        found = set()

        def known(name: str) -> bool:
            return name in self.ix.classes or name in self.ix.imports

        for value, fn in self.ix.self_attrs.get(id(owner), {}).get(attr.attr.value, ()) if owner else ():
            for part in (value.left, value.right) if isinstance(value, cst.BooleanOperation) else (value,):
                if isinstance(part, cst.Call) and isinstance(part.func, cst.Name) and known(part.func.value):
                    found.add(part.func.value)
                elif isinstance(part, cst.Name):
                    param = self._param(fn, part.value)
                    ann = param.annotation.annotation if param is not None and param.annotation else None
                    for name in (ann.left, ann.right) if isinstance(ann, cst.BinaryOperation) else (ann,):
                        if isinstance(name, cst.Name) and known(name.value):
                            found.add(name.value)
        return found.pop() if len(found) == 1 else None

    # --------------------------------------------------------- URL classes
    def _string_is_v1_base(self, node: cst.CSTNode) -> bool:
        flat = flatten(self.evaluate(node, None, MAX_DEPTH - 2))
        info = self.classify(flat)
        return info[0] == "v1"

    def _v1_shaped(self, rest: str) -> bool:
        """After a /v1 prefix on a host that is not this service's: nothing yet (a base), or a v1 resource."""
        first = rest.strip("/").split("/")[0].split("?")[0]
        return first == "" or first in self.kb.resources

    def is_ours(self, flat: str) -> bool:
        """A URL on one of this service's hosts (not merely a /v1 path on someone else's)."""
        m = SCHEME.match(flat)
        if not m:
            return False
        slash = flat.find("/", m.end())
        netloc = flat[m.end(): slash if slash >= 0 else len(flat)]
        return HOLE not in netloc and self.kb.host_kind(netloc) in ("v1", "v2")

    def classify(self, flat: str, base_kind: str | None = None) -> tuple[str, int, tuple[int, int, str] | None]:
        """(kind, index where the v1 path starts, base edit) for the flattened URL text."""
        kb = self.kb
        m = SCHEME.match(flat)
        if m:
            slash = flat.find("/", m.end())
            netloc = flat[m.end(): slash if slash >= 0 else len(flat)]
            path_at = slash if slash >= 0 else len(flat)
            path = flat[path_at:]
            if HOLE in netloc:
                return "unknown", path_at, None
            if netloc in kb.runtime_netlocs:
                return "runtime", path_at, None
            for host in kb.v1_hosts:
                if netloc == host.netloc:
                    if host.prefix and (path == host.prefix or path.startswith(host.prefix + "/")
                                        or path.startswith(host.prefix + HOLE)):  # `BASE + path`
                        end = path_at + len(host.prefix)
                        return "v1", end, (0, end, self.v2_base)
                    if path.startswith(kb.v2_prefix + "/") or path == kb.v2_prefix:
                        return ("runtime" if kb.is_runtime_path(path) else "v2"), path_at, None
                    return "v1", path_at, None
            if kb.is_runtime_path(path):
                return "runtime", path_at, None
            if path == kb.v1_prefix or path.startswith(kb.v1_prefix + "/"):
                end = path_at + len(kb.v1_prefix)
                if any(h.netloc == netloc for h in kb.v2_hosts):
                    return "wrong-host", end, None  # v1 was never served on the v2 host: those calls answered 404
                # another host's /v1, even one shaped like this API's routes (`https://internal.example.com/v1/pods`,
                # OpenAI-style /v1/models): a URL is this API's only by its host, never by its path
                return "none", path_at, None
            if path == kb.v2_prefix or path.startswith(kb.v2_prefix + "/"):
                return "v2", path_at, None
            return "none", path_at, None
        # no scheme: relative path, or a hole standing for an unknown base
        rest = flat.lstrip(HOLE)
        lead = len(flat) - len(rest)
        if kb.is_runtime_path(rest):
            return "runtime", lead, None
        if (rest == kb.v1_prefix or rest.startswith(kb.v1_prefix + "/")) and self._v1_shaped(rest[len(kb.v1_prefix):]):
            return "v1", lead + len(kb.v1_prefix), (lead, lead + len(kb.v1_prefix), kb.v2_prefix)
        if rest.startswith(kb.v2_prefix + "/"):
            return "v2", lead, None
        if rest.startswith("/") and rest[1:].split("/")[0].split("?")[0] in kb.resources:
            if lead == 0 and base_kind:
                return base_kind, 0, None
            return "relative", lead, None
        return "none", lead, None


def _count_returns(fn: cst.FunctionDef) -> int:
    """`return` statements of a function (not of the functions nested in it)."""
    returns = [node for node in descendants(fn, lambda node: isinstance(node, cst.Lambda) or (
        isinstance(node, cst.FunctionDef) and node is not fn)) if isinstance(node, cst.Return)]
    return len(returns)
