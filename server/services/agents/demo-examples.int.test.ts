import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_MODEL_NAME } from "./model-providers";
import { EXAMPLE_SPECS_DIR, testServices } from "../testing/test-services";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const workspace = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-demo-"));
  dirs.push(dir);
  return dir;
};
const demo = () => ({ model: { baseURL: "", model: DEMO_MODEL_NAME }, workspace: workspace() });
const kbDir = (ws: string, instanceId: string) => path.join(ws, ".modex/graphs/instances", instanceId);

describe("the offline demo model runs the example agents end to end", () => {
  it("review-cycle: the reviewer asks for one revision, then approves the second draft; both use the knowledge base", async () => {
    const agents = demo();
    await using t = testServices("sqlite", agents);
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("completed");
    const view = await t.services.instances.get({ instanceId });
    const result = String(view.summary.result?.[0]?.content);
    expect(result).toContain('Approved draft 2 of "Write add(a, b)."');
    expect(view.invocations.filter((i) => i.node === "coder")).toHaveLength(2);
    expect(view.invocations.filter((i) => i.node === "reviewer")).toHaveLength(2);
    const changelog = readFileSync(path.join(kbDir(agents.workspace, instanceId), "changelog.md"), "utf8");
    expect(changelog).toContain("· coder · ");
    expect(readFileSync(path.join(kbDir(agents.workspace, instanceId), "decisions.md"), "utf8")).toContain("- coder: Write add(a, b).");
    // Every agent turn left its spans (GenAI conventions) in agent_spans, committed: a second connection reads them.
    const db = new Database(t.databaseFile!, { readonly: true });
    const spans = db.prepare("SELECT name, session_id FROM agent_spans WHERE session_id LIKE ? ORDER BY start_time").all(`${instanceId}:%`) as { name: string; session_id: string }[];
    db.close();
    expect(new Set(spans.map((s) => s.session_id))).toEqual(new Set([`${instanceId}:coder`, `${instanceId}:reviewer`]));
    expect(spans.filter((s) => s.name === "invoke_agent coder")).toHaveLength(2);
    expect(spans.some((s) => s.name.startsWith("execute_tool deliver") || s.name.includes("deliver"))).toBe(true);
  });

  it("research-team: three researchers in parallel, the writer joins all three", async () => {
    const agents = demo();
    await using t = testServices("sqlite", agents);
    const { instanceId } = await t.services.orchestrator.create({ spec: "research-team", input: "Why is the sky blue?" });
    expect((await t.settled(instanceId)).status).toBe("completed");
    const view = await t.services.instances.get({ instanceId });
    const answer = String(view.summary.result?.[0]?.content);
    for (const r of ["researcher_history", "researcher_practice", "researcher_risks"]) expect(answer).toContain(`from ${r}:`);
    expect(view.invocations.filter((i) => i.node === "writer")).toHaveLength(1);
    expect(readFileSync(path.join(kbDir(agents.workspace, instanceId), "findings.md"), "utf8").match(/- researcher_/g)).toHaveLength(3);
  });

  it("every example graph completes (or waits for its human) with the demo model", async () => {
    await using t = testServices("sqlite", demo());
    const names = readdirSync(EXAMPLE_SPECS_DIR).filter((f) => f.endsWith(".yml")).map((f) => f.replace(/\.yml$/, ""));
    for (const spec of names) {
      const { instanceId } = await t.services.orchestrator.create({ spec, input: "demo input" });
      const status = (await t.settled(instanceId)).status;
      expect([spec, status]).toEqual([spec, spec === "approval-gate" || spec === "release-notes" ? "paused" : "completed"]);
    }
  });

  it("the chat talks to the demo model: a plain echo, and a run_graph that waits for approval", async () => {
    await using t = testServices("sqlite", demo());
    expect(t.services.chat.status()).toMatchObject({ configured: true, model: `${DEMO_MODEL_NAME} (offline demo model)`, defaultAgent: "assistant" });
    const { sessionId } = await t.services.chat.send({ message: "hello" });
    await t.services.chat.idle(sessionId);
    const done = (await t.services.chat.events(sessionId)).find((e) => e.type === "turn_completed");
    expect(done && done.type === "turn_completed" && done.content).toBe("You said: hello. Modex is listening.");
    const run = await t.services.chat.send({ message: "run counter-loop" });
    await expect.poll(async () => (await t.services.chat.list()).find((s) => s.sessionId === run.sessionId)?.awaitingApproval).toBe(true);
    expect((await t.services.chat.list()).find((s) => s.sessionId === run.sessionId)?.agent).toBe("assistant");
  });
});
