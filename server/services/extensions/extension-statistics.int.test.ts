import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExtensionContext } from "@/server/agent/extensions/extension-context";
import type { Extension } from "@/server/agent/extensions/extension";
import { ZERO_USAGE } from "@/server/agent/llm/token-usage";
import { recordingLogger } from "@/server/agent/logger";
import { openGraphDatabase } from "@/server/db/graph-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { AppExtensions } from "./app-extensions";
import { SqliteExtensionStatisticsStore } from "./extension-statistics-store";
import { PgExtensionStatisticsStore } from "./pg-extension-statistics-store";
import { PgTokenTotals } from "./pg-token-totals";
import { SqliteTokenTotals } from "./token-totals-store";

/** An extension that counts its own messages, and fails on the message "boom". */
function counting(): Extension {
  let seen = 0;
  return {
    name: "counting",
    priority: 50,
    enabled: true,
    onBeforeMessageProcess(ctx: ExtensionContext<{ message: string }>) {
      seen += 1;
      if (ctx.get("message") === "boom") throw new Error("boom");
    },
    counters: () => ({ seen }),
    resetCounters: () => {
      seen = 0;
    },
  } as unknown as Extension;
}

const message = (ext: AppExtensions, text = "hi") => ext.manager.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ sessionId: "s1", data: { message: text } }));
const llmCall = (ext: AppExtensions, sessionId: string) => ext.manager.invokeCancellable("BEFORE_LLM_CALL", new ExtensionContext({ sessionId, turnId: "t", data: { prompt: [], llmParams: { tools: [] } } }));
const llmAnswer = (ext: AppExtensions, sessionId: string, tokens: number) =>
  ext.manager.invokeCollect("AFTER_LLM_RESPONSE", new ExtensionContext({ sessionId, turnId: "t", data: { response: "", llmParams: { tools: [] }, usage: { ...ZERO_USAGE, inputTokens: tokens } } }));

/** An extensions folder whose config turns token_budget on (100 tokens an instance). */
function budgetDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-ext-stats-"));
  writeFileSync(path.join(dir, "extensions.yml"), "builtins:\n  token_budget: { per_instance: 100 }\n");
  return dir;
}

describe("extension statistics on SQLite", () => {
  it("survive a restart: a new process on the same file shows the calls, errors, latest error and own counters; close() saves what was not flushed", async () => {
    using temp = new TempDatabase();
    const first = new AppExtensions({ statistics: new SqliteExtensionStatisticsStore(temp.db), logger: recordingLogger() });
    first.add(counting());
    await message(first);
    await message(first, "boom");
    first.close(); // what a stopping server does: nothing was flushed before it
    const restarted = new AppExtensions({ statistics: new SqliteExtensionStatisticsStore(openGraphDatabase(temp.file)), logger: recordingLogger() });
    restarted.add(counting());
    const [stats] = (await restarted.report()).extensions;
    expect(stats).toMatchObject({ name: "counting", calls: 2, failures: 1, counters: { seen: 2 }, lastError: { point: "BEFORE_MESSAGE_PROCESS", message: "Error: boom" } });
    // The restarted process adds its own to the same totals.
    await message(restarted);
    expect((await restarted.report()).extensions[0]).toMatchObject({ calls: 3, counters: { seen: 3 } });
    const reset = await restarted.resetStatistics();
    expect(reset.extensions[0]).toMatchObject({ calls: 0, failures: 0, counters: { seen: 0 } });
    expect(reset.extensions[0]).not.toHaveProperty("lastError");
  });

  it("token_budget continues an instance's total after a restart: the call past the budget is vetoed", async () => {
    using temp = new TempDatabase();
    const dir = budgetDir();
    const first = new AppExtensions({ dir, tokenTotals: new SqliteTokenTotals(temp.db), logger: recordingLogger() });
    expect(await llmCall(first, "run1:coder")).toBe(true);
    await llmAnswer(first, "run1:coder", 120);
    await new Promise((resolve) => setImmediate(resolve)); // the add commits with the next macrotask at the latest
    const restarted = new AppExtensions({ dir, tokenTotals: new SqliteTokenTotals(openGraphDatabase(temp.file)), logger: recordingLogger() });
    expect(await llmCall(restarted, "run1:reviewer")).toBe(false);
    expect(await llmCall(restarted, "run2:coder")).toBe(true);
  });
});

describe("extension statistics on a PostgreSQL cluster (two processes)", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  /** A process: its own connections, as a web process or a worker has. */
  const processOn = (options: { dir?: string } = {}) => {
    const db = database.open().acks;
    return new AppExtensions({ ...options, statistics: new PgExtensionStatisticsStore(db), tokenTotals: new PgTokenTotals(db), logger: recordingLogger() });
  };

  it("each process's counts add up on every process's page; a reset on one zeroes all, the other's unsaved counts included", async () => {
    const web = processOn();
    const worker = processOn();
    web.add(counting());
    worker.add(counting());
    await message(web);
    await message(worker);
    await message(worker, "boom");
    // The worker's timer would save them within a second; its close (a stop) saves them now.
    await worker.close();
    expect((await web.report()).extensions[0]).toMatchObject({ calls: 3, failures: 1, counters: { seen: 3 }, lastError: { message: "Error: boom" } });

    await message(worker); // counted, not saved yet
    const reset = await web.resetStatistics();
    expect(reset.extensions[0]).toMatchObject({ calls: 0, failures: 0, counters: { seen: 0 } });
    // The worker learns of the reset at its next save, drops the count it had, and zeroes its own counters.
    expect((await worker.report()).extensions[0]).toMatchObject({ calls: 0, counters: { seen: 0 } });
    expect(worker.manager.getStatistics().extensions[0]).toMatchObject({ calls: 0, counters: { seen: 0 } });
    await message(worker);
    expect((await web.report()).extensions[0]).toMatchObject({ calls: 0 }); // not saved yet: at most one interval behind
    await worker.close();
    expect((await web.report()).extensions[0]).toMatchObject({ calls: 1, counters: { seen: 1 } });
  });

  it("token_budget: what one worker's node used counts for another worker's node of the same instance, and after a restart", async () => {
    const dir = budgetDir();
    const one = processOn({ dir });
    const two = processOn({ dir });
    // Two nodes of run1 answered in parallel on two workers, 60 tokens each: the instance used 120 of 100.
    expect(await Promise.all([llmCall(one, "run1:coder"), llmCall(two, "run1:reviewer")])).toEqual([true, true]);
    await Promise.all([llmAnswer(one, "run1:coder", 60), llmAnswer(two, "run1:reviewer", 60)]);
    expect(await llmCall(one, "run1:coder")).toBe(false);
    expect(await llmCall(two, "run1:reviewer")).toBe(false);
    const restarted = processOn({ dir });
    expect(await llmCall(restarted, "run1:writer")).toBe(false);
    expect(await llmCall(two, "run2:coder")).toBe(true);
    // The vetoes are counted on the page, over the three processes (the others' saved as they stop).
    await Promise.all([two.close(), restarted.close()]);
    expect((await one.report()).extensions.find((e) => e.name === "token_budget")).toMatchObject({ vetoes: 3, counters: { vetoed: 3 } });
  });
});
