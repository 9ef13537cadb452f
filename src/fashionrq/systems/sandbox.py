"""OS-level isolation of the sealed child, planned by the parent and applied before the child runs any Python.

The parent (``fashionrq.systems.sealed``) calls :func:`plan` to build a :class:`Seal`, then starts the child with
``Seal.apply`` as its ``preexec_fn``: the seal holds from the first instruction of the child's interpreter, and the
mechanism a run records is the one the parent set up (a failure to apply it stops the start), never what the child
says. Mechanisms (``FASHIONRQ_SANDBOX``):

* ``landlock`` (``auto``, the default; Linux >= 5.13): an allow-list. The child may read only the ``readable``
  folders (its staged copy of ``public/``, the Python installation, the system folders) and write only the
  ``writable`` ones; with Landlock ABI >= 4 it can neither bind nor connect a TCP socket, with ABI >= 6 it can
  neither signal nor reach an abstract unix socket of a process outside its sandbox (its parent included). The
  kernel enforces it on every route (open, C readers, memory maps, ``ctypes``, ``dir_fd``, links, renames,
  ``/proc/PID/root``, subprocesses);
* ``mount-namespace`` (root without Landlock, only when asked for by name): weaker, a deny-list: an empty read-only
  tmpfs over each ``denied`` folder in a private mount namespace, then ``CAP_SYS_ADMIN`` dropped; everything else
  stays readable and writable, and another process's ``/proc/PID/root`` still shows the original tree;
* ``none`` (only when asked for by name): nothing held; the run is recorded as unsealed.

``auto`` refuses, rather than falling back, where Landlock is missing. Under both sealed mechanisms the child
gets a network namespace of its own (no interface but a down loopback) where ``unshare`` allows it (root, or an
unprivileged user namespace), an address-space limit (``RLIMIT_AS``) and no core dumps.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import resource
from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.errors import FashionRQError

MECHANISMS = ("landlock", "mount-namespace", "none")
ENV = "FASHIONRQ_SANDBOX"

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 38, 24
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 1, 2, 4, 0x4000, 1 << 18
#: Capabilities a sealed child gives up (a root child would otherwise read the disk or memory past any file rule):
#: CAP_SYS_MODULE, CAP_SYS_RAWIO (/proc/kcore, /dev/mem), CAP_SYS_PTRACE, CAP_SYS_ADMIN (mounts), CAP_MKNOD.
_DROPPED_CAPS = (16, 17, 19, 21, 27)

# Landlock rights (include/uapi/linux/landlock.h).
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_MAKE_CHAR, _MAKE_BLOCK, _TRUNCATE, _IOCTL_DEV = 1 << 6, 1 << 11, 1 << 14, 1 << 15
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class SandboxError(FashionRQError):
    """The isolation mechanism asked for cannot be set up on this machine."""

    exit_code = 3


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    """libc, opened once and its functions looked up here, in the parent: a forked child (``Seal.apply``) then calls
    them without ``dlopen``/``dlsym``, whose locks another thread of the parent may have held at the fork."""
    libc = ctypes.CDLL(None, use_errno=True)
    for name in ("syscall", "prctl", "unshare", "mount"):
        getattr(libc, name)
    return libc


def _failed(what: str) -> str:
    return f"{what} ({os.strerror(ctypes.get_errno())})"


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


@dataclass
class Seal:
    """What the parent set up for one child: ``record`` is what run.json records as ``isolation``."""

    record: dict
    memory_bytes: int
    ruleset: int | None = None  # a Landlock ruleset fd, restricted onto the child by apply()
    denied: list[Path] = field(default_factory=list)  # mount-namespace: folders hidden by an empty tmpfs
    network_flags: int = 0  # unshare() flags giving the child a network namespace of its own (0: none)

    def apply(self) -> None:
        """In the forked child, before exec: network namespace, limits, then the filesystem seal. Any failure raises,
        and the child never starts."""
        libc = _libc()
        if self.network_flags and libc.unshare(self.network_flags) != 0:
            raise SandboxError(_failed("no network namespace"))
        resource.setrlimit(resource.RLIMIT_AS, (self.memory_bytes, self.memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.record["mechanism"] == "mount-namespace":
            _hide(libc, self.denied)
        if self.record["mechanism"] != "none":
            _drop_caps(libc)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise SandboxError(_failed("no_new_privs"))
        if self.ruleset is not None and libc.syscall(_SYS_RESTRICT_SELF, self.ruleset, 0) != 0:
            raise SandboxError(_failed("Landlock could not restrict the child"))

    def close(self) -> None:
        if self.ruleset is not None:
            os.close(self.ruleset)
            self.ruleset = None


def _add_rule(libc, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # absent: nothing to allow
    try:
        if not path.is_dir():
            rights &= _FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise SandboxError(_failed(f"Landlock refused a rule for {path}") + f"; set {ENV}=none to run unsealed.")
    finally:
        os.close(fd)


def _landlock_ruleset(abi: int, readable: list[Path], writable: list[Path], network: bool) -> int:
    """A Landlock ruleset fd: read ``readable``, read and write ``writable``, nothing else; no TCP (ABI >= 4, unless
    ``network``), no signal or abstract unix socket out of the sandbox (ABI >= 6)."""
    libc = _libc()
    handled = _handled_rights(abi)
    attr = _RulesetAttr(handled, _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 and not network else 0,
                        _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise SandboxError(_failed("Landlock ruleset creation failed") + f"; set {ENV}=none to run unsealed.")
    try:
        for path in readable:
            _add_rule(libc, ruleset, path, _READ)
        for path in writable:
            _add_rule(libc, ruleset, path, handled & ~(_MAKE_CHAR | _MAKE_BLOCK))  # no device node, so no raw disk
    except BaseException:
        os.close(ruleset)
        raise
    os.set_inheritable(ruleset, False)
    return ruleset


def _drop_caps(libc) -> None:
    """Remove :data:`_DROPPED_CAPS` from this process (effective, permitted, inheritable, bounding set)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.syscall(125 if os.uname().machine == "x86_64" else 90, header, data) != 0:  # capget
        raise SandboxError(_failed("capget failed"))
    for cap in _DROPPED_CAPS:
        for i in range(3):
            data[i] &= ~(1 << cap)
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    if libc.syscall(126 if os.uname().machine == "x86_64" else 91, header, data) != 0:  # capset
        raise SandboxError(_failed("capset failed"))


def _hide(libc, denied: list[Path]) -> None:
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise SandboxError(_failed("no private mount namespace"))
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise SandboxError(_failed("cannot make / private"))
    flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV
    for folder in denied:
        if folder.exists() and libc.mount(b"fashionrq-sealed", os.fsencode(folder), b"tmpfs", flags, b"size=4k,mode=0555") != 0:
            raise SandboxError(_failed(f"cannot hide {folder}"))


def _network_flags(network: bool) -> tuple[int, str]:
    """``(unshare flags, record)``: a network namespace of the child's own where this process may make one."""
    if network:
        return 0, "open (asked for: --engine ray)"
    flags = _CLONE_NEWNET if os.geteuid() == 0 else _CLONE_NEWUSER | _CLONE_NEWNET
    pid = os.fork()  # try it in a throwaway child, so a failure is known before the real one starts
    if pid == 0:
        os._exit(0 if _libc().unshare(flags) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return (flags, "namespace") if os.waitstatus_to_exitcode(status) == 0 else (0, "")


def choice() -> str:
    """The mechanism ``FASHIONRQ_SANDBOX`` asks for: ``auto`` (default), ``landlock``, ``mount-namespace`` or ``none``."""
    asked = (os.environ.get(ENV) or "auto").strip().lower()
    if asked not in ("auto", *MECHANISMS):
        raise SandboxError(f"{ENV}={asked[:40]!r} is unknown; use auto, {', '.join(MECHANISMS)}.")
    return asked


def plan(readable: list[str | Path], writable: list[str | Path], denied: list[str | Path], memory_bytes: int,
         network: bool = False) -> Seal:
    """The :class:`Seal` of ``FASHIONRQ_SANDBOX``'s mechanism (:func:`choice`); ``denied`` is the mount-namespace
    deny-list, ``network`` leaves the network open (Ray's engine needs it). Refuses where the mechanism cannot hold."""
    asked = choice()
    mechanism = "landlock" if asked == "auto" else asked
    if mechanism == "none":
        return Seal({"mechanism": "none"}, memory_bytes)
    flags, net = _network_flags(network)
    abi = landlock_abi()
    if mechanism == "landlock":
        if abi < 1:
            raise SandboxError(f"this kernel has no Landlock, so a run cannot be sealed; set {ENV}=mount-namespace (root: a "
                               f"weaker deny-list, recorded) or {ENV}=none (unsealed: scored only with --unsealed).")
        net = net or ("landlock-tcp (UDP open)" if abi >= 4 else "")
        record = _with_network({"mechanism": "landlock", "landlock_abi": abi, "allow_list": True, "signals_scoped": abi >= 6}, net)
        ruleset = _landlock_ruleset(abi, [Path(os.path.realpath(p)) for p in readable], [Path(os.path.realpath(p)) for p in writable],
                                    network)
        return Seal(record, memory_bytes, ruleset=ruleset, network_flags=flags)
    if os.geteuid() != 0:
        raise SandboxError(f"{ENV}=mount-namespace needs root; set {ENV}=landlock or none.")
    return Seal(_with_network({"mechanism": "mount-namespace", "allow_list": False}, net), memory_bytes,
                denied=sorted({Path(os.path.realpath(p)) for p in denied}), network_flags=flags)


def _with_network(record: dict, network: str) -> dict:
    if not network:
        raise SandboxError(f"the network cannot be cut here (no network namespace, Landlock ABI < 4); set {ENV}=none to run unsealed.")
    return {**record, "network": network}


def is_denial(err: BaseException) -> bool:
    """Whether ``err`` is the kernel refusing access (what a sealed system sees when it reaches for labels)."""
    return isinstance(err, OSError) and err.errno in (errno.EACCES, errno.EPERM, errno.EXDEV, errno.EROFS)
