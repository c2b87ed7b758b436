# The interlock GitHub App (Probot) as a container: `docker build -t interlock-app .`, then
# `docker run -p 3000:3000 -e APP_ID=... -e WEBHOOK_SECRET=... -e PRIVATE_KEY=... interlock-app`.
# See docs/DEPLOY.md.

# Build stage: every dependency, to bundle the sources into dist/ (dist/ is committed, but the image is built
# from the sources it ships, not trusted to match them).
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime stage: the bundle, app.yml and production dependencies only, run by the unprivileged `node` user.
FROM node:24-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY app.yml ./
USER node
EXPOSE 3000
# The slim image has no curl: Node itself asks the App's health endpoint.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ping').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/app.js"]
