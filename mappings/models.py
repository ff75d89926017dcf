"""Typed shape of the v1 -> v2 knowledge.

Every model forbids unknown keys so that a typo in a data file fails at load
time with the file and entry named, instead of silently mapping nothing.
"""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
RuleClass = Literal["loud", "quiet", "removed", "retiring"]
Severity = Literal["high", "medium", "low"]
PolicyMode = Literal["emulate", "strict"]

RULE_ID = re.compile(r"^[LQRG]\d{2}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _Unset:
    """Marks "no default" apart from an explicit `null` default."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "UNSET"


UNSET: Any = _Unset()


# --------------------------------------------------------------------------- rules


class RuleConcerns(Strict):
    paths: list[str] = []
    fields: list[str] = []
    params: list[str] = []
    values: list[str] = []


RewriteStage = Literal["call", "read", "param", "body-field", "file"]
# the reads of a v1 answer a rule module plans whatever key is read: a resource list used bare, a billing list used
# bare, an error key; `field`: a field read whose rule (responses.yaml) has no read module of its own
ReadKind = Literal["list", "billing", "error", "field"]


class RuleRewrite(Strict):
    """How `v1bridge rewrite` handles a rule: by its own module `codemod/rules/<module>.py`, which plans the
    `stages` it names (a v1 call, an answer read, a query parameter, a request body value, the file's v1 strings),
    each stage's modules in ascending `precedence` (a later one may rely on an earlier one's decisions); or `by`
    another rule's module (a body field L02's request translator converts, a response field L02's read renames).
    A module with the `read` stage plans the reads of the fields whose rule it is, and the `reads` it names."""

    module: str | None = None
    precedence: int | None = None
    stages: tuple[RewriteStage, ...] = ()
    reads: tuple[ReadKind, ...] = ()
    by: str | None = None

    @model_validator(mode="after")
    def _one_way(self) -> "RuleRewrite":
        if (self.module is None) == (self.by is None):
            raise ValueError("a rewrite names either its own module or the rule whose module handles it (by)")
        if self.module is not None and (self.precedence is None or not self.stages):
            raise ValueError(f"rewrite module {self.module!r} needs a precedence and the stages it plans")
        if self.by is not None and (self.precedence is not None or self.stages):
            raise ValueError("a rewrite handled by another rule's module declares no precedence or stages of its own")
        if self.reads and "read" not in self.stages:
            raise ValueError(f"rewrite module {self.module!r} plans reads ({', '.join(self.reads)}) without the read "
                             "stage")
        return self


class Rule(Strict):
    """One breaking change between v1 and v2, referred to by ID everywhere."""

    id: str
    name: str
    rule_class: RuleClass = Field(alias="class")
    severity: Severity
    summary: str
    remedy: str
    fixable: bool = False
    concerns: RuleConcerns = RuleConcerns()
    rewrite: RuleRewrite | None = None  # how the rewrite handles it; every fixable rule has one

    @model_validator(mode="after")
    def _fixable_has_a_rewrite(self) -> "Rule":
        if self.fixable and self.rewrite is None:
            raise ValueError(f"rule {self.id} is fixable but says nothing of how the rewrite fixes it (rewrite)")
        module = self.rewrite.module if self.rewrite is not None else None
        if module is not None and not module.startswith(self.id.lower() + "_"):
            raise ValueError(f"rule {self.id}'s rewrite module {module!r} must be named {self.id.lower()}_<name>")
        return self

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not RULE_ID.match(value):
            raise ValueError(f"rule id {value!r} must look like L01, Q01, R01 or G01")
        return value


class WalkAnswer(Strict):
    """A v2 answer to one choice of a fallback walk that means "this choice cannot be had": try the next.

    Matches when the status is equal and, if given, the problem detail contains `detail` (case-insensitive) and
    the media type is `media_type`. Any answer no entry matches ends the walk with that answer.
    """

    id: str
    status: int
    detail: str | None = None
    media_type: str | None = None
    meaning: str
    # the words v1 refused the same create with: v1 clients match them to try their next type themselves, so a v1
    # answer (the proxy's, the compat module's) says them before v2's detail
    v1_message: str | None = None

    def matches(self, status: int, media_type: str, detail: str) -> bool:
        """Is a v2 answer (its status, media type and problem detail) this refusal?"""
        return status == self.status and (not self.media_type or self.media_type == media_type) and (
            not self.detail or self.detail.lower() in detail.lower())


class WalkWait(Strict):
    """A v2 answer to one choice of a fallback walk that means "not now": wait as long as the answer's `header`
    says (delta-seconds or an HTTP-date) and send the same choice again, at most `max_waits` times per choice and
    never past the request's deadline. Without a readable `header`, or past either bound, the answer ends the
    walk as any other answer does."""

    id: str
    status: int
    header: str
    max_waits: int = Field(ge=1)
    meaning: str


class Policy(Strict):
    """A v1 behaviour that v2 dropped and the proxy keeps, unless strict."""

    id: str
    rule: str
    default: PolicyMode = "emulate"
    header: str
    summary: str
    strict_message: str
    walk_on: list[WalkAnswer] = []
    wait_on: list[WalkWait] = []
    # how `v1bridge rewrite` writes a readable body that engages it: "leave-out" = the v2 body without the field,
    # as the proxy sends it by default, the field named in the run's summary (None: a person decides; flagged)
    rewrite: Literal["leave-out"] | None = None
    # the compat module's function that keeps the behaviour for one call (the rewrite writes a call of it where the
    # operation is called: `reset_pod(send, <id>)`); its async twin has an `a` in front
    compat: str | None = None


# ---------------------------------------------------------------------- operations


class V1Route(Strict):
    method: HttpMethod
    path: str


class V2Route(Strict):
    method: HttpMethod
    path: str
    body: dict[str, Any] | None = None


class StatusRewrite(Strict):
    """Where v1 answered another status than v2 does, and the policy that keeps v1's.

    A success is answered with the operation's `v1_status`; `errors` maps a v2
    error status to v1's (409 -> 400). Strict mode answers v2's status as is.
    """

    policy: str
    errors: dict[int, int] = {}


OperationPolicy = Literal["translate", "emulate", "local", "gone"]
ResponseShape = Literal["object", "list", "empty", "billing", "raw", "action"]


class Settle(Strict):
    """The state a resource must reach between the steps of an emulated operation: `field` of its v1 record
    (read back through the operation's response map) equal to `value`."""

    field: str
    value: str


class Operation(Strict):
    """One v1 operation and how it is served from v2."""

    id: str
    v1: V1Route
    v2: V2Route | None = None
    policy: OperationPolicy = "translate"
    emulation: str | None = None
    resource: str | None = None
    request: str | None = None
    response: str | None = None
    shape: ResponseShape = "object"
    query: str | None = None
    v1_status: int = 200
    path_params: dict[str, str] = {}
    rules: list[str] = []
    # emulated operations with no v2 target: the operation ids run in order (reset = stop, start)
    steps: list[str] = []
    # between two steps, the v1 record must reach this state first (reset: stopped, i.e. EXITED, before start)
    settle: "Settle | None" = None
    # v1 and v2 answer with different statuses (Q23 create 200 vs 201, Q24 409 vs 400)
    status: StatusRewrite | None = None
    note: str | None = None


# ------------------------------------------------------------------------- fields


class Ordering(Strict):
    """A v1 field that orders another field's fallback walk (gpuTypePriority: availability orders gpuTypeIds).

    When the field's value (or its v1 `default`) is one of `when`, the choices are ranked by the lookup `by`
    (conventions.lookups: choice id -> level), best first in `rank`, unknown levels last; `query_from` fills
    lookup query parameters from the translated v2 body (cloud, count). Otherwise the client's order stands.
    """

    field: str
    by: str
    when: list[str]
    default: str | None = None
    rank: list[str]
    query_from: dict[str, str] = {}


class RequestField(Strict):
    """Disposition of one v1 request-body field.

    `to` names the v2 target (dotted path); no `to` means the field is dropped
    and `rule` says why. `convert` names a converter in mappings.converters;
    `compose` hands the field to a named whole-body composer; `default` is the
    v1 default that v2 dropped, applied when the client omitted the field.
    `unset` lists v1's spellings of "not set" for this field (`""`, `[]`, `null`
    where v1 allowed it): such a value counts as omitted, so the default applies.
    `template_provides`: the referenced template (the map's `template_field`)
    supplies this field, so its v1 default is not applied when one is referenced.
    `default_policy`: the policy engaged when the default is applied, when it is
    not the field's own `policy` (v1's own choice of CPU flavors or GPU types).
    `unsupported`: v2 cannot honour the field, and how the proxy answers when it is sent: `strict` (refused in
    v1's shape) or `ignore` (served without it, named in X-V1bridge-Ignored and the usage record).
    """

    to: str | None = None
    convert: str | None = None
    compose: str | None = None
    default: Any = UNSET
    default_from: str | None = None
    selects: bool = False
    only_for: Literal["GPU", "CPU"] | None = None
    rule: str | None = None
    policy: str | None = None
    orders: Ordering | None = None
    unset: list[Any] = []
    template_provides: bool = False
    default_policy: str | None = None
    unsupported: Literal["strict", "ignore"] | None = None
    note: str | None = None

    @property
    def disposition(self) -> str:
        if self.selects:
            return "selector"
        if self.compose:
            return "composed"
        if self.to is None:
            return "dropped"
        if self.convert:
            return "converted"
        return "moved" if "." in self.to else "renamed"

    @property
    def has_default(self) -> bool:
        return self.default is not UNSET or self.default_from is not None


class ConstantField(Strict):
    """A v2 field with no v1 source that every translated request must carry."""

    value: Any
    rule: str | None = None
    policy: str | None = None


class RequestMap(Strict):
    id: str
    v1_schema: str
    v2_schema: str
    covers: list[str] = []
    mode: Literal["create", "update"] = "create"
    compute_field: str | None = None
    compute_default: Literal["GPU", "CPU"] = "GPU"
    # the v1 field that references a template whose values stand in for `template_provides` defaults
    template_field: str | None = None
    fields: dict[str, RequestField]
    constants: dict[str, ConstantField] = {}
    composers: list[str] = []
    finalizers: list[str] = []


class ResponseField(Strict):
    """Which v2 field or computation yields one v1 response field.

    `from` is one dotted path, or a list of them read in order until one is not null (v1 vcpuCount comes
    from `cpu.vcpuCount` on CPU pods and from `gpu.vcpuCount` on GPU pods).
    """

    source: str | list[str] | None = Field(default=None, alias="from")
    convert: str | None = None
    values: str | None = None
    const: Any = UNSET
    fallback: Any = UNSET
    omit: bool = False
    include: str | None = None
    rule: str | None = None
    note: str | None = None
    # the converter only stands in for a server that does not send `from` (an older v2): code written for the
    # current v2 reads `from` itself (the rewrite renames such a read instead of flagging it)
    convert_if_absent: bool = False
    # v1 always sent the key, null when there was no value (v1.json: nullable; publicIp of a pod not running):
    # the key is written with null instead of left out, so `pod["publicIp"]` reads None as it did on v1
    nullable: bool = False

    @property
    def sources(self) -> list[str]:
        if self.source is None:
            return []
        return [self.source] if isinstance(self.source, str) else list(self.source)

    @property
    def has_const(self) -> bool:
        return self.const is not UNSET

    @property
    def has_fallback(self) -> bool:
        return self.fallback is not UNSET


class Aggregate(Strict):
    """Records v2 splits per resource that v1 reported as one per bucket."""

    by: str
    sum: list[str]
    per: str | None = None  # the v2 key of the resource a record is split by: no key of a v1 bucket


class ResponseMap(Strict):
    id: str
    v1_schema: str
    v2_schema: str
    fields: dict[str, ResponseField]
    aliases: dict[str, str] = {}
    aggregate: Aggregate | None = None


class NativeValues(Strict):
    """Values of a v1 parameter that v2 does by itself (billing `grouping=podId`: v2 records are always per pod).

    Code that sends one of them on v2 sends nothing v2 reads, so the rewrite drops the parameter (rule `rule`)
    instead of flagging it; any other value keeps the parameter's own rule. `ref` names the row of
    shared/reference/v1-to-v2.md that says so.
    """

    values: list[str]
    rule: str
    ref: str


class QueryParam(Strict):
    """How one v1 query parameter keeps its v1 meaning on v2.

    `to` forwards it natively; `filter` applies it in the proxy on the v2 list
    (v2 ignores unknown parameters); `expand` adds data v1 returned on request;
    `unsupported` marks a parameter v2 cannot rebuild, with how the proxy answers it: `strict` (refused in v1's
    shape; always for a filter: never an unfiltered list) or `ignore` (served without it, named in
    X-V1bridge-Ignored and the usage record);
    `native` lists values v2 applies by itself (the rewrite drops the parameter).
    """

    to: str | None = None
    filter: Literal["equals", "in_list", "in_values", "compute_type", "any_equals"] | None = None
    field: str | None = None
    values: str | None = None
    # the data it adds: one name or several (public templates = community + verified catalog sources)
    expand: list[str] = []
    unsupported: Literal["strict", "ignore"] | None = None
    emulated_by: str | None = None
    aliases: list[str] = []
    rule: str | None = None
    # emulation policy engaged when the parameter is used (default: the map's)
    policy: str | None = None
    # v1's value when the client omits the parameter (v1.json `default`), applied by the proxy
    default: str | None = None
    native: NativeValues | None = None
    note: str | None = None

    @field_validator("expand", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _filters_are_never_ignored(self) -> "QueryParam":
        if self.filter and self.unsupported == "ignore":
            raise ValueError("an unsupported filter is strict: ignoring it would answer an unfiltered list")
        return self


class QueryMap(Strict):
    id: str
    # emulation policy engaged by any filter or expansion of this map
    policy: str | None = None
    params: dict[str, QueryParam]


# ------------------------------------------------------------------------- global


class Hosts(Strict):
    v1: list[str]
    v2: list[str]
    serverless_runtime: list[str]


class Lookup(Strict):
    """A v2 read the proxy makes to rebuild a v1 answer (includes, joins, catalog).

    `path` may hold `{id}`, filled from each object's `ids_from` value; `key`
    is the list envelope; `index_by`/`value` turn a list into {key: value};
    `provides` names the ResponseContext.lookups entry it fills; `responses`
    lists response maps that always need it; `extends_list` adds its items
    to the v1 list (catalog templates).
    """

    path: str
    query: dict[str, str] = {}
    key: str | None = None
    ids_from: str | None = None
    index_by: str | None = None
    value: str | None = None
    provides: str
    responses: list[str] = []
    extends_list: bool = False


class Pagination(Strict):
    """Names of the v2 cursor pagination (query parameters and the response block) and the proxy's page cap."""

    cursor: str
    limit: str
    block: str
    next: str
    more: str
    max_pages: int = 10_000
    rule: str | None = None


class Conventions(Strict):
    v1_prefix: str
    v2_prefix: str
    v1_error_key: str
    v1_error_keys_read: list[str]
    v2_error_fields: list[str]
    v2_error_key: str = "detail"
    error_wording_kept: bool = False
    v2_error_media_type: str
    emulation_header: str
    rule_header: str
    ignored_header: str
    sunset: str
    hosts: Hosts
    list_keys: dict[str, str]
    neutral_spellings: dict[str, str]
    serverless_runtime_paths: list[str]
    lookups: dict[str, Lookup] = {}
    # v2 paths the /v2 pass-through forwards beyond the routes of v2.json: path -> methods
    passthrough_allow: dict[str, list[str]] = {}
    pagination: Pagination
    # lowercase v2 field names that v2 problem details use bare ("exactly one of gpu or cpu"); dotted and
    # camelCase names are recognised as field names by their shape, plain words only when listed here
    bare_field_names: list[str] = []
    # the range v2 stores an integer in; a v1 integer outside it is the client's 400, never a float stored
    stored_integer: dict[Literal["minimum", "maximum"], int]


class ValueMap(Strict):
    id: str
    forward: dict[str, Any] = {}
    backward: dict[str, Any] = {}
    filter: dict[str, list[Any]] = {}
    note: str | None = None


# ------------------------------------------------------------------------- graphql


class GraphQLEndpoint(Strict):
    """The GraphQL URL itself: a rule of class `retiring`."""

    id: str
    name: str
    severity: Severity
    paths: list[str]
    summary: str
    remedy: str
    # when the provider began retiring the API (its staged rate limits on GraphQL): the proxy's Deprecation header
    deprecated: str | None = None
    # the v2 call (METHOD path) that checks the key of a document that makes no v2 call of its own (`myself { id }`)
    key_check: str | None = None


class GraphQLFind(Strict):
    """A name resolved to an id: the v2 list of a v1 list operation, searched for the record whose `by` equals it."""

    v1: str
    by: str


class GraphQLArg(Strict):
    """Where one GraphQL argument goes (graphql.yaml `args`): a v1 body field, a v1 path parameter or a v2 body path."""

    to: str | None = None
    param: str | None = None
    v2: str | None = None
    convert: str | None = None
    unset: list[Any] = []
    choices: dict[str, list[Any]] = {}
    choices_at: str | None = None
    policy: str | None = None
    values: list[Any] = []
    same_as: str | None = None
    find: GraphQLFind | None = None
    rule: str | None = None


class GraphQLUpdate(Strict):
    """With argument `when` present, the operation updates: this route serves it and `param` carries the id."""

    when: str
    v1: str | None = None
    v2: str | None = None
    param: str


class GraphQLSum(Strict):
    of: str
    where: dict[str, Any] = {}


class GraphQLValue(Strict):
    from_: str = Field(alias="from")
    convert: str | None = None


class GraphQLServe(Strict):
    """How the proxy's POST /graphql serves an operation (graphql.yaml `serve`)."""

    v1: str | None = None
    v2: str | None = None
    update: GraphQLUpdate | None = None
    args: dict[str, GraphQLArg] = {}
    body: dict[str, Any] = {}
    policy: str | None = None
    finalize: str | None = None
    list_key: str | None = None
    filter: dict[str, str] = {}
    view: str | None = None
    answer: Literal["view", "none", "gap", "sum", "value"] = "view"
    sum: GraphQLSum | None = None
    value: GraphQLValue | None = None

    @property
    def v2_route(self) -> tuple[str, str] | None:
        if self.v2 is None:
            return None
        method, path = self.v2.split()[:2]
        return method, path


class GraphQLFetch(Strict):
    """A nested record read by its own v2 call (graphql.yaml views `fetch`), only when a field in `needs` is selected."""

    v2: str  # GET /v2/...{id}
    id: str  # where the id is in the enclosing v2 record
    query: dict[str, Any] = {}  # v2 query parameters: a value, or `$argument.path` (the field's own arguments)
    needs: list[str]  # the nested view's fields only this call answers (the others: from the record in hand)


class GraphQLViewField(Strict):
    """One field of a GraphQL view: read from a v2 path (or the first set of several), converted, or none."""

    from_: str | list[str] | None = Field(default=None, alias="from")
    convert: str | None = None
    values: str | None = None
    fallback: Any = None
    const: Any = None
    view: str | None = None
    none: str | None = None  # the rule saying why v2 has no value (the field is always null)
    fetch: GraphQLFetch | None = None


class GraphQLLimits(Strict):
    query_bytes: int
    depth: int
    fields: int
    aliases: int
    tokens: int
    root_fields: int
    concurrency: int
    cache: int


class GraphQLOperation(Strict):
    """One GraphQL operation v1-era clients send, and the v2 REST route that replaces it (None: none)."""

    id: str
    selection: str  # root field (`podStop`) or a field of `myself` (`myself.pods`)
    kind: Literal["query", "mutation"]
    area: str
    severity: Severity
    v2: str | None
    note: str
    serve: GraphQLServe | None = None

    @property
    def field(self) -> str:
        return self.selection.split(".")[-1]

    @property
    def parent(self) -> str | None:
        return self.selection.split(".")[0] if "." in self.selection else None

    @property
    def v2_route(self) -> tuple[str, str] | None:
        if self.v2 is None:
            return None
        method, path = self.v2.split()[:2]
        return method, path

    def rule(self) -> Rule:
        name = "graphql-" + re.sub(r"(?<!^)(?=[A-Z])", "-", self.selection.replace(".", "-")).lower()
        remedy = f"use {self.v2} ({self.note})" if self.v2 else f"no v2 equivalent: {self.note}"
        return Rule.model_validate({
            "id": self.id, "name": name, "class": "retiring", "severity": self.severity,
            "summary": f"GraphQL {self.kind} {self.selection} ({self.area}): the GraphQL API retires early 2027",
            "remedy": remedy, "fixable": False,
        })


class GraphQLInventory(Strict):
    endpoint: GraphQLEndpoint
    operations: list[GraphQLOperation]
    schema_file: str | None = Field(default=None, alias="schema")
    containers: list[str] = []
    limits: GraphQLLimits | None = None
    shapes: dict[str, Any] = {}  # YAML anchors shared by several operations' args
    views: dict[str, dict[str, GraphQLViewField]] = {}

    @field_validator("views", mode="before")
    @classmethod
    def _short_fields(cls, value: Any) -> Any:
        """`field: path` and `field: [paths]` are short for `field: {from: ...}`."""
        if not isinstance(value, dict):
            return value
        return {view: {name: spec if isinstance(spec, dict) else {"from": spec} for name, spec in (fields or {}).items()}
                for view, fields in value.items()}

    def rules(self) -> list[Rule]:
        first = Rule.model_validate({
            "id": self.endpoint.id, "name": self.endpoint.name, "class": "retiring",
            "severity": self.endpoint.severity, "summary": self.endpoint.summary, "remedy": self.endpoint.remedy,
            "fixable": False, "concerns": {"paths": self.endpoint.paths},
        })
        return [first, *(op.rule() for op in self.operations)]
