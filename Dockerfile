# syntax=docker/dockerfile:1
#
# metric-reliability container images. Targets:
#   runtime (default, last stage)  the daemon: production dependencies only, no chdb (set CLICKHOUSE_URL)
#   migrate                        `prisma migrate deploy` with the Prisma CLI and its schema engine;
#                                  used by the Helm chart's pre-install/pre-upgrade Job
#
#   docker build -t metric-reliability:0.1.0 .
#   docker build --target migrate -t metric-reliability:0.1.0-migrate .
#
# Install scripts are disabled everywhere (--ignore-scripts): nothing in the dependency tree needs
# one at run time. npm's cache lives in a BuildKit cache mount, so no layer carries it.
# CI replays the RUN steps of the runtime image's stages from this file (.ci/replay-dockerfile.ts):
# keep RUN steps relative to WORKDIR.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# build: every dependency INCLUDING optional ones: TypeScript 7's compiler is the optional
# per-platform package @typescript/typescript-<os>-<arch>, and --omit=optional would drop it.
# The optional embedded ClickHouse (chdb) is installed here too, but never leaves this stage.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked npm ci --ignore-scripts
COPY . .
# `build` = prisma generate && tsc -p tsconfig.build.json && the pages' assets (scripts/copy-assets.mjs)
#   ->  dist/ (incl. dist/generated/prisma and dist/web/assets)
RUN npm run build && test -f dist/main.js && test -f dist/web/assets/style.css

# ---------------------------------------------------------------------------------------------
# prod-deps: production dependencies only (no dev, no optional: no chdb, no compiler)
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
# @trpc/server names TypeScript as a (non-optional) peer for its types only, so npm installs the
# compiler even here; nothing loads it at run time, so it is removed rather than shipped.
RUN --mount=type=cache,target=/root/.npm,sharing=locked npm ci --omit=dev --omit=optional --ignore-scripts \
 && rm -rf node_modules/typescript node_modules/@typescript node_modules/.bin/tsc* node_modules/.bin/tsserver \
 && test ! -e node_modules/chdb

# ---------------------------------------------------------------------------------------------
# migrate: the build stage without optional dependencies, plus Prisma's native schema engine,
# downloaded at build time so the Job needs no internet access. Runs `prisma migrate deploy`
# (prisma.config.ts, prisma/migrations).
FROM build AS migrate
RUN npm prune --omit=optional --ignore-scripts && test ! -e node_modules/chdb
# Prisma detects the OpenSSL version to pick the engine build; the slim image has no openssl.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# @prisma/engines' postinstall downloads the schema engine next to itself (it fails silently, so
# check that the binary arrived), then pin it through PRISMA_SCHEMA_ENGINE_BINARY.
RUN node node_modules/@prisma/engines/scripts/postinstall.js \
 && set -- node_modules/@prisma/engines/schema-engine-* \
 && test -f "$1" \
 && install -m 0755 "$1" /usr/local/bin/prisma-schema-engine \
 && rm -f node_modules/@prisma/engines/schema-engine-*
ENV PRISMA_SCHEMA_ENGINE_BINARY=/usr/local/bin/prisma-schema-engine \
    NODE_ENV=production \
    HOME=/tmp
# numeric: the image's "node" user, so Kubernetes' runAsNonRoot can verify it
USER 1000:1000
CMD ["node", "node_modules/prisma/build/index.js", "migrate", "deploy"]

# ---------------------------------------------------------------------------------------------
# runtime: the daemon
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# A heap cap and two malloc arenas keep resident memory near the live heap (V8 collects lazily up
# to its limit; glibc keeps an arena per thread). A 4 MB young generation instead of 8 pays for a
# higher old-generation cap within the same resident memory; that headroom halved the read p99
# under heavy load at 10,000 metrics before requests were made on express' prototypes, which
# removed most of what filled it. Measured in docs/benchmarks.md (bench:scale).
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/app/.data \
    NODE_OPTIONS="--max-old-space-size=288 --max-semi-space-size=4" \
    MALLOC_ARENA_MAX=2
COPY --from=prod-deps --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/dist ./dist
COPY --chown=0:0 package.json ./
COPY --chown=0:0 prisma ./prisma
COPY --chown=0:0 demo ./demo
# The code is root-owned and read-only for the service user; only the data directory is writable.
RUN mkdir -p .data && chown 1000:1000 .data
# numeric: the image's "node" user, so Kubernetes' runAsNonRoot can verify it
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
