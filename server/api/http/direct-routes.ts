/**
 * Routes the production server (`server.mjs`) answers itself, without Next.js's per-request machinery
 * (routing, NextRequest, the app-route wrapper, the response's web-stream piping: ~1 ms of CPU a request,
 * most of a create's cost and what a health check waits behind during a burst; docs/load-performance.md).
 *
 * A route opts in by wrapping its exported handler: the same function then answers both ways, so the
 * guard chain (Host, Origin, auth, body limits) and every answer are the same. Next.js routes a request
 * until the route's module is loaded (its first request); from then on the server calls the handler
 * directly. `server/api/http/direct-answer.mjs` adds what next.config.mjs's `headers()` would.
 *
 * The registry lives on globalThis: the route bundles and the server are separate module graphs.
 */
export type DirectHandler = (request: Request) => Response | Promise<Response>;

export type DirectMethod = "GET" | "POST";

const holder = globalThis as typeof globalThis & { modexDirectRoutes?: Map<string, DirectHandler> };

/** Registers `handler` for `method pathname` (exact path, any query) and returns it unchanged. */
export function directRoute<H extends DirectHandler>(method: DirectMethod, pathname: string, handler: H): H {
  (holder.modexDirectRoutes ??= new Map()).set(`${method} ${pathname}`, handler);
  return handler;
}

/** The handler registered for `method pathname`, if any (tests). */
export function directHandlerOf(method: string, pathname: string): DirectHandler | undefined {
  return holder.modexDirectRoutes?.get(`${method} ${pathname}`);
}
