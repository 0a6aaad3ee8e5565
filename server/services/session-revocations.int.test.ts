import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { PgSessionRevocations, REVOCATIONS_REFRESH_MS } from "./pg-session-revocations";
import { SessionRevocations } from "./session-revocations";
import { sessionRevocationsConformance } from "./testing/session-revocations.conformance";

describe("SessionRevocations (a file in the data directory)", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  sessionRevocationsConformance({
    fresh: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "modex-revocations-"));
      dirs.push(dir);
      const file = path.join(dir, "revoked-sessions");
      return { store: new SessionRevocations(file), peer: () => new SessionRevocations(file) };
    },
    elapse: async () => {}, // every check stats the file
  });
});

describe("PgSessionRevocations (shared by the web processes on one database)", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  let offset = 0; // the stores' clock, moved on by `elapse` instead of sleeping
  const now = () => Date.now() + offset;
  sessionRevocationsConformance({
    fresh: async () => {
      const db = database.open();
      await db.acks.query({ text: "TRUNCATE session_revocations" });
      return { store: new PgSessionRevocations(db.acks, now), peer: () => new PgSessionRevocations(database.open().acks, now) };
    },
    elapse: async () => {
      offset += REVOCATIONS_REFRESH_MS;
    },
  });
});
