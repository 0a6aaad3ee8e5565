import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { quickSpec } from "@/server/services/testing/run-specs";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

// `modexctl ls` filters as the web list and GET /api/graphs/instances do: graph, waiting, search, age,
// archived; over the real route handlers on SQLite services.

let t: TestServices;
let server: RestStandIn;
const ids: Record<string, string> = {};

beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});
beforeAll(async () => {
  await t.services.specs.save(quickSpec("ls-quick"));
  for (const input of ["alpha run", "beta run", "gamma run"]) ids[input] = (await t.services.orchestrator.create({ spec: "ls-quick", input })).instanceId;
  ids.waiting = (await t.services.orchestrator.create({ spec: "approval-gate", input: "ls waits" })).instanceId;
  for (const id of Object.values(ids)) await t.settled(id);
  await t.services.control.archive(ids["gamma run"]);
  server = await new RestStandIn().start();
});
afterAll(() => server.stop());

const ls = (...argv: string[]) => cli(server.url, "ls", ...argv);
const listed = async (...argv: string[]) => {
  const res = await ls(...argv, "--json");
  expect(res.code, res.err).toBe(0);
  return (JSON.parse(res.out) as { instanceId: string }[]).map((i) => i.instanceId).sort();
};

describe("modexctl ls filters", () => {
  it("--graph lists that spec's runs (archived ones hidden), --archived only|include the hidden ones", async () => {
    expect(await listed("--graph", "ls-quick")).toEqual([ids["alpha run"], ids["beta run"]].sort());
    expect(await listed("--graph", "ls-quick", "--archived", "only")).toEqual([ids["gamma run"]]);
    expect(await listed("--graph", "ls-quick", "--archived", "include")).toEqual([ids["alpha run"], ids["beta run"], ids["gamma run"]].sort());
  });

  it("--waiting lists runs that wait for a person, with what for; --search matches the input; --older-than the age", async () => {
    const waiting = await ls("--waiting");
    expect(waiting.out).toContain(ids.waiting);
    expect(waiting.out).toMatch(/paused \(waiting for input\)/);
    expect(waiting.out).not.toContain(ids["alpha run"]);
    expect(await listed("--search", "beta")).toEqual([ids["beta run"]]);
    expect(await listed("--graph", "ls-quick", "--older-than", "1d")).toEqual([]);
    expect(await listed("--graph", "ls-quick", "--status", "completed")).toEqual([ids["alpha run"], ids["beta run"]].sort());
  });

  it("refuses a value the API does not take (exit 1, naming the option)", async () => {
    const bad = await ls("--archived", "nope");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("archived");
    expect((await ls("--older-than", "soon")).code).toBe(1);
  });
});
