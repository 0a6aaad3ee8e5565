import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import { AgentRuns, type LiveDelta } from "@/server/services/agents/agent-runs";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { AGENT_LIVE_CHANNEL } from "./agent-live-batch";
import { AgentLiveListener } from "./agent-live-listener";
import { AgentLiveSender } from "./agent-live-sender";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { workerGraphs } from "./worker-graphs";

/**
 * Agent nodes' live text on a cluster: a worker runs the agent node and relays what its model streams
 * (batched NOTIFYs on modex_agent_live); a web process's viewers get it in order, a late one the text so
 * far first; a graph without agent nodes sends nothing.
 */
const ONE_AGENT = ["name: one-agent", "nodes:", "  - { name: coder, node_type: agent, config: { instructions: Answer. } }", "edges:", "  - { from: __start__, to: coder }", "  - { from: coder, to: __end__ }"].join("\n");
const WORDS = Array.from({ length: 20 }, (_, i) => `word${i} `);
/** One piece of text longer than a NOTIFY payload may be (multi-byte characters: bytes, not characters, count). */
const LONG = "é".repeat(9_000) + "∑".repeat(2_000);

/** The first call streams ten words, waits for `gate`, streams ten more and a long piece, then delivers; then it answers "done". */
class GatedModel extends LlmProvider {
  readonly name = "gated";
  private calls = 0;
  private readonly then = new ScriptedProvider([{ text: "done" }]);
  constructor(private readonly gate: Promise<void>) {
    super();
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    if (this.calls++ > 0) {
      yield* this.then.stream(request, options);
      return;
    }
    for (const [i, word] of WORDS.entries()) {
      if (i === 10) await this.gate;
      await new Promise((r) => setTimeout(r, 15));
      yield { type: "text_delta", text: word };
    }
    yield { type: "text_delta", text: LONG };
    yield { type: "tool_call_complete", call: { id: "c1", name: "deliver", arguments: JSON.stringify({ target: "__end__", content: "shipped" }) } };
    yield { type: "finish", reason: "tool_calls" };
  }
}

async function pgExec(url: string, text: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe("agent live text across a cluster", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** A web process (MODEX_ROLE=web) and a worker as `npm run worker` wires one (its agent runs relayed by an AgentLiveSender). */
  async function cluster(model: LlmProvider) {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-live-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
    const web: AppServices = await createClusterAppServices({ url: database.url, env });
    cleanup.push(() => web.close?.());
    await startAppServices(web, { specsDir: env.specsDir, recover: false });
    await web.specs.save(ONE_AGENT);

    const db = PgAppDatabase.open({ url: database.url, maxConnections: 4, applicationName: "modex-worker-app" });
    cleanup.push(() => db.close());
    const graphs = await workerGraphs({ specsDir: env.specsDir, store: new PgSpecStore(db), agents: { workspace: dataDir, provider: () => model } });
    cleanup.push(() => graphs.agents.mcp.close());
    const sender = new AgentLiveSender({ db, runs: graphs.agents.runs });
    cleanup.push(() => sender.close());
    const worker = await ClusterWorker.start({ url: database.url, graphs: graphs.catalog, leaseMs: 2_000, onLiveResync: () => sender.resync() });
    cleanup.push(() => worker.stop(1_000));
    return { web, db, sender, database };
  }

  const textOf = (deltas: LiveDelta[]) => deltas.filter((d) => d.channel === "text").map((d) => d.text).join("");

  it("a worker's agent node streams to a viewer on a web process, in order; a late viewer gets the text so far first; all of it is dropped once the call ends", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    cleanup.push(() => open());
    const { web, sender } = await cluster(new GatedModel(gate));
    const { instanceId } = (await web.commands.create({ spec: "one-agent", input: "go" }, "live-1")).body;
    const early: LiveDelta[] = [];
    web.agentRuns.subscribe(instanceId, (d) => early.push(d));
    const firstTen = WORDS.slice(0, 10).join("");
    await expect.poll(() => textOf(early), { timeout: 30_000 }).toBe(firstTen);

    // Opened mid-call: the whole text so far, in one piece, then what follows.
    const late: LiveDelta[] = [];
    web.agentRuns.subscribe(instanceId, (d) => late.push(d));
    expect(late).toMatchObject([{ whole: true, channel: "text", text: firstTen, node: "coder" }]);
    open();

    await expect.poll(async () => (await web.instances.get({ instanceId })).summary.status, { timeout: 30_000 }).toBe("completed");
    const whole = WORDS.join("") + LONG;
    await expect.poll(() => textOf(early), { timeout: 5_000 }).toBe(whole + "done");
    expect(textOf(late)).toBe(whole + "done");
    // Each model call ends with an `end`, after its text; nothing is kept once they ended.
    const longAt = early.findIndex((d) => d.text.endsWith("∑"));
    expect(early.slice(longAt).find((d) => d.channel !== "text")?.channel).toBe("end");
    expect(early.at(-1)?.channel).toBe("end");
    expect(web.agentRuns.streamingInstances).toBe(0);
    // Batched: fewer notifications than the model's pieces, though the long one took several.
    expect(sender.stats.notifications).toBeGreaterThan(3);
    expect(sender.stats.notifications).toBeLessThan(WORDS.length);
    expect(sender.stats.failed).toBe(0);
  }, 90_000);

  it("a call whose end never comes (its worker died) is dropped on the web process when the run ends", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    cleanup.push(() => open());
    const { web, db } = await cluster(new GatedModel(gate));
    const { instanceId } = (await web.commands.create({ spec: "one-agent", input: "go" }, "live-2")).body;
    const seen: LiveDelta[] = [];
    web.agentRuns.subscribe(instanceId, (d) => seen.push(d));
    await expect.poll(() => textOf(seen).length, { timeout: 30_000 }).toBeGreaterThan(0);
    // A second worker's relay that streams part of a call of this instance, then is gone.
    const deadRuns = new AgentRuns(undefined);
    const dead = new AgentLiveSender({ db, runs: deadRuns });
    deadRuns.publish({ instanceId, node: "coder", invocationId: "gone-invocation", turnId: "t", attempt: 1, iteration: 1, channel: "text", text: "half a tho" });
    await dead.close();
    await expect.poll(() => seen.some((d) => d.invocationId === "gone-invocation"), { timeout: 5_000 }).toBe(true);
    open();
    await expect.poll(async () => (await web.instances.get({ instanceId })).summary.status, { timeout: 30_000 }).toBe("completed");
    await expect.poll(() => web.agentRuns.streamingInstances, { timeout: 5_000 }).toBe(0);
  }, 90_000);

  it("a process with MODEX_ROLE=all streams its own worker's text to its viewers once, and relays it to a web process", async () => {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const start = async (role: "all" | "web", model?: LlmProvider) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), `modex-live-${role}-`));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: role, MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
      const services = await createClusterAppServices({ url: database.url, env, agents: model ? { provider: () => model } : undefined });
      cleanup.push(() => services.close?.());
      await startAppServices(services, { specsDir: env.specsDir, recover: false });
      return services;
    };
    const web = await start("web");
    await web.specs.save(ONE_AGENT);
    const all = await start("all", new GatedModel(Promise.resolve()));
    const { instanceId } = (await web.commands.create({ spec: "one-agent", input: "go" }, "live-4")).body;
    const [onAll, onWeb]: LiveDelta[][] = [[], []];
    all.agentRuns.subscribe(instanceId, (d) => onAll.push(d));
    web.agentRuns.subscribe(instanceId, (d) => onWeb.push(d));
    await expect.poll(async () => (await web.instances.get({ instanceId })).summary.status, { timeout: 30_000 }).toBe("completed");
    const whole = WORDS.join("") + LONG + "done";
    await expect.poll(() => textOf(onWeb), { timeout: 5_000 }).toBe(whole);
    await new Promise((r) => setTimeout(r, 200)); // its own payloads, had they been taken, would be in by now
    expect(textOf(onAll)).toBe(whole);
  }, 90_000);

  it("a web process whose LISTEN connection dropped catches up once it listens again: the workers resend each running call's whole text", async () => {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    // A worker's side as worker-run.ts wires it: its agent runs relayed, a live_resync answered by the relay.
    const db = PgAppDatabase.open({ url: database.url, maxConnections: 2, applicationName: "modex-worker-app" });
    cleanup.push(() => db.close());
    const workerRuns = new AgentRuns(undefined);
    const sender = new AgentLiveSender({ db, runs: workerRuns });
    cleanup.push(() => sender.close());
    const worker = await ClusterWorker.start({ url: database.url, graphs: () => Promise.reject(new Error("no runs here")), onLiveResync: () => sender.resync() });
    cleanup.push(() => worker.stop(1_000));
    // A web process's side, its reconnection slow enough that what is sent meanwhile is surely lost to it.
    const webRuns = new AgentRuns(undefined);
    const listener = await AgentLiveListener.start({ url: database.url, runs: webRuns, reconnectMs: 1_500 });
    cleanup.push(() => listener.close());
    const seen: LiveDelta[] = [];
    webRuns.subscribe("i1", (d) => seen.push(d));
    const shown = () => seen.reduce((text, d) => (d.whole ? d.text : text + d.text), "");
    const piece = (text: string, channel: "text" | "end" = "text") => workerRuns.publish({ instanceId: "i1", node: "coder", invocationId: "v1", turnId: "t", attempt: 1, iteration: 1, channel, text });

    piece("hello ");
    await expect.poll(shown, { timeout: 5_000 }).toBe("hello ");
    await pgExec(database.url, "SELECT pg_terminate_backend($1)", [listener.backendPid]);
    await expect.poll(() => listener.backendPid, { timeout: 5_000 }).toBeUndefined();
    piece("world, ");
    // Sent while the web process did not listen: lost to it, as a NOTIFY is.
    await expect.poll(() => sender.stats.notifications, { timeout: 5_000 }).toBe(2);
    expect(listener.stats.resyncs).toBe(1);
    expect(shown()).toBe("hello ");

    // Back: it asks, the worker resends the call's whole text, and what follows continues it.
    await expect.poll(shown, { timeout: 10_000 }).toBe("hello world, ");
    expect(listener.stats.resyncs).toBe(2);
    piece("again");
    await expect.poll(shown, { timeout: 5_000 }).toBe("hello world, again");
    const late: LiveDelta[] = [];
    webRuns.subscribe("i1", (d) => late.push(d));
    expect(late).toMatchObject([{ whole: true, text: "hello world, again" }]);
    piece("", "end");
    await expect.poll(() => webRuns.streamingInstances, { timeout: 5_000 }).toBe(0);
    // A call that ended is not resent: nothing streams, so a resync sends nothing.
    const sent = sender.stats.notifications;
    sender.resync();
    await new Promise((r) => setTimeout(r, 200));
    expect(sender.stats.notifications).toBe(sent);
  }, 60_000);

  it("a flush that fails is followed by the whole text so far of each running call", async () => {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const db = PgAppDatabase.open({ url: database.url, maxConnections: 2, applicationName: "modex-worker-app" });
    cleanup.push(() => db.close());
    // The database refuses the first flush (as one out of reach would), then takes them again.
    let refuse = true;
    const flaky = { query: ((q: never) => (refuse ? ((refuse = false), Promise.reject(new Error("connection lost"))) : db.query(q))) as typeof db.query };
    const workerRuns = new AgentRuns(undefined);
    const sender = new AgentLiveSender({ db: flaky, runs: workerRuns });
    cleanup.push(() => sender.close());
    const webRuns = new AgentRuns(undefined);
    const listener = await AgentLiveListener.start({ url: database.url, runs: webRuns });
    cleanup.push(() => listener.close());
    const seen: LiveDelta[] = [];
    webRuns.subscribe("i1", (d) => seen.push(d));
    workerRuns.publish({ instanceId: "i1", node: "coder", invocationId: "v1", turnId: "t", attempt: 1, iteration: 1, channel: "text", text: "not lost" });
    await expect.poll(() => seen, { timeout: 5_000 }).toMatchObject([{ whole: true, text: "not lost" }]);
    expect(sender.stats).toMatchObject({ failed: 1, notifications: 1 });
  }, 60_000);

  it("a graph without agent nodes notifies nothing on the live channel", async () => {
    const { web, sender, database } = await cluster(new ScriptedProvider([]));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    const heard: string[] = [];
    client.on("notification", (n) => heard.push(n.channel));
    await client.query(`LISTEN ${AGENT_LIVE_CHANNEL}`);
    const { instanceId } = (await web.commands.create({ spec: "paced-pipeline", input: "quiet" }, "live-3")).body;
    await expect.poll(async () => (await web.instances.get({ instanceId })).summary.status, { timeout: 30_000 }).toBe("completed");
    await new Promise((r) => setTimeout(r, 200));
    expect(heard).toEqual([]);
    expect(sender.stats.notifications).toBe(0);
  }, 90_000);
});
