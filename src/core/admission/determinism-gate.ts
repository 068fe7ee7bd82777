import { pass, reject, type EnvPackage, type EnvSession, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { seedRange, withSession } from "./probe-episodes.js";
import { recordTranscript } from "./transcript.js";

/**
 * Gate 3: the same seed and actions replayed give identical transcripts —
 * twice in one session (catches state leaking across episodes) and once in a
 * fresh process (catches clocks, OS randomness, object addresses) — and
 * different seeds give different instances: at least half of the seeds'
 * transcripts must be distinct. Reason codes: `nondeterministic` (evidence:
 * seed, which replay, first differing entry), `seeds_identical`, `load_failed`,
 * `reset_failed` / `step_failed` (a probe seed's episode fails in the sandbox).
 */
export function determinismGate(): AdmissionGate {
  return { name: "deterministic", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(context.settings.seeds);
  const maxTurns = candidate.manifest.maxTurns;
  const record = async (session: EnvSession) => {
    const transcripts: string[][] = [];
    for (const seed of seeds) transcripts.push(await recordTranscript(session, seed, maxTurns));
    return transcripts;
  };
  const first = await withSession(context.sandbox, candidate, false, async (session) => [await record(session), await record(session)] as const);
  if (first.kind !== "ok") return reject("deterministic", "load_failed", `env.py failed to load: ${first.message}`, { kind: first.kind });
  // a seed whose episode fails (e.g. reset hangs on seed 5 only) fails the same way every time; that is
  // a broken environment, not a deterministic one, and must not be blamed on the oracle later
  const failure = environmentFailure(seeds, first.value[0]);
  if (failure !== null) return failure;
  const fresh = await withSession(context.sandbox, candidate, false, record);
  if (fresh.kind !== "ok") return reject("deterministic", "load_failed", `env.py failed to load: ${fresh.message}`, { kind: fresh.kind });
  const [original, sameSession] = first.value;
  for (const [replay, label] of [[sameSession, "same session"], [fresh.value, "fresh process"]] as const) {
    for (const [index, seed] of seeds.entries()) {
      const a = original[index] ?? [];
      const b = replay[index] ?? [];
      const at = firstDifference(a, b);
      if (at !== null) {
        return reject("deterministic", "nondeterministic", `seed ${seed} replayed (${label}) differs from its first run at entry ${at}`, {
          seed,
          replay: label,
          entry: at,
          first: (a[at] ?? "(missing)").slice(0, 500),
          replayed: (b[at] ?? "(missing)").slice(0, 500),
        });
      }
    }
  }
  const distinct = new Set(original.map((transcript) => transcript.join("\n"))).size;
  if (distinct * 2 < seeds.length) {
    return reject("deterministic", "seeds_identical", `only ${distinct} of ${seeds.length} seeds give distinct instances (at least half must differ)`, { distinct, seeds: seeds.length });
  }
  return pass("deterministic", { seeds: seeds.length, distinct });
}

function environmentFailure(seeds: readonly number[], transcripts: readonly (readonly string[])[]): Verdict | null {
  for (const [index, seed] of seeds.entries()) {
    const last = transcripts[index]?.at(-1) ?? "";
    if (last.startsWith("reset failed: ")) {
      return reject("deterministic", "reset_failed", `reset(${seed}) failed: ${last.slice("reset failed: ".length).slice(0, 500)}`, { seed });
    }
    if (last.startsWith("step failed: ")) {
      return reject("deterministic", "step_failed", `a probe step on seed ${seed} failed: ${last.slice("step failed: ".length).slice(0, 500)}`, { seed });
    }
  }
  return null;
}

function firstDifference(a: readonly string[], b: readonly string[]): number | null {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) return index;
  }
  return null;
}
