"""The one way v1bridge replaces a file: the rewrite's sources, the audit's reports and baselines.

Why one module: a rewritten source and a report both must never be half written, and must come out with the
mode and owner a user expects.

- Atomic: the new bytes go to a temporary file in the same folder, are flushed to disk, then renamed over the
  target. SIGTERM, SIGINT and SIGHUP are held back from creating the temporary file to the rename, so a process
  told to stop (a rewrite worker whose parent died) finishes or abandons the write whole and leaves no
  temporary file behind.
- An existing file keeps its mode and its owner and group. When the owner cannot be kept (another user's
  file, written by a non-root user), or the file has several hard links (a rename would split them: the
  other names would keep the old text), the file is written in place instead, through the same inode, as
  black and ruff write every file; that write is not atomic, and `replace` says which way it wrote.
- A file with no write permission bit at all is refused (`ReadOnlyFile`), for root too: read-only is the
  owner's word that it must not change.
- A process killed with SIGKILL cannot remove a temporary file, so where the system allows it (Linux
  `O_TMPFILE`) the bytes are written and flushed to a file with no name, which gets one only for the instant
  between `link` and the rename: a writer killed while writing leaves nothing. Elsewhere, and in that
  instant, the name carries the writer's pid (`.NAME.PID.XXXX.v1bridge-tmp`), and `remove_leftovers` (run by
  `rewrite` on the folders it writes) deletes those whose process is gone, so none outlives the next run.
- A new file (a report, a baseline) gets the mode `open()` would give it (0666 less the umask: 0644 under the
  usual 022; CI artifacts must be readable), not the 0600 of a temporary file.
"""
from __future__ import annotations

import os
import re
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from mappings.errors import V1bridgeError

TEMP_SUFFIX = ".v1bridge-tmp"
LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+" + re.escape(TEMP_SUFFIX) + "$")
HELD_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


class ReadOnlyFile(V1bridgeError, PermissionError):
    """The file has no write permission bit: it is not replaced."""


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGTERM/SIGINT/SIGHUP back (delivered when the block ends) so the block runs whole or not at all."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _new_file_mode() -> int:
    mask = os.umask(0o022)  # the only portable way to read the umask is to set it
    os.umask(mask)
    return 0o666 & ~mask


def replace(path: str | os.PathLike[str], data: bytes) -> str:
    """Write DATA as the whole content of PATH; return how: "new", "replaced" or "in place: <why>".

    PATH is written as named: a symlink is replaced by a file (callers that must not do that resolve it first).
    Raises OSError (ReadOnlyFile for a file without write permission)."""
    target = Path(path)
    try:
        st = os.stat(target, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        if not st.st_mode & 0o222:
            raise ReadOnlyFile(f"read-only (mode {stat.filemode(st.st_mode)}): not written; `chmod u+w` it first")
        if st.st_nlink > 1:
            _in_place(target, data)
            return f"in place: {st.st_nlink} hard links (every name sees the new text)"
        if not _can_keep_owner(st):
            _in_place(target, data)
            return f"in place: owned by {st.st_uid}:{st.st_gid} (a new file could not keep that owner)"
    _atomic(target, data, st if st is not None and stat.S_ISREG(st.st_mode) else None)
    return "replaced" if st is not None else "new"


def _can_keep_owner(st: os.stat_result) -> bool:
    """A renamed-in file can be given ST's owner and group: we are root, or its owner and one of its groups."""
    if os.geteuid() == 0:
        return True
    return st.st_uid == os.geteuid() and (st.st_gid == os.getegid() or st.st_gid in os.getgroups())


def _in_place(target: Path, data: bytes) -> None:
    with signals_held(), open(target, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def _atomic(target: Path, data: bytes, st: os.stat_result | None) -> None:
    folder = target.parent if str(target.parent) else Path(".")
    prefix = f".{target.name}.{os.getpid()}."
    with signals_held():
        fd = _unnamed(folder)
        if fd is None:
            fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=TEMP_SUFFIX, dir=folder)
        else:
            tmp = None
        try:
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
                handle.flush()
                os.fsync(fd)
            if st is None:
                os.fchmod(fd, _new_file_mode())
            else:
                if (st.st_uid, st.st_gid) != (os.geteuid(), os.fstat(fd).st_gid):
                    os.fchown(fd, st.st_uid, st.st_gid)  # allowed: _can_keep_owner said so
                os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which clears setuid/setgid
            if tmp is None:  # named only now, for the rename
                name = f"{prefix}{os.urandom(4).hex()}{TEMP_SUFFIX}"
                _link(fd, folder, name)
                tmp = str(folder / name)
            os.replace(tmp, target)
        except BaseException:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            raise
        finally:
            os.close(fd)


def _link(fd: int, folder: Path, name: str) -> None:
    """Give the unnamed file FD the name NAME in FOLDER (linkat with AT_SYMLINK_FOLLOW through /proc: os.link
    uses it only when given a folder descriptor)."""
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dir_fd, follow_symlinks=True)
    finally:
        os.close(dir_fd)


def _unnamed(folder: Path) -> int | None:
    """A file with no name in FOLDER, open for writing (Linux O_TMPFILE); None where the system or the file
    system does not offer one (or /proc is not there to name it later)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o600)
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def remove_leftovers(folder: str | os.PathLike[str]) -> list[str]:
    """Delete the temporary files in FOLDER that a killed writer left (its pid no longer runs); their names."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = LEFTOVER.match(entry.name) if entry.name.endswith(TEMP_SUFFIX) else None
        if found is None or _alive(int(found["pid"])):
            continue
        try:
            os.unlink(entry.path)
            removed.append(entry.path)
        except OSError:
            pass
    return removed
