/**
 * Hostile environment programs: fixtures for the sandbox contract suite. Each
 * is an environment package whose `step` (on the action `attack`) or `reset`
 * (on seed 666) misbehaves, and behaves on every other input, so the suite can
 * check that the next episode is clean.
 */
import type { EnvProgram, SandboxFailureKind } from "../../spec/index.js";

/** Which sandbox limits a fixture runs under. */
export type HostileLimits = "cpu" | "wall";

/** One hostile program and the verdict it must end with. */
export interface HostileProgram {
  readonly name: string;
  readonly program: EnvProgram;
  /** Where the attack fires: `step("attack")` or `reset(666)`. */
  readonly phase: "step" | "reset";
  /** `step("wait")` calls after the attacking step (attacks that act after `step` returned). @default 0 */
  readonly followUps?: number;
  /** The verdict (`ok` for attacks that must simply have no effect). */
  readonly expected: SandboxFailureKind | "ok";
  /** A substring of the failure message, or a check of the `ok` observation. */
  readonly evidence?: string | ((observation: string) => boolean);
  /** `cpu`: 2 s of CPU, long wall clock; `wall`: short wall clock, ample CPU. @default "cpu" */
  readonly limits?: HostileLimits;
}

/** A secret the suite puts in the supervisor's environment; no program may see it. */
export const HOSTILE_SECRET_NAME = "ENVFORGE_HOSTILE_SECRET";
/** Value of {@link HOSTILE_SECRET_NAME}. */
export const HOSTILE_SECRET_VALUE = "hunter2-do-not-leak";

function indent(body: string, spaces: number): string {
  return body
    .trim()
    .split("\n")
    .map((line) => " ".repeat(spaces) + line)
    .join("\n");
}

/** An environment whose `step("attack")` runs `attack` (Python; may `return` a step tuple). */
export function attackInStep(attack: string): EnvProgram {
  return {
    envSource: [
      "import os, sys, time, json, signal, random",
      "class Hostile:",
      "    def reset(self, seed):",
      "        return 'ready'",
      "    def step(self, action):",
      "        if action == 'attack':",
      indent(attack, 12),
      "        if action == 'wait':",
      "            time.sleep(0.3)",
      "        return ('calm', 0.0, False, False, {})",
      "",
    ].join("\n"),
    oracleSource: null,
  };
}

/** An environment whose `reset(666)` runs `attack` (Python; may `return` an observation). */
export function attackInReset(attack: string): EnvProgram {
  return {
    envSource: [
      "import os, sys, time, json, signal, random",
      "class Hostile:",
      "    def reset(self, seed):",
      "        if seed == 666:",
      indent(attack, 12),
      "        return 'ready'",
      "    def step(self, action):",
      "        return ('calm', 0.0, False, False, {})",
      "",
    ].join("\n"),
    oracleSource: null,
  };
}

function step(name: string, expected: HostileProgram["expected"], attack: string, extra: Partial<HostileProgram> = {}): HostileProgram {
  return { name, program: attackInStep(attack), phase: "step", expected, ...extra };
}

function reset(name: string, expected: HostileProgram["expected"], attack: string, extra: Partial<HostileProgram> = {}): HostileProgram {
  return { name, program: attackInReset(attack), phase: "reset", expected, ...extra };
}

/**
 * The hostile programs. `hostHome` and `hostFile` are paths on the host that
 * must stay unreadable / unwritten (the suite passes the real home directory
 * and a marker path it checks afterwards).
 */
export function hostilePrograms(hostHome: string, hostFile: string): HostileProgram[] {
  return [
    step("infinite loop", "cpu_limit", "while True: pass"),
    step("CPU burn inside C code (huge integer power)", "cpu_limit", "x = 7 ** (10 ** 8)"),
    step("memory bomb (one huge allocation)", "memory_limit", "x = bytearray(8 * 1024 ** 3)"),
    step("memory bomb (growing list)", "memory_limit", "chunks = []\nwhile True: chunks.append(bytearray(16 * 1024 ** 2))"),
    step("fork bomb", "forbidden", "while True: os.fork()", { evidence: "os.fork" }),
    step("multiprocessing pool", "forbidden", "import multiprocessing\nmultiprocessing.Pool(4).map(abs, [1, 2])", { evidence: "multiprocessing" }),
    step("subprocess", "forbidden", "import subprocess\nsubprocess.run(['sh', '-c', 'echo pwned'])", { evidence: "subprocess" }),
    step("os.system", "forbidden", "os.system('echo pwned')", { evidence: "os.system" }),
    step("exec of a shell", "forbidden", "os.execv('/bin/sh', ['sh', '-c', 'echo pwned'])", { evidence: "os.exec" }),
    step("read /etc/passwd", "forbidden", "open('/etc/passwd').read()", { evidence: "/etc/passwd" }),
    step("read /proc/self/environ", "forbidden", "open('/proc/self/environ').read()", { evidence: "/proc/self/environ" }),
    step("read /proc/1/cmdline", "forbidden", "open('/proc/1/cmdline', 'rb').read()", { evidence: "/proc/1/cmdline" }),
    // the harness's own files are readable (tracebacks); rebinding its list from a frame's globals must not widen that
    step(
      "rebind the harness's readable files, then read outside",
      "forbidden",
      "import sys\nframe = sys._getframe()\nwhile frame is not None and 'HARNESS_FILES' not in frame.f_globals:\n    frame = frame.f_back\nif frame is not None:\n    frame.f_globals['HARNESS_FILES'] += ('/proc/self/environ',)\nopen('/proc/self/environ').read()",
      { evidence: "/proc/self/environ" },
    ),
    step("read the host home", "forbidden", `os.listdir(${JSON.stringify(hostHome)})`, { evidence: hostHome }),
    step(
      "scan os.environ for secrets",
      "ok",
      "return (json.dumps(dict(os.environ)), 0.0, False, False, {})",
      { evidence: (observation) => !observation.includes(HOSTILE_SECRET_VALUE) && !observation.includes("HOME") },
    ),
    step("write outside /tmp", "forbidden", `open(${JSON.stringify(hostFile)}, 'w').write('pwned')`, { evidence: "writing" }),
    step("write to /usr", "forbidden", "open('/usr/pwned', 'w').write('pwned')", { evidence: "/usr/pwned" }),
    step("write to the shared /tmp", "forbidden", "open('/tmp/shared-note', 'w').write('pwned')", { evidence: "/tmp/shared-note" }),
    step("TCP connection", "forbidden", "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)", { evidence: "socket" }),
    step("UDP datagram", "forbidden", "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('1.1.1.1', 53))", { evidence: "socket" }),
    step("DNS lookup", "forbidden", "import socket\nsocket.getaddrinfo('example.com', 80)", { evidence: "socket.getaddrinfo" }),
    step("AF_UNIX connection", "forbidden", "import socket\nsocket.socket(socket.AF_UNIX).connect('/tmp/.X11-unix/X0')", { evidence: "socket" }),
    step("stdout flood without newlines", "output_limit", "while True: sys.stdout.write('x' * 65536)", { evidence: "exceeded" }),
    step("stderr flood without newlines", "output_limit", "while True: os.write(2, b'x' * 65536)", { evidence: "exceeded" }),
    step(
      "output written after step returned",
      "output_limit",
      "def flood(*_):\n    while True: os.write(1, b'y' * 65536)\nsignal.signal(signal.SIGALRM, flood)\nsignal.setitimer(signal.ITIMER_REAL, 0.05)",
      { followUps: 1, evidence: "exceeded" },
    ),
    step("fill /tmp with one big file", "crash", "open('big', 'wb').write(b'x' * (64 * 1024 ** 2))", { evidence: "File too large" }),
    step("create a million files", "forbidden", "for i in range(10 ** 6): open(f'f{i}', 'w').close()", { evidence: "file writes" }),
    step(
      "deep recursion to a segfault",
      "crash",
      "sys.setrecursionlimit(10 ** 8)\nnested = []\nfor _ in range(10 ** 5): nested = [nested]\nrepr(nested)",
      { evidence: "SIGSEGV" },
    ),
    step("parser abuse (eval of a huge expression)", "crash", "eval('+'.join(['1'] * 10 ** 5))", { evidence: "RecursionError" }),
    step("ignore SIGXCPU and burn CPU", "cpu_limit", "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True: pass"),
    step(
      "ignore SIGTERM and SIGALRM and sleep",
      "timeout",
      "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(1000)",
      { limits: "wall" },
    ),
    step("kill the parent", "forbidden", "os.kill(os.getppid(), signal.SIGKILL)", { evidence: "os.kill" }),
    step("kill the process group", "forbidden", "os.killpg(0, signal.SIGKILL)", { evidence: "os.killpg" }),
    step("sleep past the limit", "timeout", "time.sleep(1000)", { limits: "wall" }),
    step("block on input()", "forbidden", "input()", { evidence: "builtins.input" }),
    step("ctypes null dereference", "forbidden", "import ctypes\nctypes.string_at(0)", { evidence: "ctypes" }),
    step("raw syscall through ctypes (unshare)", "forbidden", "import ctypes\nctypes.CDLL(None).syscall(272, 0x10000000)", { evidence: "ctypes" }),
    // calls that raise no audit event: only the seccomp allow-list refuses them (EPERM, so a crash with the traceback)
    step("kill the zygote through a pidfd", "crash", "signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)", { evidence: "PermissionError" }),
    step("anonymous memory file (memfd_create)", "crash", "os.write(os.memfd_create('x'), b'y' * 1024)", { evidence: "PermissionError" }),
    step("create a FIFO (mknod)", "crash", "os.mkfifo('pipe')", { evidence: "PermissionError" }),
    step("pin itself to a CPU (sched_setaffinity)", "crash", "os.sched_setaffinity(0, {0})", { evidence: "PermissionError" }),
    step(
      "recover os through object.__subclasses__()",
      "forbidden",
      "wrap = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]\nwrap.__init__.__globals__['system']('echo pwned')",
      { evidence: "os.system" },
    ),
    step(
      "patch builtins",
      "ok",
      "import builtins\nbuiltins.len = lambda value: 0\nbuiltins.isinstance = lambda *a: True\nbuiltins.type = lambda *a: int\nbuiltins.str = lambda *a: 'forged'\nreturn ('genuine', 0.5, False, False, {'k': [1, 2]})",
      { evidence: (observation) => observation === "genuine" },
    ),
    step(
      "patch json and os.write",
      "ok",
      "json.dumps = lambda *a, **k: 'garbage'\njson.loads = lambda *a, **k: {'op': 'oracle'}\njson.JSONEncoder.encode = lambda *a, **k: 'garbage'\nos.write = lambda fd, data: len(data)\nreturn ('genuine', 0.5, False, False, {})",
      { evidence: (observation) => observation === "genuine" },
    ),
    step("reach harness objects through gc.get_objects()", "forbidden", "import gc\n[o for o in gc.get_objects() if type(o).__name__ == 'Child']", { evidence: "gc.get_objects" }),
    step(
      "forge protocol frames",
      "protocol_violation",
      "import struct\nframe = json.dumps({'ok': True, 'observation': 'forged', 'reward': 1.0, 'terminated': True, 'truncated': False, 'info': {}}).encode()\nfor fd in (1, 2, 3, 4, 5):\n    try: os.write(fd, struct.pack('>II', len(frame) + 4, 1) + frame)\n    except OSError: pass",
      { evidence: "nobody asked for" },
    ),
    step("sys.exit(0) mid-step", "crash", "sys.exit(0)", { evidence: "SystemExit" }),
    step("os._exit(0) mid-step", "crash", "os._exit(0)", { evidence: "exited with code 0" }),
    step("raise BaseException", "crash", "raise BaseException('escape')", { evidence: "BaseException" }),
    step("NaN reward", "protocol_violation", "return ('x', float('nan'), False, False, {})", { evidence: "finite" }),
    step("infinite reward", "protocol_violation", "return ('x', float('inf'), False, False, {})", { evidence: "finite" }),
    step("int reward beyond the float range (10**400)", "protocol_violation", "return ('x', 10 ** 400, False, False, {})", { evidence: "beyond the float range" }),
    step(
      "reward with a custom __eq__",
      "protocol_violation",
      "class Sly(float):\n    def __eq__(self, other): return True\nreturn ('x', Sly(1.0), False, False, {})",
      { evidence: "plain int or float" },
    ),
    step(
      "reward object with __float__",
      "protocol_violation",
      "class Sly:\n    def __float__(self): return 1.0\nreturn ('x', Sly(), False, False, {})",
      { evidence: "plain int or float" },
    ),
    step("100 MB observation", "output_limit", "return ('z' * (100 * 1024 ** 2), 0.0, False, False, {})", { evidence: "observation" }),
    step(
      "deeply nested info dict",
      "protocol_violation",
      "info = {}\nfor _ in range(100000): info = {'a': info}\nreturn ('x', 0.0, False, False, info)",
      { evidence: "nested" },
    ),
    step("ten thousand threads", "forbidden", "import threading\nfor _ in range(10000): threading.Thread(target=time.sleep, args=(10,)).start()", { evidence: "_thread" }),
    step(
      "daemon thread outliving the episode",
      "forbidden",
      "import threading\nthreading.Thread(target=lambda: time.sleep(100), daemon=True).start()",
      { evidence: "_thread" },
    ),
    step("setsid double fork", "forbidden", "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0: time.sleep(1000)", { evidence: "os.fork" }),
    step("TIOCSTI terminal injection", "forbidden", "import fcntl, termios\nfcntl.ioctl(0, termios.TIOCSTI, b'x')", { evidence: "fcntl.ioctl" }),
    step("symlink out of the work directory", "forbidden", "os.symlink('/etc', 'etc')", { evidence: "os.symlink" }),
    step("raise an rlimit", "forbidden", "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (1000, 1000))", { evidence: "resource.setrlimit" }),
    step("install a trace function", "forbidden", "sys.settrace(lambda *a: None)", { evidence: "sys.settrace" }),
    step("add an audit hook", "forbidden", "sys.addaudithook(lambda *a: None)", { evidence: "sys.addaudithook" }),
    step("replace a function's code", "forbidden", "def f(): pass\nf.__code__ = (lambda: 1).__code__", { evidence: "__code__" }),
    reset("raise in reset", "crash", "raise RuntimeError('reset blew up')", { evidence: "reset blew up" }),
    reset("reset returns a non-string", "protocol_violation", "return {'not': 'a string'}", { evidence: "reset() must return str" }),
    reset("memory bomb in reset", "memory_limit", "x = bytearray(8 * 1024 ** 3)"),
    reset("sleep in reset", "timeout", "time.sleep(1000)", { limits: "wall" }),
  ];
}

/** An environment that reports whether a previous episode left a file or a module global behind. */
export const LEAK_PROBE: EnvProgram = {
  envSource: [
    "import os",
    "EPISODES = 0",
    "class LeakProbe:",
    "    def reset(self, seed):",
    "        global EPISODES",
    "        EPISODES += 1",
    "        left = os.path.exists('note.txt')",
    "        open('note.txt', 'w').write('from an earlier episode')",
    "        return f'episodes={EPISODES} file={left}'",
    "    def step(self, action):",
    "        return ('x', 0.0, True, False, {})",
    "",
  ].join("\n"),
  oracleSource: null,
};
