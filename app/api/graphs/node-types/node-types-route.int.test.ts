import { beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices } from "@/server/services/testing/test-services";
import type { NodeTypeInfo } from "@/shared/graph-node-types";
import * as nodeTypesRoute from "./route";

/** GET /api/graphs/node-types over the app's real services: the app's registry, built-ins and `agent`. */
const BASE = "http://127.0.0.1:3000";

beforeAll(() => installedTestServices(testServices()));

const get = (headers: Record<string, string> = {}) => nodeTypesRoute.GET(new Request(`${BASE}/api/graphs/node-types`, { headers: { host: "127.0.0.1:3000", ...headers } }));

describe("GET /api/graphs/node-types", () => {
  it("lists every node type of the app's registry with its description and config fields", async () => {
    const response = await get({ authorization: `Bearer ${TEST_TOKEN}` });
    expect(response.status).toBe(200);
    const { nodeTypes } = (await response.json()) as { nodeTypes: NodeTypeInfo[] };
    expect(nodeTypes.map((t) => t.name).sort()).toEqual(["agent", "delay", "fan_out", "function", "human_input", "join", "subgraph"]);
    for (const t of nodeTypes) expect(t.description).toMatch(/^[^\n]{20,}$/);

    const byName = new Map(nodeTypes.map((t) => [t.name, t]));
    const agent = byName.get("agent")!.config!.fields.find((f) => f.name === "agent");
    expect(agent).toMatchObject({ refersTo: "agent", required: false, type: "string" });
    expect(byName.get("human_input")!.config!.fields.find((f) => f.name === "prompt")).toMatchObject({ required: true, description: expect.stringMatching(/human/) });
    expect(byName.get("fan_out")!.config!.fields.find((f) => f.name === "targets")).toMatchObject({ type: "string[]", refersTo: "node" });
    expect(byName.get("join")!.configSchema).toMatchObject({ type: "object", properties: { reduce: { enum: expect.arrayContaining(["sum", "list"]) } } });

    // The function node's config is a union on `op`: each op's own keys, and the keys of all of them.
    const fn = byName.get("function")!.config!;
    expect(fn.discriminator?.key).toBe("op");
    expect(fn.discriminator?.variants.map((v) => v.value)).toEqual(["identity", "template", "set_state", "increment", "map", "route_if"]);
    const routeIf = fn.discriminator!.variants.find((v) => v.value === "route_if")!;
    expect(routeIf.fields.filter((f) => f.refersTo === "node").map((f) => f.name)).toEqual(["then", "else"]);
    expect(fn.fields.find((f) => f.name === "op")).toMatchObject({ required: true, values: ["identity", "template", "set_state", "increment", "map", "route_if"] });
  });

  it("answers 401 without credentials", async () => {
    expect((await get()).status).toBe(401);
  });
});
