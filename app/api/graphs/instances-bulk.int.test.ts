import { beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as bulkRoute from "./instances/bulk/route";

/** POST /api/graphs/instances/bulk, its handler called with Request objects as Next.js calls it. */

const BEARER = { authorization: `Bearer ${TEST_TOKEN}` };

let t: TestServices;
beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});

function post(body: unknown, headers: Record<string, string> = BEARER) {
  const init = { method: "POST", headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
  return bulkRoute.POST(new Request("http://127.0.0.1:3000/api/graphs/instances/bulk", init), { params: Promise.resolve({}) });
}

async function run(spec: string): Promise<string> {
  const { instanceId } = await t.services.orchestrator.create({ spec, input: null });
  await t.settled(instanceId);
  return instanceId;
}

describe("POST /api/graphs/instances/bulk", () => {
  it("answers 401 without credentials and 403 cross-origin", async () => {
    expect((await post({ action: "archive", ids: ["x"] }, {})).status).toBe(401);
    expect((await post({ action: "archive", ids: ["x"] }, { ...BEARER, origin: "https://evil.example" })).status).toBe(403);
  });

  it("answers 400 naming the field on bad arguments, and does nothing", async () => {
    const id = await run("map-reduce");
    const cases: [unknown, (string | number)[]][] = [
      [{ action: "purge", ids: [id] }, ["action"]],
      [{ action: "delete" }, ["ids"]],
      [{ action: "delete", ids: [id], filter: {} }, ["ids"]],
      [{ action: "delete", filter: { status: "bogus" } }, ["filter", "status"]],
      [{ action: "delete", filter: { graf: "map-reduce" } }, ["filter"]],
    ];
    for (const [body, path] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; issues: { path: (string | number)[] }[] } };
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.issues.map((i) => i.path)).toContainEqual(path);
    }
    expect((await t.services.instances.get({ instanceId: id })).summary.instanceId).toBe(id);
    await t.services.control.delete(id);
  });

  it("archives by ids, deletes by filter (skipping a running run), and says what it did", async () => {
    const a = await run("map-reduce");
    const b = await run("map-reduce");
    const c = await run("counter-loop");
    const archived = await post({ action: "archive", ids: [a, b] });
    expect(archived.status).toBe(200);
    expect(await archived.json()).toEqual({ action: "archive", matched: 2, done: 2, skipped: [] });
    expect((await t.services.instances.page({ archived: "only" })).total).toBe(2);

    const slow = await t.services.orchestrator.create({ spec: "paced-pipeline", input: null });
    const deleted = await post({ action: "delete", filter: { archived: "include" } });
    expect(deleted.status).toBe(200);
    const body = (await deleted.json()) as { matched: number; done: number; skipped: { instanceId: string; reason: string }[] };
    expect(body).toMatchObject({ matched: 4, done: 3 });
    expect(body.skipped).toEqual([expect.objectContaining({ instanceId: slow.instanceId, reason: "running" })]);
    expect((await t.services.instances.page({ archived: "include" })).items.map((r) => r.instanceId)).toEqual([slow.instanceId]);
    expect([a, b, c]).not.toContain(slow.instanceId);
    await t.services.control.stop(slow.instanceId);
    await t.settled(slow.instanceId);
  });
});
