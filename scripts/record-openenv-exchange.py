"""Records a real exchange with openenv-core's own server (scripts/openenv-baseline-server.py hosting the
number-guess seed) as the wire fixture fixtures/openenv/openenv-core-exchange.json, which
src/server/openenv-wire.test.ts replays against envforge's server.

Usage: .venv-openenv/bin/python scripts/record-openenv-exchange.py PORT
(start the baseline server on 127.0.0.1:PORT first)
"""

import asyncio
import importlib.metadata
import json
import sys
import urllib.request

import websockets

PORT = int(sys.argv[1])
BASE = f"http://127.0.0.1:{PORT}"

FRAMES = [
    {"type": "reset", "data": {"seed": 3}},
    {"type": "step", "data": {"message": "Guess: 500"}},
    {"type": "state"},
    "not json",
    {"type": "jump"},
    {"type": "step", "data": {"text": "x"}},
    {"type": "reset", "extra": 1},
]


def http(method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{BASE}{path}", data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return {"status": response.status, "body": json.loads(response.read())}


async def websocket_exchange():
    exchange = []
    async with websockets.connect(f"ws://127.0.0.1:{PORT}/ws") as ws:
        for frame in FRAMES:
            text = frame if isinstance(frame, str) else json.dumps(frame)
            await ws.send(text)
            exchange.append({"sent": text, "received": json.loads(await ws.recv())})
    return exchange


def main() -> None:
    fixture = {
        "recorded_with": f"openenv-core {importlib.metadata.version('openenv-core')} (create_app under uvicorn), number-guess seed",
        "http": {
            "GET /health": http("GET", "/health"),
            "GET /metadata": http("GET", "/metadata"),
            "GET /schema": http("GET", "/schema"),
            "POST /reset": http("POST", "/reset", {"seed": 3}),
            "GET /state": http("GET", "/state"),
        },
        "websocket": asyncio.run(websocket_exchange()),
    }
    print(json.dumps(fixture, indent=2))


if __name__ == "__main__":
    main()
