import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import type { EnvProgram, EnvSession, Sandbox } from "../../spec/index.js";
import { episodesOf, playEpisodeJobs, type EpisodeJob } from "./episode-jobs.js";
import type { Policy } from "./policy.js";

// The sandbox is real (bubblewrap); the policies are scripted (control flow of the lanes only).

const real = new BwrapSandbox({ limits: { callTimeoutMs: 1500 } });
afterAll(() => real.close());

/** The real sandbox, counting sessions open at once. */
function counting(inner: Sandbox): Sandbox & { readonly opened: number; readonly attempts: number; readonly liveSessions: () => number; readonly most: number } {
  let live = 0;
  let most = 0;
  let opened = 0;
  let attempts = 0;
  return {
    name: inner.name,
    get attempts() {
      return attempts;
    },
    get opened() {
      return opened;
    },
    get most() {
      return most;
    },
    liveSessions: () => live,
    async open(program: EnvProgram) {
      attempts += 1;
      const outcome = await inner.open(program);
      if (outcome.kind !== "ok") return outcome;
      opened += 1;
      live += 1;
      most = Math.max(most, live);
      const session = outcome.value;
      const wrapped: EnvSession = Object.create(session) as EnvSession;
      let closed = false;
      wrapped.close = async () => {
        if (!closed) live -= 1;
        closed = true;
        await session.close();
      };
      return { kind: "ok", value: wrapped };
    },
    close: () => inner.close(),
  };
}

/** Answers `answer` after `delayMs` (so concurrent episodes overlap and finish out of order). */
function answering(answer: string, delayMs: number): Policy {
  return { name: "scripted", act: async () => new Promise((resolve) => setTimeout(() => resolve({ text: answer }), delayMs)) };
}

const pkg = samplePackage(3);
const program = { envSource: pkg.envSource, oracleSource: null };
const jobsFor = (answers: readonly string[]): EpisodeJob[] =>
  answers.map((answer, index) => ({ program, manifest: pkg.manifest, seed: 100 + index, policy: () => answering(answer, 60 - index * 10) }));

describe("playEpisodeJobs", () => {
  it("returns outcomes in job order whatever the completion order, the same as one at a time", async () => {
    const answers = ["42", "7", "42", "42", "0", "42"];
    const sandbox = counting(real);
    const completed: number[] = [];
    const together = await playEpisodeJobs(sandbox, jobsFor(answers), { concurrency: 3, onEpisode: (index) => completed.push(index) });
    const alone = await playEpisodeJobs(real, jobsFor(answers), { concurrency: 1 });
    const summary = (outcomes: typeof together) => episodesOf(jobsFor(answers), outcomes).map((episode) => [episode.seed, episode.won, episode.turns[0]?.action]);
    expect(summary(together)).toEqual(answers.map((answer, index) => [100 + index, answer === "42", answer]));
    expect(summary(alone)).toEqual(summary(together));
    // later jobs answer sooner, so they finished before earlier ones
    expect(completed).not.toEqual([0, 1, 2, 3, 4, 5]);
    expect(sandbox.most).toBe(3);
    // a lane keeps its session across jobs of the same program, and every session is closed at the end
    expect(sandbox.opened).toBe(3);
    expect(sandbox.liveSessions()).toBe(0);
  });

  it("gives a lane a fresh session after a sandbox failure, and reports a program that cannot load as its outcome", async () => {
    const hangsOnSeven = { envSource: pkg.envSource.replace("    def step(self, action):\n", "    def step(self, action):\n        while action.strip() == '7':\n            pass\n"), oracleSource: null };
    const sandbox = counting(real);
    const jobs = [...jobsFor(["7", "42"]).map((job) => ({ ...job, program: hangsOnSeven })), { ...jobsFor(["42"])[0]!, program: { envSource: "class (:\n", oracleSource: null } }];
    const outcomes = await playEpisodeJobs(sandbox, jobs, { concurrency: 1 });
    const [hung, after, broken] = outcomes;
    expect(hung?.kind === "ok" && hung.value.failure?.kind).toBe("timeout");
    expect(after?.kind === "ok" && [after.value.won, after.value.failure]).toEqual([true, undefined]);
    expect(broken?.kind).toBe("crash");
    expect(episodesOf(jobs, outcomes)[2]).toMatchObject({ seed: 100, turns: [], return: 0, won: false, truncated: true, failure: { kind: "crash" } });
    // the timeout's session was replaced: two sessions for the first program (the broken one never opened)
    expect(sandbox.opened).toBe(2);
    expect(sandbox.liveSessions()).toBe(0);
  });

  it("does not load a program again in the same call once it failed to load", async () => {
    const sandbox = counting(real);
    const broken = { envSource: "class (:\n", oracleSource: null };
    const jobs = jobsFor(["42", "42", "42"]).map((job) => ({ ...job, program: broken }));
    const outcomes = await playEpisodeJobs(sandbox, jobs, { concurrency: 1 });
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["crash", "crash", "crash"]);
    expect(sandbox.attempts).toBe(1);
  });

  it("rethrows an unexpected error only after the running episodes ended, with every session closed", async () => {
    const sandbox = counting(real);
    const jobs = jobsFor(["42", "42", "42", "42"]).map((job, index) =>
      index === 1
        ? {
            ...job,
            policy: () => {
              throw new Error("no policy for job 1");
            },
          }
        : job,
    );
    const started: number[] = [];
    await expect(playEpisodeJobs(sandbox, jobs, { concurrency: 2, onEpisode: (index) => started.push(index) })).rejects.toThrowError("no policy for job 1");
    // job 0 (running when job 1 threw) finished; no job started after the error
    expect(started).toEqual([0]);
    expect(sandbox.liveSessions()).toBe(0);
  });
});
