"""PowerShell: expandable strings, `+`, `$script:` variables, hashtables, commands."""
from __future__ import annotations

import re

from codemod.audit.parsed.tree import Part, Value, Walker, hole


class PowerShell(Walker):
    function_types = ("function_statement",)

    def is_string_expr(self, node) -> bool:
        return node.type in ("expandable_string_literal", "verbatim_string_characters",
                             "expandable_here_string_literal", "verbatim_here_string_characters") or \
            (node.type == "additive_expression" and any(self.t(c) == "+" for c in node.children if not c.is_named))

    def function_info(self, node):
        name = next((c for c in node.named_children if c.type == "function_name"), None)
        params = []
        stack = list(node.named_children)
        while stack:
            c = stack.pop()
            if c.type == "script_parameter":
                v = next((x for x in c.named_children if x.type == "variable"), None)
                if v is not None:
                    params.append(self.t(v).lstrip("$"))
                continue
            if c.type in ("function_parameter_declaration", "parameter_list", "script_block", "param_block"):
                stack.extend(c.named_children)
        return (self.t(name) if name is not None else ""), params

    def assignment(self, node):
        if node.type == "assignment_expression":
            kids = node.named_children
            if len(kids) >= 3:
                left = self.t(kids[0]).strip()
                if left.startswith("$") and re.fullmatch(r"\$[\w:]+", left):
                    scoped = ":" in left and left[1:].split(":")[0].lower() in ("script", "global", "env")
                    yield ("." if scoped else "") + left[1:].split(":")[-1], kids[-1]
        elif node.type == "hash_entry":
            kids = node.named_children
            if len(kids) >= 2:
                yield self.t(kids[0]).strip().strip("'\""), kids[-1]

    def call_info(self, node):
        if node.type != "command":
            return None
        name = next((c for c in node.named_children if c.type == "command_name"), None)
        elements = next((c for c in node.named_children if c.type == "command_elements"), None)
        if name is None:
            return None
        positional, named = [], {}
        pending = None
        for c in elements.named_children if elements is not None else []:
            if c.type == "command_argument_sep":
                continue
            if c.type == "command_parameter":
                pending = self.t(c).lstrip("-").lower()
                continue
            while c.type in ("array_literal_expression", "unary_expression") and len(c.named_children) == 1:
                c = c.named_children[0]
            if pending is not None:
                named[pending] = c
                pending = None
            else:
                positional.append(c)
        return self.t(name), positional, named

    def evaluate(self, node, ev):
        t = node.type
        if t in ("string_literal", "unary_expression", "array_literal_expression", "range_expression",
                 "format_expression", "multiplicative_expression", "comparison_expression", "bitwise_expression",
                 "logical_expression", "pipeline_chain", "pipeline", "statement_list", "left_assignment_expression"):
            kids = node.named_children
            return ev.value(kids[0], nested=True) if len(kids) == 1 else hole()
        if t == "additive_expression":
            out: Value = []
            for c in node.named_children:
                out.extend(ev.value(c, nested=True))
            return out
        if t in ("expandable_string_literal", "expandable_here_string_literal"):
            quote = 2 if t == "expandable_here_string_literal" else 1
            out = []
            pos = node.start_byte + quote
            end = node.end_byte - quote
            for c in node.named_children:
                if c.start_byte > pos:
                    out.append(Part(self.src[pos:c.start_byte].decode("utf-8", "replace"), pos))
                if c.type == "variable":
                    out.extend(ev.value(c, nested=True))
                else:
                    out.extend(hole())
                pos = c.end_byte
            if end > pos:
                out.append(Part(self.src[pos:end].decode("utf-8", "replace"), pos))
            return out
        if t in ("verbatim_string_characters", "verbatim_here_string_characters"):
            q = 2 if t.startswith("verbatim_here") else 1
            return [Part(self.t(node)[q:-q], node.start_byte + q)]
        if t == "variable":
            name = self.t(node).lstrip("$").strip("{}").split(":")[-1]
            return ev.variable(name, node)
        if t == "if_statement":
            # `if ($env:X) { $env:X } else { "https://..." }`: the literal branch is the default
            for c in reversed(node.named_children):
                if c.type == "else_clause":
                    block = next((x for x in c.named_children if x.type == "statement_block"), None)
                    if block is not None and block.named_children:
                        return ev.value(block.named_children[0], nested=True)
            return hole()
        if t == "generic_token":
            return [Part(self.t(node), node.start_byte)]
        return hole()
