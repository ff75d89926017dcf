"""Constants across the files of one run: a base or a method constant imported from a sibling module.

Every file a run analyses (`v1bridge rewrite PATH...`, `v1bridge audit PATH...`)
also yields, from the same parse, its module-level string constants and its
`from X import NAME` edges (`ModuleFacts`, picklable: the workers send it back).
`Table` joins them: for every file, the names it imports from another file of
the run that defines them as a string constant (`externals`). Only the files
that import such a constant, and the files that define one, are analysed again
with the table; every other file keeps its first (and only) pass.

The per-file analysis reads an imported constant like one of its own (its
value is known; the literal lives in the other file). The rewrite of a
constant then obeys the guarantee across files: it changes only when every
use of it, in every file, can migrate (`resolve`):

1. every file that imports a constant is rewritten again with it open; each reports
   a verdict on it (`Verdict`): migrate it to this text, keep it as it is
   (a call through it stays v1, or it builds a URL the analysis cannot follow),
   or no change needed;
2. a constant some user keeps is blocked; the files that would have migrated
   through it are rewritten again with it blocked (their families stay v1 and
   are flagged), until no verdict changes;
3. the defining file is rewritten last, with the agreed text for each of its
   exported constants, or with the constant blocked (left and flagged).


Helpers cross files too (`from .api import _get`, `from . import api`, a client class imported by three
modules): each file also lists the functions and methods that send a request to a v1 base plus a path their
caller gives (`HelperSig`, with whether that request can be wrapped in the compat module's run-time
translation). `Table` tells each file which of its helpers other files call (`exports[HELPERS]`), and each
importer which helpers it calls (`HelperRef` entries of its `externals`): the defining file wraps the helper's
request (every call through it, from any module, is then translated when it runs) and the importers count
their calls through it (state 2), or flag them with the cause when it cannot be wrapped (state 3).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Callable, Iterable

from codemod.prefilter import needs_parse

MAX_ROUNDS = 4
HELPERS = "<helpers>"  # key of a file's `exports`: the names of its helpers other files of the run call
# key of a file's `externals`: files it imports whose API answers are v1 views made at run time (every call they
# make goes through a translated helper): the v1 field names it reads on their records are v2 code too
COMPAT_ANSWERS = "<compat-answers>"
# key of a file's `externals`: local names it imports from other files of the run (name -> that file)
RUN_IMPORTS = "<run-imports>"
# key of a file's `externals`: the files of the run that import it (what its functions return reaches them)
IMPORTED_BY = "<imported-by>"
# key of a file's `externals`: its calls of other files' functions that return a v1 answer (spelling -> ReturnRef)
RETURNS = "<returns>"


@dataclass(frozen=True)
class HelperSig:
    """A function or method that requests a v1 base plus the path its caller gives (picklable)."""

    name: str  # "_get", or "RunPodClient.post" for a method
    params: tuple[str, ...]  # its parameters as callers pass them (no self)
    path_param: str
    method: str | None  # the HTTP method when fixed
    method_param: str | None  # ... or the parameter that carries it
    body_param: str | None
    slash_join: bool  # it puts "/" between base and path (callers may omit the leading slash)
    why_not: str = ""  # why its request cannot be wrapped in the run-time translation ("": it can)
    translated: bool = False  # its request already goes through v1bridge_compat.call_v1 (a rewrite made it so)
    # what a caller in another file needs to read a call through it like one through its own helper (`readable`)
    base: str = ""  # the v1 base its request puts before the path ("" when not one literal the rewrite can move)
    defaults: tuple[tuple[str, str], ...] = ()  # (parameter, default as code) of the parameters that have one
    kwargs_param: str | None = None
    returns: str = "response"  # "json": it answers the parsed JSON; "response": the HTTP answer
    is_async: bool = False
    forwards_params: bool = False  # a query reaches its request (`params=params`, `**kwargs`)
    ends_url: bool = False  # the path ends the URL it requests (a query string put at its end ends the URL)
    answers_tuple: bool = False  # it answers a tuple (`status, data`), not the answer itself
    query_param: str | None = None  # its parameter whose mapping it encodes after the path (`query=`), if any
    kwargs_query: bool = False  # its `**kwargs` are the query's parameters (`get(path, **params)`)
    api: str = "v1"  # "v2": a helper already on v2 (a rewrite moved it): its callers' calls are v2 code
    group: str = ""  # the helper whose request it goes through (`RunPodClient.request` for `.get`): they move as one
    library: str = ""  # "httpx": a verb of the library client a function returns (`rest().get`), its request(method,
    # url, **kw) the library's
    whole_urls: bool = False  # its callers give it whole URLs (`get(url, params=None)`): no base of its own to move

    @property
    def key(self) -> str:
        """Its name in the run's agreement (codemod.crossfile.resolve): helpers sharing one request move together."""
        return HELPER_KEY + (self.group or self.name)

    @property
    def readable(self) -> bool:
        """Can a caller's call through it be planned at the call site (route, body, answer) with its base moved to
        v2 in the defining file?"""
        return (bool(self.base) or self.whole_urls) and self.api == "v1" and not self.translated \
            and not self.answers_tuple


HELPER_KEY = "<helper>"  # a helper's key in the run's agreement: (defining file, HELPER_KEY + its name)
RETURN_KEY = "<return>"  # a returned answer's key in the run's agreement: (defining file, RETURN_KEY + function)


@dataclass(frozen=True)
class ReturnSig:
    """A module-level function, or a method of a module-level class, that returns the answer of one of its v1 calls
    (picklable): its callers in other files read that answer, so they say how (codemod.crossfile.resolve)."""

    name: str  # "get_pod", or "Client.get_pod" for a method
    op: str  # the v1 operation of the call (mappings/data/operations.yaml id)
    shape: str  # object | list

    @property
    def key(self) -> str:
        return RETURN_KEY + self.name


@dataclass(frozen=True)
class ReturnRef:
    """A call spelling (`get_pod`, `pods.get_pod`) of another file's function returning a v1 answer."""

    origin: str
    sig: ReturnSig
    blocked: bool = False  # the run keeps that answer v1's (its function returns the v1 view): reads stay as they are


@dataclass(frozen=True)
class HelperRef:
    """Helpers of another file of the run one local name reaches: a function imported by name ("function"), a
    module imported whole ("module": its functions, and its classes' methods as "Class.method"), a class ("class":
    its methods by name), an instance of a class made there ("instance") or a function returning one ("factory")."""

    origin: str
    kind: str
    sigs: tuple[HelperSig, ...]
    blocked: frozenset = frozenset()  # names of its helpers the run keeps on v1 (calls through them are not planned)
    class_name: str = ""  # "instance" (a module-level instance) and "factory" (a function returning one): its class
    # "function": the defining file's other module-level helpers the same `from <module> import` can import too (a
    # v1 POST whose v2 route is a PATCH goes through `patch`, imported beside `post`)
    siblings: tuple[HelperSig, ...] = ()

    def find(self, name: str) -> HelperSig | None:
        return next((s for s in self.sigs if s.name == name or s.name.endswith("." + name)
                     and self.kind == "class"), None)


@dataclass(frozen=True)
class ModuleFacts:
    """What the light pass keeps of one file (picklable)."""

    path: str  # as given to the run (relative, '/' separators)
    constants: dict[str, str] = field(default_factory=dict)  # NAME = "literal", assigned once at module level
    imports: tuple[tuple[int, str, str, str], ...] = ()  # (level, module, name, local name) of `from X import`
    # (`import X` / `import X as Y`: name "")
    helpers: tuple[HelperSig, ...] = ()  # its v1 helpers (functions and methods)
    relative: bool = False  # it calls v1 routes on a client whose base it does not set (`rest().post("/pods")`)
    attributes: tuple[str, ...] = ()  # `constants.REST_URL`: the names it reads on a module it imports whole
    # (`Settings.api_url`, the module constant it defaults to) of its classes' fields: an instance's
    # `self.settings.api_url` in another file reads that constant
    fields: tuple[tuple[str, str], ...] = ()
    # (name, "instance" | "factory", class) of its module-level instances of its client classes (`SESSION =
    # RunPodSession()`) and of its functions returning one (`def session() -> RunPodSession`)
    instances: tuple[tuple[str, str, str], ...] = ()
    returns: tuple[ReturnSig, ...] = ()  # its functions returning the answer of one of its v1 calls
    views: tuple[str, ...] = ()  # its functions that return a compat answer (`return v1bridge_compat.v1_view(...)`)
    # (method, spelling, class spelling) of its calls of a method (`c.get_pod(...)`: "get_pod", "c.get_pod",
    # "Client.get_pod" when `c = Client(...)`, else ""): a call of another file's method returning an answer that
    # the run cannot tie to that method (`def f(client): client.get_pod(...)`) reads it unheard
    method_calls: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class External:
    """A string constant this file imports from another file of the run."""

    value: str
    origin: str  # the defining file's path
    name: str  # its name there
    blocked: str | None = None  # why it stays as it is (a use elsewhere cannot migrate)

    @property
    def key(self) -> tuple[str, str]:
        return (self.origin, self.name)


@dataclass(frozen=True)
class Verdict:
    """One file's word on a cross-file constant: 'go' (migrate it to `text`), 'stay' (keep it), 'same'."""

    state: str
    text: str | None = None
    why: str | None = None
    line: int = 0
    # 'go' only with these helpers ((defining file, helper key)): the base of a client they hand other files, which
    # must not move while the run keeps them on v1 (their callers' paths would reach v2 as v1 wrote them)
    needs: tuple[tuple[str, str], ...] = ()


class Table:
    """The run's cross-file constants: who defines what, who imports it."""

    def __init__(self, facts: Iterable[ModuleFacts | None]) -> None:
        self.facts = {f.path: f for f in facts if f is not None}
        self._by_module: dict[tuple[str, ...], list[str]] = {}
        self._by_last: dict[str, list[tuple[str, ...]]] = {}  # last dotted component -> module paths
        for path in self.facts:
            parts = PurePosixPath(path).with_suffix("").parts
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            if parts:
                if parts not in self._by_module:
                    self._by_last.setdefault(parts[-1], []).append(parts)
                self._by_module.setdefault(parts, []).append(path)
        # importer path -> local name -> External
        self.imported: dict[str, dict[str, External]] = {}
        self.helper_refs: dict[str, dict[str, HelperRef]] = {}  # importer -> local name -> helpers it reaches
        self.helper_users: dict[str, set[str]] = {}  # defining file -> names of its helpers other files reach
        self._imports_of: dict[str, set[str]] = {}  # importer -> the files of the run it imports
        self.run_imports: dict[str, dict[str, str]] = {}  # a file with relative calls -> local name -> origin
        self.return_refs: dict[str, dict[str, ReturnRef]] = {}  # importer -> call spelling -> function it calls
        unfollowed: list[tuple[str, int, str]] = []  # imports no file of the run answers (a package's __init__
        # the prefilter skipped, an installed package): (importer, level, module)
        for path, facts in self.facts.items():
            for level, module, name, local in facts.imports:
                origin = self._resolve(path, level, module) if name or module else None
                if origin is not None and origin != path and name:
                    source = origin
                    origin, name = self._defining(origin, name)
                    for sig in self.facts[origin].returns:
                        if sig.name == name:
                            self.return_refs.setdefault(path, {})[local] = ReturnRef(origin, sig)
                        elif sig.name.startswith(name + "."):  # a method of a class imported by name
                            self.return_refs.setdefault(path, {})[local + sig.name[len(name):]] = ReturnRef(origin,
                                                                                                            sig)
                    value = self.facts[origin].constants.get(name)
                    if value is not None:
                        self.imported.setdefault(path, {})[local] = External(value, origin, name)
                    for field_name, constant in self.facts[origin].fields:  # a class: its fields holding a constant
                        if field_name.startswith(name + "."):
                            self.imported.setdefault(path, {})[local + field_name[len(name):]] = External(
                                self.facts[origin].constants[constant], origin, constant)
                    sigs = self.facts[origin].helpers
                    made = next(((kind, cls) for made_name, kind, cls in self.facts[origin].instances
                                 if made_name == name), None)
                    if made is not None:  # `from .session import SESSION` / `make_session`: calls on its class
                        for sig in self.facts[origin].returns:  # `SESSION.get_pod(...)`, `make_session().get_pod()`
                            if sig.name.startswith(made[1] + "."):
                                self.return_refs.setdefault(path, {})[f"{local}.{sig.name.split('.', 1)[1]}"] = \
                                    ReturnRef(origin, sig)
                        self._reach(path, local, HelperRef(origin, made[0], tuple(
                            sig for sig in sigs if sig.name.startswith(made[1] + ".")), class_name=made[1]))
                        continue
                    one = tuple(sig for sig in sigs if sig.name == name)
                    methods = tuple(sig for sig in sigs if sig.name.startswith(name + "."))
                    if one or methods:
                        siblings = tuple(sig for sig in sigs if one and "." not in sig.name and sig.name != name
                                         and self._defining(source, sig.name) == (origin, sig.name))
                        self._reach(path, local, HelperRef(origin, "function" if one else "class", one or methods,
                                                           siblings=siblings))
                        continue
                if origin is not None and origin != path:
                    self._imports_of.setdefault(path, set()).add(origin)
                    if facts.relative:
                        self.run_imports.setdefault(path, {})[local] = origin
                elif facts.relative and level and name:  # the project's own module, with nothing the run shares
                    self.run_imports.setdefault(path, {})[local] = "." * level + module
                # a module imported whole: `import rp`, `from . import api`, `from . import client as rp`
                whole = self._resolve(path, level, f"{module}.{name}" if module and name else (module or name))
                if origin is None and whole is None:
                    unfollowed.append((path, level, module or name))
                if whole is not None and whole != path:
                    for constant, value in self.facts[whole].constants.items():  # read as `local.CONSTANT`
                        if f"{local}.{constant}" in facts.attributes:
                            self.imported.setdefault(path, {})[f"{local}.{constant}"] = External(value, whole,
                                                                                                  constant)
                    self._imports_of.setdefault(path, set()).add(whole)
                    for sig in self.facts[whole].returns:  # called as `local.function(...)`
                        self.return_refs.setdefault(path, {})[f"{local}.{sig.name}"] = ReturnRef(whole, sig)
                    for _level, _module, handed, as_name in self.facts[whole].imports:  # a package's __init__
                        if handed and handed == as_name:  # handing one on (`from .pods import get_pod`)
                            defining, defined = self._defining(whole, handed)
                            if defining == whole:
                                continue
                            for sig in self.facts[defining].returns:
                                if sig.name == defined:
                                    self.return_refs.setdefault(path, {})[f"{local}.{handed}"] = ReturnRef(
                                        defining, sig)
                            if defined in self.facts[defining].views or any(
                                    sig.name == defined for sig in self.facts[defining].returns):
                                self._imports_of.setdefault(path, set()).add(defining)  # what it answers is read here
                    if facts.relative:
                        self.run_imports.setdefault(path, {})[local] = whole
                    ref = HelperRef(whole, "module", self.facts[whole].helpers) if self.facts[whole].helpers \
                        else self._handed_on(whole)
                    if ref is not None:
                        self._reach(path, local, ref)
        # files whose API answers are v1 views made at run time, and the files importing them
        serves = {p for p, f in self.facts.items() if f.views or any(sig.translated for sig in f.helpers)}
        serves |= {p for p, refs in self.helper_refs.items()
                   if all(sig.translated for ref in refs.values() for sig in ref.sigs)}
        self.compat_answers: dict[str, tuple[str, ...]] = {}
        for path, origins in self._imports_of.items():
            got = tuple(sorted(origins & serves))
            if got:
                self.compat_answers[path] = got
        # constants an edit may change (a base, a path: the prefilter's signs of the API), and who imports them;
        # other imported constants (a method, an image name) only lend their value to the importer's analysis
        self.users: dict[tuple[str, str], set[str]] = {}
        for path, names in self.imported.items():
            for ext in names.values():
                if needs_parse(ext.value):
                    self.users.setdefault(ext.key, set()).add(path)
        # helpers whose callers plan their calls at the call site: each moves to v2 only when every caller agrees
        for path, refs in self.helper_refs.items():
            for ref in refs.values():
                for sig in ref.sigs:
                    if sig.readable:
                        self.users.setdefault((ref.origin, sig.key), set()).add(path)
        # answers functions return to other files: what each caller reads of them is renamed there when every
        # caller can read it as v2's (the call is then plain v2), else the function returns the v1 view
        for path, refs in self.return_refs.items():
            for ref in refs.values():
                self.users.setdefault((ref.origin, ref.sig.key), set()).add(path)
        # ... and never while a file imports the package or module that defines it in a way the run cannot follow
        # (its calls through the helper would be left with a v1 path on a v2 base): it stays translated at run time
        self.unfollowed: dict[tuple[str, str], str] = {}
        # a method's answer (`Client.get_pod`) is heard only where the caller's object is tied to its class; a call
        # of that method on an object the run cannot type (handed in, kept on self) reads it unheard: v1's view
        methods: dict[str, list[tuple[str, ReturnSig]]] = {}
        for origin, facts in self.facts.items():
            for sig in facts.returns:
                if "." in sig.name:
                    methods.setdefault(sig.name.split(".", 1)[1], []).append((origin, sig))
        for path, facts in self.facts.items():
            heard = self.return_refs.get(path, {})
            for method, spelled, typed in facts.method_calls if methods else ():
                for origin, sig in methods.get(method, ()):
                    if origin != path and spelled not in heard and typed not in heard:
                        self.unfollowed.setdefault((origin, sig.key), f"{path} calls .{method}() on an object the "
                                                                      f"run cannot tie to {sig.name.split('.')[0]}")
        for key in [k for k in self.users if k[1].startswith((HELPER_KEY, RETURN_KEY))]:
            for path, level, module in unfollowed:
                if path != key[0] and _may_name(path, level, module, key[0]):
                    self.unfollowed[key] = (f"{path} imports {'.' * level}{module}, which the rewrite cannot follow "
                                            f"to the helper")
                    break

    def _defining(self, origin: str, name: str) -> tuple[str, str]:
        """The file (and its name there) that defines NAME imported from ORIGIN: a package's `__init__` that only
        hands it on (`from .client import RunPodClient`, imported as `from rpc import RunPodClient`) is followed to
        the module that defines it, through MAX_ROUNDS such files at most."""
        for _ in range(MAX_ROUNDS):
            facts = self.facts[origin]
            if name in facts.constants or any(sig.name == name or sig.name.startswith(name + ".")
                                              for sig in facts.helpers) \
                    or any(field_name.startswith(name + ".") for field_name, _constant in facts.fields) \
                    or any(made == name for made, _kind, _cls in facts.instances):
                break
            handed = next(((level, module, imported) for level, module, imported, local in facts.imports
                           if local == name and imported), None)
            found = self._resolve(origin, handed[0], handed[1]) if handed is not None else None
            if found is None or found == origin:
                break
            origin, name = found, handed[2]
        return origin, name

    def _handed_on(self, package: str) -> HelperRef | None:
        """The helpers a package's `__init__` hands on (`from .http import get, post`), for a module that imports
        the package whole (`import rpops as rp; rp.get("/pods")`): a module ref of the one file defining them
        (None when there are none, or they come from several files)."""
        sigs: list[HelperSig] = []
        origins = set()
        for _level, _module, name, local in self.facts[package].imports:
            if not name or name != local:
                continue
            origin, defined = self._defining(package, local)
            found = [sig for sig in self.facts[origin].helpers if defined == local
                     and (sig.name == local or sig.name.startswith(local + "."))]
            if origin != package and found:
                sigs += found
                origins.add(origin)
        return HelperRef(origins.pop(), "module", tuple(sigs)) if len(origins) == 1 else None

    def _reach(self, path: str, local: str, ref: HelperRef) -> None:
        self.helper_refs.setdefault(path, {})[local] = ref
        self.helper_users.setdefault(ref.origin, set()).update(sig.name for sig in ref.sigs)

    def _resolve(self, path: str, level: int, module: str) -> str | None:
        """The file of the run a `from <module> import` refers to (relative: from the importer's folder;
        absolute: the one file whose path ends with the dotted name), or None."""
        mod = tuple(module.split(".")) if module else ()
        if level:
            folder = PurePosixPath(path).parent.parts
            if level - 1 > len(folder):
                return None
            target = folder[: len(folder) - (level - 1)] + mod
            found = self._by_module.get(target, [])
            return found[0] if len(found) == 1 else None
        if not mod:
            return None
        found = [p for parts in self._by_last.get(mod[-1], ()) if parts[-len(mod):] == mod
                 for p in self._by_module[parts]]
        return found[0] if len(found) == 1 else None

    def externals(self, path: str, blocked: dict[tuple[str, str], str] | None = None) -> dict:
        """What `path` imports from other files of the run: constants (External) and helpers (HelperRef)."""
        out: dict = dict(self.imported.get(path, {}))
        for local, ext in out.items():
            if blocked and ext.key in blocked:
                out[local] = External(ext.value, ext.origin, ext.name, blocked[ext.key])
        for local, ref in self.helper_refs.get(path, {}).items():
            kept = frozenset(sig.name for sig in ref.sigs if blocked and (ref.origin, sig.key) in blocked)
            out.setdefault(local, replace(ref, blocked=kept) if kept else ref)
        if path in self.compat_answers:
            out[COMPAT_ANSWERS] = self.compat_answers[path]
        if path in self.run_imports:
            out[RUN_IMPORTS] = self.run_imports[path]
        if path in self.return_refs:
            out[RETURNS] = {spelled: replace(ref, blocked=bool(blocked) and (ref.origin, ref.sig.key) in blocked)
                            for spelled, ref in self.return_refs[path].items()}
        importers = tuple(sorted(p for p, origins in self._imports_of.items() if path in origins)) + tuple(
            sorted(p for p, refs in self.helper_refs.items() if any(r.origin == path for r in refs.values())))
        if importers:
            out[IMPORTED_BY] = tuple(sorted(set(importers)))
        return out

    def open_exports(self, path: str) -> dict:
        """`path`'s exports before the run agrees on them: its shared constants open, its helpers others call."""
        out: dict = {name: None for name in self.exported(path)}
        if self.helper_users.get(path):
            out[HELPERS] = frozenset(self.helper_users[path])
        return out

    def exported(self, path: str) -> set[str]:
        """Names of `path`'s constants another file of the run imports."""
        return {name for origin, name in self.users if origin == path}

    def involved(self) -> set[str]:
        """Files analysed again with the table: importers of a constant of the run, definers of shared ones."""
        return set(self.imported) | {origin for origin, _name in self.users} | set(self.helper_refs) \
            | set(self.helper_users) | set(self.compat_answers) | set(self.run_imports) | set(self.return_refs)


def constant_readers(facts: Iterable[ModuleFacts | None], unparsed: Iterable[str],
                     read: Callable[[str], str | None]) -> list[str]:
    """Files the prefilter skipped (no API sign of their own) that read a base constant of another file of the run
    (`base_url=constants.REST_URL`): they are read with the run's constants, a client class among them; and files
    that import a module calling another module's helpers (`from podctl import pods`): they may read what its
    functions return (`ReturnSig`), and the run must hear how.

    Another module's constant is read through an import: the name imported (`from .constants import REST_URL`,
    parenthesised lists too), read on a module (`constants.REST_URL`), or bare after a star import. A name that
    is only a word of the text (`API` in "no API calls") does not make a file worth a second parse."""
    facts = [f for f in facts if f is not None]
    names = {name for f in facts for name, value in f.constants.items() if needs_parse(value)}
    names |= {field_name.split(".")[0] for f in facts for field_name, constant in f.fields
              if needs_parse(f.constants[constant])}  # the class holding a base in a field (`Settings`)
    callers = _answer_modules(facts)
    if not names and not callers:
        return []
    if names:
        name = "(?:" + "|".join(re.escape(name) for name in sorted(names)) + ")"
        attribute = re.compile(rf"\.\s*{name}\b")
        imported = _WordStart(rf"import\s+(?:\([^)]*|[^#\n]*)\b{name}\b")
        spelled = re.compile(rf"\b{name}\b")
    star = _WordStart(r"import\s+\*")
    words_only = all(m.isidentifier() for m in callers)  # (a folder named `my-tools` is no word of an import)
    if callers:  # `from podctl import pods`, `from . import pods`, `import podctl.pods as pods`
        module = "(?:" + "|".join(re.escape(m) for m in sorted(callers)) + ")"
        answers = re.compile(rf"^[ \t]*(?:from[ \t]+[\w.]*\b{module}[ \t]+import\b|import[ \t]+[\w.]*\b{module}\b"
                             rf"|from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\([^)]*|[^#\n]*)\b{module}\b)", re.M)

    def reads(text: str) -> bool:  # every match holds a name: looked for first, as plain text (much cheaper)
        return bool(names and any(n in text for n in names) and (
            attribute.search(text) or imported.search(text) or (star.search(text) and spelled.search(text)))
            or callers and (not callers.isdisjoint(_IMPORT_WORD.findall(" ".join(_IMPORTS.findall(text))))
                            if words_only else any(m in text for m in callers)) and answers.search(text))

    return sorted(path for path in unparsed if reads(read(path) or ""))


# the words of a module's import statements (a parenthesised list whole): a module name `answers` can match in
# `text` is one of them, so a file none of whose import words is a caller's module is not searched (one scan of the
# text, however many modules return answers)
_IMPORTS = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*\([^)]*|from[^\n]*|import[^\n]*)", re.M)
_IMPORT_WORD = re.compile(r"\w+")


class _WordStart:
    """`re.compile(r"\b" + PATTERN).search(text) is not None`, in a tenth of the time: a pattern that starts with
    `\b` is tried at every position of the text, one that starts with a word (`import`) only where the word is."""

    def __init__(self, pattern: str) -> None:
        self.fast, self.exact = re.compile(pattern), re.compile(r"\b" + pattern)

    def search(self, text: str) -> bool:
        pos = 0
        while (found := self.fast.search(text, pos)) is not None:
            if self.exact.match(text, found.start()):
                return True
            pos = found.start() + 1
        return False


def _answer_modules(facts: list[ModuleFacts]) -> set[str]:
    """Module names of the files whose functions (or client classes' methods) return an API answer, and of the
    files that call another file's helpers (what their functions return may be one, known only once the run reads
    them with those helpers): a file importing them may read it, or hand it where the rewrite cannot read it."""
    table = Table(facts)
    out = set()
    for path in set(table.helper_refs) | {f.path for f in facts if f.returns}:
        parts = PurePosixPath(path).with_suffix("").parts
        parts = parts[:-1] if parts and parts[-1] == "__init__" else parts
        if parts:
            out.add(parts[-1])
    return out


def _may_name(importer: str, level: int, module: str, origin: str) -> bool:
    """May `from <level dots><module> import ...` in IMPORTER name ORIGIN or a package holding it (the import
    points into ORIGIN's folders, from a root that holds the importer for an absolute one)?"""
    parts = PurePosixPath(origin).with_suffix("").parts
    wanted = tuple(module.split(".")) if module else ()
    folder = PurePosixPath(importer).parent.parts
    if level:
        if level - 1 > len(folder):
            return False
        target = folder[: len(folder) - (level - 1)] + wanted
        return parts[: len(target)] == target
    return any(parts[k: k + len(wanted)] == wanted and folder[:k] == parts[:k]
               for k in range(len(parts) - len(wanted) + 1)) if wanted else False


Runner = Callable[[list[tuple[str, dict, dict]]], dict[str, object]]


def resolve(table: Table, run: Runner) -> tuple[dict[str, object], dict[tuple[str, str], str]]:
    """Rewrite the files that share constants so that each constant moves only with every use of it.

    `run([(path, externals, exports), ...])` rewrites those files (in parallel if it likes) and returns
    {path: result}, each result with `.verdicts` {(origin, name): Verdict}. `exports` maps a defining file's
    exported names to None (open: report a verdict), a Verdict 'go' (write that text) or 'stay' (keep it).
    Returns the final results of the involved files and the blocked constants with the reason."""
    for _ in range(MAX_ROUNDS):
        involved = sorted(table.involved())
        blocked: dict[tuple[str, str], str] = dict(table.unfollowed)
        exports_open = {path: table.open_exports(path) for path in involved}
        results = run([(path, table.externals(path, blocked), exports_open[path]) for path in involved])
        grown = _with_new_helpers(table, results)
        if grown is None:
            break
        table = grown
    for _ in range(MAX_ROUNDS):
        newly: dict[tuple[str, str], str] = {}
        verdicts_now = _verdicts(table, results)
        for key, verdicts in verdicts_now.items():
            if key in blocked:
                continue
            why = _why_blocked(verdicts, key[0])
            if why is not None:
                newly[key] = why
        for key, verdicts in verdicts_now.items():  # a base that moves only with helpers kept above stays too
            if key not in blocked and key not in newly:
                why = _why_blocked(verdicts, key[0], {**blocked, **newly})
                if why is not None:
                    newly[key] = why
        if not newly:
            break
        blocked.update(newly)
        again = sorted({p for key in newly for p in table.users.get(key, ())} | {key[0] for key in newly})
        results.update(run([(path, table.externals(path, blocked), exports_open[path]) for path in again]))
    else:  # no agreement after MAX_ROUNDS: every shared constant stays
        for key in table.users:
            blocked.setdefault(key, "the files that use it did not agree on one migration")
    finals: list[tuple[str, dict, dict]] = []
    verdicts = _verdicts(table, results)
    for path in involved:
        names = table.exported(path)
        if not names:
            continue
        exports = {k: v for k, v in exports_open[path].items() if k == HELPERS}
        for name in names:
            key = (path, name)
            if key in blocked:
                exports[name] = Verdict("stay", why=blocked[key])
            else:
                go = [v for _p, v in verdicts.get(key, []) if v.state == "go"]
                exports[name] = go[0] if go else Verdict("same")
        finals.append((path, table.externals(path, blocked), exports))
    # the importers' results already hold the final blocked set (each was re-run when a constant it uses blocked)
    results.update(run(finals))
    # a helper's base that is another file's constant (`self.settings.api_url`) moves once the run agreed on the
    # helper, in the round above: the files defining such constants are written again with that word
    verdicts = _verdicts(table, results)
    again: list[tuple[str, dict, dict]] = []
    for path, externals, exports in finals:
        moved = {name: go[0] for name, given in exports.items()
                 if isinstance(given, Verdict) and given.state == "same" and (path, name) not in blocked
                 and _why_blocked(verdicts.get((path, name), []), path) is None
                 and (go := [v for _p, v in verdicts.get((path, name), []) if v.state == "go"])}
        if moved:
            again.append((path, externals, {**exports, **moved}))
    if again:
        results.update(run(again))
    return results, blocked


def _with_new_helpers(table: Table, results: dict[str, object]) -> Table | None:
    """The run's table again when a file read with another file's constants or helpers finds what its own pass
    could not: helpers (`base_url=constants.REST_URL`: a client class whose base only the constants module spells),
    functions returning a v1 answer (`return _get(f"/pods/{pod_id}")` through another file's helper); else None."""
    facts = dict(table.facts)
    grew = False
    for path, result in results.items():
        found = getattr(result, "module_facts", None)
        known = {sig.name for sig in facts[path].helpers} if path in facts else set()
        returns = set(facts[path].returns) if path in facts else set()
        if found is not None and ({sig.name for sig in found.helpers} - known or set(found.returns) - returns):
            facts[path] = found
            grew = True
    return Table(facts.values()) if grew else None


def _verdicts(table: Table, results: dict[str, object]) -> dict[tuple[str, str], list[tuple[str, Verdict]]]:
    out: dict[tuple[str, str], list[tuple[str, Verdict]]] = {key: [] for key in table.users}
    for path, result in results.items():
        for key, verdict in (getattr(result, "verdicts", None) or {}).items():
            if key in out:
                out[key].append((path, verdict))
    return out


def _why_blocked(verdicts: list[tuple[str, Verdict]], origin: str, blocked: dict | None = None) -> str | None:
    stay = [(p, v) for p, v in verdicts if v.state == "stay"]
    if stay:
        path, v = stay[0]  # named from the defining file's folder: the text is the same wherever the run starts
        return f"{posixpath.relpath(path, posixpath.dirname(origin) or '.')}:{v.line}: {v.why}"
    for path, v in verdicts:
        kept = next((key for key in v.needs if blocked and key in blocked), None)
        if v.state == "go" and kept is not None:
            return (f"{posixpath.relpath(path, posixpath.dirname(origin) or '.')}:{v.line}: it is the base of "
                    f"{kept[1][len(HELPER_KEY):]}(), which stays v1 ({blocked[kept]})")
    texts = {v.text for _p, v in verdicts if v.state == "go"}
    if len(texts) > 1:
        return "its users would migrate it to different texts (" + ", ".join(sorted(texts)) + ")"
    return None
