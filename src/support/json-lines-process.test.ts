import { describe, expect, it } from "vitest";
import { JsonLinesError, JsonLinesProcess } from "./json-lines-process.js";

// Children are small node programs (command: this node, the program in -e), each misbehaving in one way.
function child(program: string, requestTimeoutMs = 5000): JsonLinesProcess {
  return new JsonLinesProcess({ name: "the test child", command: process.execPath, args: ["-e", program], missingMessage: "no node", requestTimeoutMs });
}

/** Echoes each request's fields back as an answer; `op: "hang"` is never answered, `op: "die"` exits at once. */
const ECHO = `
const rl = require("readline").createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const request = JSON.parse(line);
  if (request.op === "hang") return;
  if (request.op === "die") process.exit(3);
  process.stdout.write(JSON.stringify({ ...request, ok: true }) + "\\n");
});`;

describe("JsonLinesProcess", () => {
  it("bad output first: null, garbage, an array and a wrong id are ignored; the right answer still arrives", async () => {
    const process_ = child(`
      require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const { id } = JSON.parse(line);
        process.stdout.write("null\\n" + "not json\\n" + "[1]\\n" + JSON.stringify({ id: id + 100, ok: true }) + "\\n" + JSON.stringify({ id, ok: true, x: 1 }) + "\\n");
      });`);
    try {
      await expect(process_.request({ op: "a" })).resolves.toMatchObject({ ok: true, x: 1 });
    } finally {
      await process_.close();
    }
  });

  it("a child that dies while a large request is written fails the requests; the process does not crash", async () => {
    const process_ = child(ECHO);
    try {
      const results = await Promise.allSettled([process_.request({ op: "die" }), process_.request({ op: "big", answer: "x".repeat(1_000_000) })]);
      for (const result of results) {
        expect(result.status).toBe("rejected");
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(JsonLinesError);
        expect(((result as PromiseRejectedResult).reason as JsonLinesError).failure.kind).toBe("protocol");
      }
      // the next request starts a fresh child
      await expect(process_.request({ op: "again" })).resolves.toMatchObject({ op: "again" });
    } finally {
      await process_.close();
    }
  });

  it("a request that times out kills its child; the next request, on a fresh child, is not failed by the old one's exit", async () => {
    const process_ = child(ECHO, 500);
    try {
      await expect(process_.request({ op: "hang" })).rejects.toThrow(/gave no answer to hang within 500 ms/);
      await expect(process_.request({ op: "next" })).resolves.toMatchObject({ op: "next" });
    } finally {
      await process_.close();
    }
  });

  it("a body that cannot be serialised fails that request alone, and an id in the body does not replace the request's", async () => {
    const process_ = child(ECHO, 1000);
    try {
      let deep: unknown = [];
      for (let depth = 0; depth < 20_000; depth += 1) deep = [deep];
      await expect(process_.request({ op: "deep", deep })).rejects.toThrow(/cannot be sent to the test child/);
      await expect(process_.request({ op: "fine", id: "mine" })).resolves.toMatchObject({ op: "fine" });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await expect(process_.request({ op: "still" })).resolves.toMatchObject({ op: "still" });
    } finally {
      await process_.close();
    }
  });

  it("a missing program is unavailable, with the message given", async () => {
    const missing = new JsonLinesProcess({ name: "x", command: "/nonexistent/python", args: [], missingMessage: "install it with setup.sh", requestTimeoutMs: 1000 });
    const error = await missing.request({ op: "a" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonLinesError);
    expect((error as JsonLinesError).failure).toEqual({ kind: "unavailable", message: "install it with setup.sh" });
  });
});
