import { spawn } from "node:child_process";
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
});
