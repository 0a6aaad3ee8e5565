import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli as runCli, getJson } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

// The shared knowledge base of a graph run, read over HTTP (GET /api/graphs/instances/{id}/knowledge) and
// with `modexctl knowledge`: what the agent nodes wrote, with the tool-kept changelog naming the writer.

const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
const note = (content: string) => ({ toolCalls: [{ name: "knowledge_base", args: { action: "write", pattern: "findings", content } }] });

let t: TestServices;
let server: RestStandIn;
const workspace = mkdtempSync(path.join(tmpdir(), "modex-kb-"));

beforeAll(() => {
  // release-notes on scripted models: the drafter records a finding, then delivers; the publisher's
  // delivery to __end__ waits for approval, so the run stays paused (its knowledge base is what it is).
  const scripts: Record<string, () => ScriptedProvider> = {
    drafter: () => new ScriptedProvider([note("release 7 fixes the login bug"), deliver("publisher", "- fixed login"), { text: "sent" }]),
    publisher: () => new ScriptedProvider([deliver("__end__", "Release notes: fixed login."), { text: "published" }]),
  };
  t = testServices("sqlite", { provider: ((_c, node) => scripts[node]()) as AgentNodeDeps["provider"], workspace });
  return installedTestServices(t);
});
beforeAll(async () => {
  server = await new RestStandIn().start();
});
afterAll(async () => {
  await server.stop();
  rmSync(workspace, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(server.url, ...argv);
const get = (pathname: string) => getJson(server.url, pathname);

async function runWithFinding(): Promise<string> {
  const { instanceId } = await t.services.orchestrator.create({ spec: "release-notes", input: "fixed login" });
  expect((await t.settled(instanceId)).status).toBe("paused");
  return instanceId;
}

describe("GET /api/graphs/instances/{id}/knowledge", () => {
  it("answers the five files: the finding an agent node wrote, and a changelog entry naming that node", async () => {
    const id = await runWithFinding();
    const { status, body } = await get(`/api/graphs/instances/${id}/knowledge`);
    expect(status).toBe(200);
    const files = body.files as { pattern: string; text: string; lines: number }[];
    expect(body.enabled).toBe(true);
    expect(files.map((f) => f.pattern)).toEqual(["findings", "decisions", "open_questions", "context", "changelog"]);
    expect(files[0].text).toContain("release 7 fixes the login bug");
    expect(files[0].lines).toBeGreaterThan(0);
    expect(files[1]).toMatchObject({ text: "", lines: 0 });
    expect(files[4].text).toContain("drafter");
    expect(files[4].text).toContain("+release 7 fixes the login bug");

    const one = await get(`/api/graphs/instances/${id}/knowledge?file=findings`);
    expect((one.body.files as { pattern: string }[]).map((f) => f.pattern)).toEqual(["findings"]);
  });

  it("answers 404 for an unknown instance and 400 naming `file` for a file that is not one of the five", async () => {
    expect((await get("/api/graphs/instances/nope/knowledge")).status).toBe(404);
    const bad = await get(`/api/graphs/instances/${await runWithFinding()}/knowledge?file=secrets`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('"file"');
  });
});

describe("modexctl knowledge", () => {
  it("prints each file under its header, an empty one as (empty); --file prints one; --json the API's answer", async () => {
    const id = await runWithFinding();
    const all = await cli("knowledge", id);
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/^== findings \(\d+ lines?\) ==\n.*release 7 fixes the login bug/m);
    expect(all.out).toContain("== decisions (0 lines) ==\n(empty)");
    expect(all.out).toMatch(/== changelog \(\d+ lines?\) ==/);

    const one = await cli("knowledge", id, "--file", "open_questions");
    expect(one).toMatchObject({ code: 0, out: "== open_questions (0 lines) ==\n(empty)" });

    const json = await cli("knowledge", id, "--file", "findings", "--json");
    expect(JSON.parse(json.out)).toMatchObject({ enabled: true, files: [{ pattern: "findings" }] });
  });

  it("exits 2 for an unknown instance and 1 for a file that is not one of the five", async () => {
    expect((await cli("knowledge", "nope")).code).toBe(2);
    const bad = await cli("knowledge", await runWithFinding(), "--file", "secrets");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("file");
  });
});
