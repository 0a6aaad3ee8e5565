// The production server a benchmark measures: built first when no build exists (`.next/BUILD_ID`), then
// `server.mjs` (what `npm run start` runs: Next.js behind the direct routes) on a free loopback port with
// a fresh temporary data directory, returned once /api/health answers.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 15_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

/**
 * Starts the server with `token` as MODEX_TOKEN, `env` on top of this process's environment and
 * `nodeArgs` for node (e.g. `--cpu-prof`). `name` names the data directory (`modex-bench-<name>-…`).
 * The build's output goes to stderr, so stdout keeps only the bench's `name value unit` lines. The
 * server runs in its own process group: `stop()` sends SIGTERM to all of it, waits up to 15 s, kills
 * what is left and removes the data directory.
 * @param {{ name: string; token: string; env?: Record<string, string>; nodeArgs?: string[] }} options
 * @returns {Promise<{ base: string; dataDir: string; pid: number; stop(): Promise<void> }>}
 */
export async function startProductionServer({ name, token, env = {}, nodeArgs = [] }) {
  if (!existsSync(".next/BUILD_ID")) {
    console.error("no production build: running `npm run build` first…");
    execFileSync("npm", ["run", "build"], { stdio: ["ignore", process.stderr, "inherit"] });
  }
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), `modex-bench-${name}-`));
  const server = spawn(process.execPath, [...nodeArgs, "server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    env: { ...process.env, MODEX_DATA_DIR: dataDir, MODEX_TOKEN: token, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), ...env },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const exited = new Promise((r) => server.once("exit", r));
  const signal = (sig) => {
    try {
      process.kill(-server.pid, sig);
    } catch {}
  };
  const stop = async () => {
    signal("SIGTERM");
    await Promise.race([exited, sleep(STOP_GRACE_MS)]);
    signal("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || server.exitCode !== null) {
      await stop();
      throw new Error("the server did not start");
    }
    await sleep(200);
  }
  return { base, dataDir, pid: server.pid, stop };
}
