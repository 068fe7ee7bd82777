import { describe, expect, it } from "vitest";
import { ConfigError, type Datum } from "../../../spec/index.js";
import { TinkerHttp } from "./tinker-http.js";
import { TinkerTrainer, tinkerLoss } from "./tinker-trainer.js";

// The wire form of the in-pass importance correction, against a recording fetch (no backend).

const datum: Datum = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, -1], advantages: [0, 0.5], mask: [0, 1] };
const ppo = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;

/** A Tinker server in a fetch function: answers every future at once and records the bodies it got. */
function recordingHttp(bodies: Record<string, unknown>[]): TinkerHttp {
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url)).pathname;
    const body = init?.body === undefined ? {} : (JSON.parse(String(init.body)) as Record<string, unknown>);
    if (path.endsWith("/retrieve_future")) return Response.json({ model_id: "m", loss_fn_outputs: [{ logprobs: { data: [0, -0.5] } }], metrics: {} });
    bodies.push({ path, ...body });
    return Response.json({ request_id: `r${bodies.length}` });
  };
  return new TinkerHttp({ baseUrl: "http://trainer.invalid", fetch: fetch as typeof globalThis.fetch });
}

describe("tinkerLoss", () => {
  it("sends the cap as loss_fn_config.importance_cap only when the loss has one", () => {
    expect(tinkerLoss(ppo)).toEqual({ loss_fn: "ppo", loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 } });
    expect(tinkerLoss({ ...ppo, importanceCap: 2 }).loss_fn_config).toMatchObject({ importance_cap: 2, clip_low_threshold: 0.8 });
    expect(tinkerLoss({ ...ppo, kind: "importance_sampling" })).toEqual({ loss_fn: "importance_sampling" });
    expect(tinkerLoss({ ...ppo, kind: "importance_sampling", importanceCap: 2 })).toEqual({ loss_fn: "importance_sampling", loss_fn_config: { importance_cap: 2 } });
  });
});

describe("TinkerTrainer in-pass importance correction", () => {
  it("sends importance_cap to a backend that announced it and returns the learner logprobs", async () => {
    const bodies: Record<string, unknown>[] = [];
    const trainer = await TinkerTrainer.create(recordingHttp(bodies), { baseModel: "b", inPassImportanceCorrection: true });
    expect(trainer.inPassImportanceCorrection).toBe(true);
    const result = await trainer.forwardBackward([datum], { ...ppo, importanceCap: 2 });
    expect(result.logprobs).toEqual([[0, -0.5]]);
    const sent = bodies.find((body) => body.path === "/api/v1/forward_backward") as { forward_backward_input: { loss_fn_config: Record<string, number> } };
    expect(sent.forward_backward_input.loss_fn_config.importance_cap).toBe(2);
  });

  it("refuses a cap on a backend that did not announce it, before sending anything", async () => {
    const bodies: Record<string, unknown>[] = [];
    const trainer = await TinkerTrainer.create(recordingHttp(bodies), { baseModel: "b" });
    const before = bodies.length;
    await expect(trainer.forwardBackward([datum], { ...ppo, importanceCap: 2 })).rejects.toThrow(ConfigError);
    await expect(trainer.forwardBackward([datum], { ...ppo, importanceCap: 2 })).rejects.toThrow(/in_pass_importance_correction/);
    expect(bodies.length).toBe(before);
  });
});
