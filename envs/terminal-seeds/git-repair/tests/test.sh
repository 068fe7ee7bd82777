#!/bin/bash
# Checks that /app/repo's main restores src/util.sh in one new commit; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
# read the repository as it is: no replace refs, no system or global git configuration of the agent's making
export GIT_NO_REPLACE_OBJECTS=1 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
cd /app/repo 2>/dev/null || fail "no /app/repo"
tip=bada1f0650169b3bbe68516edcc2eb85ce7b2276   # main as shipped: "Document how to run"
history='bada1f0650169b3bbe68516edcc2eb85ce7b2276 Document how to run
38296d8634ada1706f3fb0f51a697b94a5c13c27 Remove unused helpers
1c16f5ad67a5e69e2a024881d23a4b9659b96f80 Add die and require helpers
65d78c2cb2db05bca37d19aa1532e7f41307c779 Use util in main
416e8d07a5c2d7fd1ffb0b2694d0a1d7f98b989f Add util helpers
8054d80a5282f51215985274f092edadbc2acfb8 Initial commit'
main=$(git rev-parse -q --verify refs/heads/main) || fail "no branch main"
[ "$main" != "$tip" ] || fail "main has no new commit"
parents=$(git rev-list --parents -n 1 "$main")
[ "$parents" = "$main $tip" ] || fail "the new commit must have exactly one parent, the original tip of main ($tip); got: $parents"
[ "$(git log --format='%H %s' "$main^")" = "$history" ] || fail "the earlier history of main changed"
[ "$(git log -1 --format=%B "$main")" = "Restore util.sh" ] || fail "commit message is not 'Restore util.sh'"
[ "$(git ls-tree "$main" src/util.sh)" = "$(printf '100755 blob 71e2f36a7d7cc47d2ffcc1f548aca1ac80f7ad1f\tsrc/util.sh')" ] ||
  fail "src/util.sh in the new commit is not the version deleted from main (content and mode): $(git ls-tree "$main" src/util.sh)"
[ "$(git diff --name-status "$tip" "$main")" = "$(printf 'A\tsrc/util.sh')" ] || fail "the new commit changes more than src/util.sh"
[ "$(git symbolic-ref -q HEAD)" = "refs/heads/main" ] || fail "main is not checked out"
[ -f src/util.sh ] && [ "$(git hash-object src/util.sh)" = 71e2f36a7d7cc47d2ffcc1f548aca1ac80f7ad1f ] || fail "src/util.sh in the working tree differs"
git diff --quiet HEAD -- || fail "the working tree has uncommitted changes to tracked files"
echo PASS; echo 1 > /logs/verifier/reward.txt
