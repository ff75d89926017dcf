"""JavaScript and TypeScript: strings, template literals, `+`/`??` chains, functions, calls, fields."""
from __future__ import annotations

from codemod.audit.parsed.tree import HOLE_TEXT, Part, Value, Walker, hole, text_of


TRIMS = frozenset({"replace", "replaceAll", "trim", "trimEnd", "trimRight", "toString"})


class JS(Walker):
    string_types = ("string", "template_string", "binary_expression")
    function_types = ("function_declaration", "function_expression", "arrow_function", "method_definition",
                      "generator_function_declaration")

    def is_string_expr(self, node) -> bool:
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            return op is not None and self.t(op) in ("+", "??", "||")
        return node.type in ("string", "template_string")

    def function_info(self, node):
        name_node = node.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        if not name and node.parent is not None and node.parent.type == "variable_declarator":
            nn = node.parent.child_by_field_name("name")
            name = self.t(nn) if nn is not None else ""
        params = []
        plist = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if plist is not None:
            if plist.type == "identifier":
                params.append(self.t(plist))
            for c in plist.named_children:
                ident = c if c.type == "identifier" else (c.child_by_field_name("pattern") or c.child_by_field_name("left"))
                if ident is not None and ident.type == "identifier":
                    params.append(self.t(ident))
        return name, params

    def assignment(self, node):
        if node.type in ("required_parameter", "optional_parameter"):
            # `constructor(apiKey, baseUrl = DEFAULT_BASE)`: the client's default base, wherever it is kept
            func = node.parent.parent if node.parent is not None else None
            name_node = func.child_by_field_name("name") if func is not None else None
            pattern, value = node.child_by_field_name("pattern"), node.child_by_field_name("value")
            if name_node is not None and self.t(name_node) == "constructor" and pattern is not None \
                    and value is not None and pattern.type == "identifier":
                yield "." + self.t(pattern), value
            return
        if node.type == "variable_declarator":
            n, v = node.child_by_field_name("name"), node.child_by_field_name("value")
            if n is not None and v is not None and n.type == "identifier":
                yield self.t(n), v
        elif node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                if left.type == "member_expression":
                    prop = left.child_by_field_name("property")
                    if prop is not None:
                        yield "." + self.t(prop), right
                elif left.type == "identifier":
                    yield self.t(left), right
        elif node.type in ("public_field_definition", "field_definition"):
            n, v = node.child_by_field_name("name") or node.child_by_field_name("property"), node.child_by_field_name("value")
            if n is not None and v is not None:
                yield "." + self.t(n), v

    def call_info(self, node):
        if node.type not in ("call_expression", "new_expression"):
            return None
        fn = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return None
        name = self.t(fn.child_by_field_name("property")) if fn.type == "member_expression" and \
            fn.child_by_field_name("property") is not None else self.t(fn)
        return name, list(args.named_children) if args is not None else [], {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "string":
            out: Value = []
            for c in node.named_children:
                if c.type == "string_fragment":
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type == "escape_sequence":
                    out.append(Part(bytes(self.t(c), "utf-8").decode("unicode_escape", "replace"), None))
            return out
        if t == "template_string":
            out = []
            for c in node.named_children:
                if c.type == "string_fragment":
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type == "template_substitution":
                    inner = c.named_children[0] if c.named_children else None
                    out.extend(ev.value(inner, nested=True) if inner is not None else hole())
                elif c.type == "escape_sequence":
                    out.append(Part(self.t(c)[1:], None))
            return out
        if t == "binary_expression":
            op = self.t(node.child_by_field_name("operator"))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op == "+":
                return ev.value(left, nested=True) + ev.value(right, nested=True)
            if op in ("??", "||"):
                lv = ev.value(left, nested=True)
                return lv if text_of(lv) != HOLE_TEXT else ev.value(right, nested=True)
            return hole()
        if t in ("identifier", "shorthand_property_identifier"):
            return ev.variable(self.t(node), node)
        if t == "member_expression":
            prop = node.child_by_field_name("property")
            obj = node.child_by_field_name("object")
            if prop is not None and obj is not None and self.t(obj) in ("this", "self", "options", "opts", "config"):
                return ev.variable(self.t(prop), node)
            if prop is not None and self.t(obj).endswith("env"):
                return ev.variable(self.t(prop), node)
            return hole()
        if t in ("parenthesized_expression", "as_expression", "non_null_expression", "await_expression"):
            return ev.value(node.named_children[0], nested=True) if node.named_children else hole()
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            prop = fn.child_by_field_name("property") if fn is not None and fn.type == "member_expression" else None
            if prop is not None and self.t(prop) in TRIMS:
                # `baseUrl.replace(/\/+$/, "")`, `base.trim()`: the same base
                return ev.value(fn.child_by_field_name("object"), nested=True)
            # `withQuery(path, query)`, `encodeURI(path)`: a helper of the path keeps it a parameter
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type == "identifier":
                value = ev.value(first, nested=True)
                if len(value) == 1 and value[0].param is not None:
                    return value
        return hole()
