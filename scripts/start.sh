#!/bin/sh
# `npm start`: the daemon as the image runs it, compiled JavaScript with the image's memory
# settings (Dockerfile: NODE_OPTIONS heap caps, MALLOC_ARENA_MAX; figures in docs/benchmarks.md).
# glibc reads MALLOC_ARENA_MAX when the process starts, so it is set here, before node starts;
# a value already in the environment wins, as with `docker run -e`. The first start compiles
# (a few seconds); later starts only when a source file is newer than the build.
set -e
cd "$(dirname "$0")/.."
node prisma/ensure-client.mjs
if [ ! -f dist/main.js ] || [ -n "$(find src prisma/schema.prisma package.json tsconfig.json tsconfig.build.json -newer dist/main.js 2>/dev/null | head -n 1)" ]; then
  echo "npm start: compiling src/ into dist/ (tsc -p tsconfig.build.json)" >&2
  node_modules/.bin/tsc -p tsconfig.build.json
  touch dist/main.js
fi
# The files the daemon reads beside its modules (the pages' assets): tsc does not emit them, so
# they are copied on every start (three small files), whoever built dist/.
node scripts/copy-assets.mjs
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
# The image's heap caps, unless NODE_OPTIONS already sets them.
case " ${NODE_OPTIONS:-} " in *" --max-old-space-size="*) ;; *) NODE_OPTIONS="${NODE_OPTIONS:-} --max-old-space-size=288" ;; esac
case " ${NODE_OPTIONS} " in *" --max-semi-space-size="*) ;; *) NODE_OPTIONS="${NODE_OPTIONS} --max-semi-space-size=4" ;; esac
export NODE_OPTIONS="${NODE_OPTIONS# }"
exec node dist/main.js
