import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import type { Awaitable } from "@/server/graph/awaitable";

/**
 * Sessions ended by a logout before they expire. The file below answers synchronously; PostgreSQL's
 * (PgSessionRevocations, shared by every web process on the database) with promises when it reads.
 */
export interface SessionRevocationStore {
  isRevoked(sessionId: string): Awaitable<boolean>;
  /** Committed when it has answered; `expiresMs`: when the session would have expired anyway. */
  revoke(sessionId: string, expiresMs: number, now?: number): Awaitable<void>;
}

/**
 * Sessions ended by a logout before they expire, by session id, kept in one file in the data
 * directory. Session cookies are otherwise stateless (signed, with an expiry), so without this list a
 * cookie copied before a logout would stay valid for its 30 days.
 *
 * Why a file: Next.js bundles proxy.ts (which checks page visits) apart from the route handlers, so one
 * process holds two AuthService objects that share no memory; the list must also survive a restart.
 * Each check stats the file (a few microseconds) and re-reads it only when it changed, so a logout seen
 * by one bundle is seen by the other on its next check. Writes replace the file atomically (rename) and
 * drop entries that have expired anyway, so it holds at most the sessions logged out within 30 days.
 */
export class SessionRevocations implements SessionRevocationStore {
  private revoked = new Map<string, number>(); // session id → its expiry (ms)
  private seenVersion = "";

  /** Without a file (tests, scripts), revocations live in this object only. */
  constructor(private readonly file?: string) {}

  isRevoked(sessionId: string): boolean {
    this.refresh();
    return this.revoked.has(sessionId);
  }

  revoke(sessionId: string, expiresMs: number, now = Date.now()): void {
    this.refresh();
    this.revoked.set(sessionId, expiresMs);
    for (const [id, expires] of this.revoked) if (expires <= now) this.revoked.delete(id);
    if (!this.file) return;
    const text = [...this.revoked].map(([id, expires]) => `${id} ${expires}\n`).join("");
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.file);
    this.seenVersion = versionOf(this.file);
  }

  private refresh(): void {
    if (!this.file) return;
    const version = versionOf(this.file);
    if (version === this.seenVersion) return;
    this.revoked = version === "" ? new Map() : parse(readFileSync(this.file, "utf8"));
    this.seenVersion = version;
  }
}

/** Identity, size and modification time: changes with every write (the rename makes a new inode). */
function versionOf(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw e;
  }
}

function parse(text: string): Map<string, number> {
  const revoked = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [id, expires] = line.trim().split(" ");
    if (id && Number.isFinite(Number(expires))) revoked.set(id, Number(expires));
  }
  return revoked;
}
