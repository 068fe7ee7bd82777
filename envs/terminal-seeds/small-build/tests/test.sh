#!/bin/bash
# Builds /app/src with its Makefile and runs the program; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
cd /app/src 2>/dev/null || fail "no /app/src"
[ -f Makefile ] || fail "no Makefile"
[ "$(sha256sum hello.c 2>/dev/null | cut -d' ' -f1)" = "55348e649feefb70975b21a29fb72b37d56b486f8e54de55ecb8b2c63b90b640" ] || fail "hello.c was changed"
[ "$(sha256sum greet.c 2>/dev/null | cut -d' ' -f1)" = "ecd59d3e70501f1326124eb554902eaba3430c02ac4bb77ee9bb255ce959cdbe" ] || fail "greet.c was changed"
[ "$(sha256sum greet.h 2>/dev/null | cut -d' ' -f1)" = "ab6e4e7eae5577e0d82f193eda03824ece0d6862435d239de53ce77eb80f1686" ] || fail "greet.h was changed"
expected='Hello, envforge! (greet v2)'
rm -rf build
make -C /app/src clean all > /tmp/make.out 2>&1 || { tail -n 20 /tmp/make.out; fail "make clean all failed"; }
[ -x build/hello ] || fail "make clean all did not build build/hello"
[ "$(./build/hello 2>&1)" = "$expected" ] || fail "build/hello printed: $(./build/hello 2>&1 | head -n 3)"
[ -n "$(find build -name '*.o')" ] || fail "no object files under build/"
make -C /app/src clean > /tmp/make.out 2>&1 || { tail -n 20 /tmp/make.out; fail "make clean failed"; }
[ -z "$(find build -type f 2>/dev/null)" ] || fail "make clean left files under build/: $(find build -type f | head -n 5 | tr '\n' ' ')"
make -C /app/src > /tmp/make.out 2>&1 || { tail -n 20 /tmp/make.out; fail "make after make clean failed"; }
[ "$(./build/hello 2>&1)" = "$expected" ] || fail "build/hello printed the wrong line after a rebuild"
# timestamps: sources old, build output newer -> nothing to do; then greet.h newer -> rebuild
touch -d @1700000000 hello.c greet.c greet.h Makefile
find build -exec touch -d @1700000100 {} +
make -q -C /app/src build/hello > /dev/null 2>&1 || fail "make would rebuild build/hello although nothing changed"
touch -d @1700000200 greet.h
make -q -C /app/src build/hello > /dev/null 2>&1 && fail "make does not rebuild build/hello after greet.h changed"
make -C /app/src > /tmp/make.out 2>&1 || { tail -n 20 /tmp/make.out; fail "make after touching greet.h failed"; }
[ "$(stat -c %Y build/hello)" -gt 1700000100 ] || fail "build/hello was not relinked after greet.h changed"
[ "$(./build/hello 2>&1)" = "$expected" ] || fail "build/hello printed the wrong line after greet.h changed"
echo PASS; echo 1 > /logs/verifier/reward.txt
