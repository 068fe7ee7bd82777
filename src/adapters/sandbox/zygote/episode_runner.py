"""envforge sandbox episode runner: what runs inside a child the zygote forks.

The zygote (zygote.py, next to this file) imports this module once at start-up, before it forks
anything and long before any child installs its audit hook, so every child starts with it loaded.
At import it captures what the children need later: the Debian seccomp binding, libc's prctl
(process backend only), a JSON encoder built from functions an environment cannot patch.

`run_child` is the body of every forked child (probe, spare, episode, self-test): it confines the
process (file descriptors, rlimits, work directory, audit hook, seccomp filter), loads the
environment program (compiling it in a probe; the zygote's template otherwise), finds the
environment class, answers `reset`, then serves `step`, `steps` and `oracle` requests, checking
every step result and encoding every reply itself. A child's frames (to and from the zygote, or on
its lane to and from the supervisor): u32 length | u32 number | JSON, requests on fd 3, replies on
fd 4; see zygote.py.
"""

import errno
import fcntl
import json
import math
import os
import random
import resource
import signal
import socket
import struct
import sys
import traceback
import types
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
HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
HARNESS_FILES = (HARNESS_DIR + "/zygote.py", os.path.abspath(__file__))  # tracebacks read them
LENGTH = struct.Struct(">I")
# Every request to a child carries a 4-byte number that its reply must repeat, so a frame the
# environment writes itself is caught at once (unless it digs the number out of the harness).
NONCE = struct.Struct(">II")  # length (nonce + payload), nonce
CURRENT_NONCE = [0]  # the number of the request being answered
REPORTED_EXIT = 86  # the child wrote its own failure frame, then exited
FORBIDDEN_EXIT = 87


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

    def check_path(event, path, write, _type=type, _int=int, _harness=HARNESS_FILES):
        # the harness files are bound now: the module global can be rebound by environment code, this default cannot
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
        elif not inside and where not in _harness and not (where + "/").startswith(allowed_read):
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
