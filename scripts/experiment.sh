#!/usr/bin/env bash
# The experiments of issues 16 and 29: does self-play (or the level controller) teach the policy anything?
# From the same base model and the same budget (optimiser steps = ROUNDS, the same Solver sampling settings),
# trains (a) the fixed pool (the ten seeds, Designer off) and (b) self-play (Designer on, admitted environments
# join the pool), then evaluates base, (a) and (b) on the same held-out suites with `envforge eval`, and prints
# the comparisons (A − B win rates with Newcombe 95 % intervals):
#   - Reasoning Gym (the 20 fastest tasks, 5 per SPADE bucket, or TASKS);
#   - holdout: the same 20 % of the ten seeds held out of both pools before round 1 (eval.holdoutAtStart);
#   - heldout-seeds: each run's training environments on episode seeds training never used (≥ 1,000,000).
# Both runs hold out the same seeds (the split depends only on the pool at the start and SEED).
# Budget caveat: (b) also samples Designer tokens; the Solver's tokens per round are the same settings, not
# the same count. Sizes come from the environment (defaults: a tiny laptop size):
#   MODEL=embedded ROUNDS=2 PLAYS=2 DESIGNS=2 ITEMS=2 EPISODES=2 TASKS= SEED=0 MAX_TOKENS=256 TIMEOUT=900 TRAINER_PORT=8765 OUT=runs/experiment-<UTC>
#   CONFIG=<file>: a JSON config (docs/configuration.md) both runs start from, e.g. the Solver's format or the
#   trainer's learning rate; the experiment's own keys (rounds, plays, seed, model, designer.designs, trainer.port,
#   eval.holdoutAtStart, eval.seed) override it, so (a) and (b) differ only in designer.designs.
#   GPU machine, e.g.: MODEL=/models/qwen2.5-1.5b-instruct-q4_k_m.gguf ROUNDS=50 PLAYS=8 DESIGNS=8 ITEMS=20 EPISODES=8
# ARMS: the runs to train, each NAME:DESIGNS:CONTROLLER (default "fixed:0:adaptive selfplay:$DESIGNS:adaptive", the
#   experiment above). The experiment of issue 29 (levels) is ARMS="static:0:static adaptive:0:adaptive": the fixed
#   pool with every seed at its old size (difficulty.staticLevel) against the adaptive level controller.
# EVAL_LEVELS: `--levels` of the environment suites (e.g. 0,2,4: fixed levels, the same for every arm); none = level 0.
# EXTRA_SUITES: more suites for every evaluation, e.g. "envs:runs/rlve-heldout" (held-out RLVE environments from
#   `envforge import rlve --out runs/rlve-heldout --only ...`).
# Everything is resumable: run the same command (same OUT) again after an interruption.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL="${MODEL:-embedded}"
ROUNDS="${ROUNDS:-2}"
PLAYS="${PLAYS:-2}"
DESIGNS="${DESIGNS:-2}"
ITEMS="${ITEMS:-2}"
EPISODES="${EPISODES:-2}"
TASKS="${TASKS:-}"
SEED="${SEED:-0}"
TRAINER_PORT="${TRAINER_PORT:-8765}"
MAX_TOKENS="${MAX_TOKENS:-256}"
TIMEOUT="${TIMEOUT:-900}" # seconds per generation: long, so an item never times out on a busy machine and the three evaluations stay comparable
CONFIG="${CONFIG:-}"
OUT="${OUT:-runs/experiment-$(date -u +%Y%m%dT%H%M%SZ)}"
ARMS="${ARMS:-fixed:0:adaptive selfplay:$DESIGNS:adaptive}"
EVAL_LEVELS="${EVAL_LEVELS:-}"
EXTRA_SUITES="${EXTRA_SUITES:-}"
ENVFORGE="node bin/envforge.js"
if [ -n "$CONFIG" ]; then # refused before anything is written; envforge run checks the keys
  node -e '
    const fs = require("fs");
    const file = process.argv[1];
    let value;
    try { value = JSON.parse(fs.readFileSync(file, "utf8")); }
    catch (error) { process.stderr.write(`[experiment] CONFIG=${file}: ${error.code === "ENOENT" ? "no such file" : error.message}\n`); process.exit(2); }
    if (value === null || typeof value !== "object" || Array.isArray(value)) { process.stderr.write(`[experiment] CONFIG=${file}: not a JSON object\n`); process.exit(2); }
  ' "$CONFIG" || exit 2
fi
mkdir -p "$OUT"
say() { printf '[experiment] %s\n' "$*" >&2; }

config() { # name designs controller
  node -e '
    const fs = require("fs");
    const [file, out, rounds, plays, seed, model, designs, port, controller] = process.argv.slice(1);
    const base = file ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
    const merged = { ...base, rounds: +rounds, plays: +plays, seed: +seed, model: { ...base.model, spec: model },
      designer: { ...base.designer, designs: +designs }, trainer: { ...base.trainer, port: +port },
      levels: { ...base.levels, controller },
      eval: { ...base.eval, holdoutAtStart: true, seed: +seed } };
    fs.writeFileSync(out, JSON.stringify(merged, null, 2) + "\n");
  ' "$CONFIG" "$OUT/$1.json" "$ROUNDS" "$PLAYS" "$SEED" "$MODEL" "$2" "$TRAINER_PORT" "$3"
}
train() { # name
  local dir="$OUT/$1"
  if [ -f "$dir/envforge.db" ]; then
    say "training $1 (resume)"
    $ENVFORGE run --config "$OUT/$1.json" --out "$dir" --resume
  else
    say "training $1"
    $ENVFORGE run --config "$OUT/$1.json" --out "$dir"
  fi
}
evaluate() { # label run [step] -> prints the eval id; without a step, the run's latest adapter
  local suites=(rg holdout heldout-seeds)
  [ -n "$EXTRA_SUITES" ] && read -r -a extra <<< "$EXTRA_SUITES" && suites+=("${extra[@]}")
  local args=(eval --run "$OUT/$2" --suite "${suites[@]}" --items "$ITEMS" --episodes "$EPISODES" --seed "$SEED" --max-tokens "$MAX_TOKENS" --timeout "$TIMEOUT" --store "$OUT/eval.db" --json)
  [ -n "$TASKS" ] && args+=(--tasks "$TASKS")
  [ -n "$EVAL_LEVELS" ] && args+=(--levels "$EVAL_LEVELS")
  [ -n "${3:-}" ] && args+=(--step "$3")
  say "evaluating $1 ($2 at step ${3:-latest})"
  $ENVFORGE "${args[@]}" > "$OUT/eval-$1.json"
  node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).evalId)' "$OUT/eval-$1.json"
}

read -r -a arms <<< "$ARMS"
names=()
for arm in "${arms[@]}"; do
  IFS=: read -r name designs controller <<< "$arm"
  [ -n "$name" ] && [ -n "$designs" ] && [ -n "$controller" ] || { say "ARMS entry '$arm' is not NAME:DESIGNS:CONTROLLER"; exit 2; }
  config "$name" "$designs" "$controller"
  names+=("$name")
done
for name in "${names[@]}"; do train "$name"; done
base=$(evaluate base "${names[0]}" 0)
declare -A evals
for name in "${names[@]}"; do evals[$name]=$(evaluate "$name" "$name"); done
{
  echo "# experiment $OUT: MODEL=$MODEL ROUNDS=$ROUNDS PLAYS=$PLAYS ARMS=$ARMS ITEMS=$ITEMS EPISODES=$EPISODES TASKS=${TASKS:-default} SEED=$SEED MAX_TOKENS=$MAX_TOKENS TIMEOUT=$TIMEOUT EVAL_LEVELS=${EVAL_LEVELS:-0} EXTRA_SUITES=${EXTRA_SUITES:-none} CONFIG=${CONFIG:-none}"
  [ -n "$CONFIG" ] && echo "# CONFIG: $(tr -d '\n' < "$CONFIG")"
  for name in "${names[@]}"; do echo; echo "## $name vs base"; $ENVFORGE eval --store "$OUT/eval.db" --compare "${evals[$name]}" "$base"; done
  last="${names[-1]}"
  if [ "${#names[@]}" -gt 1 ]; then echo; echo "## $last vs ${names[0]}"; $ENVFORGE eval --store "$OUT/eval.db" --compare "${evals[$last]}" "${evals[${names[0]}]}"; fi
} | tee "$OUT/comparison.txt"
say "done: $OUT/comparison.txt"
