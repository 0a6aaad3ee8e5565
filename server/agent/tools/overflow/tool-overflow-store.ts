import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

export interface OverflowEntry {
  /** The session whose turn called the tool: its files go where that session's other files go. */
  sessionId: string;
  callId: string;
  toolName: string;
  content: string;
}

/** Where oversized tool output is kept in full, so the model can be pointed at it. */
export interface ToolOverflowStore {
  /** Persists the full content and returns the path the model is told about. */
  save(entry: OverflowEntry): Promise<string>;
}

/**
 * Writes each oversized output to its own file under `dir`, or under the directory `dir` names for the
 * entry's session (created on first use): a caller that deletes a session's files passes the latter.
 */
export class DiskToolOverflowStore implements ToolOverflowStore {
  constructor(private readonly dir: string | ((sessionId: string) => string)) {}

  async save(entry: OverflowEntry): Promise<string> {
    const dir = typeof this.dir === "string" ? this.dir : this.dir(entry.sessionId);
    await mkdir(dir, { recursive: true });
    const file = path.join(path.resolve(dir), `${safe(entry.toolName)}-${safe(entry.callId)}-${randomUUID().slice(0, 8)}.txt`);
    await writeFile(file, entry.content, "utf8");
    return file;
  }
}

function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "x";
}
