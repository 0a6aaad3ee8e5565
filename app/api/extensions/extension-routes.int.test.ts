import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recordingLogger } from "@/server/agent/logger";
import { AppExtensions } from "@/server/services/extensions/app-extensions";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices } from "@/server/services/testing/test-services";
import * as listRoute from "./route";
import * as toggleRoute from "./[name]/route";
import * as previewRoute from "./[name]/preview/route";

/** The extensions REST routes, called as Next.js calls them, on the app's services (real SQLite) with a real extensions.yml. */

const BASE = "http://127.0.0.1:3000";
const KEY = "sk-live0123456789abcdefXYZ";
const bearer = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };
const params = (name: string) => ({ params: Promise.resolve({ name }) });

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-ext-routes-"));
  writeFileSync(path.join(dir, "extensions.yml"), "builtins:\n  secret_masking:\n    patterns: ['sk-[A-Za-z0-9_-]{16,}', 'ACME-[0-9]{6}']\n  logging: {}\n");
  const extensions = new AppExtensions({ dir, logger: recordingLogger() });
  const t = testServices("sqlite", undefined, { extensions });
  await extensions.load();
  return installedTestServices(t);
});

const preview = (body: unknown, name = "secret_masking", headers: Record<string, string> = bearer) =>
  previewRoute.POST(new Request(`${BASE}/api/extensions/${name}/preview`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) }), params(name));
const toggle = (name: string, enabled: boolean) =>
  toggleRoute.PUT(new Request(`${BASE}/api/extensions/${name}`, { method: "PUT", headers: bearer, body: JSON.stringify({ enabled }) }), params(name));

describe("GET /api/extensions", () => {
  it("adds each extension's points by group and all 25 points with the enabled listeners, keeping the existing fields", async () => {
    const response = await listRoute.GET(new Request(`${BASE}/api/extensions`, { headers: bearer }));
    expect(response.status).toBe(200);
    const report = await response.json();
    const masking = report.extensions.find((e: { name: string }) => e.name === "secret_masking");
    expect(masking).toMatchObject({ enabled: true, priority: 90, source: { kind: "builtin" }, counters: { masked: 0 } });
    expect(masking.points).toContain("BEFORE_RESPONSE_SEND");
    expect(masking.groups.find((g: { label: string }) => g.label === "Response")).toEqual({
      group: "response",
      label: "Response",
      points: [{ point: "BEFORE_RESPONSE_SEND", mode: "TRANSFORM", transformKey: "response" }],
    });
    expect(report.pointGroups.map((g: { label: string }) => g.label)).toHaveLength(10);
    const points = report.pointGroups.flatMap((g: { points: { point: string; listeners: string[] }[] }) => g.points);
    expect(points).toHaveLength(25);
    expect(points.find((p: { point: string }) => p.point === "LOOP_COMPLETE")).toEqual({ point: "LOOP_COMPLETE", mode: "TRANSFORM", transformKey: "finalResponse", listeners: ["logging", "secret_masking"] });
    expect(points.find((p: { point: string }) => p.point === "BEFORE_TOOL_EXECUTE")).toMatchObject({ mode: "CANCELLABLE", listeners: ["logging"] });
    expect(points.find((p: { point: string }) => p.point === "BEFORE_LLM_CALL")).toMatchObject({ mode: "CANCELLABLE", listeners: [] });
  });
});

describe("POST /api/extensions/secret_masking/preview", () => {
  it("answers the text as the running secret_masking masks it, extensions.yml's patterns included, and counts nothing", async () => {
    const response = await preview({ text: `key ${KEY} badge ACME-123456` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ masked: "key [masked] badge [masked]", masks: 2, patterns: 2 });
    const report = await (await listRoute.GET(new Request(`${BASE}/api/extensions`, { headers: bearer }))).json();
    expect(report.extensions.find((e: { name: string }) => e.name === "secret_masking")).toMatchObject({ calls: 0, counters: { masked: 0 } });
  });

  it("refuses: no credentials 401, no text 400, over 64 KiB 413, another extension 404, turned off 409", async () => {
    expect((await preview({ text: KEY }, "secret_masking", { "content-type": "application/json" })).status).toBe(401);
    const bad = await preview({});
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues[0].path).toEqual(["text"]);
    const big = await preview({ text: "x".repeat(64 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("64 KiB") });
    expect((await preview({ text: KEY }, "logging")).status).toBe(404);
    expect((await toggle("secret_masking", false)).status).toBe(200);
    const off = await preview({ text: KEY });
    expect(off.status).toBe(409);
    expect((await off.json()).error.message).toMatch(/secret_masking is turned off/);
    expect((await toggle("secret_masking", true)).status).toBe(200);
    expect((await preview({ text: KEY })).status).toBe(200);
  });
});
