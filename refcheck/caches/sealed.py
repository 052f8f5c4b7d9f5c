"""The cache files' trust and safety: the secret key that authenticates them, their seals, and
atomic writes and pruning that touch only files refcheck wrote (see cache.py's docstring)."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
import tempfile
import time

from refcheck.caches.serial import Invalid

# Entries not written for this long are deleted by the next run that writes one. Every edit of
# refcheck's code (or the flags, or the conventions) orphans a set of entries; a used entry that
# gets pruned costs one re-analysis a week. Age rather than version decides, so two refcheck
# versions in use side by side (pre-commit's and a checkout's) do not evict each other.
PRUNE_AFTER_SECONDS = 7 * 24 * 3600
# Temporary files of a run killed mid-write (SIGKILL; Ctrl-C cleans up its own).
STALE_TEMP_SECONDS = 3600
_TEMP_NAME = re.compile(r"\.tmp-[A-Za-z0-9_]+\.json")
KEY_ENV = "REFCHECK_CACHE_KEY"


# --- the secret that authenticates entries -------------------------------------------------------

class KeyProblem(Exception):
    pass


def user_cache_home() -> str:
    if os.name == "nt":  # pragma: no cover - Windows
        return os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
    return os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")


def key_file() -> str:
    return os.path.join(user_cache_home(), "refcheck", "cache-key")


def load_secret() -> bytes:
    """REFCHECK_CACHE_KEY (a CI secret), else the per-user key file, created on first use.

    The file must be a regular file of ours that nobody else can read or write: a key others
    can read lets them forge entries, one they can write lets them choose it."""
    env = os.environ.get(KEY_ENV)
    if env:
        if len(env) < 16:
            raise KeyProblem(f"{KEY_ENV} is shorter than 16 characters")
        return env.encode("utf-8", "surrogateescape")
    path = key_file()
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as e:
        raise KeyProblem(f"{directory}: cannot create: {e.strerror or e}") from None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    except OSError as e:
        raise KeyProblem(f"{path}: cannot create: {e.strerror or e}") from None
    else:
        try:
            os.write(fd, secrets.token_hex(32).encode() + b"\n")
        finally:
            os.close(fd)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise KeyProblem(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyProblem(f"{path}: not a regular file")
        if hasattr(os, "geteuid") and (st.st_uid != os.geteuid() or st.st_mode & 0o077):
            raise KeyProblem(f"{path}: must belong to you with mode 0600")
        data = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if len(data) < 32:
        raise KeyProblem(f"{path}: too short to be a key (delete it to make a new one)")
    return data


def _mac(secret: bytes, key: str, body: bytes) -> str:
    return hmac.new(secret, key.encode() + b"\n" + body, hashlib.sha256).hexdigest()


def seal(magic: bytes, mac: str, body: bytes) -> bytes:
    """A cache file's bytes (entries, function tables, costs): its magic line, its body's MAC."""
    return magic + mac.encode() + b"\n" + body


def unseal(magic: bytes, data: bytes, mac_of, what: str) -> bytes:
    """The body of bytes `seal` made, whose MAC `mac_of(body)` gives; Invalid otherwise."""
    if not data.startswith(magic):
        raise Invalid(f"not {what}")
    mac, _, body = data[len(magic):].partition(b"\n")
    if not hmac.compare_digest(mac, mac_of(body).encode()):
        raise Invalid("not written with this key")
    return body


def _own_file(path: str, magic: bytes) -> bool:
    """Whether a file in the entries directory is one refcheck wrote (by its first bytes)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, len(magic)) == magic
    except OSError:
        return False
    finally:
        os.close(fd)


def replace_atomically(directory: str, path: str, data: bytes) -> None:
    """Write `data` to `path` (in `directory`) through a temporary file renamed over it, so that a
    reader, or another run writing the same file, sees the old bytes or the new ones, whole."""
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp creates 0600; entries are as shareable as the sources they describe.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def prune_directory(directory: str, names: re.Pattern, magic: bytes) -> None:
    """Deletes what has not been written for PRUNE_AFTER_SECONDS (unit entries, per-function
    tables) and temporary files of killed runs. Another run may be reading these, but it
    treats a vanished file as the miss it would have been after a week anyway. Only files
    named and starting as refcheck writes them are deleted: whatever else is there is not ours."""
    now = time.time()
    with os.scandir(directory) as it:
        for e in it:
            try:
                temp = _TEMP_NAME.fullmatch(e.name) is not None
                if not (temp or names.fullmatch(e.name)):
                    continue
                if not e.is_file(follow_symlinks=False):
                    continue
                age = now - e.stat(follow_symlinks=False).st_mtime
                limit = STALE_TEMP_SECONDS if temp else PRUNE_AFTER_SECONDS
                if age > limit and (_own_file(e.path, magic) or (temp and e.stat().st_size == 0)):
                    os.unlink(e.path)
            except OSError:
                pass
