# syntax=docker/dockerfile:1
#
# Content gateway image: `docker build -t content-gateway .`, then
#   docker run -p 3000:3000 -e GATEWAY_API_KEY=... -e PUBLIC_BASE_URL=http://localhost:3000 -v gateway-data:/data content-gateway
# (production mode: `serve` needs PUBLIC_BASE_URL, the URL clients use, or ALLOWED_HOSTS).
# Any command of the CLI runs the same way: `docker run ... content-gateway sync --all`.
# docker-compose.yml wires it to Postgres; docs/deployment.md explains the rest.

# ---- build: full dependencies, compile TypeScript, then drop the dev dependencies -----------------
# Node 20 at its latest release (20.19 or newer, as package.json's engines require).
FROM node:20-bookworm-slim AS build
WORKDIR /app

# better-sqlite3 downloads a prebuilt binary when it can; where it cannot (other CPU, blocked
# network) it compiles from source with node-gyp, which needs these.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# Dependencies first, so editing the source does not invalidate this layer.
# `--ignore-scripts=false`: better-sqlite3's install script must run (it fetches or builds the
# native module) even if a user or CI npmrc disables scripts. package.json's `allowScripts` lists
# the packages allowed to run install scripts; npm 11 only reports unlisted ones, npm 12 blocks them.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts=false --no-audit --no-fund

COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
# dist/src (the program) and dist/migrations (compiled migrations, loaded from dist at run time).
# Pruning keeps the native module compiled above, for the same Node and libc as the runtime stage.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: production dependencies and compiled code only, as a non-root user -----------------
FROM node:20-bookworm-slim AS runtime
WORKDIR /app

ENV NODE_ENV=production \
    PORT=3000 \
    SQLITE_PATH=/data/gateway.sqlite \
    BLOB_DIR=/data/blobs

# Code is owned by root and read-only to the `node` user (uid 1000) that runs it.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Read at run time from the package root (the folder holding package.json): the contract served
# at /openapi.json, and the demo corpus (`seed-demo`; load-demo-corpus.ts resolves it from
# dist/src/demo/ three levels up, i.e. /app/src/demo/corpus).
COPY openapi ./openapi
COPY src/demo/corpus ./src/demo/corpus
# The conformance report's style sheet and page scripts, inlined into the HTML report (and hashed
# into its Content-Security-Policy) by dist/src/conformance/report/report-assets.js, which finds
# them under the package root the same way.
COPY src/conformance/report/assets ./src/conformance/report/assets
COPY templates/html ./templates/html
COPY templates/console ./templates/console
# The REST manifests that ship (REST_MANIFEST=manifests/content-gateway.yaml; docs/declarative-sources.md).
COPY manifests ./manifests

# The data folder (embedded SQLite database, blob store, generated dev key) is the only writable
# place. Created here, owned by `node`, so a fresh named volume mounted on it inherits the owner.
RUN mkdir -p /data/blobs && chown -R node:node /data
VOLUME ["/data"]

USER node
EXPOSE 3000

# No curl in slim images: ask Node. Follows PORT, and speaks HTTPS when TLS_CERT_FILE is set (the
# certificate is not checked: this is loopback, and it may be issued for the public name only).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const t=!!process.env.TLS_CERT_FILE;require(t?'https':'http').get({host:'127.0.0.1',port:process.env.PORT||3000,path:'/healthz',rejectUnauthorized:false,timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('timeout',()=>process.exit(1)).on('error',()=>process.exit(1))"]

ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve"]
