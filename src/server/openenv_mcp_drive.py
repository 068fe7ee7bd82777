"""Plays `envforge serve`'s /mcp with OpenEnv's own MCP client (openenv 0.10's MCPToolClient) and prints what it saw as JSON.

Usage: python openenv_mcp_drive.py BASE_URL TOKEN
Run by src/server/openenv-mcp-client.test.ts with .venv-openenv10's interpreter (scripts/setup.sh installs it).
MCPToolClient speaks OpenEnv's HTTP MCP: `openenv/session/create`, then `tools/list` and `tools/call` naming the session.
"""

import asyncio
import json
import sys
from typing import Any, Dict

from openenv.core.mcp_client import MCPToolClient

BASE_URL = sys.argv[1]
TOKEN = sys.argv[2]


async def main() -> Dict[str, Any]:
    report: Dict[str, Any] = {}
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with MCPToolClient(base_url=BASE_URL, headers=headers) as env:
        tools = await env.list_tools()
        report["tools"] = sorted(tool.name for tool in tools)
        report["reset_schema"] = next(tool.input_schema for tool in tools if tool.name == "reset")
        report["before_reset"] = await env.call_tool("step", message="too early")
        first = await env.call_tool("reset", env="echo", seed=9)
        steps = [await env.call_tool("step", message="hi"), await env.call_tool("step", message="win")]
        report["episode"] = {"first": first, "steps": steps}
        report["state"] = await env.call_tool("state")
        report["out_of_range"] = await env.call_tool("reset", env="level-sum", seed=1, level=99)
        report["unknown_tool"] = await env.call_tool("no_such_tool")
        # the client's WebSocket joined its MCP session (/ws?session_id=): a reset over it is the session the tools play
        await env.reset(env="echo", seed=4)
        report["shared_state"] = await env.call_tool("state")
        report["shared_step"] = await env.call_tool("step", message="after a websocket reset")

    # two clients at once: each its own session
    async def one(seed: int) -> str:
        async with MCPToolClient(base_url=BASE_URL, headers=headers) as env:
            await env.call_tool("reset", env="echo", seed=seed)
            result = await env.call_tool("step", message=f"from {seed}")
            return result["structuredContent"]["observation"]["text"]

    report["parallel"] = await asyncio.gather(one(1), one(2))

    # without the token
    report["no_token"] = await error_text(MCPToolClient(base_url=BASE_URL).call_tool("state"))
    return report


async def error_text(call) -> str:
    try:
        await call
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return "no error"


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
