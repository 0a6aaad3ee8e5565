// How server.mjs answers a request itself (see server/api/http/direct-routes.ts): the Node request as a
// web Request for the route's own handler, its Response written back with the headers next.config.mjs's
// `headers()` would add. Plain JavaScript: server.mjs loads it without a build.
import { API_CACHE_CONTROL, JSON_BODY, NO_TRANSFORM, SECURITY_HEADERS } from "./response-headers.mjs";

/** @typedef {(request: Request) => Response | Promise<Response>} DirectHandler */

/**
 * The registered handler for this request with the request as a web Request, or null when Next.js must
 * route it: no route registered (its module is not loaded yet, or it is not a direct route), a request
 * whose answer next.config.mjs would treat otherwise (a write without a JSON body may be gzipped by
 * Next.js), or a Host that makes no URL.
 *
 * @param {import("node:http").IncomingMessage} req
 * @param {Map<string, DirectHandler> | undefined} routes
 * @returns {{ handler: DirectHandler, request: Request } | null}
 */
export function directRequestFor(req, routes) {
  if (!routes || routes.size === 0 || !req.url) return null;
  const query = req.url.indexOf("?");
  const pathname = query === -1 ? req.url : req.url.slice(0, query);
  const handler = routes.get(`${req.method} ${pathname}`);
  if (!handler) return null;
  if (req.method !== "GET" && !JSON_BODY.test(req.headers["content-type"] ?? "")) return null;
  let request;
  try {
    request = webRequestOf(req);
  } catch {
    return null;
  }
  return { handler, request };
}

/**
 * Answers with the route's handler. The headers are next.config.mjs's for these routes: the security headers,
 * and `private, no-store, no-transform` (a JSON write or the health check), which win over the route's own.
 *
 * @param {{ handler: DirectHandler, request: Request }} direct
 * @param {import("node:http").ServerResponse} res
 */
export async function answerDirectly({ handler, request }, res) {
  let response;
  try {
    response = await handler(request);
  } catch (error) {
    // restRoute answers its own errors; this is a handler that threw anyway.
    console.error("[modex] direct route failed:", error);
    response = Response.json({ error: { code: "INTERNAL_SERVER_ERROR", message: "internal error" } }, { status: 500 });
  }
  const body = Buffer.from(await response.arrayBuffer());
  /** @type {Record<string, string | string[] | number>} */
  const headers = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  for (const { key, value } of [...SECURITY_HEADERS, API_CACHE_CONTROL, NO_TRANSFORM]) headers[key.toLowerCase()] = value;
  headers["content-length"] = body.byteLength;
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * The request as Next.js would hand it to a route handler: its URL from the Host header, every header,
 * and the body as a stream read on demand. A handler that stops reading (a body over the limit) cancels
 * the stream: the rest of the upload is read and discarded, so the connection stays usable for the answer.
 *
 * @param {import("node:http").IncomingMessage} req
 */
export function webRequestOf(req) {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const url = `http://${req.headers.host ?? "localhost"}${req.url}`;
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, { method: req.method, headers, body: hasBody ? bodyStreamOf(req) : null, duplex: "half" });
}

/**
 * The body, read from the socket only as the handler reads it (no high-water mark: nothing is read ahead).
 * A handler that never reads it (a 401) leaves it to Node.js, which discards it once the answer is sent.
 *
 * @param {import("node:http").IncomingMessage} req
 */
function bodyStreamOf(req) {
  let open = true;
  let listening = false;
  return new ReadableStream(
    {
      pull(controller) {
        if (!listening) {
          listening = true;
          req.on("data", (chunk) => {
            if (!open) return;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once("end", () => {
            if (open) controller.close();
            open = false;
          });
          req.once("error", (error) => {
            if (open) controller.error(error);
            open = false;
          });
        }
        req.resume();
      },
      cancel() {
        // The data listener drops what still comes: the upload is read to its end and discarded.
        open = false;
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}
