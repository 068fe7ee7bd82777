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

The child's side is episode_runner.py, next to this file and imported once at
start-up; this file is the zygote's side: the frame loop with the supervisor,
forking and reaping children, spares, lanes, and the caps on replies and output.

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

# Modules of the zygote and of the episode runner, which finds them already loaded.
import errno  # noqa: F401
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
import resource  # noqa: F401
import traceback  # noqa: F401
import types  # noqa: F401

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
import math  # noqa: F401
import numbers  # noqa: F401
import operator  # noqa: F401
import random  # noqa: F401
import re  # noqa: F401
import statistics  # noqa: F401
import string  # noqa: F401
import textwrap  # noqa: F401
import typing  # noqa: F401
import _thread  # noqa: F401
import threading  # noqa: F401

# The episode runner: what a forked child runs (see its docstring). `-P` keeps this file's folder
# off sys.path, so the folder is put there for this one import. It is imported here, at start-up,
# before any fork and before any child's audit hook (which refuses imports), then dropped from
# sys.modules, so that environment code cannot import it by name.
HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HARNESS_DIR)
try:
    from episode_runner import FORBIDDEN_EXIT, LENGTH, NONCE, REPORTED_EXIT, run_child
finally:
    sys.path.remove(HARNESS_DIR)
del sys.modules["episode_runner"]

ENVELOPE = struct.Struct(">IIB")
PIPE_BYTES = 1024 * 1024
SPARE_IDS = 0x80000000  # ids of spare children; the supervisor's ids stay below
SPARE_IDLE_MS = 1  # idle time before a spare is forked


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
