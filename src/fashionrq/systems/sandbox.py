"""OS-level isolation of the process a system runs in: Landlock where the kernel has it, else a private mount namespace.

:func:`seal` is called by the sealed child process before any system code is imported. It makes the
``denied`` folders (the release, the SID cache) unreadable for the rest of the process's life and for
every process it starts:

* ``landlock`` (Linux >= 5.13): read access to the whole file tree except the denied folders, write
  access only to the ``writable`` folders; enforced by the kernel on every route (open, C readers,
  memory maps, ctypes, ``dir_fd``, hard links, renames, subprocesses);
* ``mount-namespace`` (root without Landlock): an empty read-only tmpfs is mounted over each denied
  folder in a private mount namespace, then ``CAP_SYS_ADMIN`` is dropped so it cannot be unmounted;
  weaker, since another process's ``/proc/PID/root`` still shows the original tree;
* ``none``: nothing held; the run is marked unsealed and the scorer refuses it without ``--unsealed``.

``FASHIONRQ_SANDBOX`` (``auto``, ``landlock``, ``mount-namespace``, ``none``) chooses a mechanism; ``auto`` takes
the strongest that works.
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

from fashionrq.errors import FashionRQError

MECHANISMS = ("landlock", "mount-namespace", "none")
#: Mechanisms under which a run counts as sealed.
SEALED = ("landlock", "mount-namespace")
ENV = "FASHIONRQ_SANDBOX"

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 38, 24
_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 1, 2, 4, 0x4000, 1 << 18
_CAP_SYS_ADMIN = 21

# Landlock filesystem rights (include/uapi/linux/landlock.h).
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_TRUNCATE, _IOCTL_DEV = 1 << 14, 1 << 15
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV


class SandboxError(FashionRQError):
    """The isolation mechanism asked for cannot be set up on this machine."""

    exit_code = 3


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    try:
        version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _handled_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= 1 << 13  # refer (links and renames across folders)
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def outside(root: Path, denied: list[Path]) -> list[Path]:
    """Paths that together cover the tree under ``root`` except the ``denied`` folders (symlinks skipped)."""
    if root in denied:
        return []
    if not any(root in d.parents for d in denied):
        return [root]
    covered = []
    try:
        children = sorted(root.iterdir())
    except OSError:
        return []
    for child in children:
        if not child.is_symlink():
            covered += outside(child, denied)
    return covered


def _add_rule(libc, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # vanished or unreadable: nothing to allow
    try:
        if not path.is_dir():
            rights &= _FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            code = ctypes.get_errno()
            raise SandboxError(f"Landlock refused a rule for {path} ({os.strerror(code)}); set {ENV}=mount-namespace or none.")
    finally:
        os.close(fd)


def _landlock(denied: list[Path], writable: list[Path]) -> dict:
    abi = landlock_abi()
    if abi < 1:
        raise SandboxError(f"this kernel has no Landlock; set {ENV}=mount-namespace or none.")
    libc = _libc()
    handled = _handled_rights(abi)
    attr = ctypes.c_uint64(handled)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0))
    if ruleset < 0:
        raise SandboxError(f"Landlock ruleset creation failed ({os.strerror(ctypes.get_errno())}); set {ENV}=mount-namespace or none.")
    try:
        for path in outside(Path("/"), denied):
            _add_rule(libc, ruleset, path, _READ)
        for folder in writable:
            for path in outside(folder, denied):
                _add_rule(libc, ruleset, path, handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise SandboxError(f"Landlock could not restrict this process ({os.strerror(ctypes.get_errno())}); set {ENV}=mount-namespace or none.")
    finally:
        os.close(ruleset)
    return {"mechanism": "landlock", "landlock_abi": abi}


def _drop_sys_admin(libc) -> None:
    """Remove CAP_SYS_ADMIN from this process (effective, permitted, inheritable, bounding set)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.syscall(125 if os.uname().machine == "x86_64" else 90, header, data) != 0:  # capget
        raise SandboxError(f"capget failed ({os.strerror(ctypes.get_errno())}); set {ENV}=none.")
    for i in range(3):
        data[i] &= ~(1 << _CAP_SYS_ADMIN)
    libc.prctl(_PR_CAPBSET_DROP, _CAP_SYS_ADMIN, 0, 0, 0)
    if libc.syscall(126 if os.uname().machine == "x86_64" else 91, header, data) != 0:  # capset
        raise SandboxError(f"capset failed ({os.strerror(ctypes.get_errno())}); set {ENV}=none.")


def _mount_namespace(denied: list[Path]) -> dict:
    libc = _libc()
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise SandboxError(f"no private mount namespace ({os.strerror(ctypes.get_errno())}: needs root); set {ENV}=none.")
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise SandboxError(f"cannot make / private ({os.strerror(ctypes.get_errno())}); set {ENV}=none.")
    flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV
    for folder in denied:
        if folder.exists() and libc.mount(b"fashionrq-sealed", os.fsencode(folder), b"tmpfs", flags, b"size=4k,mode=0555") != 0:
            raise SandboxError(f"cannot hide {folder} ({os.strerror(ctypes.get_errno())}); set {ENV}=none.")
    _drop_sys_admin(libc)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return {"mechanism": "mount-namespace"}


def seal(denied: list[str | Path], writable: list[str | Path], mechanism: str | None = None) -> dict:
    """Make ``denied`` unreadable to this process and its children; return ``{"mechanism": ...}`` of what held."""
    choice = (mechanism or os.environ.get(ENV) or "auto").strip().lower()
    if choice not in ("auto", *MECHANISMS):
        raise SandboxError(f"{ENV}={choice!r} is unknown; use auto, {', '.join(MECHANISMS)}.")
    denied = sorted({Path(os.path.realpath(p)) for p in denied})
    writable = [Path(os.path.realpath(p)) for p in writable]
    if choice == "landlock":
        return _landlock(denied, writable)
    if choice == "mount-namespace":
        return _mount_namespace(denied)
    if choice == "none":
        return {"mechanism": "none"}
    for attempt in (_landlock, _mount_namespace):
        try:
            return attempt(denied, writable) if attempt is _landlock else attempt(denied)
        except SandboxError:
            continue
    return {"mechanism": "none"}


def is_denial(err: BaseException) -> bool:
    """Whether ``err`` is the kernel refusing access (what a sealed system sees when it reaches for labels)."""
    return isinstance(err, OSError) and err.errno in (errno.EACCES, errno.EPERM, errno.EXDEV, errno.EROFS)
