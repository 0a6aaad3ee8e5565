import { describeError } from "../errors";
import { consoleLogger, type AgentLogger } from "../logger";
import { callExtension, DEFAULT_EXTENSION_CALL_TIMEOUT_MS, methodFor, type ExtensionCallOutcome } from "./call-extension";
import type { Extension } from "./extension";
import type { ExtensionContext } from "./extension-context";
import type { ExtensionData } from "./extension-data";
import { ALL_EXTENSION_POINTS, type ExtensionPoint } from "./extension-point";
import type { ValueKind } from "./invocation-config";
import { cancellable, collect, transform, untilHandled, type CallOne } from "./invocation-modes";

export interface ExtensionStatus {
  name: string;
  priority: number;
  enabled: boolean;
  /** The points the extension implements a method for. */
  points: ExtensionPoint[];
  /** Method calls made, and how many of them threw (logged and skipped). */
  calls: number;
  failures: number;
  /** CANCELLABLE calls this extension ended with an explicit `false`. */
  vetoes: number;
  /** Time spent in its methods, in milliseconds (awaited time included). */
  timeMs: number;
  /** The extension's own counters (Extension.counters), when it keeps any. */
  counters?: Record<string, number>;
  /** Its latest failed call, when one failed since start-up (or the last reset): so a person sees why, not only how often. */
  lastError?: ExtensionFailure;
}

export interface ExtensionFailure {
  point: ExtensionPoint;
  /** What it threw (`Error: …`), or that it did not answer in time. */
  message: string;
  /** When, in epoch milliseconds. */
  at: number;
}

export interface ExtensionStatistics {
  total: number;
  enabled: number;
  disabled: number;
  extensions: ExtensionStatus[];
}

interface Counts {
  calls: number;
  failures: number;
  vetoes: number;
  timeMs: number;
  lastError?: ExtensionFailure;
}
const zeroCounts = (): Counts => ({ calls: 0, failures: 0, vetoes: 0, timeMs: 0 });

/** What one extension did since the last `takeUnflushed`: its calls, and its own counters' growth. */
export interface ExtensionCountsDelta extends Counts {
  name: string;
  counters: Record<string, number>;
}

type Ctx<P extends ExtensionPoint> = ExtensionContext<ExtensionData[P]>;

/**
 * The registry of extensions and the four ways to invoke them (the spec's ExtensionManager). There is
 * no global instance: the application builds one at start-up and hands it to what needs it (the agent's
 * `extensions` option), so tests get a fresh one instead of resetting a singleton.
 *
 * Order is by `priority`, lower first; equal priorities keep registration order. Disabled extensions
 * stay registered and are skipped silently.
 */
export class ExtensionManager {
  /** In registration order; sorted at each use, so a priority changed after registration still counts. */
  private registered: Extension[] = [];
  private readonly counts = new Map<string, Counts>();
  /** The same counts since the last `takeUnflushed` (a durable store's next batch); kept beside `counts` so the hot path only adds. */
  private readonly unflushed = new Map<string, Counts>();
  /** Each extension's own counters as the last `takeUnflushed` read them: the next batch is what they grew by. */
  private readonly flushedCounters = new Map<string, Record<string, number>>();
  private readonly byPoint = new Map<ExtensionPoint, Extension[]>();
  /** Each registered extension's priority and enabled flag when `byPoint` was filled. */
  private seenState: Array<{ priority: number; enabled: boolean }> = [];
  private readonly logger: AgentLogger;

  private readonly callTimeoutMs: number;

  /** `callTimeoutMs`: how long an asynchronous call may take before it is logged and skipped as failed. */
  constructor(options: { logger?: AgentLogger; callTimeoutMs?: number } = {}) {
    this.logger = options.logger ?? consoleLogger;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_EXTENSION_CALL_TIMEOUT_MS;
  }

  /** Adds an extension; false (and a warning) when one of that name is already registered. */
  register(extension: Extension): boolean {
    if (this.get(extension.name)) {
      this.logger.warn(`extension ${extension.name} is already registered; the new one is ignored`, { extension: extension.name });
      return false;
    }
    this.registered.push(extension);
    this.resetCache();
    this.counts.set(extension.name, zeroCounts());
    this.unflushed.set(extension.name, zeroCounts());
    return true;
  }

  /** Removes an extension by name; false when there is none. */
  unregister(name: string): boolean {
    const before = this.registered.length;
    this.registered = this.registered.filter((e) => e.name !== name);
    this.resetCache();
    this.counts.delete(name);
    this.unflushed.delete(name);
    this.flushedCounters.delete(name);
    return this.registered.length < before;
  }

  /** Instantiates each class and registers it; returns how many were registered (duplicates are not). */
  load(classes: ReadonlyArray<new () => Extension>): number {
    return classes.filter((Class) => this.register(new Class())).length;
  }

  enableExtension(name: string): boolean {
    return this.setEnabled(name, true);
  }

  disableExtension(name: string): boolean {
    return this.setEnabled(name, false);
  }

  get(name: string): Extension | undefined {
    return this.registered.find((e) => e.name === name);
  }

  /** Names in execution order. */
  listExtensions(): string[] {
    return this.ordered().map((e) => e.name);
  }

  /**
   * The enabled extensions that implement `point`, in execution order. Cached per point: every model
   * call and chunk asks, so the list is rebuilt only when an extension is added or removed or its
   * priority or enabled flag changed (both are public fields, so each call compares them).
   */
  extensionsFor(point: ExtensionPoint): Extension[] {
    if (!this.cacheValid()) this.resetCache();
    let list = this.byPoint.get(point);
    if (!list) {
      list = this.ordered().filter((e) => e.enabled && methodFor(e, point) !== undefined);
      this.byPoint.set(point, list);
    }
    return list;
  }

  private cacheValid(): boolean {
    const seen = this.seenState;
    if (seen.length !== this.registered.length) return false;
    for (let i = 0; i < seen.length; i++) {
      const e = this.registered[i];
      if (seen[i].priority !== e.priority || seen[i].enabled !== e.enabled) return false;
    }
    return true;
  }

  private resetCache(): void {
    this.byPoint.clear();
    this.seenState = this.registered.map((e) => ({ priority: e.priority, enabled: e.enabled }));
  }

  invokeCollect<P extends ExtensionPoint>(point: P, ctx: Ctx<P>): Promise<unknown[]> {
    return collect(this.extensionsFor(point), this.caller(point, ctx));
  }

  invokeTransform<P extends ExtensionPoint>(point: P, ctx: Ctx<P>, options: { key: string; expectedType?: ValueKind }): Promise<unknown> {
    const args = { point, ctx: ctx as ExtensionContext<object>, key: options.key, expectedType: options.expectedType, logger: this.logger };
    return transform(this.extensionsFor(point), this.caller(point, ctx), args);
  }

  invokeUntilHandled<P extends ExtensionPoint>(point: P, ctx: Ctx<P>): Promise<unknown> {
    return untilHandled(this.extensionsFor(point), this.caller(point, ctx));
  }

  async invokeCancellable<P extends ExtensionPoint>(point: P, ctx: Ctx<P>): Promise<boolean> {
    const goOn = await cancellable(this.extensionsFor(point), this.caller(point, ctx), ctx as ExtensionContext<object>);
    if (!goOn && ctx.cancelledBy) {
      const count = this.counts.get(ctx.cancelledBy);
      const pending = this.unflushed.get(ctx.cancelledBy);
      if (count && pending) {
        count.vetoes += 1;
        pending.vetoes += 1;
      }
    }
    return goOn;
  }

  /** Zeroes every extension's statistics, latest failure and own counters (the Extensions page's reset). */
  resetStatistics(): void {
    for (const name of this.counts.keys()) {
      this.counts.set(name, zeroCounts());
      this.unflushed.set(name, zeroCounts());
    }
    this.flushedCounters.clear();
    for (const e of this.registered) {
      try {
        e.resetCounters?.();
      } catch (error) {
        // An extension's own method: a throw is its problem, logged, not the reset's.
        this.logger.error(`extension ${e.name} failed to reset its counters: ${describeError(error)}`, { extension: e.name });
      }
    }
  }

  /**
   * What each extension did since the previous take (calls, failures, vetoes, time, latest failure, own
   * counters' growth), and starts the next batch: for a store that sums every process's counts. Only
   * extensions with something new are listed.
   */
  takeUnflushed(): ExtensionCountsDelta[] {
    const out: ExtensionCountsDelta[] = [];
    for (const e of this.registered) {
      const pending = this.unflushed.get(e.name) ?? zeroCounts();
      const counters = this.countersGrowth(e);
      if (pending.calls === 0 && pending.vetoes === 0 && Object.keys(counters).length === 0) continue;
      this.unflushed.set(e.name, zeroCounts());
      out.push({ name: e.name, ...pending, counters });
    }
    return out;
  }

  /** How much each own counter grew since the last take (a counter that went down was reset: all of it is new). */
  private countersGrowth(e: Extension): Record<string, number> {
    if (typeof e.counters !== "function") return {};
    const now = this.ownCounters(e);
    const before = this.flushedCounters.get(e.name) ?? {};
    this.flushedCounters.set(e.name, now);
    const growth: Record<string, number> = {};
    for (const [key, value] of Object.entries(now)) {
      const grew = value >= (before[key] ?? 0) ? value - (before[key] ?? 0) : value;
      if (grew !== 0) growth[key] = grew;
    }
    return growth;
  }

  private ownCounters(e: Extension): Record<string, number> {
    try {
      return { ...e.counters?.() };
    } catch (error) {
      this.logger.error(`extension ${e.name} failed to give its counters: ${describeError(error)}`, { extension: e.name });
      return {};
    }
  }

  getStatistics(): ExtensionStatistics {
    const extensions = this.ordered().map((e) => ({
      name: e.name,
      priority: e.priority,
      enabled: e.enabled,
      points: ALL_EXTENSION_POINTS.filter((p) => methodFor(e, p) !== undefined),
      ...(this.counts.get(e.name) ?? zeroCounts()),
      ...(typeof e.counters === "function" ? { counters: e.counters() } : {}),
    }));
    const enabled = extensions.filter((e) => e.enabled).length;
    return { total: extensions.length, enabled, disabled: extensions.length - enabled, extensions };
  }

  /** Execution order: lower priority first; Array.prototype.sort is stable, so ties keep registration order. */
  private ordered(): Extension[] {
    return [...this.registered].sort((a, b) => a.priority - b.priority);
  }

  private setEnabled(name: string, enabled: boolean): boolean {
    const extension = this.get(name);
    if (extension) extension.enabled = enabled;
    return extension !== undefined;
  }

  /** One guarded call per extension, counted for the statistics. */
  private caller<P extends ExtensionPoint>(point: P, ctx: Ctx<P>): CallOne {
    return (extension) => {
      const count = this.counts.get(extension.name);
      const pending = this.unflushed.get(extension.name);
      const started = performance.now();
      const outcome = callExtension(extension, point, ctx as ExtensionContext<object>, this.logger, this.callTimeoutMs);
      return outcome instanceof Promise
        ? outcome.then((o) => settle(o, point, [count, pending], started))
        : settle(outcome, point, [count, pending], started);
    };
  }
}

/** Counts one finished call (time, failure and why) in both tallies and gives its value: undefined for a failed one. */
function settle(outcome: ExtensionCallOutcome, point: ExtensionPoint, tallies: [Counts | undefined, Counts | undefined], started: number): unknown {
  const ms = performance.now() - started;
  const lastError = outcome.ok ? undefined : { point, message: describeError(outcome.error.cause), at: Date.now() };
  for (const count of tallies) {
    if (!count) continue;
    count.calls += 1;
    count.timeMs += ms;
    if (lastError) {
      count.failures += 1;
      count.lastError = lastError;
    }
  }
  return outcome.ok ? outcome.value : undefined;
}
