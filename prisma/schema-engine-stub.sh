#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on the build machines.
# prisma.config.ts points PRISMA_SCHEMA_ENGINE_BINARY here (unless it is already set) so that
# `prisma generate`, `validate` and `format` work; the daemon applies migrations itself
# (src/store/migrate.ts). `prisma migrate deploy` needs the real engine (the Docker `migrate` stage).
echo "schema engine not available: install Prisma's schema engine and set PRISMA_SCHEMA_ENGINE_BINARY to use prisma migrate" >&2
exit 1
