"""envforge sandbox zygote.

One long-lived, single-threaded Python process per jail, started by the
supervisor as `python3 -S -s -P -B zygote.py --tmp DIR` with a cleared
environment and PYTHONHASHSEED=0 (not `-I`: isolated mode implies `-E`, which
would ignore the fixed hash seed; the environment is cleared by the launcher,
so `-E` would add nothing). It pre-imports the standard library modules that
environment programs use, then serves the supervisor.

Per environment program it runs a probe child that compiles and imports the
program once (load errors come back from that child); after a successful probe
the zygote keeps the compiled code as the program's template. Per episode
(every `reset`) it forks a fresh child from that template. In the child, before
any environment code runs: every inherited file descriptor is closed, rlimits
are set (CPU with hard = soft + 1, address space, data, file size, open files,
no core dumps), `random` is seeded with the episode seed, a seccomp filter is
loaded when the Debian `python3-seccomp` binding is importable, and an audit
hook turns dangerous operations into a `forbidden` verdict. The child then
executes the program's module code in a fresh module, instantiates the
environment class and calls `reset(seed)`.

Wire format with the supervisor (stdin / stdout), all integers big-endian:
    envelope = u32 length | u32 id | u8 type | payload     (length counts id, type and payload)
Supervisor -> zygote types:
    b"L" load program `id`:   {"env": str, "oracle": str | null, "limits": {...}}
    b"S" start episode `id`:  {"program": int, "seed": int, "level"?: int, "limits": {...}, "lane"?: int, "nonce"?: int}
    b"R" request to episode `id`: raw JSON ({"op": "step", "action": str | {"name", "arguments"}} or {"op": "oracle", "observation": str})
    b"K" end episode `id` (kill, reap, clean its directory; answered by an "ended" event);
         payload {"lane": int, "token": hex} for a lane episode (see Lanes), else empty
    b"U" forget program `id`
    b"T" self-test `id`:      {"limits": {...}}  (reports which protections a child really gets)
Zygote -> supervisor types:
    b"R" a reply frame of child `id`, forwarded byte for byte (never parsed here, except a probe's)
    b"V" an event about child `id`: {"event": "failed", "kind", "message", "detail"} or {"event": "ended"}
Child <-> zygote: u32 length | u32 number | JSON, requests on fd 3, replies on fd 4
(a reply repeats its request's number; a frame with another number, or one nobody asked
for, ends the episode as a protocol violation); the
child's stdout and stderr (fds 1, 2) go to a capped pipe whose tail is kept
for crash reports; stdin is /dev/null.

Lanes (`--lanes N`): the supervisor passes N sockets as fds 3 .. 3 + N - 1. A start request
naming lane k gives that socket to the episode as both fd 3 and fd 4 (a fresh fork inherits it; a
spare receives it with SCM_RIGHTS on its hand-off socket), so the episode reads requests from and
writes replies to the supervisor directly, numbered by the supervisor (the reset reply repeats the
start request's "nonce"). The zygote then watches the episode's exit through a pidfd and never
touches the lane until the supervisor's K: once the episode is reaped it drops the requests nobody
read and writes the K's token to the lane, which tells the supervisor that every byte before it
belongs to the ended episode.
"""

import errno
import fcntl
import gc
import json
import os
import select
import shutil
import signal
import socket
import struct
import sys
import resource
import traceback
import types

# Standard library modules environment programs commonly use, imported once here
# so that every episode child starts with them already loaded.
import abc  # noqa: F401
import array  # noqa: F401
import bisect  # noqa: F401
import collections  # noqa: F401
import copy  # noqa: F401
import dataclasses  # noqa: F401
import datetime  # noqa: F401
import decimal  # noqa: F401
import enum  # noqa: F401
import fractions  # noqa: F401
import functools  # noqa: F401
import hashlib  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import math
import numbers  # noqa: F401
import operator  # noqa: F401
import random
import re  # noqa: F401
import statistics  # noqa: F401
import string  # noqa: F401
import textwrap  # noqa: F401
import typing  # noqa: F401
import _thread
import threading

SECCOMP = None
SECCOMP_ERROR = "python3-seccomp is not installed (apt-get install -y python3-seccomp)"
sys.path.append("/usr/lib/python3/dist-packages")
try:
    import seccomp as SECCOMP
except ImportError as error:
    SECCOMP_ERROR = f"python3-seccomp is not importable ({error}); install it with: apt-get install -y python3-seccomp"
finally:
    sys.path.remove("/usr/lib/python3/dist-packages")

def capture_prctl():
    """libc's prctl, captured once at start-up for the episode children (parent-death signal),
    only with `--parent-death-signal` (the `process` backend, which has no pid namespace to kill
    orphans and runs trusted code only). Once loaded, the `_ctypes` extension stays in the
    interpreter's extension cache, and re-importing it (plain `import _ctypes` or importlib)
    raises no audit event even after it is dropped from sys.modules; so the bwrap backend never
    loads it, and every import of it there is seen and refused by the audit hook."""
    if "--parent-death-signal" not in sys.argv:
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
    except (ImportError, OSError, AttributeError):
        prctl = None
    for name in [name for name in sys.modules if name in ("ctypes", "_ctypes") or name.startswith("ctypes.")]:
        del sys.modules[name]
    return prctl


PRCTL = capture_prctl()
PR_SET_PDEATHSIG = 1
ZYGOTE_PID = os.getpid()
STDLIB_DIR = os.path.dirname(os.__file__)
ZYGOTE_FILE = os.path.abspath(__file__)  # tracebacks read it
ENVELOPE = struct.Struct(">IIB")
LENGTH = struct.Struct(">I")
# Every request to a child carries a 4-byte number that its reply must repeat, so a frame the
# environment writes itself is caught at once (unless it digs the number out of the harness).
NONCE = struct.Struct(">II")  # length (nonce + payload), nonce
CURRENT_NONCE = [0]  # the number of the request being answered
REPORTED_EXIT = 86  # the child wrote its own failure frame, then exited
FORBIDDEN_EXIT = 87
PIPE_BYTES = 1024 * 1024
SPARE_IDS = 0x80000000  # ids of spare children; the supervisor's ids stay below
SPARE_IDLE_MS = 1  # idle time before a spare is forked


def make_encode(_make=json.encoder.c_make_encoder, _quote=json.encoder.encode_basestring_ascii, _join="".join, _repr=repr):
    """A JSON encoder built straight on the C accelerator from functions captured at
    start-up, so that an environment that patches builtins or json cannot garble replies."""
    if _make is None:
        return json.JSONEncoder(allow_nan=False, default=repr, separators=(",", ":")).encode

    def encode(value):
        return _join(_make({}, _repr, _quote, None, ":", ",", False, False, False)(value, 0))

    return encode


ENCODE = make_encode()

# Audit events that end the episode with a `forbidden` verdict.
FORBIDDEN_EVENTS = frozenset(
    [
        "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.Popen",
        "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill", "os.setsid",
        "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname",
        "socket.gethostbyaddr", "socket.getnameinfo", "socket.sethostname",
        "_thread.start_new_thread", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
        "sys.addaudithook", "sys.settrace", "sys.setprofile", "sys._current_frames", "builtins.input",
        "os.chdir", "os.chroot", "os.symlink", "os.link", "os.chown", "resource.setrlimit", "resource.prlimit",
        "fcntl.ioctl", "ctypes.dlopen", "ctypes.dlsym", "ctypes.string_at", "ctypes.call_function",
        "os.startfile", "webbrowser.open", "winreg.ConnectRegistry",
    ]
)
FORBIDDEN_IMPORTS = frozenset(
    ["ctypes", "_ctypes", "cffi", "multiprocessing", "_multiprocessing", "_posixsubprocess", "_testcapi",
     "_testinternalcapi", "_xxsubinterpreters", "_posixshmem"]
)
# Events whose first argument is a path that gets read or written.
PATH_READ_EVENTS = frozenset(["os.listdir", "os.scandir"])
PATH_WRITE_EVENTS = frozenset(["os.remove", "os.rmdir", "os.mkdir", "os.truncate", "os.utime", "os.chmod", "os.rename"])
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


# ---------------------------------------------------------------- episode child


def read_exact(fd, count, _read=os.read, _len=len, _join=b"".join):
    chunks = []
    while count > 0:
        chunk = _read(fd, count)
        if not chunk:
            return None
        chunks.append(chunk)
        count -= _len(chunk)
    return _join(chunks)


def read_request(_read=read_exact, _unpack=NONCE.unpack, _loads=json.loads, _nonce=CURRENT_NONCE):
    """Reads one request frame from fd 3 and records its number; None at end of input."""
    header = _read(3, 8)
    if header is None:
        return None
    length, nonce = _unpack(header)
    body = _read(3, length - 4)
    if body is None:
        return None
    _nonce[0] = nonce
    return _loads(body.decode("utf-8"))


def failure(kind, message, detail="", _str=str):
    return {"ok": False, "kind": kind, "message": _str(message)[:2000], "detail": _str(detail)[-8000:]}


def exception_failure(error):
    detail = traceback.format_exc()
    if isinstance(error, MemoryError):
        return failure("memory_limit", "environment ran out of memory", detail)
    if isinstance(error, RecursionError):
        return failure("crash", f"RecursionError: {error}", detail)
    try:
        text = f"{type(error).__name__}: {error}"
    except BaseException:  # a hostile __str__
        text = type(error).__name__
    return failure("crash", text, detail)


def apply_limits(limits):
    """Sets the episode's rlimits; lowering only, so the child cannot raise them back."""
    cpu = int(limits["cpuSeconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    memory = int(limits["memoryBytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limits["fileBytes"]), int(limits["fileBytes"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# System calls an episode process may make once its seccomp filter is loaded; everything else
# fails with EPERM (clone3 with ENOSYS, so that glibc falls back to clone, which is allowed only
# for threads). What CPython and the standard library need to run environment code: memory,
# signals, time, files in the episode's directory (the audit hook narrows which paths), reading
# and writing already open descriptors, polling, futexes and thread bookkeeping, random bytes.
# Not here, so refused: execve/execveat, fork/vfork, clone of a process, every socket call,
# io_uring_*, ptrace, process_vm_*, unshare/setns, bpf, perf_event_open, mount/umount2/pivot_root/
# chroot, keyctl/add_key/request_key, userfaultfd, memfd_create, kexec_*, *init_module, setrlimit,
# setsid/setpgid, set*id, chown, link/symlink, mknod, personality, seccomp, name_to_handle_at/
# open_by_handle_at, pidfd_*, chdir, nice/setpriority, sched_set*.
SECCOMP_ALLOWED = (
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore",
    # descriptors and files
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "lseek", "close", "close_range", "dup", "dup2", "dup3", "fcntl", "flock", "pipe", "pipe2",
    "open", "openat", "creat", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
    "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd",
    "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "truncate", "ftruncate", "fallocate", "fadvise64", "fsync", "fdatasync", "sendfile", "copy_file_range",
    "chmod", "fchmod", "fchmodat", "umask", "utime", "utimes", "utimensat", "futimesat",
    "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
    # polling and waiting
    "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
    "epoll_pwait", "epoll_pwait2", "futex", "futex_waitv", "sched_yield", "nanosleep", "clock_nanosleep",
    "pause", "wait4", "waitid",
    # signals (to itself only: see kill below)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
    "sigaltstack", "restart_syscall", "alarm", "setitimer", "getitimer",
    # time and identity
    "clock_gettime", "clock_getres", "gettimeofday", "time", "times", "getrusage", "sysinfo", "uname",
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid",
    "getresgid", "getpgrp", "getpgid", "getsid", "getrlimit", "getpriority", "getcpu",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getrandom",
    # threads (clone itself: only with CLONE_THREAD, below) and process exit
    "set_robust_list", "get_robust_list", "set_tid_address", "rseq", "arch_prctl", "membarrier",
    "exit", "exit_group",
)
CLONE_THREAD = 0x00010000
# ioctls CPython issues on its own: TCGETS and TIOCGWINSZ (isatty, terminal size), FIONREAD,
# FIONBIO, FIOCLEX/FIONCLEX (os.set_inheritable). TIOCSTI and every other request are refused.
SECCOMP_IOCTLS = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)
PR_SET_NAME, PR_GET_NAME = 15, 16


def load_seccomp():
    """Loads the allow-list seccomp filter. Returns None or why it is missing."""
    rules = build_seccomp()
    if type(rules) is str:
        return rules
    rules.load()
    return None


def build_seccomp():
    """Builds (without loading) the allow-list filter for this process (default EPERM), or says
    why it is missing. Arguments are checked where a call is safe only in one form: clone only
    for threads, kill/tkill/tgkill only of this process, prlimit64 only to read, ioctl only the
    requests in SECCOMP_IOCTLS, prctl only to name a thread."""
    if SECCOMP is None:
        return SECCOMP_ERROR
    allow = SECCOMP.ALLOW
    rules = SECCOMP.SyscallFilter(defaction=SECCOMP.ERRNO(errno.EPERM))

    def add(action, name, *args):
        try:
            rules.add_rule(action, name, *args)
        except (ValueError, RuntimeError, OSError):
            pass  # not a syscall on this architecture

    for name in SECCOMP_ALLOWED:
        add(allow, name)
    add(allow, "clone", SECCOMP.Arg(0, SECCOMP.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
    add(SECCOMP.ERRNO(errno.ENOSYS), "clone3")  # glibc then falls back to clone, checked above
    me = os.getpid()
    for name in ("kill", "tkill", "tgkill"):
        add(allow, name, SECCOMP.Arg(0, SECCOMP.EQ, me))
    add(allow, "prlimit64", SECCOMP.Arg(2, SECCOMP.EQ, 0))
    for request in SECCOMP_IOCTLS:
        add(allow, "ioctl", SECCOMP.Arg(1, SECCOMP.EQ, request))
    for option in (PR_SET_NAME, PR_GET_NAME):
        add(allow, "prctl", SECCOMP.Arg(0, SECCOMP.EQ, option))
    return rules


def install_audit_hook(workdir, reply_fd, max_files, _thread_module=_thread, _threading=threading):
    """Turns dangerous operations into a `forbidden` reply followed by an immediate exit."""
    state = [0]
    allowed_read = (STDLIB_DIR + "/", workdir + "/")

    def normalise(path, _str=str, _bytes=bytes, _type=type):
        if _type(path) is _bytes:
            path = path.decode("utf-8", "replace")
        if _type(path) is not _str:
            return None
        if not path.startswith("/"):
            path = workdir + "/" + path
        parts = []
        for part in path.split("/"):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" + "/".join(parts)

    def forbid(operation, _quote=json.encoder.encode_basestring_ascii, _pack=NONCE.pack, _write=os.write, _exit=os._exit, _nonce=CURRENT_NONCE):
        # built by hand from functions captured now, so patched json or builtins cannot garble it
        try:
            payload = ('{"ok":false,"kind":"forbidden","message":' + _quote(operation + " is not allowed in the sandbox") + ',"detail":""}').encode()
            data = _pack(len(payload) + 4, _nonce[0]) + payload
            while data:
                data = data[_write(reply_fd, data):]
        finally:
            _exit(FORBIDDEN_EXIT)

    def check_path(event, path, write, _type=type, _int=int):
        where = normalise(path)
        if where is None:
            if _type(path) is _int:
                return  # an already open descriptor
            forbid(f"{event} on a path of type {_type(path).__name__}")
        inside = (where + "/").startswith(workdir + "/")  # str methods cannot be patched
        if write:
            if not inside:
                forbid(f"{event} writing {where}")
            state[0] += 1
            if state[0] > max_files:
                forbid(f"{event}: more than {max_files} file writes in one episode")
        elif not inside and where != ZYGOTE_FILE and not (where + "/").startswith(allowed_read):
            forbid(f"{event} reading {where}")

    def hook(event, args, _forbidden=FORBIDDEN_EVENTS, _imports=FORBIDDEN_IMPORTS, _writes=PATH_WRITE_EVENTS,
             _reads=PATH_READ_EVENTS, _write_flags=WRITE_FLAGS, _type=type, _str=str, _int=int, _len=len):
        if event in _forbidden:
            forbid(event)
        elif event == "open":
            path, mode, flags = args
            if _type(flags) is _int and flags & _write_flags:
                check_path(event, path, True)
            elif _type(mode) is _str and ("w" in mode or "a" in mode or "x" in mode or "+" in mode):
                check_path(event, path, True)
            else:
                check_path(event, path, False)
        elif event == "import":
            name = args[0]
            if _type(name) is _str and name.split(".")[0] in _imports:
                forbid(f"import {name}")
        elif event in _writes:
            check_path(event, args[0], True)
            if event == "os.rename":
                check_path(event, args[1], True)
        elif event in _reads:
            check_path(event, args[0] if args else ".", False)
        elif event == "object.__setattr__" and _len(args) >= 2 and args[1] == "__code__":
            forbid("replacing a function's __code__")

    sys.addaudithook(hook)

    def no_threads(*args, **kwargs):
        forbid("_thread.start_new_thread")

    # Python 3.11 raises no audit event for new threads; seccomp would refuse the clone, but
    # only as a RuntimeError, so the entry points are replaced to give a typed verdict.
    _thread_module.start_new_thread = no_threads
    _thread_module.start_new = no_threads
    _threading._start_new_thread = no_threads


def load_module(name, code):
    module = types.ModuleType(name)
    module.__file__ = f"<{name}.py>"
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def find_environment_class(module):
    candidates = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and callable(getattr(value, "reset", None))
        and callable(getattr(value, "step", None))
    ]
    if len(candidates) != 1:
        names = [c.__name__ for c in candidates]
        raise LookupError(f"env.py must define exactly one class with reset() and step(); found {names}")
    return candidates[0]


def info_depth_exceeds(info, limit, _type=type, _dict=dict, _list=list, _tuple=tuple, _values=dict.values):
    stack = [(info, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if depth > limit or seen > 100_000:
            return True
        if _type(value) is _dict:
            stack.extend((item, depth + 1) for item in _values(value))
        elif _type(value) is _list or _type(value) is _tuple:
            stack.extend((item, depth + 1) for item in value)
    return False


def check_step_result(result, limits, _type=type, _float=float, _int=int, _bool=bool, _str=str, _dict=dict, _tuple=tuple,
                      _isfinite=math.isfinite, _len=len, _too_deep=info_depth_exceeds, _overflow=OverflowError):
    if _type(result) is not _tuple or _len(result) != 5:
        return failure("protocol_violation", "step() must return a 5-tuple (observation, reward, terminated, truncated, info)")
    observation, reward, terminated, truncated, info = result
    if _type(observation) is not _str:
        return failure("protocol_violation", f"observation must be str, got {_type(observation).__name__}")
    if _len(observation) > limits["maxObservationBytes"]:
        return failure("output_limit", f"observation of {_len(observation)} characters exceeds {limits['maxObservationBytes']}")
    if _type(reward) is not _float and _type(reward) is not _int:
        return failure("protocol_violation", f"reward must be a plain int or float, got {_type(reward).__name__}")
    try:
        # an int beyond the float range (10**400) has no float value; math.isfinite would raise OverflowError
        value = _float(reward)
    except _overflow:
        return failure("protocol_violation", f"reward must be finite, got an int of {_int.bit_length(reward)} bits (beyond the float range)")
    if not _isfinite(value):
        return failure("protocol_violation", f"reward must be finite, got {_float.__repr__(value)}")
    if _type(terminated) is not _bool or _type(truncated) is not _bool:
        return failure("protocol_violation", "terminated and truncated must be bool")
    if info is None:
        info = {}
    if _type(info) is not _dict:
        return failure("protocol_violation", f"info must be a dict, got {_type(info).__name__}")
    if _too_deep(info, limits["maxInfoDepth"]):
        return failure("protocol_violation", f"info is nested deeper than {limits['maxInfoDepth']} levels or holds more than 100000 values")
    return {"ok": True, "observation": observation, "reward": value, "terminated": terminated, "truncated": truncated, "info": info}


def send_reply(reply, limits, _encode=ENCODE, _pack=NONCE.pack, _write=os.write, _len=len, _errors=(ValueError, TypeError, RecursionError),
               _nonce=CURRENT_NONCE):
    """Encodes and writes one reply with functions captured at start-up, so that an
    environment that patches builtins, json or os cannot garble its own replies."""
    try:
        payload = _encode(reply).encode("utf-8", "replace")
    except _errors as error:
        reply = failure("protocol_violation", f"reply is not serialisable: {error.__class__.__name__}")
        payload = _encode(reply).encode("utf-8")
    if _len(payload) > limits["maxFrameBytes"]:
        reply = failure("output_limit", f"reply of {_len(payload)} bytes exceeds {limits['maxFrameBytes']}")
        payload = _encode(reply).encode("utf-8")
    data = _pack(_len(payload) + 4, _nonce[0]) + payload
    while data:
        data = data[_write(4, data):]
    return reply.get("ok") is True


def prepare_child(child_id, fds, limits, tmp_root):
    """First thing in a fresh child: only its own pipes survive (requests on fd 3, replies on
    fd 4, a spare's hand-off socket on fd 5), then limits and the work directory. The child is
    killed with SIGKILL when the zygote dies (the process backend has no pid namespace to do it)."""
    if PRCTL is not None:
        PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != ZYGOTE_PID:
        os._exit(1)  # the zygote died before the signal was armed
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds]
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(moved[2], 1)
    os.dup2(moved[2], 2)
    os.dup2(moved[0], 3)
    os.dup2(moved[1], 4)
    if len(moved) > 3:
        os.dup2(moved[3], 5)
    os.closerange(2 + len(moved), resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    sys.stdout = open(1, "w", buffering=1, closefd=False, errors="replace")
    sys.stderr = open(2, "w", buffering=1, closefd=False, errors="replace")
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    workdir = f"{tmp_root}/e{child_id}"
    os.mkdir(workdir, 0o700)
    os.chdir(workdir)
    apply_limits(limits)
    return workdir


def receive_start(handoff):
    """A spare's wait for its episode: one frame (u32 length | u32 number | JSON) on the hand-off
    socket, with the episode's lane attached (SCM_RIGHTS) when the supervisor gave it one.
    The lane then replaces fds 3 and 4. Returns the start request, or None when the zygote is gone."""
    data, fds, _, _ = socket.recv_fds(handoff, 1 << 16, 1)
    if not data:
        return None
    while len(data) < 8 or len(data) < 4 + LENGTH.unpack_from(data)[0]:
        chunk = handoff.recv(1 << 16)
        if not chunk:
            return None
        data += chunk
    length, nonce = NONCE.unpack_from(data)
    handoff.close()
    for fd in fds:
        os.dup2(fd, 3)
        os.dup2(fd, 4)
        os.close(fd)
    CURRENT_NONCE[0] = nonce
    return json.loads(data[8 : 4 + length].decode("utf-8"))


def run_child(kind, child_id, fds, limits, tmp_root, payload, program):
    """Body of a forked child; never returns."""
    code = 1
    try:
        workdir = prepare_child(child_id, fds, limits, tmp_root)
        handoff = socket.socket(fileno=5) if kind == "spare" else None  # before the audit hook forbids sockets
        if kind == "selftest":
            send_reply(self_test(limits), limits)
            os._exit(0)
        rules = build_seccomp()
        if type(rules) is str and limits.get("requireSeccomp"):
            send_reply(failure("forbidden", f"seccomp is required but unavailable: {rules}"), limits)
            os._exit(REPORTED_EXIT)
        install_audit_hook(workdir, 4, int(limits["maxFiles"]))
        if kind == "spare":
            # forked ahead of time, confined but for seccomp: wait for the episode's start message
            payload = receive_start(handoff)
            if payload is None:
                os._exit(0)
        elif "nonce" in payload:
            CURRENT_NONCE[0] = int(payload["nonce"])  # a lane episode's reset reply repeats the supervisor's number
        os.setpgid(0, 0)  # an active child leads its own process group; idle spares stay in the zygote's
        if type(rules) is not str:
            rules.load()  # from here on setpgid, fork, exec, sockets, ... are refused by the kernel
        seed = int(payload.get("seed", 0))
        random.seed(seed)
        if kind == "probe":
            env_code = compile(payload["env"], "env.py", "exec")
            oracle_code = None if payload.get("oracle") is None else compile(payload["oracle"], "oracle.py", "exec")
        else:
            env_code, oracle_code = program
        environment_class = find_environment_class(load_module("env", env_code))
        oracle = None
        if oracle_code is not None:
            oracle = load_module("oracle", oracle_code)
            if not callable(getattr(oracle, "act", None)):
                raise LookupError("oracle.py must define a function act(env, observation) -> str")
        if kind == "probe":
            send_reply({"ok": True}, limits)
            os._exit(0)
        environment = environment_class()
        level = payload.get("level")
        # a levelled family is reset as reset(seed, level); a family of one level keeps reset(seed)
        observation = environment.reset(seed) if level is None else environment.reset(seed, int(level))
        if type(observation) is not str:
            reply = failure("protocol_violation", f"reset() must return str, got {type(observation).__name__}")
        elif len(observation) > limits["maxObservationBytes"]:
            reply = failure("output_limit", f"observation of {len(observation)} characters exceeds {limits['maxObservationBytes']}")
        else:
            reply = {"ok": True, "observation": observation}
        if not send_reply(reply, limits):
            os._exit(REPORTED_EXIT)
        serve(environment, oracle, limits)
        code = 0
    except BaseException as error:  # environment code is untrusted; report every failure
        try:
            send_reply(exception_failure(error), limits)
            code = REPORTED_EXIT
        except BaseException:
            code = 1
    finally:
        os._exit(code)


def as_action(action, _type=type, _str=str, _dict=dict):
    """A step's action: a tool environment's call stays a dict {"name", "arguments"} (fresh from JSON); anything else is text."""
    if _type(action) is _dict:
        return {"name": _str.__str__(action["name"]), "arguments": action["arguments"] if _type(action["arguments"]) is _dict else {}}
    return _str.__str__(action)


def is_tool_call(action, _type=type, _str=str, _dict=dict, _len=len):
    """Whether an oracle's reply is a tool call: a dict of exactly a str "name" and a dict "arguments"."""
    return (_type(action) is _dict and _len(action) == 2 and _type(action.get("name")) is _str
            and _type(action.get("arguments")) is _dict)


def serve(environment, oracle, limits, _read=read_request, _str=str, _action=as_action, _is_call=is_tool_call,
          _type=type, _check=check_step_result, _send=send_reply, _failure=failure, _exit=os._exit):
    """Answers step and oracle requests until the supervisor ends the episode."""
    while True:
        request = _read()
        if request is None:
            return
        op = request.get("op")
        if op == "step":
            reply = _check(environment.step(_action(request["action"])), limits)
        elif op == "steps":
            steps = []
            reply = {"ok": True, "steps": steps}
            for action in request["actions"]:
                result = _check(environment.step(_action(action)), limits)
                if result["ok"] is not True:
                    reply = result
                    break
                del result["ok"]
                steps.append(result)
                if result["terminated"] or result["truncated"]:
                    break
        elif op == "oracle":
            if oracle is None:
                reply = _failure("protocol_violation", "this program was loaded without an oracle")
            else:
                action = oracle.act(environment, _str.__str__(request["observation"]))
                reply = {"ok": True, "action": action} if _type(action) is _str or _is_call(action) else _failure(
                    "protocol_violation", f"oracle act() must return str or a tool call dict {{'name': str, 'arguments': dict}}, got {_type(action).__name__}")
        else:
            reply = _failure("protocol_violation", f"unknown op {op!r}")
        if not _send(reply, limits):
            _exit(REPORTED_EXIT)


def self_test(limits):
    """Reports which protections a child really gets, probing each at the syscall layer
    (no audit hook here, so that seccomp and the namespaces are tested on their own)."""
    import socket

    report = {"ok": True, "seccomp": None, "rlimits": {}, "blocked": {}, "python": sys.version.split()[0],
              "hashSeedFixed": sys.flags.hash_randomization == 0, "uid": os.getuid(), "network": None}
    for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE"):
        report["rlimits"][name] = list(resource.getrlimit(getattr(resource, name)))
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing decides, nothing is sent
            report["network"] = "reachable"
        finally:
            probe.close()
    except OSError as error:
        report["network"] = "isolated" if error.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH) else f"error {error.errno}"
    report["homeVisible"] = any(os.path.isdir(path) for path in ("/root", "/home"))
    report["etcVisible"] = os.path.exists("/etc/passwd")
    problem = load_seccomp()
    report["seccomp"] = "active" if problem is None else problem

    def attempt(name, action):
        try:
            action()
            report["blocked"][name] = False
        except OSError as error:
            report["blocked"][name] = error.errno in (errno.EPERM, errno.ENOSYS, errno.EACCES)

    def fork_and_exit():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    attempt("fork", fork_and_exit)
    attempt("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    attempt("unix socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
    attempt("execve", lambda: os.execv("/usr/bin/true", ["true"]))
    attempt("kill parent", lambda: os.kill(os.getppid(), 0))
    attempt("setsid", os.setsid)
    attempt("pidfd_open of the parent", lambda: os.close(os.pidfd_open(os.getppid())))
    attempt("memfd_create", lambda: os.close(os.memfd_create("probe")))
    attempt("mknod", lambda: os.mkfifo("probe-fifo"))
    if os.uname().machine == "x86_64":
        import ctypes  # only here: self-test children run no environment code

        libc = ctypes.CDLL(None, use_errno=True)

        def raw(number, *args):
            def call():
                if libc.syscall(number, *args) == -1:
                    code = ctypes.get_errno()
                    raise OSError(code, os.strerror(code))
            return call

        attempt("unshare", raw(272, 0x10000000))  # CLONE_NEWUSER (allowed without seccomp)
        attempt("ptrace", raw(101, 0, 0, 0, 0))  # PTRACE_TRACEME
        attempt("bpf", raw(321, 0, 0, 0))
        attempt("io_uring_setup", raw(425, 1, 0))
    return report


# ---------------------------------------------------------------- zygote


class Child:
    """Bookkeeping for one forked child (probe, episode or self-test)."""

    def __init__(self, child_id, kind, pid, request_fd, reply_fd, output_fd, limits):
        self.id = child_id
        self.kind = kind
        self.pid = pid
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.output_fd = output_fd
        self.limits = limits
        self.reply_buffer = b""
        self.output_tail = b""
        self.output_bytes = 0
        self.awaiting = True
        self.verdict = None  # (kind, message) decided by the zygote
        self.ending = False  # the supervisor asked for the end
        self.ended_quietly = False  # ...and wants no "ended" event (spares)
        self.reaped = False
        self.workdir = None
        self.nonce = 0  # the number the next reply must repeat (0 for a child's first, unrequested reply)
        self.source = None
        self.program_id = None  # set on spares: the program they were forked for
        self.handoff = None  # a spare's end of its hand-off socket
        self.lane = None  # index of the lane the episode answers the supervisor on directly
        self.pidfd = None  # watched instead of the reply pipe when the episode has a lane
        self.token = None  # written to the lane once the episode is reaped (K of a lane episode)


class Zygote:
    def __init__(self, tmp_root, lanes=0):
        self.tmp_root = tmp_root
        # lane k is the socket the supervisor passed as fd 3 + k; an episode given lane k reads its
        # requests from and writes its replies to it directly (no hop through the zygote)
        self.lanes = [socket.socket(fileno=3 + index) for index in range(lanes)]
        for lane in self.lanes:
            lane.setblocking(True)
        self.lane_holders = {}  # lane index -> id of the child holding it
        self.programs = {}
        self.children = {}  # id -> Child (probes, episodes, self-tests and spares)
        self.spares = {}  # program id -> id of a child forked ahead for its next episode
        self.wanted_spares = set()  # programs whose spare should be forked when idle
        self.program_limits = {}  # program id -> limits of its load request
        self.next_spare_id = SPARE_IDS
        self.finished = {}  # id -> failure report of a child that exited on its own, until the supervisor ends it
        self.by_fd = {}  # fd -> (Child, "reply" | "output")
        self.poller = select.poll()
        self.poller.register(0, select.POLLIN)
        self.inbox = b""
        self.out = os.dup(1)
        os.dup2(2, 1)

    def send(self, child_id, kind, payload):
        data = ENVELOPE.pack(len(payload) + 5, child_id, kind) + payload
        while data:
            data = data[os.write(self.out, data):]

    def event(self, child_id, message):
        self.send(child_id, ord("V"), json.dumps(message).encode("utf-8"))

    def run(self):
        while True:
            # fork spare episode processes only when idle, so that no reply waits behind a fork
            events = self.poller.poll(SPARE_IDLE_MS if self.wanted_spares else None)
            if not events:
                self.fork_spare(self.wanted_spares.pop())
                continue
            for fd, _ in events:
                if fd == 0:
                    chunk = os.read(0, 1 << 20)
                    if not chunk:
                        self.shutdown()
                        return
                    self.inbox += chunk
                    self.dispatch()
                elif fd in self.by_fd:
                    child, channel = self.by_fd[fd]
                    if channel == "reply":
                        self.on_reply(child)
                    elif channel == "exit":
                        self.on_exit(child)
                    else:
                        self.on_output(child)

    def dispatch(self):
        while len(self.inbox) >= 4:
            (length,) = LENGTH.unpack_from(self.inbox)
            if len(self.inbox) < 4 + length:
                return
            _, child_id, kind = ENVELOPE.unpack_from(self.inbox)
            payload = self.inbox[9 : 4 + length]
            self.inbox = self.inbox[4 + length :]
            self.handle(child_id, kind, payload)

    def handle(self, child_id, kind, payload):
        if kind == ord("R"):
            child = self.children.get(child_id)
            if child is not None and child.verdict is not None:
                self.event(child_id, {"event": "failed", "kind": child.verdict[0], "message": child.verdict[1]})
                return
            if child is None or child.reaped:
                report = self.finished.get(child_id) or {"event": "failed", "kind": "crash", "message": "the episode is not running"}
                self.event(child_id, report)
                return
            self.deliver(child, payload)
        elif kind == ord("K"):
            self.end(child_id, token=json.loads(payload) if payload else None)
        elif kind == ord("S"):
            request = json.loads(payload)
            program_id = request["program"]
            program = self.programs.get(program_id)
            if program is None:
                self.event(child_id, {"event": "failed", "kind": "crash", "message": "program is not loaded in this jail"})
                return
            lane = request.get("lane")
            if lane is not None and (type(lane) is not int or not 0 <= lane < len(self.lanes) or lane in self.lane_holders):
                self.event(child_id, {"event": "failed", "kind": "crash", "message": f"lane {lane} is not free in this jail"})
                return
            spare = self.children.pop(self.spares.pop(program_id, -1), None)
            if spare is not None and spare.limits == request["limits"] and spare.verdict is None and not spare.reaped:
                spare.id = child_id
                spare.kind = "episode"
                self.children[child_id] = spare
                self.hand_off(spare, payload, lane, request.get("nonce"))
            else:
                if spare is not None:
                    self.children[spare.id] = spare
                    self.end(spare.id, quiet=True)
                self.fork("episode", child_id, request["limits"], request, program, lane)
            self.wanted_spares.add(program_id)
        elif kind == ord("L"):
            request = json.loads(payload)
            self.fork("probe", child_id, request["limits"], request, None)
        elif kind == ord("T"):
            request = json.loads(payload)
            self.fork("selftest", child_id, request["limits"], request, None)
        elif kind == ord("U"):
            self.programs.pop(child_id, None)
            self.wanted_spares.discard(child_id)
            spare_id = self.spares.pop(child_id, None)
            if spare_id is not None:
                self.end(spare_id, quiet=True)

    def deliver(self, child, payload):
        """Writes one request to a child (never blocks: the pipe is empty and 1 MiB large)."""
        child.awaiting = True
        child.nonce = (child.nonce * 1103515245 + 12345) & 0x7FFFFFFF or 1
        data = NONCE.pack(len(payload) + 4, child.nonce) + payload
        try:
            while data:
                data = data[os.write(child.request_fd, data):]
        except OSError:
            pass  # the child is gone; its exit is reported when the reply pipe closes

    def hand_off(self, spare, payload, lane, nonce):
        """Starts a spare's episode: the start request goes down its hand-off socket, with the
        lane's descriptor attached when it has one (the lane then replaces its private pipes)."""
        spare.awaiting = True
        if lane is None:
            spare.nonce = (spare.nonce * 1103515245 + 12345) & 0x7FFFFFFF or 1
            nonce = spare.nonce
        else:
            self.take_lane(spare, lane)
        data = NONCE.pack(len(payload) + 4, int(nonce)) + payload
        try:
            socket.send_fds(spare.handoff, [data], [] if lane is None else [self.lanes[lane].fileno()])
        except OSError:
            pass  # the spare is gone; its exit is reported when its pipes close
        spare.handoff.close()
        spare.handoff = None

    def take_lane(self, child, lane):
        """Gives `lane` to a child: its exit is then watched through a pidfd, since it no longer
        writes to its private reply pipe."""
        child.lane = lane
        self.lane_holders[lane] = child.id
        self.unwatch(child.reply_fd)
        try:
            os.close(child.request_fd)
        except OSError:
            pass
        child.request_fd = child.reply_fd = -1
        child.pidfd = os.pidfd_open(child.pid)
        self.by_fd[child.pidfd] = (child, "exit")
        self.poller.register(child.pidfd, select.POLLIN)

    def release_lane(self, lane, token):
        """After its episode is reaped: drops the requests nobody read, then writes the
        supervisor's token, which tells it that everything before it came from the old episode."""
        self.lane_holders.pop(lane, None)
        sock = self.lanes[lane]
        try:
            while sock.recv(1 << 16, socket.MSG_DONTWAIT):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            return
        try:
            sock.sendall(bytes.fromhex(token))
        except (OSError, ValueError):
            pass

    def fork_spare(self, program_id):
        program = self.programs.get(program_id)
        if program is None or program_id in self.spares:
            return
        self.next_spare_id = self.next_spare_id + 1 if self.next_spare_id < 0xFFFFFFF0 else SPARE_IDS
        limits = self.program_limits[program_id]
        self.fork("spare", self.next_spare_id, limits, {}, program)
        self.spares[program_id] = self.next_spare_id

    def fork(self, kind, child_id, limits, payload, program, lane=None):
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        for fd in (request_write, reply_write):
            try:
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
            except OSError:
                pass
        fds = (request_read, reply_write, output_write)
        handoff = None
        if kind == "spare":
            handoff, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            fds += (spare_end.fileno(),)
        elif lane is not None:
            fds = (self.lanes[lane].fileno(), self.lanes[lane].fileno(), output_write)
        gc.freeze()  # the child's collector then leaves the zygote's objects alone: fewer copy-on-write faults
        pid = os.fork()
        if pid == 0:
            run_child(kind, child_id, fds, limits, self.tmp_root, payload, program)
        for fd in (request_read, reply_write, output_write):
            os.close(fd)
        if handoff is not None:
            spare_end.close()
        for fd in (reply_read, output_read):
            os.set_blocking(fd, False)
        child = Child(child_id, kind, pid, request_write, reply_read, output_read, limits)
        child.handoff = handoff
        child.workdir = f"{self.tmp_root}/e{child_id}"
        child.source = payload if kind == "probe" else None
        child.awaiting = kind != "spare"
        self.children[child_id] = child
        self.by_fd[reply_read] = (child, "reply")
        self.by_fd[output_read] = (child, "output")
        self.poller.register(reply_read, select.POLLIN)
        self.poller.register(output_read, select.POLLIN)
        if lane is not None:
            self.take_lane(child, lane)
        return child

    def on_output(self, child):
        try:
            chunk = os.read(child.output_fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self.unwatch(child.output_fd)
            return
        child.output_bytes += len(chunk)
        child.output_tail = (child.output_tail + chunk)[-4000:]
        if child.output_bytes > child.limits["maxOutputBytes"] and child.verdict is None:
            self.kill(child, "output_limit", f"stdout/stderr exceeded {child.limits['maxOutputBytes']} bytes")

    def on_reply(self, child):
        try:
            chunk = os.read(child.reply_fd, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self.on_exit(child)
            return
        if child.verdict is not None:
            return
        child.reply_buffer += chunk
        while len(child.reply_buffer) >= 8 and child.verdict is None:
            length, nonce = NONCE.unpack_from(child.reply_buffer)
            if length > child.limits["maxFrameBytes"] + 4:
                self.kill(child, "output_limit", f"reply of {length} bytes exceeds {child.limits['maxFrameBytes']}")
                return
            if len(child.reply_buffer) < 4 + length:
                return
            frame = child.reply_buffer[8 : 4 + length]
            child.reply_buffer = child.reply_buffer[4 + length :]
            if not child.awaiting or nonce != child.nonce or length < 4:
                self.kill(child, "protocol_violation", "the environment wrote a frame nobody asked for")
                return
            child.awaiting = False
            if child.kind == "probe":
                self.adopt_program(child, frame)
            self.send(child.id, ord("R"), frame)

    def adopt_program(self, child, frame):
        """After a successful probe, keeps the compiled program as the template of its episodes."""
        try:
            ok = json.loads(frame).get("ok") is True
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            return
        source = child.source
        try:
            env_code = compile(source["env"], "env.py", "exec")
            oracle_code = None if source.get("oracle") is None else compile(source["oracle"], "oracle.py", "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return  # cannot happen after the same compile succeeded in the probe; episodes then fail to start
        self.programs[child.id] = (env_code, oracle_code)
        self.program_limits[child.id] = child.limits
        self.wanted_spares.add(child.id)

    def kill(self, child, kind, message):
        child.verdict = (kind, message)
        try:
            os.kill(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def unwatch(self, fd):
        if fd in self.by_fd:
            self.poller.unregister(fd)
            del self.by_fd[fd]
            os.close(fd)

    def reap(self, child, patient):
        """Waits for the child's exit; kills it when it lingers. Returns (status, cpu seconds)."""
        for attempt in range(200 if patient else 0):
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid == child.pid:
                return status, usage.ru_utime + usage.ru_stime
            select.select([], [], [], 0.001)
        if child.verdict is None and not child.ending:
            child.verdict = ("protocol_violation", "the environment closed its reply channel")
        try:
            os.kill(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status, usage = os.wait4(child.pid, 0)
        return status, usage.ru_utime + usage.ru_stime

    def drain_output(self, child):
        while child.output_fd in self.by_fd:
            try:
                chunk = os.read(child.output_fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            child.output_tail = (child.output_tail + chunk)[-4000:]
        self.unwatch(child.output_fd)

    def finish(self, child, patient):
        """Reaps the child, closes its pipes, removes its directory; returns its exit classification."""
        status, cpu = self.reap(child, patient)
        child.reaped = True
        self.drain_output(child)
        self.unwatch(child.reply_fd)
        if child.pidfd is not None:
            self.unwatch(child.pidfd)
        if child.handoff is not None:
            child.handoff.close()
        try:
            os.close(child.request_fd)
        except OSError:
            pass
        shutil.rmtree(child.workdir, ignore_errors=True)
        return self.classify(child, status, cpu)

    def classify(self, child, status, cpu):
        tail = child.output_tail.decode("utf-8", "replace")
        if child.verdict is not None:
            return {"event": "failed", "kind": child.verdict[0], "message": child.verdict[1], "detail": tail}
        cpu_limit = child.limits["cpuSeconds"]
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu >= cpu_limit):
                return {"event": "failed", "kind": "cpu_limit", "message": f"CPU limit of {cpu_limit} s exceeded", "detail": tail}
            name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else str(signum)
            return {"event": "failed", "kind": "crash", "message": f"environment killed by signal {name}", "detail": tail}
        code = os.WEXITSTATUS(status)
        if code in (REPORTED_EXIT, FORBIDDEN_EXIT) or (child.kind != "episode" and code == 0 and not child.awaiting):
            return {"event": "exited"}
        return {"event": "failed", "kind": "crash", "message": f"environment exited with code {code}", "detail": tail}

    def on_exit(self, child):
        """The reply pipe closed (or, for a lane episode, its pidfd fired): the child exited
        (or closed the pipe, and is killed). A lane stays held until the supervisor ends the episode."""
        report = self.finish(child, patient=True)
        self.children.pop(child.id, None)
        if child.ending:
            if child.lane is not None and child.token is not None:
                self.release_lane(child.lane, child.token["token"])
            if not child.ended_quietly:
                self.event(child.id, {"event": "ended"})
            return
        if child.kind == "spare":
            for program_id, spare_id in list(self.spares.items()):
                if spare_id == child.id:
                    del self.spares[program_id]
            return
        if report["event"] == "failed" and not child.ending:
            self.finished[child.id] = report
            self.event(child.id, report)

    def end(self, child_id, quiet=False, token=None):
        """Kills a child; it is reaped (and "ended" sent) when its reply pipe or pidfd fires, so
        the zygote never blocks on a dying process. `token` ({"token": hex, "lane": int}) comes
        with the end of a lane episode: the lane is released with it once the child is reaped."""
        self.finished.pop(child_id, None)
        child = self.children.get(child_id)
        if child is None or child.reaped:
            self.children.pop(child_id, None)
            lane = token.get("lane") if type(token) is dict else None
            if type(lane) is int and 0 <= lane < len(self.lanes) and self.lane_holders.get(lane, child_id) == child_id:
                self.release_lane(lane, token["token"])
            if not quiet:
                self.event(child_id, {"event": "ended"})
            return
        child.ending = True
        child.ended_quietly = quiet
        child.token = token if type(token) is dict else child.token
        try:
            os.kill(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def shutdown(self):
        for child in list(self.children.values()):
            child.ending = True
            try:
                os.kill(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for child in list(self.children.values()):
            self.finish(child, patient=False)


def main():
    tmp_root = sys.argv[sys.argv.index("--tmp") + 1] if "--tmp" in sys.argv else "/tmp"
    lanes = int(sys.argv[sys.argv.index("--lanes") + 1]) if "--lanes" in sys.argv else 0
    Zygote(tmp_root, lanes).run()


if __name__ == "__main__":
    main()
