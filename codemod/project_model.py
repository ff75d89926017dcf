"""Project facts shared by the rewrite and the audit: what is defined where, and which calls go through it.

Producers: the Python analysis (`codemod/analysis`, via the rewrite's project-wide pass) exports its
cross-module bases, helpers and path constants; the audit's parsers for shell, Go and TypeScript
(`codemod/audit/lang_*.py`) export the same kinds of facts for their files. Readers: the audit's per-file
status (a call through a v1 base is a v1 call, wherever the base lives) and its reports (SARIF
`relatedLocations`, the base's file and line in JSON and text). The model is language-neutral and holds only
strings and ints, so a worker can send its part back (picklable) and parts from several workers or producers
can be joined (`ProjectIndex.merged`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

Kind = Literal["base", "helper", "client", "path"]
Api = Literal["v1", "v2", "unknown"]
KINDS: tuple[str, ...] = ("base", "helper", "client", "path")
APIS: tuple[str, ...] = ("v1", "v2", "unknown")

DefinitionKey = tuple[str, str]  # (file, name)


@dataclass(frozen=True)
class Definition:
    """A base URL, a wrapper/helper function or method, a client type, or a path-segment constant.

    `api` is what the definition talks to once followed to its base ("unknown" when no base could be read,
    and then `reason` says what could not be). `base` names the definition this one goes through (a helper's
    base, a client type's base), so a reader can follow a call to the line that makes it v1.
    """

    kind: Kind
    name: str
    file: str
    line: int
    value: str | None = None
    api: Api = "unknown"
    reason: str | None = None
    base: DefinitionKey | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Definition.kind must be one of {KINDS}, not {self.kind!r}")
        if self.api not in APIS:
            raise ValueError(f"Definition.api must be one of {APIS}, not {self.api!r}")

    @property
    def key(self) -> DefinitionKey:
        return (self.file, self.name)


@dataclass(frozen=True)
class Use:
    """A call or read through a definition: `method` and `path` as far as they are known at the call."""

    file: str
    line: int
    definition: DefinitionKey
    method: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class ProjectIndex:
    """Definitions and uses of one run, joined (lookups are built once, at construction)."""

    definitions: tuple[Definition, ...] = ()
    uses: tuple[Use, ...] = ()
    _by_key: dict = field(init=False, repr=False, compare=False, hash=False)
    _by_file: dict = field(init=False, repr=False, compare=False, hash=False)
    _uses_by_key: dict = field(init=False, repr=False, compare=False, hash=False)
    _uses_by_file: dict = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "definitions", tuple(self.definitions))
        object.__setattr__(self, "uses", tuple(self.uses))
        by_key: dict[DefinitionKey, Definition] = {}
        by_file: dict[str, list[Definition]] = {}
        for d in self.definitions:
            by_key.setdefault(d.key, d)
            by_file.setdefault(d.file, []).append(d)
        uses_by_key: dict[DefinitionKey, list[Use]] = {}
        uses_by_file: dict[str, list[Use]] = {}
        for u in self.uses:
            uses_by_key.setdefault(u.definition, []).append(u)
            uses_by_file.setdefault(u.file, []).append(u)
        object.__setattr__(self, "_by_key", by_key)
        object.__setattr__(self, "_by_file", {k: tuple(v) for k, v in by_file.items()})
        object.__setattr__(self, "_uses_by_key", {k: tuple(v) for k, v in uses_by_key.items()})
        object.__setattr__(self, "_uses_by_file", {k: tuple(v) for k, v in uses_by_file.items()})

    def __reduce__(self):
        return (ProjectIndex, (self.definitions, self.uses))

    def definition(self, key: DefinitionKey) -> Definition | None:
        return self._by_key.get(key)

    def definitions_in(self, file: str) -> tuple[Definition, ...]:
        return self._by_file.get(file, ())

    def uses_of(self, definition: Definition | DefinitionKey) -> tuple[Use, ...]:
        key = definition.key if isinstance(definition, Definition) else definition
        return self._uses_by_key.get(key, ())

    def uses_in(self, file: str) -> tuple[Use, ...]:
        return self._uses_by_file.get(file, ())

    def resolve(self, use: Use) -> Definition | None:
        """The definition a use goes through, or None when no file of the run defines it."""
        return self._by_key.get(use.definition)

    def origin(self, definition: Definition) -> Definition:
        """Follow `base` links (helper -> base) to the last definition the run knows; cycles stop."""
        seen = {definition.key}
        current = definition
        while current.base is not None and current.base not in seen:
            nxt = self._by_key.get(current.base)
            if nxt is None:
                break
            seen.add(nxt.key)
            current = nxt
        return current

    def files(self) -> frozenset[str]:
        return frozenset(self._by_file) | frozenset(self._uses_by_file)

    def merged(self, *others: "ProjectIndex") -> "ProjectIndex":
        defs = list(self.definitions)
        uses = list(self.uses)
        for other in others:
            defs.extend(other.definitions)
            uses.extend(other.uses)
        return ProjectIndex(tuple(defs), tuple(uses))

    @classmethod
    def of(cls, definitions: Iterable[Definition] = (), uses: Iterable[Use] = ()) -> "ProjectIndex":
        return cls(tuple(definitions), tuple(uses))
