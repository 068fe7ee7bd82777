"""Loads an exported verifiers package by its taskset id and runs rollouts through verifiers' own API; prints JSON.

Usage: python verifiers_check.py < request.json, request = {"id": taskset id, "episodes": [{"seed", "level", "replies": [...]}]}.
Run by src/cli/export-ecosystems.test.ts in a fresh virtualenv holding verifiers 0.4 (and uv, which its chat
harness runs on). The "model" is a scripted OpenAI-compatible endpoint that answers with the given replies (the
test passes envforge's oracle actions): a test double of the model for the control flow, not a model.
"""

import asyncio
import json
import sys
import time

from aiohttp import web
import verifiers.v1 as vf


async def scripted_endpoint(replies):
    queue = list(replies)

    async def chat(request):
        body = await request.json()
        text = queue.pop(0) if queue else ""
        head = {"id": f"scripted-{time.time_ns()}", "created": int(time.time()), "model": body["model"]}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not body.get("stream"):
            return web.json_response({**head, "object": "chat.completion", "usage": usage, "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for extra in ({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}, {"choices": [], "usage": usage}):
            await response.write(f"data: {json.dumps({**head, 'object': 'chat.completion.chunk', **extra})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"


async def main():
    request = json.load(sys.stdin)
    report = {"episodes": []}
    for episode in request["episodes"]:
        env = vf.load_environment(vf.resolve_env_config({"taskset": {"id": request["id"], "seeds": [episode["seed"]], "levels": [episode["level"]]}}))
        report["env"] = type(env).__name__
        task = next(iter(env.taskset))
        runner, base_url = await scripted_endpoint(episode["replies"])
        context = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=base_url, api_key_var="SCRIPTED_OPENAI_API_KEY"))
        try:
            async with env.serving():
                result = await env.run_slot(env.slots(task)[0], context)
        finally:
            await runner.cleanup()
        trace = result.traces[0]
        report["episodes"].append({
            "ok": result.ok,
            "errors": [str(error) for error in result.errors],
            "prompt": task.data.prompt,
            "messages": [{"role": message.role, "content": message.content} for message in trace.messages],
            "steps": trace.info["steps"],
            "reward": trace.reward,
            "metrics": trace.metrics,
        })
    module = __import__(request["id"].replace("-", "_"))
    report["load_environment"] = type(module.load_environment(seeds=[0])).__name__
    print(json.dumps(report))


asyncio.run(main())
