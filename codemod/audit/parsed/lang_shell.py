"""Shell (bash, sh, ksh, zsh): words, strings and expansions with defaults, functions, commands."""
from __future__ import annotations

import re

from codemod.audit.parsed.tree import Part, Value, Walker, hole


class Bash(Walker):
    function_types = ("function_definition",)

    def is_string_expr(self, node) -> bool:
        t = node.type
        if t in ("string", "raw_string", "concatenation", "heredoc_body"):
            return True
        if t in ("expansion", "simple_expansion") and node.parent is not None \
                and node.parent.type in ("variable_assignment", "command"):
            return True  # RP=${RP:-https://...} unquoted
        if t == "word":
            parent = node.parent
            return parent is not None and parent.type in ("command", "variable_assignment", "concatenation") \
                and parent.type != "command_name"
        return False

    def function_info(self, node):
        name = node.child_by_field_name("name")
        return (self.t(name) if name is not None else ""), [str(i) for i in range(1, 10)]

    def assignment(self, node):
        if node.type == "variable_assignment":
            n, v = node.child_by_field_name("name"), node.child_by_field_name("value")
            if n is not None and v is not None:
                yield self.t(n), v
        elif node.type == "expansion" and ":=" in self.t(node)[:64]:
            # `: "${RUNPOD_API_BASE:=https://...}"` assigns the default when the variable is unset
            kids = node.named_children
            name = next((c for c in kids if c.type == "variable_name"), None)
            default = [c for c in kids if c is not name and c.type in ("word", "string", "raw_string", "concatenation")]
            if name is not None and default:
                yield self.t(name), default[0]

    def call_info(self, node):
        if node.type != "command":
            return None
        name = node.child_by_field_name("name")
        if name is None:
            return None
        args = [c for c in node.children_by_field_name("argument")]
        return self.t(name).strip(), args, {}

    def evaluate(self, node, ev):
        t = node.type
        if t == "word":
            return [Part(self.t(node), node.start_byte)]
        if t == "raw_string":
            return [Part(self.t(node)[1:-1], node.start_byte + 1)]
        if t == "heredoc_body" and not node.named_children:
            return [Part(self.t(node), node.start_byte)]
        if t in ("string", "concatenation", "heredoc_body"):
            out: Value = []
            for c in node.children:
                if c.type in ('"',):
                    continue
                if c.type in ("string_content", "word", "heredoc_content"):
                    out.append(Part(self.t(c), c.start_byte))
                elif c.type in ("simple_expansion", "expansion", "string", "raw_string", "command_substitution"):
                    out.extend(ev.value(c, nested=True))
                elif c.type == "number":
                    out.append(Part(self.t(c), c.start_byte))
                elif not c.is_named:
                    continue
                else:
                    out.extend(hole())
            return out
        if t == "simple_expansion":
            name = node.named_children[0] if node.named_children else None
            return ev.variable(self.t(name), node) if name is not None else hole()
        if t == "expansion":
            kids = node.named_children
            name = next((c for c in kids if c.type in ("variable_name", "special_variable_name")), None)
            if name is None:
                return hole()
            default = [c for c in kids if c is not name and c.type in ("word", "string", "raw_string",
                                                                       "concatenation", "simple_expansion",
                                                                       "expansion")]
            ops = self.t(node)
            if self.t(name).isdigit() and ev.function is not None:
                # `${1:-ls}` in a function: the caller's argument; the default is only what an empty call gets
                return ev.variable(self.t(name), node)
            if default and re.match(r"\$\{[#!]?[\w@*]+:?[-=]", ops):
                # `${VAR:-https://...}` / `${VAR:=...}`: the default written here is the value in the code
                return ev.value(default[0], nested=True)
            return ev.variable(self.t(name), node)
        return hole()
