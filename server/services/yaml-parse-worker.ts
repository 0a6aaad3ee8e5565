import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { readPlainYaml } from "@/server/spec/plain-yaml";

/** What `parse` answers when the text is not valid YAML: the caller's own parser then says where and why. */
export const NOT_YAML = Symbol("not YAML");

/** A worker idle this long is stopped (its heap held the last document); the next parse starts another. */
const IDLE_MS = 30_000;

// A CommonJS worker (eval), as the WAL checkpointer. Plain YAML is read with js-yaml (readPlainYaml, whose
// source it runs); anything else with `yaml` and the same options as server/spec/parse-spec-yaml.ts (unique
// keys, at most 100 alias expansions). It answers plain data, or "failed" for a text with errors: locating
// them needs the document, so the caller parses that (rare) text again itself.
const PARSE_WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const { parseDocument } = require(workerData.yaml);
const jsYaml = require(workerData.jsYaml);
const readPlainYaml = (${readPlainYaml.toString()});
parentPort.on("message", ({ id, text }) => {
  let answer;
  try {
    const plain = readPlainYaml(text, jsYaml);
    if (plain !== undefined) {
      answer = { id, data: plain };
    } else {
      const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, logLevel: "error" });
      answer = doc.errors.length > 0 ? { id, failed: true } : { id, data: doc.toJS({ maxAliasCount: 100 }) };
    }
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

/**
 * Reads YAML text into plain data on a worker thread, so that a large spec never stalls the server's
 * own thread (a health check included): a 20,000-node spec takes js-yaml about 150 ms, and the `yaml`
 * package (for text readPlainYaml leaves to it) over a second. Results are what reading the text on the
 * calling thread gives (structured clone keeps plain data, Maps, Sets and Dates as they are).
 */
export class YamlParseWorker {
  private readonly lane = new YamlWorkerLane();

  /** Plain data, or NOT_YAML for a text with YAML errors. Rejects only when no worker could run it. */
  parse(text: string): Promise<unknown> {
    return this.lane.parse(text);
  }

  /** Stops the worker now (tests, shutdown). */
  close(): Promise<void> {
    return this.lane.close();
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
    const worker = new Worker(PARSE_WORKER, {
      eval: true,
      workerData: { yaml: entryFile(resolver().resolve("yaml"), "yaml"), jsYaml: entryFile(resolver().resolve("js-yaml"), "js-yaml") },
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
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

const resolver = () => createRequire(import.meta.url);

/**
 * A package's CommonJS entry file, for the worker to load. Inside Next.js's server bundle
 * `require.resolve` answers a module id, not a path (and takes only a literal name, so the callers spell
 * it out): the worker then resolves the package from the working directory, which is the app's root there.
 */
function entryFile(resolved: unknown, name: string): string {
  return typeof resolved === "string" ? resolved : name;
}
