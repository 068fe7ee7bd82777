/** Permutations of a {@link minHashSignature}. */
export const MINHASH_PERMUTATIONS = 128;
/** Word tokens per shingle. */
export const SHINGLE_TOKENS = 5;

/**
 * Normalised text of an environment for text novelty: description, `env.py`
 * and `oracle.py` with `#` comments removed, lower-cased, as word tokens
 * (runs of letters, digits and `_`) and single punctuation marks.
 */
export function noveltyTokens(description: string, envSource: string, oracleSource: string): string[] {
  const code = `${envSource}\n${oracleSource}`.replace(/#[^\n]*/g, " ");
  return `${description}\n${code}`.toLowerCase().match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** FNV-1a 32-bit hash of a string. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function mix(value: number, salt: number): number {
  let x = (value ^ Math.imul(salt, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * MinHash signature (Broder 1997) of the set of `SHINGLE_TOKENS`-token shingles
 * of `tokens`: for each of `MINHASH_PERMUTATIONS` salted hash functions, the
 * minimum over shingles. Texts shorter than one shingle use one shingle of all tokens.
 */
export function minHashSignature(tokens: readonly string[]): Uint32Array {
  const signature = new Uint32Array(MINHASH_PERMUTATIONS).fill(0xffffffff);
  const count = Math.max(1, tokens.length - SHINGLE_TOKENS + 1);
  for (let start = 0; start < count; start += 1) {
    const shingle = fnv1a(tokens.slice(start, start + SHINGLE_TOKENS).join(" "));
    for (let permutation = 0; permutation < MINHASH_PERMUTATIONS; permutation += 1) {
      const value = mix(shingle, permutation + 1);
      if (value < (signature[permutation] ?? 0)) signature[permutation] = value;
    }
  }
  return signature;
}

/** Estimated Jaccard similarity of two shingle sets: the fraction of equal signature slots, in [0, 1]. */
export function minHashSimilarity(a: Uint32Array, b: Uint32Array): number {
  let equal = 0;
  for (let index = 0; index < a.length; index += 1) if (a[index] === b[index]) equal += 1;
  return equal / a.length;
}
