import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { joinSections, splitTopLevelSections } from "./yaml-sections";

/** What `parse` answers when the text is not valid YAML: the caller's own parser then says where and why. */
export const NOT_YAML = Symbol("not YAML");

/** A worker idle this long is stopped (its heap held the last document); the next parse starts another. */
const IDLE_MS = 30_000;

// A CommonJS worker (eval), as the WAL checkpointer: the same options as server/spec/parse-spec-yaml.ts
// (unique keys, at most 100 alias expansions). It answers plain data, or "failed" for a text with errors:
// locating them needs the document, so the caller parses that (rare) text again itself.
const PARSE_WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const { parseDocument } = require(workerData.yaml);
parentPort.on("message", ({ id, text }) => {
  let answer;
  try {
    const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, logLevel: "error" });
    answer = doc.errors.length > 0 ? { id, failed: true } : { id, data: doc.toJS({ maxAliasCount: 100 }) };
  } catch {
    answer = { id, failed: true };
  }
  try {
    parentPort.postMessage(answer);
  } catch {
    parentPort.postMessage({ id, failed: true }); // data a message cannot carry
  }
});
`;

interface Pending {
  resolve: (data: unknown) => void;
  reject: (error: unknown) => void;
}

/** Texts this long (~5,000 nodes) are cut into top-level sections read on two threads at once. */
export const PARALLEL_MIN_CHARS = 512 * 1024;

/**
 * Reads YAML text into plain data on worker threads. A 20,000-node spec takes the `yaml` package
 * 1-2 s and lots of garbage to read: on the server's own thread that stalls every other request for as
 * long (a health check included), on a worker it does not. A large document whose top level is a plain
 * block mapping is cut in two halves between its entries or its sequences' items (see yaml-sections.ts)
 * and the halves read on two workers at once, which halves the wait on a machine with a core to spare;
 * their data is joined in order. When any part does not read, the whole text is read on one worker, so
 * the answer is always the one reading it whole gives. Results are what `parseDocument(...).toJS()`
 * gives on the calling thread (structured clone keeps plain data, Maps, Sets and Dates as they are).
 */
export class YamlParseWorker {
  private readonly lanes: YamlWorkerLane[];

  constructor(options: { threads?: number } = {}) {
    this.lanes = Array.from({ length: Math.max(1, options.threads ?? 2) }, () => new YamlWorkerLane());
  }

  /** Plain data, or NOT_YAML for a text with YAML errors. Rejects only when no worker could run it. */
  async parse(text: string): Promise<unknown> {
    const sections = text.length >= PARALLEL_MIN_CHARS ? splitTopLevelSections(text, this.lanes.length) : null;
    if (!sections) return this.lanes[0].parse(text);
    const parts = await Promise.all(sections.texts.map((section, i) => this.lanes[i].parse(section)));
    return joinSections(sections, parts) ?? this.lanes[0].parse(text);
  }

  /** Stops the workers now (tests, shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/** One worker thread, started on demand and stopped when idle. */
class YamlWorkerLane {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;

  parse(text: string): Promise<unknown> {
    const worker = this.started();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    worker.ref(); // a parse in progress keeps the process up; an idle worker does not
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // A young generation larger than the default: reading a large document allocates a node object per
    // token that lives until the document is converted, and with the default the scavenges that copy
    // them took about a quarter of the read.
    const worker = new Worker(PARSE_WORKER, { eval: true, workerData: { yaml: yamlPath() }, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
    worker.on("message", (answer: { id: number; data?: unknown; failed?: boolean }) => this.settle(answer));
    worker.on("error", (error) => this.fail(worker, error));
    worker.on("exit", (code) => this.fail(worker, new Error(`the YAML worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private settle(answer: { id: number; data?: unknown; failed?: boolean }): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    pending.resolve(answer.failed ? NOT_YAML : answer.data);
    if (this.pending.size === 0 && this.worker) {
      this.worker.unref();
      this.idleTimer = setTimeout(() => void this.close(), IDLE_MS);
      this.idleTimer.unref();
    }
  }

  private fail(worker: Worker, error: unknown): void {
    if (this.worker === worker) this.worker = null;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}

/**
 * The `yaml` package's entry file, for the worker to load. Inside Next.js's server bundle
 * `require.resolve` answers a module id, not a path: the worker then resolves the package from the
 * working directory, which is the app's root there.
 */
function yamlPath(): string {
  const resolved: unknown = createRequire(import.meta.url).resolve("yaml");
  return typeof resolved === "string" ? resolved : "yaml";
}
