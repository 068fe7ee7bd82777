import { packageId, pass, reject, type EnvPackage, type RejectVerdict, type Verdict } from "../../spec/index.js";
import { behaviourFingerprint, fingerprintSimilarity, type BehaviourFingerprint } from "./behaviour-fingerprint.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { minHashSignature, minHashSimilarity, noveltyTokens } from "./minhash.js";
import { authoredSource, isScaffoldOracle } from "../scaffold/index.js";

const signatures = new WeakMap<EnvPackage, Uint32Array>();

function signatureOf(pkg: EnvPackage): Uint32Array {
  let signature = signatures.get(pkg);
  if (signature === undefined) {
    // only what the author wrote: the scaffold's generated class and oracle are the same in every scaffolded package
    const oracle = isScaffoldOracle(pkg.oracleSource) ? "" : pkg.oracleSource;
    signature = minHashSignature(noveltyTokens(pkg.manifest.description, authoredSource(pkg.envSource), oracle));
    signatures.set(pkg, signature);
  }
  return signature;
}

/**
 * Text similarity of two packages as the novelty gate measures it: MinHash
 * Jaccard (0–1) of 5-token shingles of description and authored code.
 */
export function textSimilarity(a: EnvPackage, b: EnvPackage): number {
  return minHashSimilarity(signatureOf(a), signatureOf(b));
}

function fingerprintOf(context: AdmissionContext, pkg: EnvPackage, id: string): Promise<BehaviourFingerprint> {
  const cache = context.fingerprints;
  const cached = cache?.get(id);
  if (cached !== undefined) return cached;
  const computed = behaviourFingerprint(context.sandbox, pkg);
  cache?.set(id, computed);
  return computed;
}

/** The pool entry most similar to the candidate by one measure. */
interface Neighbour {
  readonly id: string;
  readonly name: string;
  readonly similarity: number;
}

function nearest(entries: readonly Neighbour[]): Neighbour | null {
  return entries.reduce<Neighbour | null>((best, entry) => (best === null || entry.similarity > best.similarity ? entry : best), null);
}

/**
 * Gate 9, novelty against the pool (seeds and memory; EvoEnv's novelty gate,
 * threshold 0.80). Text: MinHash Jaccard of 5-token shingles of the normalised
 * description and authored code (a scaffold's generated part left out) ({@link minHashSignature}). Behaviour: Jaccard of
 * structural trace fingerprints ({@link behaviourFingerprint}: observation
 * templates with numbers and names abstracted, rewards), which catches
 * renamed, reformatted, rewritten and re-sized copies whose text differs. An
 * exact copy of a pool entry is the pipeline's `exact_copy`, found before any
 * gate ({@link exactCopyVerdict}); the pool entry that is the candidate object
 * itself is left out. Reason codes: `text_near_duplicate`, `behaviour_copy`; the nearest neighbour and the
 * similarity by both measures are in the evidence of every verdict.
 */
export function noveltyGate(): AdmissionGate {
  return { name: "novelty", usesModel: false, check };
}

/**
 * The `novelty / exact_copy` reject when `candidate` has the {@link packageId} (manifest without
 * provenance, and sources) of an entry of `pool`, else null. The entry that is the candidate
 * object itself (a seed admitted against the seeds) is no copy. The admission pipeline calls this
 * before any gate, whatever gates are configured; it is the one place exact copies are found.
 */
export function exactCopyVerdict(candidate: EnvPackage, pool: readonly EnvPackage[]): RejectVerdict | null {
  const others = pool.filter((pkg) => pkg !== candidate);
  if (others.length === 0) return null;
  const ownId = packageId(candidate);
  const copy = others.find((pkg) => packageId(pkg) === ownId);
  if (copy === undefined) return null;
  return reject("novelty", "exact_copy", `the package is an exact copy of ${copy.manifest.name} (${ownId}) in the pool: the same manifest (provenance aside) and sources`, { copyOf: { id: ownId, name: copy.manifest.name } });
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  // the candidate itself, when the caller's pool holds it (a seed admitted against the seeds), is no neighbour;
  // exact copies were rejected before the gates (exactCopyVerdict)
  const pool = (context.pool ?? []).filter((pkg) => pkg !== candidate).map((pkg) => ({ pkg, id: packageId(pkg) }));
  const signature = signatureOf(candidate);
  const text = nearest(pool.map(({ pkg, id }) => ({ id, name: pkg.manifest.name, similarity: minHashSimilarity(signature, signatureOf(pkg)) })));
  if (text !== null && text.similarity >= context.settings.textSimilarity) {
    return reject("novelty", "text_near_duplicate", `text similarity ${text.similarity.toFixed(2)} with ${text.name} reaches ${context.settings.textSimilarity}`, { text });
  }
  const fingerprint = await behaviourFingerprint(context.sandbox, candidate);
  // one pool fingerprint at a time: the first candidate of a run fills the cache without opening a session per pool entry at once
  const similarities: Neighbour[] = [];
  for (const { pkg, id } of pool) {
    similarities.push({ id, name: pkg.manifest.name, similarity: fingerprintSimilarity(fingerprint, await fingerprintOf(context, pkg, id)) });
  }
  const behaviour = nearest(similarities);
  if (behaviour !== null && behaviour.similarity >= context.settings.behaviourSimilarity) {
    return reject("novelty", "behaviour_copy", `behaviour similarity ${behaviour.similarity.toFixed(2)} with ${behaviour.name} reaches ${context.settings.behaviourSimilarity}`, { text, behaviour });
  }
  return pass("novelty", { text, behaviour, pool: pool.length });
}
