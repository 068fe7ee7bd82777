#!/usr/bin/python3.11
"""Writes corpus/tools.jsonl: short API-shaped documents that ground a Designer writing tool-use
environments (stateful APIs: file systems, queues, databases, mail boxes, HTTP-ish clients...).

Each document is one class, or one cohesive group of module-level functions, rendered as Python
signatures with a one-line doc each: what a tool list derived from it needs.

Sources, all read from this machine:
  * the CPython standard library of the interpreter running this script (run it with
    /usr/bin/python3.11, whose stdlib is /usr/lib/python3.11; PSF-2.0). Pure-Python modules are
    read with `ast`; a fixed list of C-implemented classes and functions (sqlite3, deque, re,
    os, ...) is read with `inspect` from the live standard-library modules;
  * parameter and return types that the stdlib source leaves out come from the typeshed stubs
    bundled with jedi (`--typeshed`, Apache-2.0); documents using them carry
    "PSF-2.0 AND Apache-2.0";
  * a few permissively licensed third-party packages (`--site-packages`), read with `ast` only,
    each licence checked against its dist-info metadata (see THIRD_PARTY).

Output is sorted by id and depends only on those inputs, so reruns are byte-identical.

Usage: /usr/bin/python3.11 scripts/make-tool-corpus.py [--out corpus/tools.jsonl]
           [--typeshed DIR] [--site-packages DIR]... [--no-third-party] [--any-python]
It also writes corpus/LICENSES.md and corpus/licenses/*.txt.
"""
from __future__ import annotations

import argparse
import ast
import copy
import glob
import importlib
import inspect
import json
import os
import platform
import re
import sys
import sysconfig
import types
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_STDLIB = "/usr/lib/python3.11"  # Debian's python3.11 (3.11.2), the source of the shipped file
MIN_CHARS, MAX_CHARS = 300, 1500
MIN_METHODS = 3
CLASS_DOC_CHARS = 320
LINE_DOC_CHARS = 100

# Top-level stdlib modules left out: GUI, tests, tooling internals, deprecated (PEP 594 and
# friends), the debugger/test frameworks, and platform twins of os.path.
EXCLUDED_TOP = {
    "idlelib", "tkinter", "turtle", "turtledemo", "test", "lib2to3", "ensurepip", "pydoc_data",
    "pydoc", "distutils", "encodings", "site", "sitecustomize", "this", "antigravity",
    "__hello__", "__phello__", "__future__", "asynchat", "asyncore", "smtpd", "imp", "cgi",
    "cgitb", "crypt", "nntplib", "telnetlib", "pipes", "sndhdr", "imghdr", "uu", "xdrlib",
    "mailcap", "audioop", "chunk", "aifc", "sunau", "msilib", "nis", "spwd", "ossaudiodev",
    "sre_compile", "sre_constants", "sre_parse", "unittest", "doctest", "pdb", "lib-dynload",
    "ntpath", "posixpath", "genericpath", "nturl2path", "macpath", "opcode", "keyword", "token",
    "symbol", "stringprep", "pickletools", "tabnanny", "pyclbr", "modulefinder",
    "ctypes", "curses", "idle", "venv", "zipimport", "dis", "symtable", "typing", "abc", "ast",
    "importlib", "sysconfig", "rlcompleter", "codeop", "py_compile", "compileall", "bdb",
}
# Submodules that are implementation details, platform-specific or deprecated, and objects that are.
EXCLUDED_MODULES = {
    "xml.dom.expatbuilder", "xml.dom.xmlbuilder", "xml.dom.domreg", "xml.dom.NodeFilter", "xml.sax.expatreader",
    "asyncio.sslproto", "asyncio.trsock", "asyncio.unix_events", "asyncio.windows_events", "asyncio.windows_utils",
    "asyncio.proactor_events", "asyncio.base_subprocess", "asyncio.base_futures", "asyncio.base_tasks",
    "asyncio.format_helpers", "asyncio.coroutines", "asyncio.log", "asyncio.constants", "asyncio.staggered",
    "multiprocessing.popen_fork", "multiprocessing.popen_forkserver", "multiprocessing.popen_spawn_posix",
    "multiprocessing.popen_spawn_win32", "multiprocessing.reduction", "multiprocessing.spawn", "multiprocessing.util",
    "multiprocessing.sharedctypes", "multiprocessing.resource_tracker", "multiprocessing.resource_sharer",
    "multiprocessing.forkserver", "multiprocessing.heap", "multiprocessing.dummy", "multiprocessing.connection",
    "email.base64mime", "email.quoprimime", "email.encoders", "email.iterators", "email.charset",
    "code", "pkgutil", "tokenize", "linecache", "stat", "pty", "tty", "enum", "codecs", "trace", "profile", "cProfile",
    "wsgiref.handlers", "json.decoder", "json.scanner", "concurrent.futures.process", "importlib", "email.mime",
}
EXCLUDED_OBJECTS = {
    "urllib.request.URLopener", "urllib.request.FancyURLopener", "xml.dom.minidom.Childless",
    "xml.dom.minidom.ElementInfo", "xml.dom.minidom.NamedNodeMap", "xmlrpc.client.Marshaller",
    "xmlrpc.client.Unmarshaller", "logging.handlers.NTEventLogHandler", "socketserver.ForkingMixIn",
    "socketserver.ThreadingMixIn", "selectors.KqueueSelector", "http.server.CGIHTTPRequestHandler",
    "configparser.Interpolation", "shelve.BsdDbShelf", "datetime.tzinfo", "xml.etree.ElementTree.C14NWriterTarget",
    "asyncio.events.AbstractEventLoopPolicy", "asyncio.protocols.SubprocessProtocol",
    "asyncio.transports.SubprocessTransport", "asyncio.protocols.BufferedProtocol",
    "logging.BufferingFormatter", "xml.sax.handler.LexicalHandler", "http.cookiejar.CookiePolicy",
    "logging.handlers.BaseRotatingHandler", "argparse.HelpFormatter", "optparse.HelpFormatter",
    "optparse.OptionContainer", "multiprocessing.managers.SharedMemoryManager", "xmlrpc.server.ServerHTMLDoc",
    "xmlrpc.server.XMLRPCDocGenerator", "xmlrpc.server.CGIXMLRPCRequestHandler", "xmlrpc.server.DocCGIXMLRPCRequestHandler",
    "logging.config.BaseConfigurator", "logging.config.DictConfigurator", "logging.config.ConvertingMixin",
    "email.charset.Charset", "selectors.DevpollSelector", "selectors.PollSelector",
    "selectors.SelectSelector", "mailbox.MMDF", "mailbox.MMDFMessage", "mailbox.BabylMessage",
    "urllib.request.CacheFTPHandler", "urllib.request.HTTPHandler", "urllib.request.HTTPSHandler",
    "urllib.request.AbstractDigestAuthHandler", "urllib.request.HTTPPasswordMgrWithPriorAuth",
}
EXCLUDED_PARTS = {"test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__"}
SKIP_BASES = {"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum", "NamedTuple",
              "TypedDict", "Protocol", "Exception", "BaseException", "Warning"}
EXCEPTION_NAME = re.compile(r"(Error|Exception|Warning|Exit|Interrupt|Abort)$")

TOPICS = [
    ("files and directories", "os os.path shutil pathlib glob fnmatch tempfile filecmp fileinput stat io mmap"),
    ("archives and compression", "tarfile zipfile gzip bz2 lzma zlib zipapp"),
    ("databases and persistence", "sqlite3 dbm shelve pickle copyreg marshal"),
    ("networking and HTTP", "http urllib ftplib socket select socketserver ssl xmlrpc wsgiref ipaddress selectors webbrowser"),
    ("mail and messaging", "email mailbox smtplib imaplib poplib mimetypes"),
    ("data formats and parsing", "json csv configparser tomllib plistlib xml html shlex tokenize netrc struct base64 binascii quopri"),
    ("command-line interfaces", "argparse optparse getopt cmd getpass"),
    ("text processing", "string re textwrap difflib unicodedata gettext locale pprint reprlib"),
    ("dates, times and scheduling", "datetime calendar time zoneinfo sched"),
    ("concurrency and queues", "queue threading multiprocessing concurrent asyncio subprocess signal contextvars"),
    ("data structures and algorithms", "collections heapq bisect array graphlib functools itertools operator weakref copy enum dataclasses contextlib types"),
    ("numbers and statistics", "decimal fractions statistics random numbers math cmath"),
    ("hashing, secrets and identifiers", "hashlib hmac secrets uuid"),
    ("logging and diagnostics", "logging traceback tracemalloc warnings trace profile cProfile pstats timeit faulthandler"),
    ("python runtime", "inspect pkgutil runpy code linecache platform"),
    ("audio and colour", "wave colorsys"),
]
TOPIC_OF = {module: topic for topic, modules in TOPICS for module in modules.split()}

# C-implemented (or C-backed) stdlib classes, read live: (module the user imports, class name).
LIVE_CLASSES = [
    ("sqlite3", "Connection"), ("sqlite3", "Cursor"), ("sqlite3", "Blob"),
    ("collections", "deque"), ("array", "array"), ("re", "Pattern"), ("re", "Match"),
    ("struct", "Struct"), ("socket", "socket"), ("io", "BytesIO"), ("io", "StringIO"),
    ("io", "TextIOWrapper"), ("io", "FileIO"), ("select", "epoll"), ("mmap", "mmap"),
    ("hashlib", "HASH"), ("contextvars", "Context"), ("contextvars", "ContextVar"),
]
LIVE_CLASS_SOURCE = {("hashlib", "HASH"): "_hashlib"}
# C-implemented function groups, read live: id suffix -> (module, title, functions).
LIVE_FUNCTIONS = {
    "os-files": ("os", "os: files and directories", "getcwd chdir listdir mkdir makedirs rmdir remove rename stat walk"),
    "os-processes": ("os", "os: processes and environment", "getenv putenv unsetenv getpid getppid kill system cpu_count get_terminal_size urandom uname getloadavg times waitpid"),
    "os-descriptors": ("os", "os: file descriptors", "open read write close lseek fstat dup dup2 pipe fsync ftruncate isatty pread pwrite sendfile"),
    "os-path": ("os.path", "os.path: path names", "exists isfile isdir islink getsize getmtime join split splitext basename dirname abspath normpath relpath realpath expanduser commonpath"),
    "time": ("time", "time: clocks and conversions", "time sleep monotonic perf_counter process_time strftime strptime localtime gmtime mktime ctime asctime"),
    "math": ("math", "math: number functions", "sqrt pow exp log log2 log10 floor ceil trunc fabs gcd lcm factorial comb perm isclose hypot dist fsum prod isqrt"),
    "zlib": ("zlib", "zlib: compression", "compress decompress compressobj decompressobj crc32 adler32"),
    "binascii": ("binascii", "binascii: binary and ASCII", "hexlify unhexlify b2a_base64 a2b_base64 crc32 crc_hqx b2a_hex a2b_hex"),
    "unicodedata": ("unicodedata", "unicodedata: the Unicode database", "lookup name category bidirectional combining east_asian_width mirrored decomposition normalize is_normalized numeric decimal digit"),
    "struct": ("struct", "struct: packing binary records", "pack unpack calcsize iter_unpack pack_into unpack_from"),
    "csv": ("csv", "csv: readers, writers and dialects", "reader writer register_dialect unregister_dialect get_dialect list_dialects field_size_limit"),
    "hashlib": ("hashlib", "hashlib: digests and key derivation", "new sha256 sha1 md5 blake2b pbkdf2_hmac scrypt file_digest"),
    "random-functions": ("random", "random: module-level generator", "seed random randint randrange choice choices shuffle sample uniform gauss getrandbits"),
    "sqlite3-functions": ("sqlite3", "sqlite3: connecting and adapters", "connect register_adapter register_converter complete_statement enable_callback_tracebacks"),
    "pickle-functions": ("pickle", "pickle: object serialization", "dump dumps load loads"),
    "select": ("select", "select: waiting for I/O", "select poll epoll"),
    "signal": ("signal", "signal: signal handlers and timers", "signal getsignal alarm pause setitimer getitimer raise_signal strsignal valid_signals"),
    "itertools": ("itertools", "itertools: iterator building blocks", "count cycle repeat accumulate chain compress dropwhile takewhile filterfalse groupby islice starmap tee zip_longest product permutations combinations pairwise"),
}


@dataclass(frozen=True)
class ThirdParty:
    """One installed third-party distribution read with ast: which modules and classes."""
    distribution: str
    licence: str
    topic: str
    modules: tuple[str, ...]
    classes: tuple[str, ...] = ()  # the classes taken (documented or not)
    functions: bool = False  # also one document of each module's public functions


THIRD_PARTY = [
    ThirdParty("moto", "Apache-2.0", "cloud service simulators",
               ("moto.sqs.models", "moto.sns.models", "moto.secretsmanager.models", "moto.ssm.models",
                "moto.dynamodb.models", "moto.s3.models", "moto.logs.models", "moto.events.models", "moto.kms.models",
                "moto.ses.models", "moto.scheduler.models", "moto.stepfunctions.models", "moto.cloudwatch.models",
                "moto.route53.models", "moto.ecr.models", "moto.acm.models", "moto.cognitoidp.models",
                "moto.kinesis.models", "moto.firehose.models", "moto.apigateway.models", "moto.iam.models"),
               ("SQSBackend", "SNSBackend", "SecretsManagerBackend", "SimpleSystemManagerBackend", "DynamoDBBackend",
                "S3Backend", "LogsBackend", "EventsBackend", "KmsBackend", "SESBackend", "EventBridgeSchedulerBackend",
                "StepFunctionBackend", "CloudWatchBackend", "Route53Backend", "ECRBackend", "AWSCertificateManagerBackend",
                "CognitoIdpBackend", "KinesisBackend", "FirehoseBackend", "APIGatewayBackend", "IAMBackend")),
    ThirdParty("docker", "Apache-2.0", "containers",
               ("docker.models.containers", "docker.models.images", "docker.models.volumes", "docker.models.networks"),
               ("Container", "ContainerCollection", "Image", "ImageCollection", "VolumeCollection", "Network", "NetworkCollection")),
    ThirdParty("python-dateutil", "Apache-2.0 AND BSD-3-Clause", "dates, times and scheduling",
               ("dateutil.rrule", "dateutil.tz.tz"), ("rrule", "rruleset", "tzfile", "tzrange")),
    ThirdParty("pyyaml", "MIT", "data formats and parsing", ("yaml",), (), functions=True),
    ThirdParty("jinja2", "BSD-3-Clause", "text processing", ("jinja2.environment",), ("Environment", "Template")),
    ThirdParty("sortedcontainers", "Apache-2.0", "data structures and algorithms",
               ("sortedcontainers.sortedlist", "sortedcontainers.sorteddict", "sortedcontainers.sortedset"),
               ("SortedList", "SortedKeyList", "SortedDict", "SortedSet")),
    ThirdParty("cachetools", "MIT", "caches", ("cachetools",), ("Cache", "LRUCache", "TTLCache", "TLRUCache", "LFUCache")),
    ThirdParty("networkx", "BSD-3-Clause", "graphs", ("networkx.classes.graph", "networkx.classes.digraph", "networkx.classes.multigraph"), ("Graph", "DiGraph", "MultiGraph")),
    ThirdParty("requests", "Apache-2.0", "networking and HTTP", ("requests.sessions", "requests.models", "requests.cookies"), ("Session", "Response", "RequestsCookieJar")),
    ThirdParty("fsspec", "BSD-3-Clause", "files and directories", ("fsspec.spec", "fsspec.implementations.memory", "fsspec.mapping"), ("AbstractFileSystem", "MemoryFileSystem", "FSMap")),
    ThirdParty("jsonpointer", "BSD-3-Clause", "data formats and parsing", ("jsonpointer",), ("JsonPointer",)),
    ThirdParty("jsonpatch", "BSD-3-Clause", "data formats and parsing", ("jsonpatch",), ("JsonPatch",)),
    ThirdParty("tomlkit", "MIT", "data formats and parsing", ("tomlkit.container", "tomlkit.items"), ("Container", "Table", "Array")),
    ThirdParty("werkzeug", "BSD-3-Clause", "networking and HTTP", ("werkzeug.datastructures.structures", "werkzeug.datastructures.headers", "werkzeug.routing.map"), ("MultiDict", "Headers", "Map", "MapAdapter")),
    ThirdParty("more_itertools", "MIT", "data structures and algorithms", ("more_itertools.more",), ("peekable", "seekable", "bucket")),
]

TYPE_ALIASES = {
    "StrPathT": "str | PathLike", "StrOrBytesPathT": "str | bytes | PathLike", "StrPath": "str | PathLike", "StrOrBytesPath": "str | bytes | PathLike", "BytesPath": "bytes | PathLike",
    "GenericPath": "str | PathLike", "FileDescriptorOrPath": "int | str | PathLike", "FileDescriptor": "int",
    "FileDescriptorLike": "int", "ReadableBuffer": "bytes", "WriteableBuffer": "bytearray",
    "ReadOnlyBuffer": "bytes", "SupportsIndex": "int", "MaybeNone": "None", "Unused": "object",
    "SupportsKeysAndGetItem": "Mapping", "StrOrLiteralStr": "str", "ConvertibleToInt": "int | str",
    "ConvertibleToFloat": "float | str", "AnyOrLiteralStr": "str", "OpenTextMode": "str", "OpenBinaryMode": "str",
}
DROP_TYPES = {"Incomplete"}

# When a class does not fit MAX_CHARS, methods whose name (or its first word) is one of these verbs
# are kept first; the others are listed by name only.
CORE_VERBS = set("""
get put set add remove delete create list send receive recv read write open close execute executemany
executescript commit rollback query search find update insert pop push append extend connect bind listen
accept login logout fetch fetchone fetchall fetchmany copy move rename load dump dumps loads save submit
cancel result run start stop wait join acquire release lock unlock clear keys values items parse feed format
match fullmatch sub split compile encode decode compress decompress cursor sendall select upload download
exists stat walk mkdir makedirs rmdir listdir scandir iterdir glob resolve touch unlink publish subscribe
tag untag describe invoke enter exit register unregister schedule seek tell flush truncate getvalue
""".split())


# ---------------------------------------------------------------- signatures

@dataclass
class Param:
    name: str
    kind: str  # positional_only, positional, var_positional, keyword_only, var_keyword
    default: str | None = None
    annotation: str | None = None


@dataclass
class Function:
    name: str
    params: list[Param]
    returns: str | None
    doc: str
    is_async: bool = False
    kind: str = "method"  # method, property, staticmethod, classmethod, function


def short_default(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    if " at 0x" in text or len(text) > 24 or text.startswith("<"):
        return "..."
    return text


def params_from_ast(args: ast.arguments, is_stub: bool = False) -> list[Param]:
    params: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for index, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "positional_only" if index < len(args.posonlyargs) else "positional"
        if is_stub and arg.arg.startswith("__") and not arg.arg.endswith("__"):
            kind = "positional_only"  # old stub convention for positional-only
        params.append(Param(arg.arg.lstrip("_") if kind == "positional_only" and is_stub else arg.arg, kind,
                            None if default is None else short_default(ast.unparse(default)),
                            None if arg.annotation is None else ast.unparse(arg.annotation)))
    if args.vararg:
        params.append(Param(args.vararg.arg, "var_positional", None,
                            None if args.vararg.annotation is None else ast.unparse(args.vararg.annotation)))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append(Param(arg.arg, "keyword_only", None if default is None else short_default(ast.unparse(default)),
                            None if arg.annotation is None else ast.unparse(arg.annotation)))
    if args.kwarg:
        params.append(Param(args.kwarg.arg, "var_keyword", None,
                            None if args.kwarg.annotation is None else ast.unparse(args.kwarg.annotation)))
    return params


def params_from_signature(signature: inspect.Signature) -> list[Param]:
    kinds = {inspect.Parameter.POSITIONAL_ONLY: "positional_only", inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
             inspect.Parameter.VAR_POSITIONAL: "var_positional", inspect.Parameter.KEYWORD_ONLY: "keyword_only",
             inspect.Parameter.VAR_KEYWORD: "var_keyword"}
    params = []
    for parameter in signature.parameters.values():
        default = None if parameter.default is inspect.Parameter.empty else short_default(repr(parameter.default))
        params.append(Param(parameter.name, kinds[parameter.kind], default))
    return params


def clean_type(text: str | None) -> str | None:
    if text is None:
        return None
    text = re.sub(r"\b(typing|typing_extensions|collections\.abc|_typeshed|types|builtins)\.", "", text)
    if any(re.search(rf"\b{name}\b", text) for name in DROP_TYPES):
        return None
    for alias, plain in TYPE_ALIASES.items():
        text = re.sub(rf"\b{alias}\b(\[[^\]]*\])?", plain, text)
    text = re.sub(r"\b_+([A-Za-z])", r"\1", text)  # _T -> T, _IsolationLevel -> IsolationLevel
    if "[" not in text:
        members = []
        for member in text.split(" | "):
            if member not in members:
                members.append(member)
        if "Any" in members:
            members = ["Any"] + (["None"] if "None" in members else [])
        text = " | ".join(members)
    return text if len(text) <= 48 else None


def overload_narrowness(definition: ast.FunctionDef) -> int:
    score = 0
    for arg in [*definition.args.posonlyargs, *definition.args.args, *definition.args.kwonlyargs]:
        text = "" if arg.annotation is None else ast.unparse(arg.annotation)
        if text == "None" or text.startswith("Literal[") or "LiteralString" in text:
            score += 2
        elif re.match(r"(PathLike\[|bytes|BytesPath|ReadableBuffer|int$)", text):
            score += 1
    return score


def apply_stub(function: Function, stub_defs: list[ast.FunctionDef]) -> bool:
    """Fills missing annotations from typeshed overloads (first overload naming a parameter wins).
    Returns whether any annotation came from the stub."""
    if not stub_defs:
        return False
    used = False
    # the general overload first: not narrowed to None, a Literal or LiteralString, not the bytes variant
    stub_defs = sorted(stub_defs, key=overload_narrowness)
    stub_params = [params_from_ast(definition.args, is_stub=True) for definition in stub_defs]
    if not function.params:
        widest = max(stub_params, key=len)
        function.params = [Param(p.name, p.kind, p.default) for p in widest]
    for param in function.params:
        if param.annotation is not None:
            continue
        candidates = [p.annotation for overload in stub_params for p in overload
                      if p.name == param.name and p.annotation is not None]
        # an overload narrowed to None or a Literal is a special case; prefer a general one
        general = [c for c in candidates if c != "None" and not c.startswith("Literal[") and "LiteralString" not in c]
        if candidates:
            param.annotation, used = (general or candidates)[0], True
    if function.returns is None and stub_defs[0].returns is not None and function.name != "__init__":
        function.returns, used = ast.unparse(stub_defs[0].returns), True
    return used


MAX_SIGNATURE = 130


def render_signature(function: Function) -> str:
    """`def name(self, arg: type = default) -> ret`; a signature over MAX_SIGNATURE characters first
    loses the annotations of its optional parameters, then its trailing optional parameters (`...`)."""
    text = _signature(function, "full")
    if len(text) > MAX_SIGNATURE:
        text = _signature(function, "plain-optional")
    budget = len(function.params)
    while len(text) > MAX_SIGNATURE and budget > 0:
        budget -= 1
        text = _signature(function, "plain-optional", budget)
    if len(text) > MAX_SIGNATURE:
        text = _signature(function, "plain-all", 0)
    budget = len(function.params)
    while len(text) > MAX_SIGNATURE and budget > 1:
        budget -= 1
        text = _signature(function, "plain-all", 0, budget)
    return text


def _signature(function: Function, style: str, optional_budget: int | None = None, total_budget: int | None = None) -> str:
    parts: list[str] = []
    params = function.params
    seen_positional_only = any(p.kind == "positional_only" for p in params)
    star_written = False
    params = [p for p in params if not (p.name.startswith("_") and (p.default is not None or p.kind.startswith("var")))]
    optional_seen = 0
    for index, param in enumerate(params):
        annotation = clean_type(param.annotation)
        optional = param.default is not None or param.kind in ("var_positional", "var_keyword")
        if (optional and style == "plain-optional") or style == "plain-all":
            annotation = None
        if total_budget is not None and index >= total_budget:
            parts.append("...")
            break
        if optional and optional_budget is not None:
            optional_seen += 1
            if optional_seen > optional_budget:
                parts.append("...")
                break
        if param.kind == "keyword_only" and not star_written:
            parts.append("*")
            star_written = True
        text = {"var_positional": "*", "var_keyword": "**"}.get(param.kind, "") + param.name
        if param.name in ("self", "cls") and index == 0:
            annotation = None
        if annotation:
            text += f": {annotation}"
        if param.default is not None:
            text += f" = {param.default}" if annotation else f"={param.default}"
        if param.kind == "var_positional":
            star_written = True
        parts.append(text)
        if seen_positional_only and param.kind == "positional_only" and (
                index + 1 == len(params) or params[index + 1].kind != "positional_only"):
            if not (index == 0 and param.name in ("self", "cls")):
                parts.append("/")
    returns = clean_type(function.returns)
    head = ("async def " if function.is_async else "def ") + f"{function.name}({', '.join(parts)})"
    if function.kind == "property":
        return f"{function.name}: {returns}" if returns else function.name
    if returns and function.name != "__init__":
        head += f" -> {returns}"
    if function.kind in ("staticmethod", "classmethod"):
        head = f"@{function.kind} {head}"
    return head


# ---------------------------------------------------------------- docstrings

# Docstrings that describe a simulator's gaps rather than the API (moto's "not yet implemented").
NOISE_DOC = re.compile(r"not (yet )?(been )?implemented|\bmoto\b|\bTODO\b", re.I)


def first_paragraph(doc: str | None, limit: int) -> str:
    """The first paragraph of a docstring on one line, Sphinx roles removed, cut at a sentence end."""
    if not doc or NOISE_DOC.search(doc.split("\n\n")[0]):
        return ""
    doc = inspect.cleandoc(doc)
    doc = re.sub(r":[\w:]+:`~?([^`<]+?)(?:\s*<[^>]*>)?`", r"\1", doc)  # :py:class:`rrule` -> rrule
    doc = re.sub(r"``([^`]+)``", r"\1", doc)
    paragraphs = [p for p in re.split(r"\n\s*\n", doc) if p.strip()]
    if not paragraphs:
        return ""
    text = re.sub(r"\s+", " ", paragraphs[0]).strip()
    # C docstrings may start with a signature line such as "S.find(sub) -> int"
    def code_like(paragraph: str) -> bool:
        return bool(re.match(r"^[\w.]+\(.*\)\s*(-+>.*)?$", paragraph) or re.match(r"^\w+\s*=\s*[\w.]+\(", paragraph)
                    or re.match(r"^\[.*\]$", paragraph))

    for paragraph in paragraphs[1:]:
        if not code_like(text):
            break
        text = re.sub(r"\s+", " ", paragraph).strip()
    if len(text) > limit:
        sentences = re.split(r"(?<=[.!?])\s+", text)
        kept = ""
        for sentence in sentences:
            if len(kept) + len(sentence) + 1 > limit:
                break
            kept = f"{kept} {sentence}".strip()
        text = kept or text[: limit - 3].rsplit(" ", 1)[0] + "..."
    if text.endswith(":") and re.search(r"[.!?]\s", text):
        text = re.split(r"(?<=[.!?])\s+(?=\S+[^.!?]*:$)", text)[0]  # drop a trailing "...as follows:"
    return text


def one_line(doc: str | None, limit: int = LINE_DOC_CHARS) -> str:
    """The first sentence of a docstring (a line ending in a full stop ends a sentence)."""
    if doc and not NOISE_DOC.search(doc.split("\n\n")[0]):
        doc = re.split(r"(?<=[.!?])[ \t]*\n", inspect.cleandoc(doc), maxsplit=1)[0]
    text = first_paragraph(doc, 10_000)
    text = re.sub(r"^[\w.]+\([^)]*\)\s*(?:-+>?|:)\s*", "", text)  # "new(name, data=b'') - Return ..." 
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z(`'\"])", text)[0] if text else ""
    if len(sentence) > limit:
        sentence = sentence[: limit - 3].rsplit(" ", 1)[0] + "..."
    return sentence


def mentions_deprecation(doc: str | None) -> bool:
    return bool(re.search(r"\bdeprecated\b|\bdo not use\b|\bobsolete\b", first_paragraph(doc, 10_000), re.I))


def warns_deprecation(node: ast.AST) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            callee = ast.unparse(child.func)
            if callee.endswith("_deprecated") or callee.endswith("_deprecated_api"):
                return True
            if callee.endswith("warn") and "Deprecation" in ast.unparse(child):
                return True
    return False


# ---------------------------------------------------------------- documents

@dataclass
class Document:
    id: str
    title: str
    topic: str
    header: str  # comment line(s) before the class
    opening: str  # "class X(Base):" or "" for function groups
    docstring: str
    init: str | None
    entries: list[tuple[str, str, str]]  # (name, signature, one-line doc)
    source: str
    licence: str
    attributes: list[tuple[str, str, str]] = field(default_factory=list)
    curated: bool = False  # entries are already in order of importance (LIVE_FUNCTIONS)

    def render(self) -> str | None:
        """The text within MAX_CHARS: every method with its doc if it fits; else shorter docs; else as
        many methods as fit (core verbs first, then source order) with the rest listed by name; docs
        are dropped only when not even MIN_METHODS fit with them."""
        indent = "    " if self.opening else ""
        for doc_limit in (LINE_DOC_CHARS, 70):
            text = self._render(indent, doc_limit, None)
            if len(text) <= MAX_CHARS:
                return text

        def rank(index: int) -> tuple[int, int, int]:
            """A bare verb (execute, close) first, then verb_object (put_object before
            put_bucket_policy), then the rest; source order within each."""
            name, signature, _ = self.entries[index]
            words = name.split("_")
            if self.curated:
                return (0, 0, index)
            if signature.startswith("@"):
                return (2, len(words), index)
            if name in CORE_VERBS:
                return (0, 1, index)
            return (1 if words[0] in CORE_VERBS and len(words) <= 3 else 2, len(words), index)

        ranked = sorted(range(len(self.entries)), key=rank)
        for doc_limit in (70, 0):
            for keep in range(len(self.entries) - 1, MIN_METHODS - 1, -1):
                text = self._render(indent, doc_limit, set(ranked[:keep]))
                if len(text) <= MAX_CHARS:
                    return text
        return None

    def _render(self, indent: str, doc_limit: int, keep: set[int] | None) -> str:
        lines = [self.header]
        if self.opening:
            lines.append(self.opening)
        if self.docstring:
            lines.append(f'{indent}"""{self.docstring}"""')
        if self.init:
            lines.append(indent + self.init)

        def line(signature: str, doc: str) -> str:
            if doc and doc_limit:
                doc = doc if len(doc) <= doc_limit else doc[: doc_limit - 3].rsplit(" ", 1)[0] + "..."
                return f"{indent}{signature}  # {doc}"
            return indent + signature

        entries = [e for i, e in enumerate(self.entries) if keep is None or i in keep]
        lines += [line(signature, doc) for _, signature, doc in entries]
        if keep is not None and len(keep) < len(self.entries):
            rest = [name for i, (name, _, _) in enumerate(self.entries) if i not in keep]
            names = ""
            for name in rest:
                if len(names) + len(name) > 200:
                    names += ", ..."
                    break
                names = f"{names}, {name}" if names else name
            lines.append(f"{indent}# ... {len(rest)} more: {names}")
        if keep is None:
            lines += [line(signature, doc) for _, signature, doc in self.attributes[:6]]
        return "\n".join(lines)


def camel_to_kebab(name: str) -> str:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z]+(?![0-9]))", r"\1-\2", name)
    return name.replace("_", "-").lower()


def make_id(prefix: str, module: str, name: str | None, drop_top: bool = False) -> str:
    if drop_top:
        module = module.split(".", 1)[1] if "." in module else ""
    parts = [prefix, module.replace(".", "-").replace("_", "-").lower()]
    if name:
        parts.append(camel_to_kebab(name))
    return re.sub(r"-+", "-", "-".join(parts)).strip("-")


def topic_of(module: str) -> str:
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        topic = TOPIC_OF.get(".".join(parts[:length]))
        if topic:
            return topic
    return "python standard library"


# ---------------------------------------------------------------- typeshed

class Typeshed:
    """typeshed stdlib stubs with `sys.version_info` and `sys.platform` branches resolved."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.cache: dict[str, dict[str, object]] = {}

    def module(self, name: str, depth: int = 0) -> dict[str, object]:
        if self.root is None or depth > 3:
            return {}
        if name in self.cache:
            return self.cache[name]
        self.cache[name] = {}
        base = self.root / "stdlib" / Path(*name.split("."))
        path = base.with_suffix(".pyi") if base.with_suffix(".pyi").exists() else base / "__init__.pyi"
        if not path.exists():
            return {}
        tree = ast.parse(path.read_text(encoding="utf8"))
        table: dict[str, object] = {}
        for node in self._resolve(tree.body):
            if isinstance(node, ast.ClassDef):
                table.setdefault(node.name, node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                table.setdefault(node.name, [])
                assert isinstance(table[node.name], list)
                table[node.name].append(node)  # type: ignore[union-attr]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    table.setdefault(alias.asname or alias.name, ("module", alias.name, ""))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name == "*":
                        for key, value in self.module(node.module, depth + 1).items():
                            table.setdefault(key, value)
                    else:
                        table.setdefault(alias.asname or alias.name, ("import", node.module, alias.name))
        self.cache[name] = table
        return table

    def lookup(self, module: str, name: str, depth: int = 0) -> object:
        value = self.module(module).get(name)
        if isinstance(value, tuple) and value[0] == "import" and depth < 4:
            return self.lookup(value[1], value[2], depth + 1)
        return value

    def class_members(self, module: str, name: str) -> dict[str, list[ast.FunctionDef]]:
        """Methods of a stub class and of its stub bases (the class's own first)."""
        members: dict[str, list[ast.FunctionDef]] = {}
        owner: dict[str, tuple[str, str]] = {}
        queue, seen = [(module, name)], set()
        while queue and len(seen) < 8:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            node = self.lookup(*current)
            if not isinstance(node, ast.ClassDef):
                continue
            for child in self._resolve(node.body):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if any(ast.unparse(d).endswith(".setter") or ast.unparse(d).endswith(".deleter") for d in child.decorator_list):
                        continue
                    if current == (module, name) or child.name not in members:
                        members.setdefault(child.name, []).append(child)
                    elif owner.get(child.name) == current:
                        members[child.name].append(child)  # another overload in the same base
                    owner.setdefault(child.name, current)
            for base in node.bases:
                queue.append(self._base(current[0], ast.unparse(base).split("[")[0]))
        return members

    def _base(self, module: str, expression: str) -> tuple[str, str]:
        """(module, class) that a base-class expression of a stub in `module` names."""
        if "." in expression:
            head, name = expression.rsplit(".", 1)
            imported = self.module(module).get(head)
            return (imported[1] if isinstance(imported, tuple) and imported[0] == "module" else head), name
        value = self.module(module).get(expression)
        return (value[1], value[2]) if isinstance(value, tuple) else (module, expression)

    def _resolve(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for node in body:
            if isinstance(node, ast.If):
                verdict = self._condition(node.test)
                out += self._resolve(node.body if verdict else node.orelse)
            else:
                out.append(node)
        return out

    def _condition(self, test: ast.expr) -> bool:
        if isinstance(test, ast.BoolOp):
            values = [self._condition(v) for v in test.values]
            return all(values) if isinstance(test.op, ast.And) else any(values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return not self._condition(test.operand)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right, op = ast.unparse(test.left), test.comparators[0], test.ops[0]
            try:
                value = ast.literal_eval(right)
            except ValueError:
                return True
            if left == "sys.version_info":
                actual = sys.version_info[: len(value)]
            elif left == "sys.platform":
                actual = sys.platform
            else:
                return True
            return {ast.GtE: actual >= value, ast.Gt: actual > value, ast.Lt: actual < value,
                    ast.LtE: actual <= value, ast.Eq: actual == value, ast.NotEq: actual != value}.get(type(op), True)
        if isinstance(test, ast.Call) and ast.unparse(test.func) == "sys.platform.startswith":
            return sys.platform.startswith(ast.literal_eval(test.args[0]))
        return True


# ---------------------------------------------------------------- ast extraction

def literal_all(tree: ast.Module) -> set[str] | None:
    names: set[str] = set()
    found = False
    for node in ast.walk(tree):
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AugAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("__all__.extend", "__all__.append") and node.args:
            target, value = ast.Name("__all__"), node.args[0]
        if isinstance(target, ast.Name) and target.id == "__all__" and value is not None:
            for child in ast.walk(value):
                if isinstance(child, ast.Constant) and isinstance(child.value, str):
                    names.add(child.value)
                    found = True
    return names if found else None


def top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            out += top_level(node.body) + top_level(node.orelse)
        elif isinstance(node, ast.Try):
            out += top_level(node.body) + top_level(node.orelse)
        else:
            out.append(node)
    return out


def function_from_ast(node: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> Function | None:
    decorators = [ast.unparse(d) for d in node.decorator_list]
    kind = "method" if in_class else "function"
    for decorator in decorators:
        if decorator.endswith((".setter", ".deleter")) or decorator in ("overload", "typing.overload"):
            return None
        if decorator in ("property", "cached_property", "functools.cached_property"):
            kind = "property"
        elif decorator in ("staticmethod", "classmethod"):
            kind = decorator
    doc = ast.get_docstring(node)
    if mentions_deprecation(doc) or warns_deprecation(node):
        return None
    return Function(node.name, params_from_ast(node.args), None if node.returns is None else ast.unparse(node.returns),
                    doc or "", isinstance(node, ast.AsyncFunctionDef), kind)


def is_abstract(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("abstract" in ast.unparse(d) for d in node.decorator_list)


@dataclass
class Origin:
    package: str  # "Python 3.11.2 standard library" or "sortedcontainers 2.4.0"
    prefix: str  # "stdlib" or "pypi-sortedcontainers"
    licence: str
    file: str  # path relative to the package root
    root: Path  # folder holding the top-level packages (stdlib or site-packages)
    drop_top: bool = False  # ids leave out the top-level package (third-party: the prefix names it)


_INIT_CACHE: dict[Path, list[ast.ImportFrom]] = {}


def public_module(module: str, name: str | None, root: Path) -> str:
    """The shallowest package that re-exports `name` from `module` (`from .locks import *` or
    `from .locks import Lock` in asyncio/__init__.py makes asyncio.locks.Lock asyncio.Lock)."""
    while "." in module:
        parent, last = module.rsplit(".", 1)
        init = root / Path(*parent.split(".")) / "__init__.py"
        if init not in _INIT_CACHE:
            try:
                tree = ast.parse(init.read_text(encoding="utf8"))
                _INIT_CACHE[init] = [n for n in top_level(tree.body) if isinstance(n, ast.ImportFrom)]
            except (OSError, SyntaxError):
                _INIT_CACHE[init] = []
        exported = False
        for node in _INIT_CACHE[init]:
            source = "." * node.level + (node.module or "")
            if source not in (f".{last}", module):
                continue
            if any(a.name == "*" or (name is not None and a.name == name and a.asname in (None, name)) for a in node.names):
                exported = True
        if not exported:
            break
        module = parent
    return module


def hidden_bases(node: ast.ClassDef, local_classes: dict[str, ast.ClassDef], public: set[str] | None) -> list[ast.ClassDef]:
    """Bases defined in the same module that are not public themselves (`_BaseNetwork`, or MIMEPart
    outside email.message.__all__): their public methods are part of the class's API."""
    found: list[ast.ClassDef] = []
    queue = [ast.unparse(b).split("[")[0] for b in node.bases]
    while queue:
        name = queue.pop(0)
        base = local_classes.get(name)
        if base is None or base in found or base is node:
            continue
        if not (name.startswith("_") or (public is not None and name not in public)):
            continue
        found.append(base)
        queue += [ast.unparse(b).split("[")[0] for b in base.bases]
    return found


def class_document(module: str, node: ast.ClassDef, origin: Origin, topic: str, stubs: Typeshed | None,
                   local_classes: dict[str, ast.ClassDef] | None = None, public: set[str] | None = None,
                   explicit: bool = False) -> Document | None:
    """One class as a document, or None when it is not API-shaped: an exception, enum or protocol,
    deprecated, abstract, with fewer than MIN_METHODS public methods, or undocumented without being
    explicitly public (`explicit`: in `__all__`, or named by THIRD_PARTY)."""
    bases = [ast.unparse(b) for b in node.bases]
    base_names = {b.split("[")[0].split(".")[-1] for b in bases}
    if node.name.startswith("_") or EXCEPTION_NAME.search(node.name) or base_names & SKIP_BASES:
        return None
    if any(EXCEPTION_NAME.search(b) for b in base_names):
        return None
    class_doc = ast.get_docstring(node)
    if mentions_deprecation(class_doc):
        return None
    stub_members = stubs.class_members(module, node.name) if stubs else {}
    methods: list[Function] = []
    properties: list[Function] = []
    init: Function | None = None
    abstract = 0
    seen: set[str] = set()
    bodies = [child for klass in [node, *hidden_bases(node, local_classes or {}, public)] for child in top_level(klass.body)]
    for child in bodies:
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) or child.name in seen:
            continue
        if child.name != "__init__" and child.name.startswith("_"):
            continue
        function = function_from_ast(child, in_class=True)
        if function is None:
            if child.name == "__init__":
                return None  # deprecated constructor
            continue
        seen.add(child.name)
        if child.name == "__init__":
            init = function
        elif function.kind == "property":
            properties.append(function)
        else:
            methods.append(function)
            abstract += is_abstract(child)
    if len(methods) < MIN_METHODS or abstract == len(methods):
        return None
    if sum(1 for m in methods if m.doc) < min(2, len(methods)) and not class_doc and not explicit:
        return None
    used_stub = False
    for function in [*methods, *properties, *([init] if init else [])]:
        used_stub |= apply_stub(function, stub_members.get(function.name, []))
    if not class_doc and init is not None:
        class_doc = init.doc
    shown_bases = [b for b in bases if b.split("[")[0] not in ("object", "Generic") and "metaclass" not in b
                   and not b.split("[")[0].split(".")[-1].startswith("_")]
    opening = f"class {node.name}({', '.join(shown_bases)}):" if shown_bases and len(", ".join(shown_bases)) < 50 else f"class {node.name}:"
    licence = origin.licence + (" AND Apache-2.0" if used_stub else "")
    public = public_module(module, node.name, origin.root)
    return Document(
        id=make_id(origin.prefix, "" if origin.drop_top else public, node.name), title=f"{public}.{node.name}", topic=topic,
        header=f"# {origin.package}: from {public} import {node.name}", opening=opening,
        docstring=first_paragraph(class_doc, CLASS_DOC_CHARS).replace('"""', "'''"),
        init=render_signature(init) if init and len(init.params) > 1 else None,
        entries=[(m.name, render_signature(m), one_line(m.doc)) for m in methods],
        attributes=[(p.name, render_signature(p), one_line(p.doc, 60)) for p in properties if p.name[0].islower()],
        source=f"{origin.package}, {origin.file}, class {module}.{node.name}" + (", types from typeshed" if used_stub else ""),
        licence=licence)


def function_group_document(module: str, tree: ast.Module, functions: list[ast.FunctionDef], origin: Origin,
                            topic: str, stubs: Typeshed | None) -> Document | None:
    rendered: list[Function] = []
    for node in functions:
        function = function_from_ast(node, in_class=False)
        if function is None or function.name in ("main", "test"):
            continue
        rendered.append(function)
    if len(rendered) < MIN_METHODS or sum(1 for f in rendered if f.doc) < MIN_METHODS:
        return None
    used_stub = False
    if stubs:
        table = stubs.module(module)
        for function in rendered:
            stub = table.get(function.name)
            used_stub |= apply_stub(function, stub if isinstance(stub, list) else [])
    module_doc = first_paragraph(ast.get_docstring(tree), CLASS_DOC_CHARS).replace('"""', "'''")
    public = public_module(module, None, origin.root)
    return Document(
        id=make_id(origin.prefix, module, "functions", origin.drop_top),
        title=f"{public} functions" if public == module else f"{public} functions (from {module})",
        topic=topic, header=f"# {origin.package}: functions of module {public}", opening="", docstring=module_doc, init=None,
        entries=[(f.name, render_signature(f), one_line(f.doc)) for f in rendered],
        source=f"{origin.package}, {origin.file}, module-level functions of {module}" + (", types from typeshed" if used_stub else ""),
        licence=origin.licence + (" AND Apache-2.0" if used_stub else ""))


def module_documents(module: str, path: Path, origin: Origin, topic: str, stubs: Typeshed | None,
                     wanted_classes: tuple[str, ...] | None = None, with_functions: bool = True) -> list[Document]:
    """Documents of one module: its eligible classes and (with_functions) one group of its public
    functions. `wanted_classes`, when given, names the only classes to take, documented or not (third-party);
    a module private by name (`concurrent.futures._base`) gives only the classes a public package re-exports."""
    try:
        tree = ast.parse(path.read_text(encoding="utf8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    if mentions_deprecation(ast.get_docstring(tree)) or any(warns_deprecation(n) for n in tree.body if isinstance(n, ast.Expr)):
        return []
    public = literal_all(tree)
    private_module = any(part.startswith("_") for part in module.split("."))
    nodes = [n for n in top_level(tree.body) if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    local_classes: dict[str, ast.ClassDef] = {}
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            local_classes.setdefault(node.name, node)
    documents: list[Document] = []
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    seen: set[str] = set()
    for node in nodes:
        if node.name in seen:
            continue
        seen.add(node.name)
        if wanted_classes is not None:
            if isinstance(node, ast.ClassDef) and node.name in wanted_classes:
                document = class_document(module, node, origin, topic, stubs, local_classes, public, explicit=True)
                if document:
                    documents.append(document)
            elif with_functions and not isinstance(node, ast.ClassDef) and not node.name.startswith("_") and (public is None or node.name in public):
                functions.append(node)
            continue
        if node.name.startswith("_") or (public is not None and node.name not in public):
            continue
        if f"{module}.{node.name}" in EXCLUDED_OBJECTS:
            continue
        if isinstance(node, ast.ClassDef):
            if private_module and any(p.startswith("_") for p in public_module(module, node.name, origin.root).split(".")):
                continue
            document = class_document(module, node, origin, topic, stubs, local_classes, public,
                                      explicit=public is not None and node.name in public)
            if document:
                documents.append(document)
        else:
            functions.append(node)
    if with_functions and not private_module:
        document = function_group_document(module, tree, functions, origin, topic, stubs)
        if document:
            documents.append(document)
    return documents


def stdlib_modules(root: Path) -> list[tuple[str, Path]]:
    modules = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or parts[0] in EXCLUDED_TOP or parts[0].startswith(("_", "config-")):
            continue
        if any(p in EXCLUDED_PARTS for p in parts) or parts[-1].startswith("__") or "-" in "".join(parts):
            continue
        if any(".".join(parts[:n]) in EXCLUDED_MODULES for n in range(1, len(parts) + 1)):
            continue
        modules.append((".".join(parts), path))
    return modules


# ---------------------------------------------------------------- live (C-implemented) stdlib

def live_function(name: str, obj: object, stub_defs: list[ast.FunctionDef], kind: str) -> tuple[Function, bool]:
    try:
        params = params_from_signature(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        params = []
    function = Function(name, params, None, inspect.getdoc(obj) or "", inspect.iscoroutinefunction(obj), kind)
    used = apply_stub(function, stub_defs)
    if not function.params and kind != "function":
        function.params = [Param("self", "positional")]
    return function, used


def live_class_document(module: str, name: str, origin: Origin, stubs: Typeshed) -> Document | None:
    """A C-implemented class read with inspect: its methods (own and inherited, up to object) with the
    typeshed signatures where inspect has none, and its docstrings."""
    source_module = LIVE_CLASS_SOURCE.get((module, name), module)
    cls = getattr(importlib.import_module(source_module), name)
    stub_members = stubs.class_members(source_module, name)
    methods: list[Function] = []
    properties: list[Function] = []
    used_stub = False
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is object:
            break
        for attribute, value in vars(klass).items():
            if attribute.startswith("_") or attribute in seen:
                continue
            seen.add(attribute)
            if isinstance(value, (property, types.GetSetDescriptorType, types.MemberDescriptorType)):
                stub = stub_members.get(attribute, [])
                returns = ast.unparse(stub[0].returns) if stub and stub[0].returns is not None else None
                properties.append(Function(attribute, [], returns, inspect.getdoc(value) or "", kind="property"))
                used_stub |= returns is not None
                continue
            if not callable(value):
                continue
            kind = "classmethod" if isinstance(value, (classmethod, types.ClassMethodDescriptorType)) else "method"
            function, used = live_function(attribute, getattr(cls, attribute), stub_members.get(attribute, []), kind)
            if kind == "method" and (not function.params or function.params[0].name != "self"):
                function.params.insert(0, Param("self", "positional"))
            used_stub |= used
            if not mentions_deprecation(function.doc):
                methods.append(function)
    init_stub = stub_members.get("__init__", [])
    init = Function("__init__", [], None, "")
    used_stub |= apply_stub(init, init_stub)
    if not init.params:
        try:
            init.params = params_from_signature(inspect.signature(cls))
            init.params.insert(0, Param("self", "positional"))
        except (TypeError, ValueError):
            pass
    return Document(
        id=make_id("stdlib", module, name), title=f"{module}.{name}", topic=topic_of(module),
        header=f"# {origin.package}: from {module} import {name}", opening=f"class {name}:",
        docstring=first_paragraph(inspect.getdoc(cls), CLASS_DOC_CHARS).replace('"""', "'''"),
        init=render_signature(init) if len(init.params) > 1 else None,
        entries=[(m.name, render_signature(m), one_line(m.doc)) for m in methods],
        attributes=[(p.name, render_signature(p), one_line(p.doc, 60)) for p in properties if p.name[0].islower()],
        source=f"{origin.package}, {source_module} (C), class {module}.{name}" + (", types from typeshed" if used_stub else ""),
        licence=origin.licence + (" AND Apache-2.0" if used_stub else ""))


def live_function_document(suffix: str, module: str, title: str, names: str, origin: Origin, stubs: Typeshed) -> Document:
    imported = importlib.import_module(module)
    stub_module = {"os.path": "posixpath"}.get(module, module)
    table = stubs.module(stub_module)
    entries: list[Function] = []
    used_stub = False
    for name in names.split():
        stub = table.get(name)
        if isinstance(stub, tuple):
            stub = stubs.lookup(stub_module, name)
        if isinstance(stub, ast.ClassDef):  # itertools.count and friends are classes
            members = stubs.class_members(stub_module, name)
            constructors = members.get("__new__") or members.get("__init__") or []
            stub = []
            for constructor in constructors:
                constructor = copy.deepcopy(constructor)  # the stub tree is cached: edit a copy
                if constructor.args.posonlyargs and constructor.args.posonlyargs[0].arg in ("cls", "self"):
                    constructor.args.posonlyargs = constructor.args.posonlyargs[1:]
                elif constructor.args.args:
                    constructor.args.args = constructor.args.args[1:]
                if constructor.returns is None or ast.unparse(constructor.returns) in ("Self", "None"):
                    constructor.returns = ast.Name(name)
                stub.append(constructor)
        function, used = live_function(name, getattr(imported, name), stub if isinstance(stub, list) else [], "function")
        used_stub |= used
        entries.append(function)
    return Document(
        id=f"stdlib-{suffix}", title=title, topic=topic_of(module), header=f"# {origin.package}: functions of module {module}",
        opening="", docstring=first_paragraph(imported.__doc__, 200).replace('"""', "'''"), init=None,
        entries=[(f.name, render_signature(f), one_line(f.doc)) for f in entries], curated=True,
        source=f"{origin.package}, module {module} (C and Python), functions {', '.join(names.split())}" + (", types from typeshed" if used_stub else ""),
        licence=origin.licence + (" AND Apache-2.0" if used_stub else ""))


# ---------------------------------------------------------------- third-party

def distribution_metadata(site: Path, distribution: str) -> tuple[str, str, str] | None:
    """(version, licence summary from METADATA, dist-info folder) of an installed distribution."""
    normalized = distribution.replace("-", "_").lower()
    for info in sorted(site.glob("*.dist-info")):
        name = info.name.removesuffix(".dist-info").rsplit("-", 1)[0].replace("-", "_").replace(".", "_").lower()
        if name != normalized:
            continue
        metadata = (info / "METADATA").read_text(encoding="utf8", errors="replace").split("\n\n", 1)[0]
        version = re.search(r"^Version: (.+)$", metadata, re.M)
        fields = re.findall(r"^(?:License-Expression|License): (.+)$", metadata, re.M)
        classifiers = re.findall(r"^Classifier: License :: (.+)$", metadata, re.M)
        licence = " / ".join(field.strip()[:80] for field in [*fields, *classifiers])
        return (version.group(1).strip() if version else "unknown", licence, info.name)
    return None


PERMISSIVE = re.compile(r"MIT|BSD|Apache|PSF|Python Software Foundation", re.I)


def third_party_documents(sites: list[Path], stubs: Typeshed | None) -> tuple[list[Document], list[dict[str, str]]]:
    documents: list[Document] = []
    used: list[dict[str, str]] = []
    for package in THIRD_PARTY:
        found = [(site, metadata) for site in sites if (metadata := distribution_metadata(site, package.distribution))]
        if not found:
            print(f"skip {package.distribution}: not installed in {', '.join(map(str, sites))}", file=sys.stderr)
            continue
        site, metadata = found[0]
        version, licence_text, info = metadata
        if not PERMISSIVE.search(licence_text) or re.search(r"GPL", licence_text):
            print(f"skip {package.distribution}: licence {licence_text!r}", file=sys.stderr)
            continue
        origin = Origin(f"{package.distribution} {version}", f"pypi-{package.distribution.replace('_', '-')}", package.licence, "", site, True)
        produced = 0
        for module in package.modules:
            base = site / Path(*module.split("."))
            path = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
            if not path.exists():
                continue
            origin.file = str(path.relative_to(site))
            for document in module_documents(module, path, origin, package.topic, None, package.classes,
                                             with_functions=package.functions):
                documents.append(document)
                produced += 1
        if produced:
            used.append({"distribution": package.distribution, "version": version, "licence": package.licence,
                         "metadata": licence_text, "dist_info": str(site / info)})
    return documents, used


# ---------------------------------------------------------------- licences

LICENCE_FILE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE)", re.I)
SAMPLE_CORPORA_NOTE = """\
`sample.jsonl` and `terminal.jsonl` were written for envforge and carry the project's licence,
Apache-2.0 (`license` in `package.json`)."""


def write_licences(corpus: Path, stdlib_root: Path, python: str, typeshed_root: Path, jedi: str,
                   packages: list[dict[str, str]], counts: dict[str, int], typed: int) -> list[str]:
    """Writes corpus/licenses/*.txt (the licence texts, copied) and corpus/LICENSES.md. Returns the
    files written, relative to `corpus`."""
    folder = corpus / "licenses"
    folder.mkdir(parents=True, exist_ok=True)
    psf = (stdlib_root / "LICENSE.txt").read_text(encoding="utf8")
    (folder / "PSF-2.0.txt").write_text(psf, encoding="utf8")
    typeshed_licence = (typeshed_root / "LICENSE").read_text(encoding="utf8")
    (folder / "typeshed-Apache-2.0.txt").write_text(typeshed_licence, encoding="utf8")
    # the plain Apache-2.0 text (typeshed's copy), for wheels whose LICENSE only points to it
    apache = typeshed_licence.split("= = = = =")[1].strip("\n") + "\n"
    (folder / "Apache-2.0.txt").write_text(apache, encoding="utf8")
    written = ["licenses/PSF-2.0.txt", "licenses/typeshed-Apache-2.0.txt", "licenses/Apache-2.0.txt"]
    notices: list[str] = []
    notice = re.search(r'"(Copyright \(c\) 2001.*?All Rights Reserved)"', psf, re.S)
    psf_notice = re.sub(r"\s+", " ", notice.group(1)) if notice else "Copyright (c) Python Software Foundation; All Rights Reserved"
    rows = [f"| Python {python} standard library (`{stdlib_root}`) | PSF-2.0 | [licenses/PSF-2.0.txt](licenses/PSF-2.0.txt) | {counts.get('stdlib', 0)} |",
            f"| typeshed stubs bundled with {jedi} (parameter and return types only) | Apache-2.0 (parts MIT) | "
            f"[licenses/typeshed-Apache-2.0.txt](licenses/typeshed-Apache-2.0.txt) | {typed} (types) |"]
    for package in packages:
        info = Path(package["dist_info"])
        texts = []
        for path in sorted([*info.glob("*"), *info.glob("licenses/*")], key=lambda p: p.name):
            if path.is_file() and LICENCE_FILE.match(path.name):
                if path.name.upper().startswith("NOTICE"):
                    notices.append(f"{package['distribution']}: {path.name}")
                texts.append(f"==> {package['distribution']} {package['version']}: {path.relative_to(info.parent)} <==\n\n"
                             + path.read_text(encoding="utf8", errors="replace").rstrip() + "\n")
        name = f"licenses/{package['distribution']}.txt"
        (corpus / name).write_text("\n".join(texts) if texts else "no licence file in the wheel; metadata: " + package["metadata"] + "\n", encoding="utf8")
        written.append(name)
        rows.append(f"| {package['distribution']} {package['version']} | {package['licence']} (metadata: {package['metadata']}) | "
                    f"[{name}]({name}) | {counts.get(package['distribution'], 0)} |")
    lines = [
        "# Corpus licences",
        "",
        SAMPLE_CORPORA_NOTE,
        "",
        "`tools.jsonl` is generated by `scripts/make-tool-corpus.py` (do not edit it by hand; rerun the script with",
        "`/usr/bin/python3.11`). Each line names its origin in `source` and its licence as an SPDX expression in",
        "`licence`. A document is an excerpt of one class or module of the package it names: the public names, the",
        "signatures, and the first paragraph (or first sentence) of docstrings, reformatted as Python signatures and",
        "shortened. Where the source has no annotation, parameter and return types come from the typeshed stubs; such",
        "documents carry `PSF-2.0 AND Apache-2.0`.",
        "",
        "| Source | Licence | Text | Documents |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        "## Notices",
        "",
        f"- Python: {psf_notice}. Changes made (PSF License Agreement, clause 3): excerpts of names, signatures",
        "  and docstrings of the standard library, reformatted; no code is included.",
        "- typeshed: Apache-2.0; the parts under MIT are listed in the same file. Changes made: annotations",
        "  copied into signatures, `_typeshed` aliases rewritten (`StrPath` as `str | PathLike`), type-variable",
        "  underscores dropped.",
        "- Third-party packages: each `licenses/<distribution>.txt` reproduces the licence files of the installed",
        "  wheel (`*.dist-info`). Where a wheel's LICENSE only points to the Apache License 2.0 (sortedcontainers,",
        "  python-dateutil's Apache part), its full text is `licenses/Apache-2.0.txt`. NOTICE files: "
        + (", ".join(notices) if notices else "none of these wheels ships one") + ". Changes made: as for Python.",
        "",
    ]
    (corpus / "LICENSES.md").write_text("\n".join(lines), encoding="utf8")
    return ["LICENSES.md", *written]


# ---------------------------------------------------------------- main

def find_typeshed() -> Path | None:
    patterns = [os.path.expanduser("~/.pyenv/versions/*/lib/python3*/site-packages/jedi/third_party/typeshed"),
                "/usr/lib/python3/dist-packages/jedi/third_party/typeshed",
                "/usr/local/lib/python3*/*-packages/jedi/third_party/typeshed"]
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[-1])
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "corpus" / "tools.jsonl")
    parser.add_argument("--typeshed", type=Path, default=None, help="typeshed root (holds stdlib/); default: jedi's bundled copy")
    parser.add_argument("--site-packages", type=Path, action="append", default=None,
                        help="site-packages searched, in order, for THIRD_PARTY (repeatable); default: jedi's, then .venv-openenv10's")
    parser.add_argument("--no-third-party", action="store_true")
    parser.add_argument("--any-python", action="store_true", help=f"read this interpreter's stdlib, not {EXPECTED_STDLIB}")
    arguments = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        print("run with Python 3.11 (/usr/bin/python3.11): the exclusions and stub branches assume it", file=sys.stderr)
        return 2
    if sysconfig.get_path("stdlib") != EXPECTED_STDLIB and not arguments.any_python:
        print(f"the shipped corpus reads {EXPECTED_STDLIB}: run with /usr/bin/python3.11, or pass --any-python "
              f"to read {sysconfig.get_path('stdlib')} instead", file=sys.stderr)
        return 2

    typeshed_root = arguments.typeshed or find_typeshed()
    if typeshed_root is None or not (typeshed_root / "stdlib").is_dir():
        print("typeshed not found: pass --typeshed (a folder holding stdlib/)", file=sys.stderr)
        return 2
    stubs = Typeshed(typeshed_root)
    sites = arguments.site_packages or [typeshed_root.parents[2], *sorted(ROOT.glob(".venv-openenv10/lib/python3*/site-packages"))]
    jedi = distribution_metadata(typeshed_root.parents[2], "jedi")
    if jedi is None:
        print(f"warning: no jedi dist-info beside {typeshed_root}", file=sys.stderr)
    stdlib_root = Path(sysconfig.get_path("stdlib"))
    python = platform.python_version()
    origin = Origin(f"Python {python} standard library", "stdlib", "PSF-2.0", "", stdlib_root)

    documents: list[Document] = []
    for module, path in stdlib_modules(stdlib_root):
        origin.file = f"Lib/{path.relative_to(stdlib_root)}"
        documents += module_documents(module, path, origin, topic_of(module), stubs)
    live = {make_id("stdlib", module, name) for module, name in LIVE_CLASSES}
    documents = [d for d in documents if d.id not in live]
    for module, name in LIVE_CLASSES:
        document = live_class_document(module, name, origin, stubs)
        if document:
            documents.append(document)
    for suffix, (module, title, names) in LIVE_FUNCTIONS.items():
        documents.append(live_function_document(suffix, module, title, names, origin, stubs))
    used_packages: list[dict[str, str]] = []
    if not arguments.no_third_party:
        extra, used_packages = third_party_documents(sites, stubs)
        documents += extra

    lines: dict[str, str] = {}
    dropped = {"short": 0, "long": 0}
    for document in sorted(documents, key=lambda d: d.id):
        text = document.render()
        if text is None:
            dropped["long"] += 1
            continue
        if len(text) < MIN_CHARS:
            dropped["short"] += 1
            continue
        document_id = document.id
        suffix = 2
        while document_id in lines:
            document_id, suffix = f"{document.id}-{suffix}", suffix + 1
        lines[document_id] = json.dumps({"id": document_id, "title": document.title, "topic": document.topic,
                                         "text": text, "source": document.source, "licence": document.licence},
                                        ensure_ascii=False)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text("".join(line + "\n" for line in lines.values()), encoding="utf8")
    counts: dict[str, int] = {}
    typed = 0
    for line in lines.values():
        record = json.loads(line)
        key = "stdlib" if record["id"].startswith("stdlib-") else record["source"].split(" ")[0]
        counts[key] = counts.get(key, 0) + 1
        typed += "Apache-2.0" in record["licence"] and "typeshed" in record["source"]
    licence_files = write_licences(arguments.out.parent, stdlib_root, python, typeshed_root,
                                   jedi[2].removesuffix(".dist-info").replace("-", " ") if jedi else "jedi", used_packages, counts, typed)
    summary = {"documents": len(lines), "dropped": dropped, "python": python, "stdlib": str(stdlib_root),
               "typeshed": f"{typeshed_root} ({jedi[2] if jedi else 'unknown'})", "third_party": used_packages,
               "bytes": arguments.out.stat().st_size, "licence_files": licence_files}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
