import { describe, expect, it } from "vitest";
import type { Episode, Turn } from "../../spec/index.js";
import { designTrajectories, episodeTrajectories } from "./conversation-trajectories.js";

function episode(turns: Turn[]): Episode {
  return { seed: 0, initialObservation: "o", turns, return: 1, won: true, terminated: true, truncated: false };
}
const turn = (promptTokens: number[] | undefined, actionTokens: number[] | undefined, actionLogprobs: number[] | undefined): Turn => ({
  action: "a",
  observation: "o",
  reward: 0,
  ...(promptTokens ? { promptTokens } : {}),
  ...(actionTokens ? { actionTokens } : {}),
  ...(actionLogprobs ? { actionLogprobs } : {}),
});

describe("episodeTrajectories", () => {
  it("merges turns into one sequence while each prompt extends the tokens so far", () => {
    const trajectories = episodeTrajectories(
      episode([turn([1, 2], [3, 4], [-0.1, -0.2]), turn([1, 2, 3, 4, 5, 6], [7], [-0.3]), turn([1, 2, 3, 4, 5, 6, 7], [8], [-0.4])]),
    );
    expect(trajectories).toEqual([
      {
        segments: [
          { source: "prompt", tokens: [1, 2] },
          { source: "policy", tokens: [3, 4], logprobs: [-0.1, -0.2] },
          { source: "environment", tokens: [5, 6] },
          { source: "policy", tokens: [7], logprobs: [-0.3] },
          { source: "policy", tokens: [8], logprobs: [-0.4] },
        ],
      },
    ]);
  });

  it("starts a new sequence when a prompt breaks the prefix property", () => {
    const trajectories = episodeTrajectories(episode([turn([1, 2], [3], [-0.1]), turn([1, 2, 9, 5], [6], [-0.2]), turn([1, 2, 9, 5, 6, 7], [8], [-0.3])]));
    expect(trajectories).toEqual([
      { segments: [{ source: "prompt", tokens: [1, 2] }, { source: "policy", tokens: [3], logprobs: [-0.1] }] },
      {
        segments: [
          { source: "prompt", tokens: [1, 2, 9, 5] },
          { source: "policy", tokens: [6], logprobs: [-0.2] },
          { source: "environment", tokens: [7] },
          { source: "policy", tokens: [8], logprobs: [-0.3] },
        ],
      },
    ]);
  });

  it("gives nothing when a turn lacks tokens or its logprobs do not match", () => {
    expect(episodeTrajectories(episode([]))).toEqual([]);
    expect(episodeTrajectories(episode([turn([1], [2], [-0.1]), turn(undefined, [3], [-0.1])]))).toEqual([]);
    expect(episodeTrajectories(episode([turn([1], [2, 3], [-0.1])]))).toEqual([]);
    expect(episodeTrajectories(episode([turn([1], [], [])]))).toEqual([]);
  });
});

describe("designTrajectories", () => {
  it("is the prompt then the completion as policy tokens", () => {
    expect(designTrajectories({ prompt: [1, 2], completion: [3], logprobs: [-0.5] })).toEqual([
      { segments: [{ source: "prompt", tokens: [1, 2] }, { source: "policy", tokens: [3], logprobs: [-0.5] }] },
    ]);
    expect(designTrajectories(undefined)).toEqual([]);
    expect(designTrajectories({ prompt: [1], completion: [3, 4], logprobs: [-0.5] })).toEqual([]);
  });

  it("merges repair turns into one conversation: feedback tokens are environment tokens between the completions", () => {
    const tokens = { prompt: [1, 2], completion: [3, 4], logprobs: [-0.1, -0.2], repairs: [{ prompt: [1, 2, 3, 4, 5, 6], completion: [7], logprobs: [-0.3] }] };
    expect(designTrajectories(tokens)).toEqual([
      {
        segments: [
          { source: "prompt", tokens: [1, 2] },
          { source: "policy", tokens: [3, 4], logprobs: [-0.1, -0.2] },
          { source: "environment", tokens: [5, 6] },
          { source: "policy", tokens: [7], logprobs: [-0.3] },
        ],
      },
    ]);
  });

  it("gives no trajectory when a repair attempt lacks tokens or its logprobs differ in length", () => {
    expect(designTrajectories({ prompt: [1], completion: [2], logprobs: [-1], repairs: [{ prompt: [1, 2, 3], completion: [], logprobs: [] }] })).toEqual([]);
    expect(designTrajectories({ prompt: [1], completion: [2], logprobs: [-1], repairs: [{ prompt: [1, 2, 3], completion: [4, 5], logprobs: [-1] }] })).toEqual([]);
  });
});
