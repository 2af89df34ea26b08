# Linktrail: build once, run as a non-root user. The image serves the API, the short links
# and the pages on PORT; point DATABASE_URL and REDIS_URL at your PostgreSQL and Redis.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The dashboard (built into dist/web by npm run build).
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The guides served at /docs/guides.
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data
# The embedded database (without DATABASE_URL), the generated secret and the click spool live
# here: a volume, so they outlive the container (declared after the chown, which it keeps).
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
