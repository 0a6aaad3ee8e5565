import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { TempDatabase } from "@/server/db/testing/temp-database";

const CHILD = path.join(import.meta.dirname, "crash-child.ts");

/** The server stand-in, killed as a crash kills it: SIGKILL, resolved once the process is gone. */
export interface CrashChild<T> {
  /** What it printed once its run was created (its first line, JSON). */
  started: T;
  killHard(): Promise<void>;
}

/**
 * Starts crash-child.ts (through tsx) on the database's file with `spec` (written beside it) and, if
 * given, `command`; resolves once the child printed its first line, or rejects with its stderr if it
 * exited first. The test's connection to the file must be closed: the child owns it until killed.
 */
export async function startCrashChild<T>(options: { database: TempDatabase; spec: string; command?: string }): Promise<CrashChild<T>> {
  const specFile = path.join(options.database.dir, "spec.yml");
  writeFileSync(specFile, options.spec);
  const args = [CHILD, options.database.file, specFile, ...(options.command ? [options.command] : [])];
  const child = spawn(process.execPath, ["--import", "tsx", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    child.on("exit", (code) => reject(new Error(`child exited (${code}): ${stderr}`)));
  });
  return {
    started: JSON.parse(line) as T,
    async killHard() {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    },
  };
}
