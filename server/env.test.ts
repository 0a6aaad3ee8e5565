import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

describe("parseEnv", () => {
  it("defaults to port 3000 and ./data", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.dataDir).toBe(path.resolve("data"));
    expect(env.databaseFile).toBe(path.resolve("data", "modex.db"));
  });

  it("reads MODEX_DATA_DIR and PORT", () => {
    const env = parseEnv({ MODEX_DATA_DIR: "/tmp/modex-x", PORT: "4100" });
    expect(env.PORT).toBe(4100);
    expect(env.databaseFile).toBe("/tmp/modex-x/modex.db");
  });

  it("rejects a bad port with a readable message", () => {
    expect(() => parseEnv({ PORT: "http" })).toThrow(/Invalid environment[\s\S]*PORT/);
  });

  it("takes the process's role from MODEX_ROLE: all by default; web and worker only with DATABASE_URL", () => {
    expect(parseEnv({}).MODEX_ROLE).toBe("all");
    expect(parseEnv({ MODEX_ROLE: "web", DATABASE_URL: "postgresql://db/modex" }).MODEX_ROLE).toBe("web");
    expect(() => parseEnv({ MODEX_ROLE: "worker" })).toThrow(/share one PostgreSQL database: set DATABASE_URL/);
    expect(() => parseEnv({ MODEX_ROLE: "primary", DATABASE_URL: "postgresql://db/modex" })).toThrow(/MODEX_ROLE/);
  });

  it("takes a postgresql:// DATABASE_URL and refuses anything else", () => {
    expect(parseEnv({}).DATABASE_URL).toBeUndefined();
    expect(parseEnv({ DATABASE_URL: "postgresql://modex@db:5432/modex" }).DATABASE_URL).toBe("postgresql://modex@db:5432/modex");
    expect(() => parseEnv({ DATABASE_URL: "mysql://db/modex" })).toThrow(/DATABASE_URL must be a postgresql:\/\/ URL/);
  });
});
