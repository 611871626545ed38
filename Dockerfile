# The AgentPort gateway as a container: its bundled artifact (apps/gateway/dist/cli.js) alone on
# Node 24 slim, serving the built-in agents and the remote agents of a mounted config.
#   docker build -t agentport-gateway .
#   docker run -p 8080:8080 -v "$PWD/agentport.config.mjs:/app/agentport.config.mjs:ro" agentport-gateway
# Agents of your own code run from a project that installs the packages: `npm create agentport`
# writes one, with a Dockerfile of its own.

FROM node:24-slim AS build
WORKDIR /repo
RUN npm install -g pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile && pnpm --filter @agentport/gateway build

FROM node:24-slim
WORKDIR /app
COPY --from=build /repo/apps/gateway/dist/cli.js /app/dist/cli.js
# Inside a container the gateway listens on every interface; NODE_COMPILE_CACHE keeps the
# compiled artifact for the container's later starts.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 NODE_COMPILE_CACHE=/tmp/agentport-compile-cache
# Give PUBLIC_URL (docker run -e PUBLIC_URL=https://agents.example.com) so the cards name it.
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The first SIGTERM (docker stop) drains in-flight work for up to shutdownTimeoutMs (10 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["serve"]
