"""One index of the v1 -> v2 knowledge for the tools that read code: rewrite and audit.

Everything here is derived from `mappings/` (operations, rules, requests,
responses, queries, conventions) and the v2 schema; nothing is a fact of its
own. The rewrite (`codemod/`) and the audit (`codemod/audit/`, every
scanner) read hosts, routes, v1 names, field -> rule and the prefilter tokens
from this one object, so they cannot disagree on what v1 code looks like.

    from mappings.index import index
    ix = index()
    ix.match("/pods/abc/stop", "POST")      # [IndexedRoute pods.stop]
    ix.field_rules["desiredStatus"]         # ("Q13",)
    ix.v1_only_names                        # names that are v1 wherever they appear
    ix.prefilter()                          # compiled regex (str); prefilter(bytes_=True) for bytes
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mappings.loader import Mappings, default_mappings, load_schema
from mappings.models import Operation

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_PARAM = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class Host:
    """A base address split into origin (scheme://netloc) and path prefix."""

    origin: str
    prefix: str

    @property
    def netloc(self) -> str:
        return urlsplit(self.origin).netloc


def split_base(url: str) -> Host:
    parts = urlsplit(url)
    return Host(f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/"))


def segments(path: str) -> tuple[str, ...]:
    return tuple(s for s in path.strip("/").split("/") if s)


@dataclass(frozen=True)
class IndexedRoute:
    """One v1 operation as path segments, with the v2 segments (without the v2 prefix) it becomes."""

    op: Operation
    v1_segments: tuple[str, ...]
    v2_segments: tuple[str, ...] | None

    @property
    def method(self) -> str:
        return self.op.v1.method

    @property
    def v2_method(self) -> str | None:
        return self.op.v2.method if self.op.v2 else None

    @property
    def action_body(self) -> dict | None:
        return self.op.v2.body if self.op.v2 else None

    def label(self) -> str:
        return f"{self.op.v1.method} {self.op.v1.path}"

    def v2_label(self) -> str | None:
        return f"{self.op.v2.method} {self.op.v2.path}" if self.op.v2 else None


@dataclass
class Index:
    mappings: Mappings
    v1_hosts: tuple[Host, ...]
    v2_hosts: tuple[Host, ...]
    runtime_netlocs: frozenset[str]
    v1_prefix: str
    v2_prefix: str
    routes: tuple[IndexedRoute, ...]
    resources: frozenset[str]  # first segments of v1 paths (pods, endpoints, ...)
    runtime_paths: frozenset[str]
    error_keys: tuple[str, ...]  # keys v1 code reads from an error body
    v2_error_key: str
    v2_relative: frozenset[tuple[str, ...]]  # v2 paths without the prefix, params as "{}"
    v2_names: frozenset[str]  # every property and parameter name of the v2 schema
    field_rules: dict[str, tuple[str, ...]]  # v1 body/answer field -> rule ids
    param_rules: dict[str, tuple[str, ...]]  # v1 query parameter -> rule ids
    v1_only_names: frozenset[str]  # v1 names that v2 never spells (camelCase compounds): v1 wherever they appear
    prefilter_tokens: frozenset[str] = field(default_factory=frozenset)
    # v2 GET paths that take the pagination cursor (read from v2.json) -> the most items one page holds
    page_limits: dict[str, int] = field(default_factory=dict)
    # (path, method) -> the routes `match` found: the same few paths are matched at each call site of a module
    _matched: dict[tuple[str, str | None], tuple[IndexedRoute, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ bases
    @property
    def default_v2_base(self) -> str:
        host = self.v2_hosts[0]
        return host.origin + (host.prefix or self.v2_prefix)

    def host_kind(self, netloc: str) -> str | None:
        """'v1' / 'v2' / 'runtime' for a host of this service, None for anyone else's."""
        netloc = netloc.lower()
        if netloc in self.runtime_netlocs:
            return "runtime"
        if any(h.netloc == netloc for h in self.v1_hosts):
            return "v1"
        if any(h.netloc == netloc for h in self.v2_hosts):
            return "v2"
        return None

    # ----------------------------------------------------------------- routes
    def match(self, path: str, method: str | None) -> list[IndexedRoute]:
        """Routes whose v1 template matches `path` (a template hole matches one non-empty segment); a new list each
        time, found once per path and method."""
        found = self._matched.get((path, method))
        if found is None:
            found = self._matched[(path, method)] = tuple(self._match(path, method))
        return list(found)

    def _match(self, path: str, method: str | None) -> list[IndexedRoute]:
        segs = tuple(path.strip("/").split("/")) if path.strip("/") else ()
        found = []
        for route in self.routes:
            if method is not None and route.method != method:
                continue
            if len(route.v1_segments) != len(segs):
                continue
            for tmpl, seg in zip(route.v1_segments, segs):
                if tmpl.startswith("{"):
                    if not seg or "?" in seg:
                        break
                elif tmpl != seg:
                    break
            else:
                found.append(route)
        return found

    def could_match(self, path: str, method: str | None, hole: str) -> list[IndexedRoute]:
        """Routes `path` could be once its unknown parts are known: a segment holding `hole` (the caller's mark for
        a part known only at run time) stands for any one segment."""
        segs = path.strip("/").split("/")
        return [route for route in self.routes
                if (method is None or route.method == method) and len(route.v1_segments) == len(segs)
                and all(t.startswith("{") or hole in s or t == s for t, s in zip(route.v1_segments, segs))]

    def is_runtime_path(self, path: str) -> bool:
        """/v2/{endpoint_id}/run and friends: the serverless job API, neither v1 nor the v2 control plane."""
        segs = path.strip("/").split("/")
        prefix = self.v2_prefix.strip("/")
        return len(segs) >= 3 and segs[0] == prefix and segs[2].split("?")[0] in self.runtime_paths

    def is_v2_relative(self, segs: tuple[str, ...]) -> bool:
        return any(len(c) == len(segs) and all(a == "{}" or a == b for a, b in zip(c, segs)) for c in self.v2_relative)

    def list_key(self, route: IndexedRoute) -> str | None:
        if route.op.shape in ("list", "billing") and route.op.resource:
            return self.mappings.conventions.list_keys.get(route.op.resource)
        return None

    def page_limit(self, route: IndexedRoute) -> int | None:
        """The most items one v2 page holds, when the route's v2 target is a cursor-paginated list (Q30)."""
        v2 = route.op.v2
        return self.page_limits.get(v2.path) if v2 is not None and v2.method == "GET" else None

    # -------------------------------------------------------------- prefilter
    @functools.cache
    def prefilter(self, bytes_: bool = False) -> re.Pattern:
        """Case-sensitive search for the tokens any file worth parsing holds (hosts, path roots, v1 names): it finds
        a match where one of them is, and only there (the match itself is its rarest character onward).

        Each token is looked for from its rarest character (`desiredStatus` from its `S`), the part before it
        checked behind that point, and the tokens are merged into a trie (`S(?:tatus(?<=desiredStatus)|...)|...`):
        at most positions of a file the regex engine need not enter the pattern at all (its first characters are
        few and rare), and where it does it follows one branch per character instead of trying every token (with
        the trie alone, every position starting with a common lowercase letter entered it: twice the time on the
        files that hold none, most of a tree)."""
        pattern = _trie_pattern(sorted(self.prefilter_tokens))
        return re.compile(pattern.encode() if bytes_ else pattern)

    def __hash__(self) -> int:  # functools.cache on a method needs a hashable self
        return id(self)


# Characters from the rarest in source code to the most common (anything not here: the most common of all). A
# token is looked for from its first character that comes earliest here.
_RARITY = "QJZXKVYWBGFPMUCDHLRSNIOATE/qjzxkvyw='\"bgfpmucdhlrsnioate._"


def _anchor(token: str) -> int:
    return min(range(len(token)), key=lambda i: (_RARITY.find(token[i]) % (len(_RARITY) + 1), i))


def _trie_pattern(tokens: list[str]) -> str:
    """A regex that finds a match exactly where one of TOKENS is: each token from its rarest character on (a trie
    of those rests, their common prefixes factored out), the characters before it checked by a look-behind at the
    rest's end."""
    root: dict = {}
    for token in tokens:
        at = _anchor(token)
        node = root
        for char in token[at:]:
            node = node.setdefault(char, {})
        node.setdefault("", set()).add(token if at else "")  # a token ends here: the whole of it, looked behind

    def branch(node: dict) -> str:
        alternatives = sorted("" if not token else f"(?<={re.escape(token)})" for token in node.get("", ()))
        if "" in alternatives:  # a token with nothing before its rest ends here: a match (longer ones need not go on)
            return ""
        alternatives += [re.escape(char) + branch(child) for char, child in sorted(node.items()) if char]
        return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"

    return branch(root)


def _v2_names(schema: object) -> set[str]:
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                names.update(props)
            params = node.get("parameters")
            if isinstance(params, list):
                names.update(p["name"] for p in params if isinstance(p, dict) and "name" in p)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return names


def paginated_lists(schema: dict, cursor: str, limit: str) -> dict[str, int]:
    """v2 GET paths whose operation takes the `cursor` query parameter -> the maximum of its `limit`."""
    def resolve(param: dict) -> dict:
        node: object = schema
        for part in param["$ref"].lstrip("#/").split("/") if "$ref" in param else ():
            node = node[part]  # type: ignore[index]
        return node if "$ref" in param else param  # type: ignore[return-value]

    out: dict[str, int] = {}
    for path, item in schema.get("paths", {}).items():
        params = [resolve(p) for p in (item.get("get") or {}).get("parameters", [])]
        if any(p.get("in") == "query" and p.get("name") == cursor for p in params):
            sizes = [p.get("schema", {}).get("maximum") for p in params if p.get("in") == "query" and p.get("name") == limit]
            if sizes and isinstance(sizes[0], int):
                out[path] = sizes[0]
    return out


def build(m: Mappings) -> Index:
    conv = m.conventions
    v2_prefix = conv.v2_prefix
    routes = []
    for op in m.operations:
        v2_segments = None
        if op.v2 is not None:
            segs = segments(op.v2.path)
            if segs and "/" + segs[0] == v2_prefix:
                segs = segs[1:]
            v2_segments = segs
        routes.append(IndexedRoute(op, segments(op.v1.path), v2_segments))
    schema = load_schema("v2")
    v2_relative = set()
    for p in [*schema.get("paths", {}), *(op.v2.path for op in m.operations if op.v2)]:
        segs = tuple("{}" if _PARAM.fullmatch(s) else s for s in segments(p))
        if segs and "/" + segs[0] == v2_prefix:
            v2_relative.add(segs[1:])

    field_rules: dict[str, list[str]] = {}
    param_rules: dict[str, list[str]] = {}
    for rule in m.rules.values():
        for name in rule.concerns.fields:
            field_rules.setdefault(name, []).append(rule.id)
        for name in rule.concerns.params:
            param_rules.setdefault(name, []).append(rule.id)
    v2_names = _v2_names(schema)

    def v1_only(name: str) -> bool:  # v2 never spells it, and it is a camelCase compound, not a plain word
        return name not in v2_names and any(c.isupper() for c in name[1:])

    for rmap in m.requests.values():
        for name, spec in rmap.fields.items():
            if spec.rule and name in field_rules and spec.rule not in field_rules[name]:
                field_rules[name].append(spec.rule)
    for qmap in m.queries.values():
        for name, spec in qmap.params.items():
            if spec.rule and name in param_rules and spec.rule not in param_rules[name]:
                param_rules[name].append(spec.rule)
    for neutral, brand in conv.neutral_spellings.items():
        for table in (field_rules, param_rules):
            if brand in table and neutral not in table:
                table[neutral] = list(table[brand])

    v1_only_names = frozenset(n for n in set(field_rules) | set(param_rules) if v1_only(n))
    v1_hosts = tuple(split_base(h) for h in conv.hosts.v1)
    v2_hosts = tuple(split_base(h) for h in conv.hosts.v2)
    runtime = frozenset(urlsplit(h).netloc.lower() for h in conv.hosts.serverless_runtime)
    resources = frozenset(r.v1_segments[0] for r in routes if r.v1_segments)

    tokens: set[str] = set()
    for netloc in {h.netloc for h in (*v1_hosts, *v2_hosts)} | runtime:
        tokens.update({netloc, netloc.upper()})
    for seg in resources:
        tokens.update({"/" + seg, f'"{seg}', f"'{seg}", f"={seg}"})  # `=seg`: a shell segment constant
    tokens.add(v2_prefix + "/")
    tokens.update(v1_only_names)
    if m.graphql is not None:
        # GraphQL documents (graphql.yaml): the URL path and the operation names a document selects
        tokens.update(p.strip("/") for p in m.graphql.endpoint.paths)
        tokens.update(op.parent or op.field for op in m.graphql.operations
                      if any(c.isupper() for c in (op.parent or op.field)[1:]) or op.parent)

    return Index(
        mappings=m,
        v1_hosts=v1_hosts,
        v2_hosts=v2_hosts,
        runtime_netlocs=runtime,
        v1_prefix=conv.v1_prefix,
        v2_prefix=v2_prefix,
        routes=tuple(routes),
        resources=resources,
        runtime_paths=frozenset(conv.serverless_runtime_paths),
        error_keys=tuple(conv.v1_error_keys_read),
        v2_error_key=conv.v2_error_key,
        v2_relative=frozenset(v2_relative),
        v2_names=frozenset(v2_names),
        field_rules={k: tuple(v) for k, v in field_rules.items()},
        param_rules={k: tuple(v) for k, v in param_rules.items()},
        v1_only_names=v1_only_names,
        prefilter_tokens=frozenset(tokens),
        page_limits=paginated_lists(schema, conv.pagination.cursor, conv.pagination.limit),
    )


@functools.cache
def index() -> Index:
    """The index of the packaged mappings, built once per process."""
    return build(default_mappings())
