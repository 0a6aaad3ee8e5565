// The production server (`npm run start`): Next.js in this process (`next({ dev: false })`, the same
// request handling as `next start`), in front of which the routes registered with `directRoute`
// (server/api/http/direct-routes.ts: the health check and REST creates) are answered by their own
// handlers without Next.js's per-request machinery (docs/load-performance.md).
//
// Options as `next start`: -p/--port (default $PORT or 3000), -H/--hostname (default: all interfaces),
// --keepAliveTimeout <ms>.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { declareClientAddressStamping, stampClientAddress } from "./server/api/http/client-address.mjs";
import { answerDirectly, directRequestFor } from "./server/api/http/direct-answer.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", short: "p" },
    hostname: { type: "string", short: "H" },
    keepAliveTimeout: { type: "string" },
  },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`[modex] not a port: ${values.port ?? process.env.PORT}`);
  process.exit(1);
}
const hostname = values.hostname;

// As `next start`: production unless told otherwise, and the port known to the app (env.PORT: the login
// URL, the server's own API) before Next.js loads it.
process.env.NODE_ENV ??= "production";
process.env.PORT = String(port);
// Every request is stamped with its connection's address (route, below): the sign-in limit may believe it.
declareClientAddressStamping();
const { default: next } = await import("next");

/** @type {typeof globalThis & { modexDirectRoutes?: Map<string, import("./server/api/http/direct-answer.mjs").DirectHandler>; modexServices?: { close?: () => Promise<void> } }} */
const registry = globalThis;
/** @type {((req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => Promise<unknown>) | null} */
let handle = null;
let ready = () => {};
const prepared = new Promise((resolve) => (ready = resolve));

const route = (req, res) => {
  stampClientAddress(req);
  const direct = directRequestFor(req, registry.modexDirectRoutes);
  (direct ? answerDirectly(direct, res) : handle(req, res)).catch((error) => {
    // As `next start` does with a request its handler failed on.
    console.error(`[modex] failed to handle ${req.method} ${req.url}:`, error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("Internal Server Error");
  });
};

// As `next start`: listen first, and hold requests until Next.js (and the app's start-up, in
// instrumentation.ts) is ready, so that the port is taken by the time the app says it runs.
const server = createServer((req, res) => (handle ? route(req, res) : void prepared.then(() => route(req, res))));
if (values.keepAliveTimeout) server.keepAliveTimeout = Number(values.keepAliveTimeout);
server.on("error", (error) => {
  console.error(`[modex] the server could not listen on ${hostname ?? "*"}:${port}: ${error.message}`);
  process.exit(1);
});
await new Promise((resolve) => server.listen(port, hostname, () => resolve(undefined)));

const app = next({ dev: false, hostname: hostname ?? "localhost", port });
try {
  await app.prepare();
} catch (error) {
  console.error(error);
  process.exit(1);
}
handle = app.getRequestHandler();
ready();
console.log(`[modex] listening on http://${hostname ?? "localhost"}:${port}`);

// As `next start`: stop taking connections, let Next.js close, exit with the signal's code.
let closing = false;
const stop = (signal, code) => {
  if (closing) return;
  closing = true;
  console.log(`[modex] ${signal}: stopping`);
  server.close();
  server.closeIdleConnections();
  // The app's services close first (app-services-singleton keeps them on globalThis): on a PostgreSQL
  // cluster the chat turns this process runs end now, as a restart ends them, and its heartbeat leaves,
  // rather than other processes waiting for its lease to expire.
  const servicesClosed = registry.modexServices?.close?.() ?? Promise.resolve();
  void servicesClosed
    .catch((error) => console.error(`[modex] closing the services failed: ${error instanceof Error ? error.message : String(error)}`))
    .then(() => app.close())
    .finally(() => process.exit(code));
  // Open streams (SSE subscriptions) would keep server.close() waiting: give up after a moment.
  setTimeout(() => process.exit(code), 3_000).unref();
};
process.on("SIGINT", () => stop("SIGINT", 130));
process.on("SIGTERM", () => stop("SIGTERM", 143));
