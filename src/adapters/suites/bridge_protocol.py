"""The JSON-lines protocol of envforge's bridges to the field's suites (Reasoning Gym, BFCL).

Each request is one JSON object on one line, ``{"id": N, "op": ..., ...}``; each answer is one line
``{"id": N, "ok": true, ...}`` or ``{"id": N, "ok": false, "error": {"code", "message"}}``, in request
order. The TypeScript side is ``src/support/json-lines-process.ts``.

A bridge imports this module first (``claim_stdout``), so that the protocol owns the real stdout and
everything else (a library's prints, C-level writes) goes to stderr; then it calls ``serve(handle)``.
"""

import json
import os
import re
import sys
import traceback

_REQUEST_ID = re.compile(r'"id"\s*:\s*(-?\d+)')


class BridgeError(Exception):
    """A refusal the bridge answers with a code (``bad_request``, or the bridge's own)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def claim_stdout():
    """The real stdout as the protocol's stream; fd 1 and ``sys.stdout`` then point at stderr."""
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def serve(handle, protocol, unexpected_errors=False):
    """Answers each request line of stdin with ``handle(request)``'s fields, until stdin closes.

    A ``BridgeError`` is answered with its code; a line that is not a JSON object with ``bad_request``.
    With ``unexpected_errors``, any other exception is answered as ``internal_error`` (naming its type,
    file and line) and the bridge goes on; otherwise it propagates and ends the bridge.
    """
    for line in sys.stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise BridgeError("bad_request", "a request is a JSON object")
            request_id = request.get("id")
            answer = {"id": request_id, "ok": True, **handle(request)}
        except BridgeError as error:
            answer = _error(request_id, error.code, str(error))
        except (json.JSONDecodeError, RecursionError) as error:
            # a line nested too deep for the parser still gets an answer to its id, when the id can be read
            found = _REQUEST_ID.search(line[:200]) or _REQUEST_ID.search(line[-200:])
            answer = _error(request_id if request_id is not None or found is None else int(found.group(1)), "bad_request", f"not JSON: {type(error).__name__}: {error}")
        except Exception as error:
            if not unexpected_errors:
                raise
            frame = traceback.extract_tb(error.__traceback__)[-1]
            answer = _error(request_id, "internal_error", f"{type(error).__name__}: {error} ({os.path.basename(frame.filename)}:{frame.lineno})")
        protocol.write(json.dumps(answer, default=str) + "\n")


def _error(request_id, code, message):
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message[:2000]}}
