"""Which files the rewrite and the audit look at, and why the others are skipped.

Shared by `v1bridge rewrite` and `v1bridge audit`: one walk, one set of skip
rules, so the two commands never disagree about what "the project" is.

Skipped: VCS folders, virtual environments (by name or by a `pyvenv.cfg`
inside), node_modules, caches, build output, vendored code, what `.gitignore`
files exclude (every level, plus the ones above the walk root up to the
repository root), files marked as generated, and symlinks (a symlink loop
cannot hang the walk, and a write through a symlink would replace it).
Nothing here raises on an unreadable file or folder: it is reported instead.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping, NamedTuple

import pathspec

# Folder names that never hold the user's own source.
SKIP_DIRS: dict[str, str] = {
    ".git": "vcs",
    ".hg": "vcs",
    ".svn": "vcs",
    ".venv": "virtualenv",
    "venv": "virtualenv",
    ".tox": "virtualenv",
    ".nox": "virtualenv",
    "site-packages": "installed packages",
    "node_modules": "node_modules",
    "__pycache__": "cache",
    ".mypy_cache": "cache",
    ".pytest_cache": "cache",
    ".ruff_cache": "cache",
    ".hypothesis": "cache",
    ".eggs": "build output",
    "build": "build output",
    "dist": "build output",
    "vendor": "vendored",
    "vendored": "vendored",
    "_vendor": "vendored",
    "third_party": "vendored",
}

# Folders, named by their path's last two parts, that hold another copy of the project: an agent's
# worktree scanned as if it were the project doubles every finding. The provider's scanner skips them too.
SKIP_NESTED: dict[tuple[str, str], str] = {
    (".claude", "worktrees"): "agent worktree (a copy of the tree)",
    (".cursor", "worktrees"): "agent worktree (a copy of the tree)",
    (".codex", "worktrees"): "agent worktree (a copy of the tree)",
    (".git", "worktrees"): "git worktree (a copy of the tree)",
}
SKIP_COPY_DIRS: dict[str, str] = {
    ".worktrees": "git worktrees (copies of the tree)",
    ".jj": "vcs",
}

DEFAULT_SUFFIXES: tuple[str, ...] = (".py", ".pyi")

# A generated-file marker in the first lines ("@generated", "DO NOT EDIT", "Code generated ... by").
GENERATED = re.compile(rb"@generated|DO NOT EDIT|Code generated\b", re.IGNORECASE)
GENERATED_HEAD_LINES = 5
GENERATED_HEAD_BYTES = 2048


class SourceFile(NamedTuple):
    """A file to look at: the real path, and the path to show the user."""

    path: Path
    rel: str


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def is_generated(head: bytes) -> bool:
    """True when the first lines carry a generated-code marker."""
    lines = head.split(b"\n", GENERATED_HEAD_LINES)[:GENERATED_HEAD_LINES]
    return any(GENERATED.search(line) for line in lines)


def read_file(path: str | os.PathLike[str], limit: int = 0) -> bytes:
    """The bytes of the file at PATH, at most LIMIT of them (0: all), as `open(path, "rb").read(limit or -1)` gives
    them, with the os calls alone: the file object's set-up cost more than the read of a small file, and
    `read(LIMIT)` allocates LIMIT bytes first (the audit's 2 MB limit: most of the cost of a file passed over).
    A file that grows while read is read on (to LIMIT); one with no size (a device, /proc) is read to its end."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        left = limit if limit else -1
        parts = []
        while left:
            want = size + 1 if size > 0 and not parts else 1 << 16
            chunk = os.read(fd, want if left < 0 else min(want, left))
            if not chunk:
                break
            parts.append(chunk)
            left = left - len(chunk) if left > 0 else left
            if len(parts) == 1 and len(chunk) == size:
                break  # its size, asked for one byte more in one read: its end is here (no second read to hear so)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def _read_head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(GENERATED_HEAD_BYTES)


def _linked_worktree(git_file: Path) -> bool:
    """A `.git` file saying `gitdir: <repo>/.git/worktrees/<name>`: the folder is a linked worktree
    of some repository (a copy of a tree), not a submodule (`.git/modules/...`)."""
    try:
        head = git_file.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return False
    return head.startswith("gitdir:") and "/worktrees/" in head.replace("\\", "/")


def _load_gitignore(folder: Path) -> pathspec.PathSpec | None:
    candidate = folder / ".gitignore"
    try:
        text = candidate.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except Exception:  # a malformed pattern must not stop the walk
        return None


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


@dataclass(eq=False)
class _Ignore:
    """A .gitignore and the folder its patterns are relative to."""

    base: Path
    spec: pathspec.PathSpec
    reason: str = "gitignored"

    def excludes(self, path: str, is_dir: bool) -> bool:
        """PATH: a normalised absolute path, as the walk builds them (string work: no Path per entry)."""
        base = str(self.base)
        if path.startswith(base) and path[len(base):len(base) + 1] == os.sep:
            rel = path[len(base) + 1:].replace(os.sep, "/")
        else:
            try:
                rel = Path(path).relative_to(self.base).as_posix()
            except ValueError:
                return False
        return self.spec.match_file(rel + "/" if is_dir else rel)


def _inherited_ignores(root: Path) -> list[_Ignore]:
    """.gitignore files above the walk root, up to the repository root."""
    repo = _git_root(root)
    if repo is None:
        return []
    chain: list[Path] = []
    folder = root.parent
    while True:
        if folder == repo or repo in folder.parents:
            chain.append(folder)
        if folder == repo or folder == folder.parent:
            break
        folder = folder.parent
    ignores = []
    for folder in reversed(chain):
        spec = _load_gitignore(folder)
        if spec is not None:
            ignores.append(_Ignore(folder, spec))
    return ignores


@dataclass
class Walker:
    """Iterate the files under some paths; `skipped` tells what was left out and why."""

    include_suffixes: tuple[str, ...] = DEFAULT_SUFFIXES
    include_extensionless: bool = False  # files with no suffix (scripts: the caller reads their shebang)
    check_generated: bool = True
    use_gitignore: bool = True
    exclude: tuple[str, ...] = ()  # gitignore-style patterns, relative to each folder given (`--exclude`)
    # exact files never read (the baseline in use, the report written) -> the reason shown for each
    exclude_files: dict[Path, str] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    _top: Path | None = None
    _excluded: "_Ignore | None" = None

    def skip(self, path: Path | str, reason: str) -> None:
        self.skipped.append(Skipped(str(path), reason))

    def iter_files(self, paths: Iterable[str | os.PathLike[str]]) -> Iterator[SourceFile]:
        for real, shown in self.iter_paths(paths):
            yield SourceFile(Path(real), shown)

    def iter_paths(self, paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[str, str]]:
        """(real path, path shown) of each file `iter_files` gives, as strings: a caller that reads the files by
        name (the audit) need not make a Path per file."""
        seen: set[str] = set()  # real paths, as strings (a Path hashes its parts: slower, per file)
        never = {str(p.resolve()): reason for p, reason in self.exclude_files.items()}
        spec = pathspec.GitIgnoreSpec.from_lines(self.exclude) if self.exclude else None
        for raw in paths:
            given = Path(raw)
            if given.is_symlink() and given.is_dir():
                self.skip(given, "symlink")
                continue
            if given.is_file():
                # Named explicitly (e.g. by pre-commit): only the generated marker counts.
                if self._generated(given):
                    continue
                real = str(given.resolve())
                if real in never:
                    self.skip(given, never[real])
                    continue
                if spec is not None and spec.match_file(given.as_posix()):
                    self.skip(given, "excluded")
                    continue
                if real not in seen:
                    seen.add(real)
                    yield str(given), str(given)
                continue
            if not given.is_dir():
                self.skip(given, "not found")
                continue
            root = given.resolve()
            self._top = given
            ignores = _inherited_ignores(root) if self.use_gitignore else []
            self._excluded = _Ignore(root, spec, "excluded") if spec is not None else None
            for real, shown in self._walk_dir(str(given), str(root), ignores):
                if real in never:
                    self.skip(shown, never[real])
                    continue
                # `real` is already real: built from the resolved root, and the walk never
                # follows a symlink, so no per-file resolve() (a syscall per path component).
                if real not in seen:
                    seen.add(real)
                    yield real, shown

    def _generated(self, path: Path) -> bool:
        if not self.check_generated:
            return False
        try:
            head = _read_head(path)
        except OSError as exc:
            self.skip(path, f"unreadable: {exc.strerror or exc}")
            return True
        if is_generated(head):
            self.skip(path, "generated")
            return True
        return False

    def _walk_dir(self, shown: str, real: str, ignores: list[_Ignore]) -> Iterator[tuple[str, str]]:
        """(real path, path shown) of each file under the folder REAL (shown as SHOWN). Paths are strings here:
        two Path objects per entry were most of the walk's cost."""
        if self.use_gitignore:
            spec = _load_gitignore(Path(real))
            if spec is not None:
                ignores = [*ignores, _Ignore(Path(real), spec)]
        if self._excluded is not None and self._excluded not in ignores:
            ignores = [*ignores, self._excluded]
        try:
            with os.scandir(real) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            self.skip(shown, f"unreadable: {exc.strerror or exc}")
            return
        if any(e.name == "pyvenv.cfg" for e in entries):
            self.skip(shown, "virtualenv")
            return
        if shown != str(self._top) and any(e.name == ".git" and e.is_file(follow_symlinks=False) for e in entries) \
                and _linked_worktree(Path(real, ".git")):
            self.skip(shown, "git worktree (a copy of the tree)")
            return
        real_name = os.path.basename(real)
        # os.path.join(real, name), os.path.join(shown, name) as `Path / name` shows it ("." leaves no "./")
        real_prefix = real if real.endswith(os.sep) else real + os.sep
        shown_prefix = "" if shown == "." else shown if shown.endswith(os.sep) else shown + os.sep
        for entry in entries:
            entry_real = real_prefix + entry.name
            entry_shown = shown_prefix + entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError as exc:
                self.skip(entry_shown, f"unreadable: {exc.strerror or exc}")
                continue
            if is_link:
                if entry.name.endswith(self.include_suffixes) or entry.is_dir():
                    self.skip(entry_shown, "symlink")
                continue
            if is_dir:
                reason = SKIP_DIRS.get(entry.name) or SKIP_COPY_DIRS.get(entry.name) \
                    or SKIP_NESTED.get((real_name, entry.name))
                if reason is None and entry.name.endswith(".egg-info"):
                    reason = "build output"
                if reason is not None:
                    self.skip(entry_shown, reason)
                    continue
                hit = next((ig for ig in ignores if ig.excludes(entry_real, True)), None)
                if hit is not None:
                    self.skip(entry_shown, hit.reason)
                    continue
                yield from self._walk_dir(entry_shown, entry_real, ignores)
            elif not is_file:
                if entry.name.endswith(self.include_suffixes):
                    self.skip(entry_shown, "not a regular file")  # a FIFO or socket: reading could block
            else:
                if not entry.name.endswith(self.include_suffixes) and not (
                        self.include_extensionless and "." not in entry.name):
                    continue
                hit = next((ig for ig in ignores if ig.excludes(entry_real, False)), None)
                if hit is not None:
                    self.skip(entry_shown, hit.reason)
                    continue
                if self.check_generated and self._generated(Path(entry_real)):
                    continue
                yield entry_real, entry_shown


def iter_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    include_suffixes: Iterable[str] | None = None,
    skipped: list[Skipped] | None = None,
    check_generated: bool = True,
    use_gitignore: bool = True,
    include_extensionless: bool = False,
    exclude: Iterable[str] = (),
    exclude_files: Iterable[Path] | Mapping[Path, str] = (),
) -> Iterator[SourceFile]:
    """The files to look at under `paths`; appends (path, reason) of each skip to `skipped`.

    EXCLUDE_FILES: files never read, with the reason to show for each (default "written by this run")."""
    return _walker(include_suffixes, skipped, check_generated, use_gitignore, include_extensionless, exclude,
                   exclude_files).iter_files(paths)


def iter_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    include_suffixes: Iterable[str] | None = None,
    skipped: list[Skipped] | None = None,
    check_generated: bool = True,
    use_gitignore: bool = True,
    include_extensionless: bool = False,
    exclude: Iterable[str] = (),
    exclude_files: Iterable[Path] | Mapping[Path, str] = (),
) -> Iterator[tuple[str, str]]:
    """`iter_files`, each file as (real path, path shown): strings, no Path per file."""
    return _walker(include_suffixes, skipped, check_generated, use_gitignore, include_extensionless, exclude,
                   exclude_files).iter_paths(paths)


def _walker(include_suffixes, skipped, check_generated, use_gitignore, include_extensionless, exclude,
            exclude_files) -> Walker:
    walker = Walker(
        include_suffixes=tuple(include_suffixes) if include_suffixes is not None else DEFAULT_SUFFIXES,
        check_generated=check_generated,
        use_gitignore=use_gitignore,
        include_extensionless=include_extensionless,
        exclude=tuple(exclude),
        exclude_files={Path(p): (exclude_files[p] if isinstance(exclude_files, Mapping) else "written by this run")
                       for p in exclude_files},
    )
    if skipped is not None:
        walker.skipped = skipped
    return walker
