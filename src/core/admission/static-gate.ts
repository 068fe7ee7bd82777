import { EnvManifestSchema, pass, reject, type EnvPackage, type RejectVerdict, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { accepts } from "./source-inspector.js";
import { compileToolSchemas } from "../rollout/index.js";

/**
 * Reject verdict of the static gate for a manifest that does not match the
 * package format (reason `package_invalid`); loaders that meet an invalid
 * `env.json` report through this so the failure is counted like any other.
 */
export function packageInvalid(message: string): RejectVerdict {
  return reject("static", "package_invalid", message);
}

/**
 * Gate 1, the cheapest: package fields valid, sources within size limits, both
 * sources parse, `env.py` defines exactly one class with `reset(self, seed)` (`reset(self, seed,
 * level)` when the manifest declares levels) and
 * `step(self, action)`, `oracle.py` defines `act(env, observation)`. Nothing
 * runs. Reason codes: `package_invalid`, `too_large`, `syntax_error`,
 * `missing_environment_class`, `several_environment_classes`, `wrong_arity`,
 * `missing_oracle`, `invalid_tool_schema` (a tool environment whose tool parameters Ajv cannot compile as JSON Schema).
 */
export function staticGate(): AdmissionGate {
  return { name: "static", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const { maxEnvChars, maxOracleChars } = context.settings;
  const manifest = EnvManifestSchema.safeParse(candidate.manifest);
  if (!manifest.success) {
    return packageInvalid(manifest.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  }
  if (candidate.openenv !== undefined) {
    // an OpenEnv package was read by its own reader (openenv.yaml, models.py, server/app.py, one
    // Environment subclass); its Python is not an envforge program, so only the oracle is asked for here
    if (!candidate.openenv.hasOracle) return reject("static", "missing_oracle", `${candidate.openenv.name} has no oracle.py: envforge's gates need a reference policy, act(env, observation) returning the next action (env is the package's environment object)`);
    return pass("static", { openenv: candidate.openenv.name, environment: `${candidate.openenv.environmentModule}.${candidate.openenv.environmentClass}` });
  }
  if (candidate.manifest.tools !== undefined) {
    try {
      compileToolSchemas(candidate.manifest.tools);
    } catch (error) {
      return reject("static", "invalid_tool_schema", (error as Error).message);
    }
  }
  if (candidate.envSource.length > maxEnvChars || candidate.oracleSource.length > maxOracleChars) {
    return reject("static", "too_large", `env.py or oracle.py exceeds ${maxEnvChars}/${maxOracleChars} characters`, {
      envChars: candidate.envSource.length,
      oracleChars: candidate.oracleSource.length,
    });
  }
  const [environment, oracle] = await context.inspector.outline([candidate.envSource, candidate.oracleSource]);
  for (const [file, outline] of [["env.py", environment], ["oracle.py", oracle]] as const) {
    if (outline?.syntaxError) {
      return reject("static", "syntax_error", `${file} does not parse: line ${outline.syntaxError.line}: ${outline.syntaxError.message}`, { file, ...outline.syntaxError });
    }
  }
  const classes = (environment?.classes ?? []).filter((entry) => "reset" in entry.methods && "step" in entry.methods);
  if (classes.length === 0) {
    return reject("static", "missing_environment_class", "env.py defines no class with both reset() and step()", {
      classes: (environment?.classes ?? []).map((entry) => ({ name: entry.name, methods: Object.keys(entry.methods) })),
    });
  }
  if (classes.length > 1) {
    return reject("static", "several_environment_classes", `env.py must define exactly one environment class, found ${classes.map((entry) => entry.name).join(", ")}`);
  }
  const [environmentClass] = classes;
  // a levelled family is reset as reset(self, seed, level)
  const levelled = candidate.manifest.levels !== undefined;
  for (const [method, count, parameters] of [["reset", levelled ? 3 : 2, levelled ? "seed, level" : "seed"], ["step", 2, "action"]] as const) {
    const arity = environmentClass?.methods[method];
    if (arity !== undefined && !accepts(arity, count)) {
      return reject("static", "wrong_arity", `${environmentClass?.name}.${method} must take (self, ${parameters})${levelled && method === "reset" ? ": the manifest declares levels" : ""}`, { method, arity });
    }
  }
  const act = oracle?.functions["act"];
  if (act === undefined) return reject("static", "missing_oracle", "oracle.py defines no top-level act(env, observation)");
  if (!accepts(act, 2)) return reject("static", "wrong_arity", "oracle.py act must take (env, observation)", { method: "act", arity: act });
  return pass("static", { environmentClass: environmentClass?.name });
}
