import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { quickSpec } from "@/server/services/testing/run-specs";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import { RestStandIn } from "./testing/rest-stand-in";

/** modexctl's filtered delete, run as a shell runs it, against the REST routes on real services (SQLite). */

const CLI = path.resolve(import.meta.dirname, "modexctl.mjs");
const run = promisify(execFile);

async function modexctl(url: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, "--url", url], { env: { ...process.env, MODEX_TOKEN: TEST_TOKEN } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const QUICK = quickSpec("bulk-quick");

/** One more than the preview's page (500 rows): the count must come from the server's total. */
const RUNS = 501;

describe("modexctl delete with a filter", () => {
  let t: TestServices;
  let server: RestStandIn;

  beforeAll(() => {
    t = testServices();
    return installedTestServices(t);
  });
  beforeAll(async () => {
    await t.services.specs.save(QUICK);
    for (let i = 0; i < RUNS; i++) await t.settled((await t.services.orchestrator.create({ spec: "bulk-quick", input: i })).instanceId);
    server = await new RestStandIn().start();
  }, 120_000);
  afterAll(() => server.stop());

  it("previews the exact number of matches when they fill more than one page", async () => {
    const preview = await modexctl(server.url, "delete", "--graph", "bulk-quick", "--status", "completed");
    expect(preview.code, preview.stderr).toBe(1);
    expect(preview.stdout).toContain(`would delete ${RUNS} instances (running ones are left); the first 500 of them are listed; nothing done`);
    expect(preview.stdout.split("\n").filter((line) => line.includes("bulk-quick"))).toHaveLength(500);
    expect((await t.services.instances.page({ graph: "bulk-quick" })).total).toBe(RUNS);

    const few = await modexctl(server.url, "delete", "--graph", "bulk-quick", "--older-than", "1d");
    expect(few.stdout).toContain("would delete 0 instances (running ones are left); nothing done");
  });
});
