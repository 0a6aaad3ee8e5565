import { beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import { signBody, SIGNATURE_HEADER } from "@/server/services/triggers/hook-auth";
import { startedByOf } from "@/server/services/triggers/started-by";
import * as schedulesRoute from "@/app/api/triggers/schedules/route";
import * as hooksRoute from "@/app/api/triggers/hooks/route";
import * as rotateRoute from "@/app/api/triggers/hooks/[name]/rotate/route";
import * as hookRoute from "./route";

/** The webhook route and the triggers REST routes, called as Next.js calls them, on a real SQLite file. */

const BASE = "http://127.0.0.1:3000";
let t: TestServices;
beforeAll(() => {
  t = testServices("sqlite");
  return installedTestServices(t);
});

const bearer = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };
const params = (name: string) => ({ params: Promise.resolve({ name }) });
const call = (name: string, body: string, headers: Record<string, string>, query = "") =>
  hookRoute.POST(new Request(`${BASE}/api/hooks/${name}${query}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } }), params(name));

async function makeHook(body: object) {
  const response = await hooksRoute.POST(new Request(`${BASE}/api/triggers/hooks`, { method: "POST", headers: bearer, body: JSON.stringify(body) }));
  expect(response.status).toBe(201);
  return (await response.json()) as { name: string; secret: string; path: string };
}

describe("POST /api/hooks/{name}", () => {
  it("starts a run with the JSON body as input, answered 202 by its signature alone, and records the webhook", async () => {
    const hook = await makeHook({ name: "deploy", spec: "approval-gate" });
    expect(hook.path).toBe("/api/hooks/deploy");
    const body = JSON.stringify("release 9");
    const response = await call("deploy", body, { [SIGNATURE_HEADER]: signBody(hook.secret, body) });
    expect(response.status).toBe(202);
    const { instanceId, hook: named } = (await response.json()) as { instanceId: string; hook: string };
    expect(named).toBe("deploy");
    const instance = await t.settled(instanceId);
    expect(startedByOf(instance)).toEqual({ kind: "webhook", name: "deploy" });
    expect(instance.status).toBe("paused"); // approval-gate waits for its answer
  });

  it("refuses: unknown 404, no or wrong signature 401, the Modex token is not the hook's, over its body limit 413, bad JSON 400", async () => {
    const hook = await makeHook({ name: "small", spec: "counter-loop", maxBodyBytes: 64 });
    expect((await call("nope", "{}", {})).status).toBe(404);
    expect((await call("small", "{}", {})).status).toBe(401);
    expect((await call("small", "{}", { [SIGNATURE_HEADER]: signBody("not-the-secret", "{}") })).status).toBe(401);
    expect((await call("small", "{}", { authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(401);
    const big = JSON.stringify({ text: "x".repeat(100) });
    expect((await call("small", big, { [SIGNATURE_HEADER]: signBody(hook.secret, big) })).status).toBe(413);
    expect((await call("small", "{nope", { [SIGNATURE_HEADER]: signBody(hook.secret, "{nope") })).status).toBe(400);
    // a cross-origin browser POST is still refused before anything else
    expect((await call("small", "{}", { origin: "https://evil.example", [SIGNATURE_HEADER]: signBody(hook.secret, "{}") })).status).toBe(403);
  });

  it("a bearer hook, ?wait= for the result, rotate retires the secret, the rate limit answers 429 with Retry-After", async () => {
    const hook = await makeHook({ name: "count", spec: "counter-loop", auth: "bearer", ratePerMinute: 3 });
    const waited = await call("count", "{}", { authorization: `Bearer ${hook.secret}` }, "?wait=10");
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ status: "completed", finished: true, hook: "count" });
    const rotated = (await (await rotateRoute.POST(new Request(`${BASE}/api/triggers/hooks/count/rotate`, { method: "POST", headers: bearer }), params("count"))).json()) as { secret: string };
    expect((await call("count", "{}", { authorization: `Bearer ${hook.secret}` })).status).toBe(401);
    expect((await call("count", "{}", { authorization: `Bearer ${rotated.secret}` })).status).toBe(202);
    const limited = await call("count", "{}", { authorization: `Bearer ${rotated.secret}` });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const list = await (await hooksRoute.GET(new Request(`${BASE}/api/triggers/hooks`, { headers: bearer }))).text();
    expect(list).not.toContain(rotated.secret);
  });

  it("a retry with the first call's Idempotency-Key gets its answer, marked Idempotent-Replayed, and starts nothing", async () => {
    const hook = await makeHook({ name: "retried", spec: "counter-loop" });
    const body = '{"n":1}';
    const headers = { [SIGNATURE_HEADER]: signBody(hook.secret, body), "idempotency-key": "delivery-42" };
    const first = await call("retried", body, headers);
    const again = await call("retried", body, headers);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect([first.headers.get("idempotent-replayed"), again.headers.get("idempotent-replayed")]).toEqual([null, "true"]);
    const [a, b] = (await Promise.all([first.json(), again.json()])) as { instanceId: string }[];
    expect(b).toEqual(a);
    expect(Object.keys(a).sort()).toEqual(["hook", "instanceId", "status", "version"]);
  });

  it("the triggers REST routes want the Modex token; a schedule made over REST lists its next fires", async () => {
    expect((await hooksRoute.GET(new Request(`${BASE}/api/triggers/hooks`))).status).toBe(401);
    const made = await schedulesRoute.POST(
      new Request(`${BASE}/api/triggers/schedules`, { method: "POST", headers: bearer, body: JSON.stringify({ name: "weekday", spec: "counter-loop", cron: "0 9 * * 1-5", timezone: "America/New_York" }) }),
    );
    expect(made.status).toBe(200);
    const listed = (await (await schedulesRoute.GET(new Request(`${BASE}/api/triggers/schedules`, { headers: bearer }))).json()) as { name: string; nextFires: number[] }[];
    expect(listed[0].name).toBe("weekday");
    expect(listed[0].nextFires).toHaveLength(5);
    const bad = await schedulesRoute.POST(new Request(`${BASE}/api/triggers/schedules`, { method: "POST", headers: bearer, body: JSON.stringify({ name: "x", spec: "counter-loop", cron: "nope" }) }));
    expect(bad.status).toBe(400);
    // A misspelt option (tz for timezone) is refused, not ignored: the schedule would fire in UTC.
    const misspelt = await schedulesRoute.POST(
      new Request(`${BASE}/api/triggers/schedules`, { method: "POST", headers: bearer, body: JSON.stringify({ name: "paris", spec: "counter-loop", cron: "0 9 * * *", tz: "Europe/Paris" }) }),
    );
    expect(misspelt.status).toBe(400);
    expect(await misspelt.text()).toMatch(/Unrecognized key.*tz/);
    const made2 = await hooksRoute.POST(new Request(`${BASE}/api/triggers/hooks`, { method: "POST", headers: bearer, body: JSON.stringify({ name: "typo", spec: "counter-loop", ratePerMinut: 5 }) }));
    expect(made2.status).toBe(400);
  });
});
