#!/bin/bash
# Builds /app/repo with a fixed history (fixed author, committer and dates, so the hashes never change).
set -e
export GIT_AUTHOR_NAME="Dana Builder" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Builder" GIT_COMMITTER_EMAIL="dana@example.com"
day=0
commit() {
  day=$((day + 1))
  export GIT_AUTHOR_DATE="2024-02-0${day}T10:00:00+00:00" GIT_COMMITTER_DATE="2024-02-0${day}T10:00:00+00:00"
  git add -A
  git commit -q -m "$1"
}
mkdir -p /app/repo
cd /app/repo
git init -q -b main
git config user.name "Dana Builder"
git config user.email "dana@example.com"
mkdir -p src
printf '# toolbox\n\nSmall shell helpers for the build box.\n' > README.md
cat > src/main.sh <<'END'
#!/bin/bash
echo "toolbox starting"
END
chmod 755 src/main.sh
commit "Initial commit"

cat > src/util.sh <<'END'
#!/bin/bash
# helpers shared by the toolbox scripts
log() { echo "[toolbox] $*"; }
END
chmod 755 src/util.sh
commit "Add util helpers"

cat > src/main.sh <<'END'
#!/bin/bash
. "$(dirname "$0")/util.sh"
log "toolbox starting"
END
commit "Use util in main"

cat > src/util.sh <<'END'
#!/bin/bash
# helpers shared by the toolbox scripts
log() { echo "[toolbox $(date +%H:%M:%S)] $*"; }
die() { log "fatal: $*" >&2; exit 1; }
require() { command -v "$1" >/dev/null 2>&1 || die "missing tool: $1"; }
END
commit "Add die and require helpers"

git checkout -q -b experiment
cat > src/util.sh <<'END'
#!/bin/bash
# experimental helpers (never merged)
log() { printf '%s\n' "$*"; }
END
commit "Experiment: simpler log"
git checkout -q main

git rm -q src/util.sh
cat > src/main.sh <<'END'
#!/bin/bash
echo "toolbox starting"
END
commit "Remove unused helpers"

printf '# toolbox\n\nSmall shell helpers for the build box.\n\nRun src/main.sh.\n' > README.md
commit "Document how to run"
git gc -q
