import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { expect } from "@playwright/test";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A worker process (`npm run worker`: server/cluster/worker-main.ts) on a PostgreSQL database, for the cluster specs. */
export class WorkerProcess {
  output = "";
  readonly exited: Promise<number | null>;
  constructor(readonly process: ChildProcess) {
    process.stdout?.on("data", (d) => (this.output += d));
    process.stderr?.on("data", (d) => (this.output += d));
    this.exited = new Promise((r) => process.once("exit", (code) => r(code)));
  }
  static start(url: string, id: string, env: Record<string, string> = {}): WorkerProcess {
    const child = spawn(process.execPath, ["--import", "tsx", "server/cluster/worker-main.ts"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, MODEX_ROLE: "worker", MODEX_WORKER_ID: id, MODEX_LEASE_MS: "2000", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new WorkerProcess(child);
  }
  async ready(): Promise<void> {
    await expect.poll(() => this.output, { timeout: 60_000 }).toContain("working");
  }
  stop(): Promise<number | null> {
    if (this.process.exitCode === null) this.process.kill("SIGTERM");
    return this.exited;
  }
  kill(): Promise<number | null> {
    if (this.process.exitCode === null) this.process.kill("SIGKILL");
    return this.exited;
  }
}
