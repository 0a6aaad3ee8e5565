import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const CLI = path.resolve(import.meta.dirname, "../../bin/modexctl.mjs");

/** One modexctl run as a user's shell runs it; `env` adds to (or blanks) the test's environment. */
export async function runModexctl(args: string[], env: Record<string, string | undefined>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/**
 * modexctl against the production server Playwright started. The CLI finds the token on its own, in
 * the server's data directory (MODEX_DATA_DIR), as it does on the machine that runs Modex.
 */
export const modexctl = (baseURL: string, ...args: string[]) =>
  runModexctl(args, { MODEX_URL: baseURL, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" });
