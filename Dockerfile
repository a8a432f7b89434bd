# syntax=docker/dockerfile:1
# Multi-stage build: compile in one stage, run the compiled output with plain node as a non-root user.
ARG NODE_IMAGE=node:22.23-bookworm-slim

# Production dependencies only; better-sqlite3 compiles here when no prebuilt binary matches.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `prepare` generates the Prisma clients with the (development) Prisma CLI: the build stage does that.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm rebuild better-sqlite3

# Full install, Prisma clients, TypeScript → dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY . .
RUN npm run db:generate && npm run build

FROM ${NODE_IMAGE} AS runtime
# MALLOC_ARENA_MAX: glibc's per-thread arenas kept 55–77 MB of freed memory under load; two arenas
# cost no measurable speed (docs/operations/memory.md).
ENV NODE_ENV=production \
  PORT=4000 \
  HOST=0.0.0.0 \
  MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/bin ./bin
# The embedded SQLite default writes under ./data; the code itself stays read-only for the service user.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM reaches node directly (no shell, no npm): it drains within CALENDAR_SHUTDOWN_MS, then exits 0.
# The node flags are those of `npm start` (package.json; a test holds them equal): V8's heap bounds,
# docs/operations/memory.md.
STOPSIGNAL SIGTERM
CMD ["node", "--max-old-space-size=384", "--max-semi-space-size=8", "--liftoff-only", "dist/src/server.js"]
