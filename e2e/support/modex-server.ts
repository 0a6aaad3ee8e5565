import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Extra production servers for tests about processes (locks, kill -9, restarts, a full disk): what `npm
 * run start` runs (server.mjs) on the build Playwright's webServer made, each with the data directory and
 * settings the test gives it. Disposable: `await using`-style cleanup through `stop()` / `killHard()`.
 */
export const SERVER_TOKEN = "durability-test-token-0123456789abcdef";
const ROOT = path.resolve(import.meta.dirname, "../..");
const SERVER = path.join(ROOT, "server.mjs");

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export const tempDir = (prefix: string): string => mkdtempSync(path.join(tmpdir(), prefix));
export const removeDir = (dir: string): void => rmSync(dir, { recursive: true, force: true });

export class ModexServer {
  output = "";
  readonly exited: Promise<number | null>;
  private constructor(
    readonly process: ChildProcess,
    readonly port: number,
  ) {
    process.stdout?.on("data", (d) => (this.output += d));
    process.stderr?.on("data", (d) => (this.output += d));
    this.exited = new Promise((resolve) => process.once("exit", (code) => resolve(code)));
  }

  static async start(options: { dataDir: string; env?: Record<string, string>; port?: number }): Promise<ModexServer> {
    const port = options.port ?? (await freePort());
    const child = spawn(process.execPath, [SERVER, "-p", String(port), "-H", "127.0.0.1"], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        PORT: String(port),
        MODEX_DATA_DIR: options.dataDir,
        MODEX_TOKEN: SERVER_TOKEN,
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new ModexServer(child, port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resolves once the server says it runs (its login URL), or rejects with its output if it exited. */
  async ready(timeoutMs = 60_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.output.includes("Modex is running")) return this;
      if (this.process.exitCode !== null) throw new Error(`server exited (${this.process.exitCode}):\n${this.output}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`server not ready in ${timeoutMs} ms:\n${this.output}`);
  }

  /** Resolves to "running" or to the exit code, whichever comes first. */
  async outcome(timeoutMs = 60_000): Promise<"running" | number | null> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.output.includes("Modex is running")) return "running";
      if (this.process.exitCode !== null) return this.process.exitCode;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`server neither ran nor exited in ${timeoutMs} ms:\n${this.output}`);
  }

  async fetch(route: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${route}`, {
      ...init,
      headers: { authorization: `Bearer ${SERVER_TOKEN}`, "content-type": "application/json", ...(init.headers ?? {}) },
    });
  }

  async json<T>(route: string, init: RequestInit = {}): Promise<T> {
    const res = await this.fetch(route, init);
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${route}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  killHard(): Promise<number | null> {
    if (this.process.exitCode === null) this.process.kill("SIGKILL");
    return this.exited;
  }

  stop(): Promise<number | null> {
    if (this.process.exitCode === null) this.process.kill("SIGTERM");
    return this.exited;
  }
}
