import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as clusterRoute from "@/app/api/cluster/route";
import { main } from "@/bin/modexctl.mjs";
import { RestStandIn } from "@/bin/testing/rest-stand-in";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { installedTestServices } from "./testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "./testing/test-services";

/** The cluster status on SQLite: one process runs everything, and every way of reading it says so. */

const SLOW_SPEC = `name: cluster-status-slow
version: "1"
nodes:
  - { name: wait, node_type: delay, config: { ms: 1500 } }
edges:
  - { from: __start__, to: wait }
  - { from: wait, to: __end__ }
`;

describe("cluster status on SQLite", () => {
  let t: TestServices;
  let server: RestStandIn;
  beforeAll(() => {
    t = testServices();
    return installedTestServices(t);
  });
  beforeAll(async () => {
    await t.services.specs.save(SLOW_SPEC);
    server = await new RestStandIn().start();
  });
  afterAll(() => server.stop());

  const get = (headers: Record<string, string>) => clusterRoute.GET(new Request("http://127.0.0.1:3000/api/cluster", { headers: { host: "127.0.0.1:3000", ...headers } }));

  it("GET /api/cluster answers { mode: single } with this process and the instances running in it; 401 without credentials", async () => {
    expect((await get({})).status).toBe(401);
    const idle = await (await get({ authorization: `Bearer ${TEST_TOKEN}` })).json();
    expect(idle).toMatchObject({ mode: "single", process: { id: t.services.executor.id, host: t.services.executor.host, pid: process.pid, running: 0 } });
    expect(Date.parse(idle.at)).not.toBeNaN();
    expect(Date.parse(idle.process.startedAt)).toBeLessThanOrEqual(Date.parse(idle.at));

    const { instanceId } = await t.services.orchestrator.create({ spec: "cluster-status-slow", input: null });
    const busy = await (await get({ authorization: `Bearer ${TEST_TOKEN}` })).json();
    expect(busy.process.running).toBe(1);
    await t.settled(instanceId);
    expect((await (await get({ authorization: `Bearer ${TEST_TOKEN}` })).json()).process.running).toBe(0);
  });

  it("tRPC cluster.status answers the same for a signed-in caller", async () => {
    const caller = createCaller(createTRPCContext({ headers: new Headers({ authorization: `Bearer ${TEST_TOKEN}` }), services: t.services }));
    expect(await caller.cluster.status()).toMatchObject({ mode: "single", process: { id: t.services.executor.id, pid: process.pid } });
  });

  it("modexctl cluster says it is a single process and how to scale out; --json prints the API's answer", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (x: string) => out.push(x), err: (x: string) => err.push(x) };
    expect(await main(["cluster", "--url", server.url], io, { MODEX_TOKEN: TEST_TOKEN }), err.join("\n")).toBe(0);
    expect(out.join("\n")).toMatch(new RegExp(`^single process \\(SQLite\\): ${t.services.executor.host}:${process.pid} serves the app`));
    expect(out.join("\n")).toMatch(/to scale out: DATABASE_URL=postgresql/);
    out.length = 0;
    expect(await main(["cluster", "--json", "--url", server.url], io, { MODEX_TOKEN: TEST_TOKEN })).toBe(0);
    expect(JSON.parse(out.join("\n"))).toMatchObject({ mode: "single", process: { id: t.services.executor.id } });
  });
});
