"""Go: string literals, `+`, `fmt.Sprintf`/`path.Join`, consts and vars, struct fields, calls."""
from __future__ import annotations

import re

from codemod.audit.parsed.tree import HOLE_TEXT, Part, Value, Walker, hole


class Go(Walker):
    comment_types = ("comment", "import_declaration")  # import paths are not API strings
    string_types = ("interpreted_string_literal", "raw_string_literal", "binary_expression", "call_expression")
    function_types = ("function_declaration", "method_declaration", "func_literal")

    def is_string_expr(self, node) -> bool:
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            return op is not None and self.t(op) == "+"
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            return fn is not None and self.t(fn) in ("fmt.Sprintf", "path.Join", "url.JoinPath")
        if node.type == "raw_string_literal" and node.parent is not None and node.parent.type == "field_declaration":
            return False  # a struct tag
        return node.type in ("interpreted_string_literal", "raw_string_literal")

    def function_info(self, node):
        name_node = node.child_by_field_name("name")
        params = []
        plist = node.child_by_field_name("parameters")
        if plist is not None:
            for decl in plist.named_children:
                for c in decl.named_children:
                    if c.type == "identifier":
                        params.append(self.t(c))
        return (self.t(name_node) if name_node is not None else ""), params

    def assignment(self, node):
        t = node.type
        if t in ("const_spec", "var_spec"):
            names = [c for c in node.children_by_field_name("name")]
            value = node.child_by_field_name("value")
            if value is not None:
                for n, v in zip(names, value.named_children):
                    yield self.t(n), v
        elif t in ("short_var_declaration", "assignment_statement"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                for n, v in zip(left.named_children, right.named_children):
                    if n.type == "selector_expression":
                        fld = n.child_by_field_name("field")
                        if fld is not None:
                            yield "." + self.t(fld), v
                    elif n.type == "identifier":
                        yield self.t(n), v
        elif t == "keyed_element":
            kids = node.named_children
            if len(kids) == 2:
                key = kids[0].named_children[0] if kids[0].named_children else kids[0]
                if key.type in ("field_identifier", "identifier"):
                    yield "." + self.t(key), (kids[1].named_children[0] if kids[1].named_children else kids[1])

    def call_info(self, node):
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return None
        name = self.t(fn.child_by_field_name("field")) if fn.type == "selector_expression" else self.t(fn)
        return name, list(args.named_children) if args is not None else [], {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "interpreted_string_literal":
            out: Value = []
            for c in node.named_children:
                if c.type == "interpreted_string_literal_content":
                    out.append(Part(self.t(c), c.start_byte))
            return out
        if t == "raw_string_literal":
            return [Part(self.t(c), c.start_byte) for c in node.named_children if c.type == "raw_string_literal_content"]
        if t == "binary_expression":
            if self.t(node.child_by_field_name("operator")) != "+":
                return hole()
            return ev.value(node.child_by_field_name("left"), nested=True) + \
                ev.value(node.child_by_field_name("right"), nested=True)
        if t == "call_expression":
            fn = self.t(node.child_by_field_name("function"))
            args = node.child_by_field_name("arguments").named_children
            if fn == "fmt.Sprintf" and args:
                fmt_value = ev.value(args[0], nested=True)
                rest = [ev.value(a, nested=True) for a in args[1:]]
                return format_value(fmt_value, rest)
            if fn in ("path.Join", "url.JoinPath") and args:
                out = []
                for i, a in enumerate(args):
                    if i:
                        out.append(Part("/", None))
                    out.extend(ev.value(a, nested=True))
                return out
            return hole()
        if t == "identifier":
            return ev.variable(self.t(node), node)
        if t == "selector_expression":
            fld = node.child_by_field_name("field")
            return ev.variable(self.t(fld), node) if fld is not None else hole()
        if t == "parenthesized_expression" and node.named_children:
            return ev.value(node.named_children[0], nested=True)
        return hole()


FORMAT_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[svdqx]")


def format_value(fmt_value: Value, args: list[Value]) -> Value:
    out: Value = []
    index = 0
    for part in fmt_value:
        if part.offset is None and part.param is None and part.text == HOLE_TEXT:
            out.append(part)
            continue
        pos = 0
        for m in FORMAT_VERB.finditer(part.text):
            if m.start() > pos:
                out.append(Part(part.text[pos:m.start()], None if part.offset is None else part.offset + pos))
            out.extend(args[index] if index < len(args) else hole())
            index += 1
            pos = m.end()
        if pos < len(part.text):
            out.append(Part(part.text[pos:], None if part.offset is None else part.offset + pos))
    return out
