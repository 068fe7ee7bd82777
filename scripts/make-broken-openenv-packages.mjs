#!/usr/bin/env node
// Writes the broken OpenEnv-package corpus under fixtures/broken-openenv-packages/: one package
// folder per fixture, each the hand-written package fixtures/openenv-packages/lights_out broken in
// one way, plus expected.json naming the gate and reason that must reject it ({"gate": null}: must
// be admitted). Rerun after changing lights_out:
//   node scripts/make-broken-openenv-packages.mjs
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const OUT = join(ROOT, "fixtures", "broken-openenv-packages");
const GOOD = join(ROOT, "fixtures", "openenv-packages", "lights_out");
const ENVIRONMENT = "server/lights_out_environment.py";

/** name → [expected gate, reason, why, edit(folder)]; a name is a Python identifier (the package imports itself by its folder's name) */
const FIXTURES = {
  good: [null, null, "the package as written: admitted", () => undefined],
  no_models: ["static", "missing_file", "models.py is missing", (dir) => rmSync(join(dir, "models.py"))],
  yaml_not_yaml: ["static", "invalid_openenv_yaml", "openenv.yaml is not YAML", (dir) => writeFileSync(join(dir, "openenv.yaml"), "spec_version: [1\nname: : lights\n")],
  yaml_wrong_spec_version: ["static", "invalid_openenv_yaml", "openenv.yaml says spec_version 2", (dir) => edit(dir, "openenv.yaml", "spec_version: 1", "spec_version: 2")],
  no_environment_class: ["static", "missing_environment_class", "server/ defines no Environment subclass", (dir) => edit(dir, ENVIRONMENT, "class LightsOutEnvironment(Environment):", "class LightsOutEnvironment:")],
  no_oracle: ["static", "missing_oracle", "there is no oracle.py", (dir) => rmSync(join(dir, "oracle.py"))],
  server_does_not_start: ["executable", "reset_failed", "server/app.py raises when it is imported (the server cannot start)", (dir) => edit(dir, "server/app.py", "app = create_app(", "raise RuntimeError(\"the server refuses to start\")\napp = create_app(")],
  step_raises: ["executable", "step_failed", "step raises on a reply that is not a number", (dir) => edit(dir, ENVIRONMENT, "            position = -1\n", "            raise ValueError(\"not a position\")\n")],
  reward_out_of_range: ["executable", "reward_out_of_range", "a step rewards 2 when openenv.yaml declares [0, 1]", (dir) => edit(dir, ENVIRONMENT, "done=done, reward=0.0, metadata", "done=done, reward=2.0, metadata")],
  unseeded_lights: ["deterministic", "nondeterministic", "reset ignores its seed", (dir) => edit(dir, ENVIRONMENT, "rng = random.Random(seed)", "rng = random.Random()")],
  any_move_wins: ["negative-controls", "random_agent_passes", "the first valid move of any kind wins", (dir) => edit(dir, ENVIRONMENT, "        if not any(self._lights):", "        self._lights = [0] * LIGHTS\n        if not any(self._lights):")],
};

function edit(dir, file, search, replace) {
  const path = join(dir, file);
  const text = readFileSync(path, "utf8");
  if (!text.includes(search)) throw new Error(`${file} has no ${JSON.stringify(search)}`);
  writeFileSync(path, text.replace(search, replace));
}

rmSync(OUT, { recursive: true, force: true });
for (const [name, [gate, reason, why, change]] of Object.entries(FIXTURES)) {
  const dir = join(OUT, name);
  mkdirSync(OUT, { recursive: true });
  cpSync(GOOD, dir, { recursive: true });
  change(dir);
  writeFileSync(join(dir, "expected.json"), `${JSON.stringify(gate === null ? { gate: null, why } : { gate, reason, why }, null, 2)}\n`);
}
console.log(`wrote ${Object.keys(FIXTURES).length} fixtures to ${OUT}`);
