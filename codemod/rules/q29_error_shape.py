"""Q29 error-shape: v2 errors are RFC 9457 problems; `["message"]` / `["error"]` reads become `["detail"]`.

The v1 keys come from `v1_error_keys_read`, the v2 key from `v2_error_key` in
mappings/data/conventions.yaml. Reads on the answer of a v1 call, in the
`except` blocks around it, and in the helper that makes it.

Where the words of the v1 message are tested (`marker in text`), renaming the
key would make the test silently never match: v2's detail says it otherwise.
The call then stays plain v2 and only its error answer is v1's again, through
`v1bridge_compat.v1_error(<the call>, "<operation>")` (v1's status, shape and
words, v2's detail after them): every error read of that call stays as v1
wrote it. An awaited call is wrapped with its `await` (v1_error reads the
answer; it calls nothing).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemod import compat_call
from codemod.analysis.facts import CallFact, Read

V1_ERROR = "v1_error"


@dataclass(frozen=True)
class ErrorShape:
    """`v1bridge_compat.v1_error(<the plain v2 call>, "<v1 operation id>")`: its errors in v1's shape and words."""

    op: str


def plan_read(read: Read, cf: CallFact, plan, rule_id: str) -> None:
    matched = next((r for r in cf.reads if r.kind == "error" and r.matched), None)
    if matched is not None and not plan.kb.mappings.conventions.error_wording_kept:
        # the words of the v1 message are tested: the call's errors stay v1's (v1_error), its reads as they are
        awaited = plan.facts.source.parent(cf.call)
        answer = awaited if isinstance(awaited, cst.Await) else cf.call
        plan.change("compat-error", answer, "Q29", ErrorShape(cf.route.op.id))
        plan.change("compat-import", plan.facts.source.module, "compat", plan.compat_import)
        plan.scratch.setdefault("compat-created", {})[plan.unit] = (
            f"the v1 error text [{matched.key!r}] is matched against its words at line {matched.matched}: "
            f"v1bridge_compat.{V1_ERROR} answers the call's errors in v1's shape and words")
        plan.find(read.node, "Q29", "error-read", f"error body read [{read.key!r}] on v1's error, which "
                  f"v1bridge_compat.{V1_ERROR} makes of v2's problem", True, read.route)
        return
    new = plan.kb.v2_error_key
    plan.change("key", read.node, "Q29", new)
    plan.find(read.node, "Q29", "error-read", f"error body read [{read.key!r}] -> [{new!r}]", True, read.route)


def apply_error(node: cst.CSTNode, shape: ErrorShape) -> cst.CSTNode:
    """The call (already edited to v2) inside `v1bridge_compat.v1_error(<call>, "<operation>")`."""
    if not isinstance(node, cst.BaseExpression):
        return node
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Attribute(cst.Name(compat_call.MODULE_NAME), cst.Name(V1_ERROR)),
                    args=[cst.Arg(node, comma=comma), cst.Arg(cst.SimpleString(f'"{shape.op}"'))])


APPLIES = {"compat-error": apply_error}
