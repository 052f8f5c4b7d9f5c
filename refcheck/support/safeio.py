"""Reading inputs and writing outputs without trusting what a path names.

A path given to refcheck (or found by walking, or listed in a cache entry or a compile database)
can name a FIFO that blocks a reader forever, a device that never ends (/dev/zero), a socket, or
a file of gigabytes. Reads here open without blocking, accept only regular files and are bounded.

Outputs (the report, a baseline, cache entries) are written whole or not at all: to a temporary
file beside the target, then renamed over it. A symbolic link is never written through (it could
point anywhere: a committed `.refcheck_cache -> ~/.ssh`), and a device node or FIFO is never
replaced by a regular file (`-o /dev/null` as root must not turn /dev/null into a file): character
devices and FIFOs are written through, as a shell redirection would.
"""

from __future__ import annotations

import os
import stat
import tempfile

# Default bound on one source file; a configuration's `max-file-size` (MiB) overrides it.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024


class UnreadableFile(Exception):
    """A per-file problem, stated for the user (`str(e)` is the message)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def read_regular(path: str, max_bytes: int = DEFAULT_MAX_BYTES, *, follow: bool = True,
                 with_stat: bool = False):
    """The bytes of a regular file of at most `max_bytes`; UnreadableFile otherwise.

    O_NONBLOCK makes opening a FIFO return at once (a blocking open waits for a writer forever);
    the type is then checked on the open descriptor, so a swap after a check cannot fool it.
    With `with_stat`, returns (bytes, stat before the read, stat after it)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow and e.errno == getattr(os, "ELOOP", -1):
            raise UnreadableFile("is a symbolic link") from None
        raise UnreadableFile(f"cannot read file: {e.strerror or e}") from None
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise UnreadableFile(f"{_kind(before.st_mode)}, not a regular file")
        if before.st_size > max_bytes:
            raise UnreadableFile(f"{before.st_size} bytes, larger than the "
                                 f"{max_bytes} byte limit (max-file-size)")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:  # grew while being read
            raise UnreadableFile(f"larger than the {max_bytes} byte limit (max-file-size)")
        after = os.fstat(fd) if with_stat else None
    except OSError as e:
        raise UnreadableFile(f"cannot read file: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return (data, before, after) if with_stat else data


class UnwritableFile(Exception):
    """Why an output cannot be written (`str(e)` is the message, without the path)."""


def write_file(path: str, data: bytes, mode: int | None = None) -> None:
    """Writes `data` to `path` atomically as a regular file; see the module docstring.

    `mode` sets a new file's permissions (default: 0o666 less the umask, as open() would)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UnwritableFile(e.strerror or str(e)) from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise UnwritableFile("is a symbolic link; refusing to write through it "
                                 "(name the file it points to instead)")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            _write_through(path, data)
            return
        if not stat.S_ISREG(st.st_mode):
            raise UnwritableFile(f"is {_kind(st.st_mode)}; refusing to replace it")
    directory = os.path.dirname(os.path.abspath(path))
    if mode is None:
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".refcheck-tmp-")
    except OSError as e:
        raise UnwritableFile(e.strerror or str(e)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise UnwritableFile(e.strerror or str(e)) from None
        raise


def _write_through(path: str, data: bytes) -> None:
    """A character device or FIFO: write into it, never replace it. A FIFO without a reader is
    an error rather than a hang (O_NONBLOCK makes that open fail with ENXIO)."""
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        if e.errno == getattr(__import__("errno"), "ENXIO", -1):
            raise UnwritableFile("is a FIFO with no reader") from None
        raise UnwritableFile(e.strerror or str(e)) from None
    try:
        st = os.fstat(fd)
        if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise UnwritableFile("changed while being opened; not written")
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except OSError as e:
        raise UnwritableFile(e.strerror or str(e)) from None
    finally:
        os.close(fd)
