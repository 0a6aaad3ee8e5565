import { AGENT_ERROR_CODES, HookError, describeError, isAgentControlError } from "../errors";
import { consoleLogger, type AgentLogger } from "../logger";
import type { TurnState } from "../state/turn-state";
import type { HookContext, HookPayloads } from "./hook-context";
import { HOOK_CLASS, type Hook } from "./hook-contracts";
import { HookErrorPolicy } from "./hook-error-policy";
import { HOOK_METHOD, HookPoint } from "./hook-point";

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

export interface HookSpec {
  hook: Hook;
  /** Execution order: lower first; equal priorities keep registration order. Default 0. */
  priority?: number;
  /** Dedup key; defaults to the hook's name. */
  name?: string;
  /** Overrides the runner's policy for this hook. */
  errorPolicy?: HookErrorPolicy;
}

export interface HookRunnerOptions {
  errorPolicy?: HookErrorPolicy;
  timeoutMs?: number;
  logger?: AgentLogger;
}

export interface DispatchOptions {
  /** Overrides the per-call timeout for this dispatch. */
  timeoutMs?: number;
  /** Aborting it aborts the signal each hook receives. */
  signal?: AbortSignal;
}

interface HookCall<P extends HookPoint> {
  point: P;
  entry: Registered;
  turn: TurnState;
  payload: Payload<P>;
  options: DispatchOptions;
}

interface Registered {
  spec: HookSpec & { name: string; priority: number };
}

type Payload<P extends HookPoint> = HookPayloads[P];

const TIMED_OUT: unique symbol = Symbol("hook-timeout");

/**
 * The one runner that dispatches every hook. Rules:
 * - hooks run one after another in stable priority order (default 0, lower first);
 * - each call has a timeout (10 s default, per dispatch overridable): a timeout is a warning plus the
 *   error policy, never a hang — the runner stops waiting and aborts the hook's signal;
 * - an AgentControlError is a controlled exit, not a failure: it is re-raised untouched;
 * - any other error goes through the HookErrorPolicy (IGNORE / LOG / ABORT).
 */
export class HookRunner {
  private readonly registered: Registered[] = [];
  private readonly sorted = new Map<HookPoint, Registered[]>();
  private readonly policy: HookErrorPolicy;
  private readonly timeoutMs: number;
  private readonly logger: AgentLogger;

  constructor(options: HookRunnerOptions = {}) {
    this.policy = options.errorPolicy ?? HookErrorPolicy.LOG;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    this.logger = options.logger ?? consoleLogger;
  }

  /** Registers a hook; one with the same name is replaced in place (keeping its registration slot). */
  register(specOrHook: HookSpec | Hook): this {
    const spec = normalize(specOrHook);
    const at = this.registered.findIndex((r) => r.spec.name === spec.name);
    if (at >= 0) this.registered[at] = { spec };
    else this.registered.push({ spec });
    this.sorted.clear();
    return this;
  }

  /** Registers a code-wired default unless a hook of that name is already registered (it wins). */
  registerDefault(specOrHook: HookSpec | Hook): this {
    const spec = normalize(specOrHook);
    if (!this.registered.some((r) => r.spec.name === spec.name)) this.register(spec);
    return this;
  }

  /** The hooks that implement `point`, in execution order. */
  hooksFor(point: HookPoint): Hook[] {
    return this.ordered(point).map((r) => r.spec.hook);
  }

  async dispatch<P extends Exclude<HookPoint, "FINALIZE_CONTENT">>(
    point: P,
    turn: TurnState,
    payload: Payload<P>,
    options: DispatchOptions = {},
  ): Promise<void> {
    for (const entry of this.ordered(point)) {
      await this.callOne({ point, entry, turn, payload, options });
    }
  }

  /** FINALIZE_CONTENT: synchronous and chained; a failing hook leaves the content as it was (per policy). */
  finalizeContent(turn: TurnState, content: string): string {
    let current = content;
    for (const entry of this.ordered(HookPoint.FINALIZE_CONTENT)) {
      const hook = entry.spec.hook as Hook & { finalizeContent(ctx: HookContext<"FINALIZE_CONTENT">): string };
      try {
        const ctx = { point: HookPoint.FINALIZE_CONTENT, turn, signal: new AbortController().signal, content: current };
        current = hook.finalizeContent(ctx);
      } catch (e) {
        if (isAgentControlError(e)) throw e;
        this.applyPolicy(entry, HookPoint.FINALIZE_CONTENT, failure(entry, HookPoint.FINALIZE_CONTENT, e));
      }
    }
    return current;
  }

  private ordered(point: HookPoint): Registered[] {
    let list = this.sorted.get(point);
    if (!list) {
      const cls = HOOK_CLASS[point];
      // Array.prototype.sort is stable, so equal priorities keep registration order.
      list = this.registered.filter((r) => r.spec.hook instanceof cls).sort((a, b) => a.spec.priority - b.spec.priority);
      this.sorted.set(point, list);
    }
    return list;
  }

  private async callOne<P extends HookPoint>(call: HookCall<P>): Promise<void> {
    const { point, entry, turn, payload, options } = call;
    const signal = new LazySignal(options.signal);
    let pending: unknown;
    try {
      const ctx = { ...payload, point, turn, get signal() { return signal.get(); } } as HookContext<P>;
      pending = (entry.spec.hook as unknown as Record<string, (c: HookContext<P>) => unknown>)[HOOK_METHOD[point]](ctx);
    } catch (e) {
      signal.dispose();
      if (isAgentControlError(e)) throw e;
      return this.applyPolicy(entry, point, failure(entry, point, e));
    }
    // A synchronous hook has already finished: no timer, no race (the common case, kept cheap).
    if (!isThenable(pending)) return signal.dispose();
    await this.awaitWithTimeout(call, pending, signal);
  }

  private async awaitWithTimeout(hookCall: HookCall<HookPoint>, call: PromiseLike<unknown>, signal: LazySignal): Promise<void> {
    const { point, entry } = hookCall;
    const timeoutMs = hookCall.options.timeoutMs ?? this.timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let outcome: unknown;
    try {
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
      });
      outcome = await Promise.race([call, timeout]);
      if (outcome === TIMED_OUT) Promise.resolve(call).catch(() => {}); // abandoned; nobody listens any more
    } catch (e) {
      if (isAgentControlError(e)) throw e;
      return this.applyPolicy(entry, point, failure(entry, point, e));
    } finally {
      clearTimeout(timer);
      if (outcome === TIMED_OUT) signal.abort(new DOMException("hook timed out", "TimeoutError"));
      signal.dispose();
    }
    if (outcome === TIMED_OUT) {
      this.logger.warn(`hook ${entry.spec.name} timed out at ${point} after ${timeoutMs} ms`, { hook: entry.spec.name, point });
      this.applyPolicy(entry, point, timeoutError(entry, point, timeoutMs));
    }
  }

  private applyPolicy(entry: Registered, point: HookPoint, error: HookError): void {
    const policy = entry.spec.errorPolicy ?? this.policy;
    switch (policy) {
      case HookErrorPolicy.IGNORE:
        return;
      case HookErrorPolicy.LOG:
        this.logger.error(error.message, { hook: entry.spec.name, point, code: error.code });
        return;
      case HookErrorPolicy.ABORT:
        throw error;
      default: {
        const unknownPolicy: never = policy;
        throw new Error(`unknown hook error policy ${String(unknownPolicy)}`);
      }
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * The signal a hook sees: created only if the hook reads it (most hooks never do), aborted by the
 * dispatch's outer signal or by the runner when the hook times out.
 */
class LazySignal {
  private controller: AbortController | undefined;
  private unlink: (() => void) | undefined;

  constructor(private readonly outer: AbortSignal | undefined) {}

  get(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const outer = this.outer;
      if (outer?.aborted) controller.abort(outer.reason);
      else if (outer) {
        const onAbort = (): void => controller.abort(outer.reason);
        outer.addEventListener("abort", onAbort, { once: true });
        this.unlink = () => outer.removeEventListener("abort", onAbort);
      }
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.controller?.abort(reason);
  }

  dispose(): void {
    this.unlink?.();
    this.unlink = undefined;
  }
}

function normalize(specOrHook: HookSpec | Hook): Registered["spec"] {
  const spec: HookSpec = "hook" in specOrHook ? specOrHook : { hook: specOrHook };
  return { ...spec, name: spec.name ?? spec.hook.name, priority: spec.priority ?? 0 };
}

function failure(entry: Registered, point: HookPoint, cause: unknown): HookError {
  const hookName = entry.spec.name;
  return new HookError({ code: AGENT_ERROR_CODES.HOOK_FAILED, hookName, message: `hook ${hookName} failed at ${point}: ${describeError(cause)}`, cause });
}

function timeoutError(entry: Registered, point: HookPoint, timeoutMs: number): HookError {
  const hookName = entry.spec.name;
  return new HookError({ code: AGENT_ERROR_CODES.HOOK_TIMEOUT, hookName, message: `hook ${hookName} timed out at ${point} after ${timeoutMs} ms` });
}
