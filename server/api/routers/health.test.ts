import { describe, expect, it } from "vitest";
import packageJson from "@/package.json";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import * as healthRoute from "@/app/api/health/route";
import { ENGINE_VERSION, readHealth } from "./health";

const caller = createCaller(createTRPCContext({ headers: new Headers() }));

describe("health", () => {
  it("reports ok, that it is Modex, the engine version and the server time", async () => {
    const before = Date.now();
    const health = await caller.health();
    expect(health).toEqual({ ok: true, service: "modex", engine: ENGINE_VERSION, time: expect.any(String) });
    const time = Date.parse(health.time);
    expect(time).toBeGreaterThanOrEqual(before - 1);
    expect(time).toBeLessThanOrEqual(Date.now());
  });

  it("takes the engine version from package.json", () => {
    expect(ENGINE_VERSION).toBe(packageJson.version);
    expect(ENGINE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("formats the time as ISO 8601", () => {
    expect(readHealth(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))).time).toBe("2026-01-02T03:04:05.000Z");
  });

  it("answers GET /api/health with the same payload as JSON, never cached", async () => {
    const response = healthRoute.GET();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({ ok: true, service: "modex", engine: ENGINE_VERSION });
  });
});
