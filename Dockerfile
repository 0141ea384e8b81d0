# syntax=docker/dockerfile:1
# One image for every service; compose.yaml (or your orchestrator) picks the command:
#   node dist/api/main.js          the three API surfaces (any number of replicas)
#   node dist/scripts/indexer.js   the indexer (exactly one per database)
#   node dist/scripts/graphql.js   a read-only GraphQL replica
#   node dist/scripts/migrate.js   off-chain migrations (a one-shot step; safe in parallel)
# The build stage's RUN lines and the runtime stage's COPY --from=build lines are executed, in
# order, by the CI's operator stage (.ci/operator) on a clean clone, on the Node versions CI runs.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --prefer-offline --no-audit --no-fund
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production LOG_FORMAT=json HOST=0.0.0.0 PONDER_HOST=0.0.0.0
WORKDIR /app
# the built tree: compiled services, production dependencies only
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/scripts/run.mjs ./scripts/run.mjs
# Ponder loads the indexer's own TypeScript (config, schema, handlers) itself, through vite
COPY --from=build /app/ponder.config.ts ./ponder.config.ts
COPY --from=build /app/ponder.schema.ts ./ponder.schema.ts
COPY --from=build /app/ponder-env.d.ts ./ponder-env.d.ts
COPY --from=build /app/tsconfig.json ./tsconfig.json
COPY --from=build /app/src ./src
COPY --from=build /app/abis ./abis
COPY --from=build /app/chain ./chain
COPY --from=build /app/ops ./ops
# the one environment module every layer reads its variables through (it imports nothing of ours)
COPY --from=build /app/api/env.ts ./api/env.ts
# the chat assistant's knowledge (CHAT_DOCS_DIR)
COPY --from=build /app/docs ./docs
# ponder start/serve write ponder-env.d.ts and .ponder/ into their root on start
RUN chown node:node /app /app/ponder-env.d.ts
USER node
EXPOSE 3000 3001 3002 42069
# HEALTHCHECK_URL: each service's liveness URL (compose.yaml sets it per service)
ENV HEALTHCHECK_URL=http://127.0.0.1:3001/health
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/api/main.js"]
