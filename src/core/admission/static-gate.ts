import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionGate } from "./gate.js";

/** Size limits of {@link staticGate}. */
export interface StaticGateLimits {
  /** Largest `env.py`, characters. @default 65536 */
  readonly maxEnvChars: number;
  /** Largest `oracle.py`, characters. @default 32768 */
  readonly maxOracleChars: number;
}

/**
 * Cheapest gate: source sizes within limits and the required definitions
 * present by text (a class with `reset` and `step`; `def act`). Reason codes:
 * `too_large`, `missing_definitions`.
 */
export function staticGate(limits: StaticGateLimits = { maxEnvChars: 65_536, maxOracleChars: 32_768 }): AdmissionGate {
  return {
    name: "static",
    async check(candidate: EnvPackage): Promise<Verdict> {
      if (candidate.envSource.length > limits.maxEnvChars || candidate.oracleSource.length > limits.maxOracleChars) {
        return reject("static", "too_large", `env.py or oracle.py exceeds ${limits.maxEnvChars}/${limits.maxOracleChars} characters`, {
          envChars: candidate.envSource.length,
          oracleChars: candidate.oracleSource.length,
        });
      }
      const hasEnvironment = /def\s+reset\s*\(/.test(candidate.envSource) && /def\s+step\s*\(/.test(candidate.envSource);
      if (!hasEnvironment || !/def\s+act\s*\(/.test(candidate.oracleSource)) {
        return reject("static", "missing_definitions", "env.py needs reset() and step(); oracle.py needs act()");
      }
      return pass("static");
    },
  };
}
