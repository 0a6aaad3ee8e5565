import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** `npm run worker` as a user starts it, with a setting that cannot work. */
function startWorker(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/cluster/worker-main.ts"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", ...env },
    stdio: "pipe",
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code: number | null) => resolve({ code, stderr })));
}

describe("a worker that cannot start", () => {
  it("says why in one line and exits 1, without a stack trace", async () => {
    const wrongRole = await startWorker({ DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/postgres", MODEX_ROLE: "web" });
    expect(wrongRole.code).toBe(1);
    expect(wrongRole.stderr.trim()).toBe("[modex worker] not started: npm run worker needs MODEX_ROLE=worker (or unset), not web");

    const noDatabase = await startWorker({ MODEX_ROLE: "worker" });
    expect(noDatabase.code).toBe(1);
    expect(noDatabase.stderr).toMatch(/^\[modex worker\] not started: .*DATABASE_URL/s);
    expect(noDatabase.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);

  it("with a data directory it cannot use (a file, under /proc) names MODEX_DATA_DIR and exits 1 before connecting", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "modex-worker-data-"));
    try {
      const file = path.join(parent, "file");
      writeFileSync(file, "not a directory");
      // An unreachable database: the data directory is checked first, so the reply never waits for it.
      const database = "postgresql://postgres@127.0.0.1:1/none";
      for (const [dir, cause] of [
        [file, "it is a file, not a directory"],
        ["/proc/modex-worker-data", "ENOENT"],
      ]) {
        const started = Date.now();
        const result = await startWorker({ DATABASE_URL: database, MODEX_DATA_DIR: dir });
        expect(result.code).toBe(1);
        expect(result.stderr.trim()).toMatch(new RegExp(`^\\[modex worker\\] not started: cannot use the data directory ${dir} \\(MODEX_DATA_DIR\\): ${cause}[^\\n]*$`));
        expect(Date.now() - started).toBeLessThan(20_000);
      }
      // A usable one that does not exist yet is made, as the web process makes it.
      const fresh = path.join(parent, "fresh", "data");
      const ok = await startWorker({ DATABASE_URL: database, MODEX_DATA_DIR: fresh });
      expect(ok.code).toBe(1);
      expect(ok.stderr).not.toContain("MODEX_DATA_DIR");
      expect(existsSync(fresh)).toBe(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 90_000);
});
