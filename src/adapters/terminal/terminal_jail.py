"""envforge terminal jail: one episode's root file system and the processes that run in it.

Started by the TypeScript supervisor (src/adapters/terminal/terminal-jail.ts) inside a private mount
namespace (`unshare --mount`, plus `--user --map-root-user` when not root) and, where cgroups exist,
inside the episode's cgroup. It mounts a size-capped tmpfs, lays a copy-on-write overlay over the
cached base root (lower: read-only, shared by every episode; upper: this episode's tmpfs), and runs
every process of the episode in a bubblewrap jail over that root: the agent's shell (one persistent
bash, so the working directory and variables carry over between commands) and, at the end, the
verifier (`bash /tests/test.sh`).

Protocol: one JSON request per line on stdin, one JSON answer per line on stdout (`{"ok": true, ...}` or
`{"ok": false, "error": ...}`). The first line on stdout is the `ready` answer. End of input ends the
episode: every jailed process is killed and the mounts go with the namespace.

Requests:
- `{"op": "copy", "from": HOST_PATH, "to": ROOT_PATH}`: copies a host file or folder into the root.
- `{"op": "setup", "command": str, "timeoutMs": n}`: runs one set-up command (a Dockerfile RUN) in a
  fresh jailed shell; answers like `exec`.
- `{"op": "exec", "command": str, "timeoutMs": n}`: runs one command in the agent's shell; answers its
  output (stdout and stderr merged; the middle cut when longer than the cap, with the cut said),
  exit code, `timedOut` and `shellRestarted` (the shell died or was killed: working directory and
  background processes are gone, files stay).
- `{"op": "verify", "tests": HOST_DIR, "timeoutMs": n}`: kills every process of the agent, installs
  the tests afresh at /tests, empties /logs/verifier and runs `bash /tests/test.sh` with the base
  image's /usr and loader configuration (so the agent cannot swap the tools the tests use); answers
  the reward read from /logs/verifier/reward.txt (or reward.json's `reward`), or why there is none.
- `{"op": "usage"}`: bytes used on the episode's disk.
"""

import json
import os
import re
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time

SENTINEL = re.compile(rb"\n__envforge_([0-9a-f]{32})_(\d+)__\n")

# System calls no episode needs and that widen the kernel's attack surface; refused with EPERM.
# Shell tools use most of the system call table, so the terminal jail allows by default and
# refuses this list (the Python environments' jail is an allow-list; see episode_runner.py).
DENIED_SYSCALLS = (
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount",
    "fsconfig", "fspick", "mount_setattr", "unshare", "setns", "ptrace", "process_vm_readv",
    "process_vm_writev", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "reboot",
    "swapon", "swapoff", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "acct", "quotactl", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "iopl", "ioperm", "syslog", "personality", "lookup_dcookie",
    "vhangup", "pidfd_getfd",
)


# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080)


def answer(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def seccomp_program():
    """The deny-list filter as BPF bytes, or None and why it is missing."""
    try:
        import seccomp
    except Exception as error:  # noqa: BLE001 - reported to the supervisor
        return None, f"python3-seccomp is not importable ({error}); install it with: apt-get install -y python3-seccomp"
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(seccomp.ERRNO(1), name)
        except Exception:  # noqa: BLE001 - a name this kernel's table lacks
            pass
    # clone with any namespace flag makes namespaces as unshare would (with every capability in a
    # new user namespace); clone3 passes its flags in memory the filter cannot read, so it answers
    # ENOSYS and the C library falls back to clone
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(seccomp.ERRNO(1), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    try:
        rules.add_rule(seccomp.ERRNO(38), "clone3")
    except Exception:  # noqa: BLE001 - an older kernel's table
        pass
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read(), None


def program_fd(program):
    """A fresh readable fd holding `program` (bwrap reads its --seccomp fd to the end, once)."""
    fd = os.memfd_create("envforge-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class Episode:
    def __init__(self, config):
        self.lower = config["lower"]
        self.run_dir = config["runDir"]
        self.disk_bytes = int(config["diskBytes"])
        self.workdir = config.get("workdir") or "/root"
        self.env = dict(config.get("env") or {})
        self.bwrap = config.get("bwrap") or "bwrap"
        self.network = bool(config.get("network"))
        self.max_output = int(config.get("maxOutputBytes") or 16000)
        self.require_seccomp = bool(config.get("requireSeccomp"))
        # host folders bound read-only (set by envforge's own adapters, never by a task folder)
        self.binds = [(bind["host"], bind["jail"]) for bind in (config.get("binds") or [])
                      if os.path.isabs(bind["host"]) and bind["jail"].startswith("/") and ".." not in bind["jail"].split("/")]
        self.shell = None
        self.seccomp = None
        self.seccomp_error = None
        self.disk = os.path.join(self.run_dir, "disk")
        self.root = os.path.join(self.run_dir, "root")

    def mount(self):
        os.makedirs(self.disk, exist_ok=True)
        os.makedirs(self.root, exist_ok=True)
        run(["mount", "-t", "tmpfs", "-o", f"size={self.disk_bytes},mode=0755", "envforge-disk", self.disk])
        upper, work = os.path.join(self.disk, "upper"), os.path.join(self.disk, "work")
        os.makedirs(upper)
        os.makedirs(work)
        run(["mount", "-t", "overlay", "envforge-root", "-o", f"lowerdir={self.lower},upperdir={upper},workdir={work}", self.root])
        os.makedirs(self.host_path(self.workdir), exist_ok=True)
        self.seccomp, self.seccomp_error = seccomp_program()
        if self.seccomp is None and self.require_seccomp:
            raise RuntimeError(self.seccomp_error)

    def host_path(self, root_path):
        if not root_path.startswith("/") or "\x00" in root_path:
            raise ValueError(f"not an absolute path inside the root: {root_path!r}")
        parts = [part for part in root_path.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise ValueError(f"path leaves the root: {root_path!r}")
        path = self.root
        for part in parts:
            path = os.path.join(path, part)
            if os.path.islink(path):
                raise ValueError(f"path goes through a symbolic link inside the root: {root_path!r}")
        return path

    def spawn(self, args, stdin):
        """Starts `args` (a jail_args list plus the program) in a process group of its own."""
        fds = ()
        if self.seccomp is not None:
            fd = program_fd(self.seccomp)
            fds = (fd,)
            args = args[:1] + ["--seccomp", str(fd)] + args[1:]
        try:
            # right after a fork bomb is killed its processes may still count against the cgroup's
            # pids limit for a moment: a fork that fails with EAGAIN is tried again
            for attempt in range(50):
                try:
                    return subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            start_new_session=True, pass_fds=fds)
                except BlockingIOError:
                    if attempt == 49:
                        raise
                    time.sleep(0.1)
        finally:
            for fd in fds:
                os.close(fd)

    def jail_args(self, verifier=False):
        args = [
            self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--bind", self.root, "/", "--proc", "/proc",
            # the jail's uid 0 is the host's when envforge runs as root, and /proc/sys checks only the
            # uid: without these binds a task could write core_pattern (a host root shell) or any sysctl
            "--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
            "--dev", "/dev", "--clearenv",
            "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "--setenv", "HOME", "/root", "--setenv", "TERM", "dumb", "--setenv", "LANG", "C.UTF-8",
        ]
        if self.network:
            args.append("--share-net")
        for host, jail in self.binds:
            args += ["--ro-bind", host, jail]
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        if verifier:
            # the base image's tools and loader, whatever the agent did to its copy of them
            for path in ("usr", "usr/lib", "usr/bin", "usr/sbin"):
                if os.path.isdir(os.path.join(self.lower, path)):
                    args += ["--ro-bind", os.path.join(self.lower, path), "/" + path]
            for name, target in (("lib", "usr/lib"), ("lib64", "usr/lib64"), ("bin", "usr/bin"), ("sbin", "usr/sbin")):
                source = os.path.join(self.lower, target)
                if os.path.isdir(source):
                    args += ["--ro-bind", source, "/" + name]
            for name in ("etc/ld.so.cache", "etc/ld.so.conf"):
                source = os.path.join(self.lower, name)
                if os.path.isfile(source):
                    args += ["--ro-bind", source, "/" + name]
            for name in ("etc/ld.so.conf.d", "etc/alternatives"):
                source = os.path.join(self.lower, name)
                if os.path.isdir(source):
                    args += ["--ro-bind", source, "/" + name]
            args += ["--ro-bind", "/dev/null", "/etc/ld.so.preload"]
            # Python's site hooks live in /etc/python3.* (Debian links sitecustomize.py there) and ~/.local
            for name in sorted(os.listdir(os.path.join(self.lower, "etc"))):
                if name.startswith("python3") and os.path.isdir(os.path.join(self.lower, "etc", name)):
                    args += ["--ro-bind", os.path.join(self.lower, "etc", name), "/etc/" + name]
            args += ["--tmpfs", "/root/.local", "--setenv", "PYTHONNOUSERSITE", "1"]
        return args

    def start_shell(self, workdir=None):
        args = self.jail_args() + ["--chdir", workdir or self.workdir, "/bin/bash", "--noprofile", "--norc"]
        self.shell = self.spawn(args, subprocess.PIPE)

    def stop_shell(self):
        shell, self.shell = self.shell, None
        if shell is None:
            return
        kill_group(shell)

    def run_in_shell(self, command, timeout_ms, workdir=None):
        """Runs `command` in the persistent shell (started when absent); returns the answer dict."""
        restarted = False
        if self.shell is None or self.shell.poll() is not None:
            restarted = self.shell is not None
            self.start_shell(workdir)
        nonce = secrets.token_hex(16)
        # the command travels in a here-document with an unguessable delimiter and runs with eval in
        # the shell itself (working directory and variables carry over); nothing is written into the
        # root, where the agent could plant a symbolic link
        # read and eval are builtins: no fork, so the shell still answers while a fork bomb holds the pids
        line = (f"IFS= read -r -d '' __envforge_command <<'__envforge_{nonce}'\n{command}\n__envforge_{nonce}\n"
                f"eval \"$__envforge_command\" </dev/null 2>&1; printf '\\n__envforge_{nonce}_%d__\\n' \"$?\"\n")
        started = time.monotonic()
        try:
            self.shell.stdin.write(line.encode())
            self.shell.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop_shell()
            return {"ok": True, "output": "", "exitCode": None, "timedOut": False, "truncated": False,
                    "shellRestarted": True, "ms": 0}
        reader = OutputReader(self.max_output)
        exit_code, timed_out = read_output(self.shell.stdout.fileno(), reader, nonce, started + timeout_ms / 1000)
        ms = round((time.monotonic() - started) * 1000)
        if exit_code is None:
            self.stop_shell()
            restarted = True
        return {"ok": True, "output": reader.text(), "exitCode": exit_code, "timedOut": timed_out,
                "truncated": reader.truncated, "outputBytes": reader.total, "shellRestarted": restarted, "ms": ms}

    def jail_exec(self, argv, timeout_ms, source=None, verifier=False, workdir="/"):
        """Runs `argv` in a fresh jail over the root (with `source`, a host path, bound read-only at
        /run/envforge-io/source); returns (exit code or None, output, timed out). Every path the
        command touches resolves inside the root, so a link the agent planted cannot reach the host."""
        args = self.jail_args(verifier=verifier)
        if source is not None:
            args += ["--tmpfs", "/run/envforge-io", "--ro-bind", source, "/run/envforge-io/source"]
        started = time.monotonic()
        process = self.spawn(args + ["--chdir", workdir] + list(argv), subprocess.DEVNULL)
        reader = OutputReader(self.max_output)
        _, timed_out = read_output(process.stdout.fileno(), reader, None, started + timeout_ms / 1000)
        kill_group(process)
        return (None if timed_out else process.wait()), reader.text(), timed_out

    def copy_into_root(self, source, target, verifier=False):
        """Copies a host file or folder to `target` in the root, inside the jail (links stay links);
        with `verifier`, with the base image's tools (the agent may have replaced cp or sh)."""
        if not target.startswith("/") or "\x00" in target:
            raise ValueError(f"not an absolute path inside the root: {target!r}")
        quoted = shell_quote(target)
        if os.path.isdir(source):
            script = f"mkdir -p {quoted} && cp -R --preserve=mode,timestamps /run/envforge-io/source/. {quoted}"
        else:
            script = f"mkdir -p \"$(dirname {quoted})\" && cp --preserve=mode,timestamps /run/envforge-io/source {quoted}"
        code, output, timed_out = self.jail_exec(["/bin/sh", "-c", script], 60_000, source=source, verifier=verifier)
        if code != 0:
            raise RuntimeError(f"copying to {target} failed ({'timed out' if timed_out else f'exit {code}'}): {output.strip()[-300:]}")

    def verify(self, tests, timeout_ms):
        self.stop_shell()
        prepared, output, _ = self.jail_exec(["/bin/sh", "-c", "rm -rf /tests /logs/verifier && mkdir -p /logs/verifier"], 30_000, verifier=True)
        if prepared != 0:
            return self.no_reward(f"the verifier's folders could not be prepared: {output.strip()[-200:]}", "", None, False, 0)
        self.copy_into_root(tests, "/tests", verifier=True)
        args = self.jail_args(verifier=True) + ["--chdir", self.workdir, "/bin/bash", "/tests/test.sh"]
        started = time.monotonic()
        process = self.spawn(args, subprocess.DEVNULL)
        reader = OutputReader(self.max_output)
        _, timed_out = read_output(process.stdout.fileno(), reader, None, started + timeout_ms / 1000)
        kill_group(process)
        exit_code = None if timed_out else process.wait()
        ms = round((time.monotonic() - started) * 1000)
        if timed_out:
            return self.no_reward(f"the tests ran past their {timeout_ms // 1000} s limit ([verifier].timeout_sec)", reader.text(), None, True, ms)
        if exit_code >= 128:
            return self.no_reward(f"the tests were killed by a signal (exit {exit_code})", reader.text(), exit_code, False, ms)
        reward, reward_error = self.read_reward()
        return {"ok": True, "reward": reward, "rewardError": reward_error, "output": reader.text(), "exitCode": exit_code,
                "timedOut": False, "truncated": reader.truncated, "ms": ms}

    def no_reward(self, why, output, exit_code, timed_out, ms):
        return {"ok": True, "reward": None, "rewardError": why, "output": output, "exitCode": exit_code,
                "timedOut": timed_out, "truncated": False, "ms": ms}

    def read_reward(self):
        """The reward the tests wrote, read inside the jail (a link there resolves in the root)."""
        script = ("for f in reward.txt reward.json; do p=/logs/verifier/$f; "
                  "if [ -L \"$p\" ]; then echo \"@@link $f\"; exit 0; fi; "
                  "if [ -e \"$p\" ]; then if [ -f \"$p\" ]; then echo \"@@file $f\"; head -c 4097 \"$p\"; else echo \"@@special $f\"; fi; exit 0; fi; done; echo @@none")
        code, output, timed_out = self.jail_exec(["/bin/sh", "-c", script], 5000, verifier=True)
        if timed_out or code != 0:
            return None, "the reward file could not be read"
        head, _, text = output.partition("\n")
        kind, _, name = head.partition(" ")
        if kind == "@@none":
            return None, "the tests wrote no /logs/verifier/reward.txt"
        if kind == "@@link":
            return None, f"/logs/verifier/{name} is a symbolic link"
        if kind != "@@file" or len(text.encode()) > 4096:
            return None, f"/logs/verifier/{name} is not a small regular file"
        text = text.strip()
        try:
            value = json.loads(text)
        except ValueError:
            return None, f"/logs/verifier/{name} does not hold a number"
        if name == "reward.json":
            value = value.get("reward") if isinstance(value, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
            return None, f"/logs/verifier/{name} does not hold a finite number"
        return float(value), None

    def usage(self):
        stat = os.statvfs(self.disk)
        return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


class OutputReader:
    """Keeps the head and tail of a stream (the middle is cut past `cap` bytes) and finds the sentinel."""

    def __init__(self, cap):
        self.cap = cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.truncated = False

    def push(self, chunk, nonce):
        self.tail += chunk
        if nonce is not None:
            match = None
            for candidate in SENTINEL.finditer(self.tail):
                if candidate.group(1).decode() == nonce:
                    match = candidate
            if match is not None:
                before = self.tail[: match.start()]
                self.tail = before
                self.settle(final=True)
                return int(match.group(2))
        self.settle(final=False)
        return None

    def settle(self, final):
        keep = 4096 if not final else 0  # room for a sentinel split across reads
        half = self.cap // 2
        while len(self.head) < half and len(self.tail) > keep:
            take = min(half - len(self.head), len(self.tail) - keep)
            self.head += self.tail[:take]
            del self.tail[:take]
            self.total += take
        if len(self.tail) > half + keep:
            dropped = len(self.tail) - half - keep
            del self.tail[:dropped]
            self.total += dropped
            self.truncated = True

    def text(self):
        self.total += len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        if self.truncated:
            return f"{head}\n[... output truncated: {self.total} bytes, the middle was cut ...]\n{tail}"
        return head + tail


def read_output(fd, reader, nonce, deadline):
    """Reads `fd` into `reader` until the sentinel of `nonce` (None: end of stream) or the monotonic
    `deadline`; returns (the sentinel's exit code or None, whether the deadline passed)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None, True
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return None, False
        found = reader.push(chunk, nonce)
        if found is not None:
            return found, False


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} failed: {result.stderr.strip()}")


def die_with_parent():
    """Asks the kernel to kill this holder when its parent (the supervisor) dies, so an interrupted
    supervisor leaves no holder behind (its jails die with it: bwrap --die-with-parent)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            sys.exit(1)
    except OSError:
        pass


def main():
    die_with_parent()
    config = json.loads(sys.argv[1])
    episode = Episode(config)
    started = time.monotonic()
    try:
        episode.mount()
    except Exception as error:  # noqa: BLE001 - reported, then exit
        answer({"ok": False, "error": f"cannot prepare the root: {error}"})
        return 1
    answer({"ok": True, "ready": True, "ms": round((time.monotonic() - started) * 1000), "seccomp": episode.seccomp_error is None,
            "seccompError": episode.seccomp_error})
    for line in sys.stdin:
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "copy":
                episode.copy_into_root(request["from"], request["to"])
                answer({"ok": True})
            elif op == "exec":
                answer(episode.run_in_shell(str(request["command"]), int(request["timeoutMs"])))
            elif op == "setup":
                episode.stop_shell()
                result = episode.run_in_shell(str(request["command"]), int(request["timeoutMs"]), workdir="/")
                episode.stop_shell()
                answer(result)
            elif op == "verify":
                answer(episode.verify(request["tests"], int(request["timeoutMs"])))
            elif op == "usage":
                answer({"ok": True, "bytes": episode.usage()})
            else:
                answer({"ok": False, "error": f"unknown op {op!r}"})
        except Exception as error:  # noqa: BLE001 - one bad request must not end the episode
            answer({"ok": False, "error": f"{type(error).__name__}: {error}"})
    episode.stop_shell()
    return 0


if __name__ == "__main__":
    sys.exit(main())
