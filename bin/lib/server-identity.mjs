/**
 * Who answers at a URL. A Modex server says `"service": "modex"` at GET /api/health; anything else
 * (another app on the port, a proxy's error page) is described by what it answered, so a wrong --url
 * reads "not a Modex server (GET /api/health answered 404 text/html)" rather than "not found".
 */

const PROBE_TIMEOUT_MS = 5000;

/** @returns {Promise<{ modex: boolean, answer: string }>} `answer`: what GET /api/health gave, for messages. */
export async function describeServer({ url, fetchImpl = globalThis.fetch }) {
  let response;
  let text;
  try {
    response = await fetchImpl(`${url}/api/health`, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    text = await response.text();
  } catch (error) {
    return { modex: false, answer: `GET /api/health failed: ${error?.cause?.code ?? error?.cause?.message ?? error?.message}` };
  }
  const type = (response.headers.get("content-type") ?? "no content type").split(";")[0].trim();
  let health = null;
  try {
    health = JSON.parse(text);
  } catch {
    // not JSON: not Modex
  }
  if (response.ok && isModexHealth(health)) return { modex: true, answer: `GET /api/health answered ${response.status} ${type}` };
  const proxy = response.status >= 502 && response.status <= 504 ? "; a proxy in front of a server that is down?" : "";
  const unnamed = response.ok && type.includes("json") ? ' without "service": "modex"' : "";
  return { modex: false, answer: `GET /api/health answered ${response.status} ${type}${unnamed}${proxy}` };
}

/**
 * `service: "modex"`; or the payload of a Modex server from before that field (`ok`, `engine`, `time`),
 * so a new modexctl still works with a server one version older.
 */
export function isModexHealth(health) {
  if (!health || typeof health !== "object") return false;
  if (health.service !== undefined) return health.service === "modex";
  return health.ok === true && typeof health.engine === "string" && typeof health.time === "string";
}
