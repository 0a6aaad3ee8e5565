import { beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as instanceRoute from "./instances/[id]/route";
import * as answerRoute from "./instances/[id]/answer/route";
import * as approveRoute from "./instances/[id]/approve/route";
import * as denyRoute from "./instances/[id]/deny/route";
import * as deliverRoute from "./instances/[id]/deliver/route";
import * as eventsRoute from "./instances/[id]/events/route";
import * as usageRoute from "./instances/[id]/usage/route";
import * as knowledgeRoute from "./instances/[id]/knowledge/route";
import * as approvalsRoute from "./instances/[id]/approvals/route";
import * as traceRoute from "./instances/[id]/trace/route";
import * as pauseRoute from "./instances/[id]/pause/route";
import * as recoverRoute from "./instances/[id]/recover/route";
import * as reinvokeRoute from "./instances/[id]/reinvoke/route";
import * as resumeRoute from "./instances/[id]/resume/route";
import * as stopRoute from "./instances/[id]/stop/route";
import * as pointRoute from "./instances/[id]/point/route";
import * as forkRoute from "./instances/[id]/fork/route";
import * as instancesRoute from "./instances/route";
import * as specsRoute from "./specs/route";
import * as validateSpecRoute from "./specs/validate/route";
import * as nodeTypesRoute from "./node-types/route";
import * as bulkRoute from "./instances/bulk/route";
import * as loginRoute from "../auth/login/route";
import * as logoutRoute from "../auth/logout/route";
import * as sessionRoute from "../auth/session/route";

/** REST handlers called directly with Request objects: 401 / 400 (issue paths) / 403 / 200 for every route. */

type Handler = (request: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface Row {
  handler: Handler;
  method: "GET" | "POST";
  path: string;
  /** Arguments that fail the schema (a body for POST, a query for GET) and the issue path they produce. */
  bad: { body?: unknown; query?: string; path: (string | number)[] } | null;
}

const ROWS: Record<string, Row> = {
  "GET /api/graphs/specs": { handler: specsRoute.GET, method: "GET", path: "/api/graphs/specs", bad: null },
  // The YAML bodies are read as text, not by a schema: their errors are the spec's located issues (specs-as-code.int.test.ts).
  "POST /api/graphs/specs": { handler: specsRoute.POST, method: "POST", path: "/api/graphs/specs", bad: null },
  "POST /api/graphs/specs/validate": { handler: validateSpecRoute.POST, method: "POST", path: "/api/graphs/specs/validate", bad: null },
  "GET /api/graphs/node-types": { handler: nodeTypesRoute.GET, method: "GET", path: "/api/graphs/node-types", bad: null },
  "POST /api/graphs/instances/bulk": { handler: bulkRoute.POST, method: "POST", path: "/api/graphs/instances/bulk", bad: { body: { action: "explode", ids: ["1"] }, path: ["action"] } },
  "GET /api/graphs/instances": { handler: instancesRoute.GET, method: "GET", path: "/api/graphs/instances", bad: { query: "status=bogus", path: ["status"] } },
  "POST /api/graphs/instances": { handler: instancesRoute.POST, method: "POST", path: "/api/graphs/instances", bad: { body: { spec: 3 }, path: ["spec"] } },
  "GET /api/graphs/instances/{id}": { handler: instanceRoute.GET, method: "GET", path: "/api/graphs/instances/ID", bad: { query: "version=0", path: ["version"] } },
  "GET /api/graphs/instances/{id}/events": { handler: eventsRoute.GET, method: "GET", path: "/api/graphs/instances/ID/events", bad: { query: "after=-4", path: ["after"] } },
  "GET /api/graphs/instances/{id}/usage": { handler: usageRoute.GET, method: "GET", path: "/api/graphs/instances/ID/usage", bad: { query: "version=0", path: ["version"] } },
  "GET /api/graphs/instances/{id}/knowledge": { handler: knowledgeRoute.GET, method: "GET", path: "/api/graphs/instances/ID/knowledge", bad: { query: "file=secrets", path: ["file"] } },
  "GET /api/graphs/instances/{id}/approvals": { handler: approvalsRoute.GET, method: "GET", path: "/api/graphs/instances/ID/approvals", bad: null },
  "GET /api/graphs/instances/{id}/trace": { handler: traceRoute.GET, method: "GET", path: "/api/graphs/instances/ID/trace", bad: { query: "node=&turn=t", path: ["node"] } },
  "POST /api/graphs/instances/{id}/pause": { handler: pauseRoute.POST, method: "POST", path: "/api/graphs/instances/ID/pause", bad: null },
  "POST /api/graphs/instances/{id}/stop": { handler: stopRoute.POST, method: "POST", path: "/api/graphs/instances/ID/stop", bad: null },
  "POST /api/graphs/instances/{id}/resume": { handler: resumeRoute.POST, method: "POST", path: "/api/graphs/instances/ID/resume", bad: null },
  "POST /api/graphs/instances/{id}/deliver": { handler: deliverRoute.POST, method: "POST", path: "/api/graphs/instances/ID/deliver", bad: { body: { content: 1 }, path: ["node"] } },
  "POST /api/graphs/instances/{id}/answer": { handler: answerRoute.POST, method: "POST", path: "/api/graphs/instances/ID/answer", bad: { body: {}, path: ["value"] } },
  "POST /api/graphs/instances/{id}/reinvoke": { handler: reinvokeRoute.POST, method: "POST", path: "/api/graphs/instances/ID/reinvoke", bad: { body: [], path: [] } },
  "GET /api/graphs/instances/{id}/point": { handler: pointRoute.GET, method: "GET", path: "/api/graphs/instances/ID/point", bad: { query: "event=0", path: ["event"] } },
  "POST /api/graphs/instances/{id}/fork": { handler: forkRoute.POST, method: "POST", path: "/api/graphs/instances/ID/fork", bad: { body: { eventId: "x" }, path: ["eventId"] } },
  "POST /api/graphs/instances/{id}/recover": { handler: recoverRoute.POST, method: "POST", path: "/api/graphs/instances/ID/recover", bad: null },
  "POST /api/graphs/instances/{id}/approve": { handler: approveRoute.POST, method: "POST", path: "/api/graphs/instances/ID/approve", bad: { body: { reason: 3 }, path: ["reason"] } },
  "POST /api/graphs/instances/{id}/deny": { handler: denyRoute.POST, method: "POST", path: "/api/graphs/instances/ID/deny", bad: { body: { transactionId: "" }, path: ["transactionId"] } },
};

const BASE = "http://127.0.0.1:3000";
const BEARER = { authorization: `Bearer ${TEST_TOKEN}` };

let t: TestServices;
beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});

function call(row: Row, args: { id?: string; headers?: Record<string, string>; body?: unknown; query?: string } = {}) {
  const id = args.id ?? "ID";
  const url = `${BASE}${row.path.replace("ID", id)}${args.query ? `?${args.query}` : ""}`;
  const init: RequestInit = { method: row.method, headers: { host: "127.0.0.1:3000", ...args.headers } };
  if (row.method === "POST") {
    init.body = args.body === undefined ? "{}" : JSON.stringify(args.body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  return row.handler(new Request(url, init), { params: Promise.resolve({ id }) });
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string; issues?: { path: (string | number)[] }[] } }).error;
}

describe.each(Object.entries(ROWS))("%s", (_name, row) => {
  it("answers 401 without credentials, and with a wrong token", async () => {
    expect((await call(row)).status).toBe(401);
    expect((await call(row, { headers: { authorization: "Bearer wrong-token" } })).status).toBe(401);
    expect((await errorOf(await call(row))).code).toBe("UNAUTHORIZED");
  });

  if (row.bad) it("answers 400 with the issue path on bad arguments", async () => {
    const response = await call(row, { headers: BEARER, body: row.bad!.body, query: row.bad!.query });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.issues?.map((i) => i.path)).toContainEqual(row.bad!.path);
  });

  if (row.method === "POST") it("refuses a cross-origin request with 403, even with a valid token", async () => {
    const response = await call(row, { headers: { ...BEARER, origin: "https://evil.example" } });
    expect(response.status).toBe(403);
  });

  if (row.path.includes("ID")) it("answers 404 for an unknown instance", async () => {
    const body = row.path.endsWith("fork") ? { eventId: 1 } : row.path.endsWith("deliver") ? { node: "x", content: 1 } : row.path.endsWith("answer") ? { value: 1 } : /(approve|deny)$/.test(row.path) ? {} : { input: 1 };
    const query = row.path.endsWith("trace") ? "node=n&turn=t" : undefined;
    expect((await call(row, { headers: BEARER, id: "404", body, query })).status).toBe(404);
  });
});

describe("a body field a route does not know", () => {
  it("is refused with 400 naming it, and nothing is done (a misspelt option is never silently ignored)", async () => {
    const cases: [Row, unknown][] = [
      [ROWS["POST /api/graphs/instances"], { spec: "counter-loop", inputs: 5 }],
      [ROWS["POST /api/graphs/instances/{id}/fork"], { eventId: 1, State: { count: 4 } }],
      [ROWS["POST /api/graphs/instances/{id}/deliver"], { node: "tick", content: 1, contents: 2 }],
      [ROWS["POST /api/graphs/instances/{id}/answer"], { value: "yes", by: "me" }],
      [ROWS["POST /api/graphs/instances/{id}/reinvoke"], { input: 1, breakpoint: ["tick"] }],
    ];
    const before = (await t.services.orchestrator.coordinator.instances.list({ limit: 500 })).length;
    for (const [row, body] of cases) {
      const response = await call(row, { headers: BEARER, body });
      expect(response.status, row.path).toBe(400);
      const misspelt = Object.keys(body as object).at(-1)!;
      expect(JSON.stringify((await errorOf(response)).issues), row.path).toMatch(new RegExp(`Unrecognized key.*${misspelt}`));
    }
    expect((await t.services.orchestrator.coordinator.instances.list({ limit: 500 })).length).toBe(before);
  });
});

describe("REST flow with a bearer token", () => {
  it("lists specs, creates an instance (201), reads it, answers it, and pages its events", async () => {
    const specs = (await (await call(ROWS["GET /api/graphs/specs"], { headers: BEARER })).json()) as { name: string }[];
    expect(specs.map((s) => s.name)).toEqual(expect.arrayContaining(["approval-gate", "map-reduce"]));

    const created = await call(ROWS["POST /api/graphs/instances"], { headers: { ...BEARER, origin: BASE }, body: { spec: "approval-gate", input: "r1" } });
    expect(created.status).toBe(201);
    const { instanceId } = (await created.json()) as { instanceId: string };
    await t.settled(instanceId);

    const view = (await (await call(ROWS["GET /api/graphs/instances/{id}"], { id: instanceId, headers: BEARER })).json()) as {
      summary: { status: string };
      waitingFor: { prompt: string };
    };
    expect(view.summary.status).toBe("paused");
    expect(view.waitingFor.prompt).toMatch(/Approve/);

    const resume = await call(ROWS["POST /api/graphs/instances/{id}/resume"], { id: instanceId, headers: BEARER });
    expect(resume.status).toBe(409);
    const answer = await call(ROWS["POST /api/graphs/instances/{id}/answer"], { id: instanceId, headers: BEARER, body: { value: "yes" } });
    expect(answer.status).toBe(200);
    await t.settled(instanceId);

    const list = (await (await call(ROWS["GET /api/graphs/instances"], { headers: BEARER, query: "status=completed" })).json()) as { instanceId: string }[];
    expect(list.map((i) => i.instanceId)).toContain(instanceId);
    const events = (await (await call(ROWS["GET /api/graphs/instances/{id}/events"], { id: instanceId, headers: BEARER })).json()) as { id: number }[];
    const tail = (await (await call(ROWS["GET /api/graphs/instances/{id}/events"], { id: instanceId, headers: BEARER, query: `after=${events[3].id}` })).json()) as { id: number }[];
    expect(tail[0].id).toBe(events[4].id);
    expect(tail).toHaveLength(events.length - 4);
  });

  it("Idempotency-Key: a repeated create answers 201 with the first body and Idempotent-Replayed; another body with it is 422", async () => {
    const headers = { ...BEARER, "idempotency-key": "rest-key-1" };
    const first = await call(ROWS["POST /api/graphs/instances"], { headers, body: { spec: "map-reduce", input: ["ab"] } });
    const again = await call(ROWS["POST /api/graphs/instances"], { headers, body: { spec: "map-reduce", input: ["ab"] } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const other = await call(ROWS["POST /api/graphs/instances"], { headers, body: { spec: "map-reduce", input: ["cd"] } });
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe("IDEMPOTENCY_MISMATCH");
    await t.services.orchestrator.idle();
  });

  it("recover answers 409 for an instance that is not crashed", async () => {
    const created = (await (await call(ROWS["POST /api/graphs/instances"], { headers: BEARER, body: { spec: "map-reduce" } })).json()) as { instanceId: string };
    await t.settled(created.instanceId);
    const response = await call(ROWS["POST /api/graphs/instances/{id}/recover"], { id: created.instanceId, headers: BEARER });
    expect(response.status).toBe(409);
    expect((await errorOf(response)).message).toMatch(/only a crashed instance is recovered/);
  });

  it("a body that is not JSON is 400", async () => {
    const response = await instancesRoute.POST(
      new Request(`${BASE}/api/graphs/instances`, { method: "POST", headers: { ...BEARER, "content-type": "application/json" }, body: "{nope" }),
    );
    expect(response.status).toBe(400);
  });
});

describe("auth routes", () => {
  const post = (handler: (r: Request) => Response | Promise<Response>, body: unknown, headers: Record<string, string> = {}) =>
    handler(new Request(`${BASE}/api/auth/x`, { method: "POST", headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));

  it("login trades the token for an httpOnly SameSite=Lax cookie that then authenticates REST", async () => {
    expect((await post(loginRoute.POST, { token: "wrong" })).status).toBe(401);
    expect((await post(loginRoute.POST, { tok: TEST_TOKEN })).status).toBe(400);
    expect((await post(loginRoute.POST, { token: TEST_TOKEN }, { origin: "https://evil.example" })).status).toBe(403);
    const ok = await post(loginRoute.POST, { token: TEST_TOKEN }, { origin: BASE });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^modex_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const pair = cookie.split(";")[0];
    expect((await call(ROWS["GET /api/graphs/specs"], { headers: { cookie: pair } })).status).toBe(200);
    const session = await sessionRoute.GET(new Request(`${BASE}/api/auth/session`, { headers: { cookie: pair } }));
    expect(await session.json()).toEqual({ authenticated: true, via: "cookie" });
  });

  it("an answer sent with the session cookie is recorded with that sign-in session's ref, not the cookie", async () => {
    const ok = await post(loginRoute.POST, { token: TEST_TOKEN }, { origin: BASE });
    const cookie = ok.headers.get("set-cookie")!.split(";")[0];
    const created = await call(ROWS["POST /api/graphs/instances"], { headers: BEARER, body: { spec: "approval-gate", input: "r-session" } });
    const { instanceId } = (await created.json()) as { instanceId: string };
    await t.settled(instanceId);
    expect((await call(ROWS["POST /api/graphs/instances/{id}/answer"], { id: instanceId, headers: { cookie }, body: { value: "yes" } })).status).toBe(200);
    await t.settled(instanceId);
    const auth = await t.services.auth.authenticate(new Headers({ cookie }));
    const view = (await (await call(ROWS["GET /api/graphs/instances/{id}"], { id: instanceId, headers: BEARER })).json()) as { summary: { answers: unknown[] } };
    expect(view.summary.answers).toEqual([expect.objectContaining({ value: "yes", by: "session", session: auth && "session" in auth ? auth.session : "?" })]);
    expect(JSON.stringify(view.summary.answers)).not.toContain(decodeURIComponent(cookie.split("=")[1]));
  });

  it("the printed login link sets the cookie and redirects to a local path only", async () => {
    const ok = await loginRoute.GET(new Request(`${BASE}/api/auth/login?token=${TEST_TOKEN}&next=/instances`));
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/instances");
    expect(ok.headers.get("set-cookie")).toMatch(/modex_session=/);
    const open = await loginRoute.GET(new Request(`${BASE}/api/auth/login?token=${TEST_TOKEN}&next=//evil.example`));
    expect(open.headers.get("location")).toBe("/");
    const bad = await loginRoute.GET(new Request(`${BASE}/api/auth/login?token=nope`));
    expect(bad.headers.get("location")).toMatch(/^\/login\?error=invalid/);
    expect(bad.headers.get("set-cookie")).toBeNull();
  });

  it("logout clears the cookie", async () => {
    const out = await post(logoutRoute.POST, {});
    expect(out.headers.get("set-cookie")).toMatch(/modex_session=;.*Max-Age=0/);
  });
});
