// Headers of every response, shared by next.config.mjs (its `headers()`, for what Next.js serves) and
// server/api/http/direct-answer.mjs (for what the server answers without Next.js). Plain JavaScript:
// next.config.mjs and server.mjs load it without a build.

/**
 * Sent with every response: pages, the API and static files. Pages also get their own
 * Content-Security-Policy with a nonce from proxy.ts (server/api/http/content-security-policy.ts); this
 * one only forbids what no response of this server needs (being framed, plugins, another <base>), so it
 * never conflicts with the page's: a browser enforces both, and the stricter of each wins.
 */
export const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
];

/** API answers are per user and live: never stored by a browser or a shared cache. */
export const API_CACHE_CONTROL = { key: "Cache-Control", value: "private, no-store" };

/**
 * ...and the small ones are sent as they are: `no-transform` keeps Next.js's gzip (`compress`) off them
 * (see next.config.mjs).
 */
export const NO_TRANSFORM = { key: "Cache-Control", value: "private, no-store, no-transform" };

/** The Content-Type values next.config.mjs's `has` rule gives NO_TRANSFORM (Next.js anchors `has` patterns). */
export const JSON_BODY = /^application\/json.*$/;
