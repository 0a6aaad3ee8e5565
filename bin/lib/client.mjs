import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CLI_CODES, CliError, errorForStatus, TRANSIENT_STATUSES } from "./errors.mjs";
import { describeServer } from "./server-identity.mjs";

/** --token, else $MODEX_TOKEN, else the token file the server keeps in its data directory. */
export function resolveToken({ token, dataDir, env = process.env }) {
  if (token) return token;
  if (env.MODEX_TOKEN) return env.MODEX_TOKEN;
  const file = path.join(path.resolve(dataDir ?? env.MODEX_DATA_DIR ?? "./data"), "access-token");
  try {
    return readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

export function resolveUrl({ url, env = process.env }) {
  return (url ?? env.MODEX_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
}

/** Waits between the attempts of an idempotent write: 5 attempts over ~3.75 s. */
export const WRITE_RETRY_DELAYS_MS = [250, 500, 1000, 2000];

/**
 * Connection failures a retry may outlast: the server restarting (refused), or dropping a request it
 * may or may not have done (reset, hang-up; undici reports those as UND_ERR_SOCKET "other side closed").
 */
const TRANSIENT_CONNECTION_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * A thin client of the REST API (the CLI never talks to tRPC or the database).
 *
 * Writes marked idempotent (create, reinvoke, deliver, answer, approve, deny) carry this client's Idempotency-Key, one
 * per modexctl invocation, and are retried with that same key on a dropped connection or a 502/503/504:
 * a server that honours the key answers a repeat with its first answer instead of doing the work again.
 * A server that ignores the header still works (only a request it never received is then safe to repeat).
 */
export class ModexClient {
  constructor({ url, token, fetchImpl = globalThis.fetch, idempotencyKey = randomUUID(), retryDelaysMs = WRITE_RETRY_DELAYS_MS, notify = () => {} }) {
    this.url = url;
    this.token = token;
    this.fetch = fetchImpl;
    this.idempotencyKey = idempotencyKey;
    this.retryDelaysMs = retryDelaysMs;
    this.notify = notify;
    /** @type {Promise<{ modex: boolean, answer: string }> | null} */
    this.identity = null;
  }

  get(pathname, query = {}) {
    return this.request({ method: "GET", pathname: withQuery(pathname, query) });
  }

  /** A GET whose answer is text rather than JSON (the training-data JSONL): its body as sent; errors as any request's. */
  async getText(pathname, query = {}) {
    const path = withQuery(pathname, query);
    const answer = await this.send({ method: "GET", pathname: path });
    if (answer.status >= 200 && answer.status < 300) return answer.text;
    return this.interpret({ method: "GET", pathname: path, answer });
  }

  /**
   * One page of a paged list route: its rows, and what its headers say of the rest. `total` is every
   * match over all pages (X-Total-Count; null from a server that does not send it).
   */
  async page(pathname, query = {}) {
    const { data, headers } = await this.request({ method: "GET", pathname: withQuery(pathname, query), withHeaders: true });
    const total = headers.get("x-total-count");
    return { items: data, total: total === null ? null : Number(total), nextCursor: headers.get("x-next-cursor") };
  }

  /**
   * `idempotent`: send the Idempotency-Key and retry a transient failure with it. `key`: another key than
   * the invocation's, for a command that sends several different writes (apply: one per file).
   */
  post(pathname, body = {}, { idempotent = false, key } = {}) {
    return this.request({ method: "POST", pathname, body, idempotent, key });
  }

  put(pathname, body = {}) {
    return this.request({ method: "PUT", pathname, body });
  }

  /** `withHeaders`: answer `{ data, headers }` rather than the data alone. */
  async request({ method, pathname, body, idempotent = false, key, withHeaders = false }) {
    const delays = idempotent ? this.retryDelaysMs : [];
    for (let attempt = 0; ; attempt++) {
      let answer;
      try {
        answer = await this.send({ method, pathname, body, idempotent, key });
      } catch (error) {
        if (!error.transient || attempt >= delays.length) throw error;
        this.noteRetry({ method, pathname, reason: error.reason, attempt, delays });
        await sleep(delays[attempt]);
        continue;
      }
      if ((TRANSIENT_STATUSES.has(answer.status) || inProgress(answer)) && attempt < delays.length) {
        this.noteRetry({ method, pathname, reason: inProgress(answer) ? "the first request with this key is still at work" : `HTTP ${answer.status}`, attempt, delays });
        await sleep(delays[attempt]);
        continue;
      }
      if (answer.headers.get("idempotent-replayed") === "true") {
        this.notify(`the server had already done ${method} ${pathname} (Idempotent-Replayed): this is its first answer`);
      }
      const data = await this.interpret({ method, pathname, answer });
      return withHeaders ? { data, headers: answer.headers } : data;
    }
  }

  /** One HTTP exchange: the status, headers and body text, or a CliError UNREACHABLE. */
  async send({ method, pathname, body, idempotent, key }) {
    const headers = { accept: "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    if (idempotent) headers["idempotency-key"] = key ?? this.idempotencyKey;
    try {
      const response = await this.fetch(`${this.url}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      throw unreachable(this.url, error);
    }
  }

  /** A Modex answer → its data, or the CliError it stands for. Anything else → ask who answered. */
  async interpret({ method, pathname, answer }) {
    const data = parseJson(answer.text);
    const json = (answer.headers.get("content-type") ?? "").includes("json") && data !== undefined;
    if (answer.status >= 200 && answer.status < 300 && json) return data;
    const modexError = typeof data?.error?.code === "string" && typeof data?.error?.message === "string";
    if (!(answer.status >= 200 && answer.status < 300) && modexError) throw errorForStatus({ status: answer.status, error: data.error, token: this.token });
    const identity = await this.identify();
    if (!identity.modex) throw new CliError(`${this.url} is not a Modex server (${identity.answer})`, { code: CLI_CODES.NOT_MODEX });
    if (answer.status === 404) {
      throw new CliError(`the Modex server at ${this.url} has no route ${method} ${pathname.split("?")[0]} (HTTP 404); it may be older than this modexctl`, {
        code: CLI_CODES.NO_ROUTE,
        status: 404,
      });
    }
    const snippet = answer.text.replace(/\s+/g, " ").trim().slice(0, 200);
    throw errorForStatus({ status: answer.status, error: { message: snippet || `unexpected ${contentTypeOf(answer.headers)} answer` }, token: this.token });
  }

  /** Whether a Modex server answers at this URL (asked once per invocation, on the first odd answer). */
  identify() {
    this.identity ??= describeServer({ url: this.url, fetchImpl: this.fetch });
    return this.identity;
  }

  noteRetry({ method, pathname, reason, attempt, delays }) {
    const wait = delays[attempt];
    this.notify(
      `${method} ${pathname}: ${reason}; retrying in ${wait < 1000 ? `${wait} ms` : `${wait / 1000} s`} with the same Idempotency-Key (attempt ${attempt + 2} of ${delays.length + 1})`,
    );
  }
}

function withQuery(pathname, query) {
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));
  const qs = params.toString();
  return `${pathname}${qs ? `?${qs}` : ""}`;
}

function unreachable(url, error) {
  const cause = error?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  const detail = code ?? cause?.message ?? error?.message ?? String(error);
  const transient = TRANSIENT_CONNECTION_CODES.has(code) || /socket hang up|other side closed/i.test(String(cause?.message ?? error?.message));
  const reason = code && cause?.message && !cause.message.includes(code) ? `${code}: ${cause.message}` : String(detail);
  const failure = new CliError(`cannot reach the Modex server at ${url} (${reason}); is it running? (--url / MODEX_URL)`, {
    code: CLI_CODES.UNREACHABLE,
    transient,
  });
  failure.reason = reason;
  return failure;
}

function parseJson(text) {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function contentTypeOf(headers) {
  return (headers.get("content-type") ?? "no content type").split(";")[0].trim();
}

/**
 * A 409 IDEMPOTENCY_IN_PROGRESS: the first request with this Idempotency-Key (one this client sent
 * before its connection dropped) is still at work. Asked again with the key, the server answers what
 * it did; giving up here would leave the user to send the work again under a new key.
 */
function inProgress(answer) {
  return answer.status === 409 && parseJson(answer.text)?.error?.code === "IDEMPOTENCY_IN_PROGRESS";
}
