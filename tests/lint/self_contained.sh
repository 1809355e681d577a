#!/usr/bin/env bash
# The project stands on its own (ctest: self_contained, label lint):
#   1. no tracked file mentions a folder beside the checkout (the shared material a user's clone
#      does not have);
#   2. the tracked files, copied into an empty temporary folder with nothing beside them, build
#      and pass the unit tests there (the sanctions data and everything else come from the copy).
#
#   tests/lint/self_contained.sh <project source dir>
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 <project source dir>" >&2
  exit 2
fi
ROOT=$(cd "$1" && pwd)
fail() {
  echo "self_contained: $*" >&2
  exit 1
}

# 1. The pattern is assembled so that this file does not match itself.
outside='\.\./'"shar""ed"
if matches=$(git -C "$ROOT" grep -n -E "$outside" -- . 2>/dev/null); then
  echo "$matches" | head -20 >&2
  fail "tracked files refer to a folder outside the checkout"
fi
echo "self_contained: no tracked file refers outside the checkout"

# 2. A copy of exactly the tracked files (as they are in the working tree), alone in a fresh
# temporary folder.
WORK=$(mktemp -d /tmp/payrail-self-contained.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
COPY=$WORK/payrail
mkdir "$COPY"
(cd "$ROOT" && git ls-files -z --cached | while IFS= read -r -d '' file; do
  [ -e "$file" ] && printf '%s\0' "$file"
done | tar --null -T - -cf -) | tar -xf - -C "$COPY"
[ ! -e "$WORK/shared" ] || fail "the temporary folder is not empty"
echo "self_contained: copied $(cd "$COPY" && find . -type f | wc -l) tracked files to $COPY"

unset PAYRAIL_SANCTIONS_DIR
launcher=()
if command -v ccache >/dev/null; then
  # Paths are hashed relative to the build directory, so the copy reuses the main build's cache.
  export CCACHE_BASEDIR=/
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$COPY" -B "$COPY/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null ||
  fail "cmake configure failed in the copy"
cmake --build "$COPY/build" --target unit_tests -j"$(nproc)" >"$WORK/build.log" 2>&1 || {
  tail -n 40 "$WORK/build.log" >&2
  fail "the unit tests do not build in the copy"
}
cd "$COPY/build"
"$COPY/build/tests/unit_tests" --gtest_brief=1 || fail "unit tests failed in the copy"
echo "self_contained: unit tests pass in a copy with nothing beside it"
