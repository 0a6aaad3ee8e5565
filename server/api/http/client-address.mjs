// Who a request came from, for the sign-in rate limit (login-rate-limit.ts). Plain JavaScript: server.mjs
// loads it without a build.

/** The connection's address, as server.mjs saw it. */
export const CLIENT_ADDRESS_HEADER = "x-modex-client-address";

// On globalThis under a registered symbol: server.mjs imports this file as is, the app's routes a bundled
// copy of it, and both must read one flag.
const STAMPING = Symbol.for("modex.clientAddressStamping");

/**
 * Writes the connection's address into the request's headers, over any such header the client sent:
 * unlike X-Forwarded-For, which any client may write, a client cannot choose this one, so a client
 * that used up its sign-in attempts cannot claim to be another. server.mjs calls it on every request.
 *
 * @param {import("node:http").IncomingMessage} req
 */
export function stampClientAddress(req) {
  req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
}

/** Says that this process stamps every request (server.mjs, before Next.js loads): the header is the connection's. */
export function declareClientAddressStamping() {
  /** @type {Record<symbol, boolean>} */ (globalThis)[STAMPING] = true;
}

/**
 * Whether CLIENT_ADDRESS_HEADER can be believed. Under `next dev` no server.mjs runs, so a client could
 * send the header itself.
 *
 * @returns {boolean}
 */
export function clientAddressIsStamped() {
  return /** @type {Record<symbol, boolean>} */ (globalThis)[STAMPING] === true;
}
