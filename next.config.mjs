import path from "node:path";
import { API_CACHE_CONTROL, NO_TRANSFORM, SECURITY_HEADERS } from "./server/api/http/response-headers.mjs";

// monaco-yaml's worker (through monaco-worker-manager) imports a path monaco-editor 0.56+ no longer
// exports (upstream monaco-yaml#272): point it at the file, which still ships.
const MONACO_EDITOR_WORKER = "monaco-editor/esm/vs/editor/editor.worker.js";
const MONACO_EDITOR_WORKER_FILE = "./node_modules/monaco-editor/esm/vs/editor/editor.worker.js";

/** @type {import("next").NextConfig} */
const nextConfig = {
  turbopack: { resolveAlias: { [MONACO_EDITOR_WORKER]: MONACO_EDITOR_WORKER_FILE } },
  webpack(config) {
    config.resolve.alias = { ...config.resolve.alias, [MONACO_EDITOR_WORKER]: path.resolve(MONACO_EDITOR_WORKER_FILE) };
    return config;
  },
  reactStrictMode: true,
  poweredByHeader: false,
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      // API answers are per user and live: never stored by a browser or a shared cache.
      { source: "/api/:path*", headers: [API_CACHE_CONTROL] },
      // ...and the small ones are sent as they are: `no-transform` keeps Next.js's gzip (`compress`) off
      // them, which cost 0.5-0.8 ms of server CPU an answer (a zlib stream each; a whole create with its
      // run costs ~2-3 ms). They are the answers to writes (requests with a JSON body: REST creates and
      // commands, tRPC mutations), a few hundred bytes, and health checks. Pages, static files and reads
      // (lists, event pages) stay compressed. The later rule wins for the same header
      // (docs/load-performance.md). server/api/http/direct-answer.mjs applies the same rules to what
      // server.mjs answers without Next.js.
      { source: "/api/:path*", has: [{ type: "header", key: "content-type", value: "application/json.*" }], headers: [NO_TRANSFORM] },
      { source: "/api/health", headers: [NO_TRANSFORM] },
    ];
  },
  // `next dev` serves its dev resources only to localhost unless told otherwise; without this a page
  // opened at 127.0.0.1 (as the e2e tests do) never hydrates.
  allowedDevOrigins: ["127.0.0.1"],
  // Native module: load it from node_modules at run time instead of bundling it.
  serverExternalPackages: ["better-sqlite3"],
  // `next build` type-checks what the app ships (the files app/ and components/ reach), not every file in
  // the repository: tests and modules not yet wired into the app are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
};

export default nextConfig;
