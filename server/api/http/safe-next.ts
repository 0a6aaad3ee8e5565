/**
 * Where to send a browser after it signs in: only a path on this origin. Used by the login route (the
 * start-up link) and by the login page (which hands the result to its form), so both accept the same.
 *
 * The candidate is resolved the way a browser resolves a Location header (the WHATWG URL parser), so
 * every trick it would honour is seen here too: `/\evil.example` and `/<tab>/evil.example` both become
 * `//evil.example`, another host. Control characters are refused outright (a newline in a Location
 * header makes the response itself invalid). What is returned is the parser's own serialization of the
 * path, query and fragment, so it is always a valid header value.
 */
const PLACEHOLDER_ORIGIN = "http://modex.invalid";
const CONTROL = /[\u0000-\u001f\u007f]/;

export function safeNextPath(next: string | null | undefined, fallback = "/"): string {
  if (!next || !next.startsWith("/") || CONTROL.test(next) || next.includes("\\")) return fallback;
  let url: URL;
  try {
    url = new URL(next, PLACEHOLDER_ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
