import { readFileSync } from "node:fs";
import path from "node:path";

/** An error with the exit code modexctl ends with: 1 server or usage, 2 not found, 3 not authorized. */
export class CliError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

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

/** A thin client of the REST API (the CLI never talks to tRPC or the database). */
export class ModexClient {
  constructor({ url, token, fetchImpl = globalThis.fetch }) {
    this.url = url;
    this.token = token;
    this.fetch = fetchImpl;
  }

  get(pathname, query = {}) {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));
    const qs = params.toString();
    return this.request("GET", `${pathname}${qs ? `?${qs}` : ""}`);
  }

  post(pathname, body = {}) {
    return this.request("POST", pathname, body);
  }

  async request(method, pathname, body) {
    const headers = { accept: "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response;
    try {
      response = await this.fetch(`${this.url}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new CliError(`cannot reach the Modex server at ${this.url} (${error.cause?.code ?? error.cause?.errors?.[0]?.code ?? error.cause?.message ?? error.message}); is it running? (--url / MODEX_URL)`);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { error: { message: text.slice(0, 200) } };
    }
    if (response.ok) return data;
    throw errorFor(response.status, data?.error, this.token);
  }
}

function errorFor(status, error, token) {
  const message = error?.message ?? `HTTP ${status}`;
  const issues = Array.isArray(error?.issues)
    ? error.issues.map((i) => `\n  - ${[i.pathText ?? (i.path ?? []).join("."), i.line ? `(line ${i.line}, column ${i.column})` : ""].filter(Boolean).join(" ")}${i.path?.length || i.pathText ? ": " : ""}${i.message}`).join("")
    : "";
  if (status === 401) {
    const hint = token ? "the token was not accepted" : "no token: pass --token, set MODEX_TOKEN, or run where the server's data directory is";
    return new CliError(`not authorized: ${hint}`, 3);
  }
  if (status === 403) return new CliError(`forbidden: ${message}`, 3);
  if (status === 404) return new CliError(`not found: ${message}`, 2);
  if (status === 409) return new CliError(`refused: ${message}`, 1);
  if (status === 400) return new CliError(`bad request: ${message}${issues}`, 1);
  return new CliError(`server error (HTTP ${status}): ${message}`, 1);
}
