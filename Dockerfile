# syntax=docker/dockerfile:1
# One image for every role of Trustpoint: `trustpoint serve cert|track|anchor|all` and
# `trustpoint migrate` (the command is the container's arguments). Stages:
#   build   the whole workspace installed and built (dev dependencies included);
#   chain   a development chain node (hardhat) with the registries deployed, for compose;
#   runtime (the default) the `trustpoint` command with production dependencies only (no Hardhat,
#           solc or ts-node: the development chain is an optional peer of the launcher).
# Built and run only where a Docker engine exists; CI validates docker-compose.yml without one.

FROM node:20-bookworm-slim AS build
ENV CI=true TURBO_TELEMETRY_DISABLED=1 HARDHAT_DISABLE_TELEMETRY_PROMPT=true
RUN npm install -g pnpm@12.21.0
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm exec turbo run build --filter=@trustpoint/cli... --output-logs=errors-only \
 # The command and what it imports, production dependencies only, packed into /app.
 && pnpm --filter=@trustpoint/cli deploy --prod /app

# A local development chain (hardhat node, chain id 31337) with the registries deployed once and
# their addresses in $TRUSTPOINT_DATA_DIR/deployments.json, where the roles find them. Never for
# a real network: its registrar key is Hardhat's well-known development key.
FROM build AS chain
# hardhat writes its cache beside the contracts.
RUN mkdir -p /data && chown node:node /data && chown -R node:node /src/contracts
USER node
ENV TRUSTPOINT_DATA_DIR=/data CHAIN_HOST=0.0.0.0 CHAIN_PORT=8545
EXPOSE 8545
HEALTHCHECK --interval=5s --timeout=3s --retries=60 \
  CMD ["sh", "-c", "test -f /data/deployments.json"]
CMD ["node", "contracts/dist/scripts/local-chain.js"]

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    TRUSTPOINT_DATA_DIR=/data \
    API_HOST=0.0.0.0 \
    HEALTH_HOST=0.0.0.0 \
    HEALTHCHECK_URL=http://127.0.0.1:8080/healthz
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
# The node image's unprivileged user (uid 1000); nothing runs as root.
USER node
VOLUME /data
# 8080 certificate API, 8081 asset-tracking API, 9464 the anchoring process's health and metrics.
EXPOSE 8080 8081 9464
# /healthz of whichever listener the role has (HEALTHCHECK_URL; compose sets it per role).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A young generation of 2 x 32 MiB (Node.js 20's default is 2 x 16): fewer collections of the
# short-lived objects every request makes; 10-13% more creations/s, the same memory at rest
# (docs/performance.md).
ENTRYPOINT ["node", "--max-semi-space-size=32", "/app/dist/index.js"]
# Name the role: serve cert | serve track | serve anchor | migrate. The image holds no Hardhat (the
# roles read the registries through @trustpoint/registry-abi): `serve all` here needs a networks
# file naming other nodes, since the embedded development chain is left out; the chain stage runs it.
CMD ["--help"]
