import { ExtensionError, mustPropagate } from "../errors";
import type { AgentLogger } from "../logger";
import type { Extension } from "./extension";
import type { ExtensionContext } from "./extension-context";
import { EXTENSION_METHOD, type ExtensionPoint } from "./extension-point";

export type ExtensionCallOutcome = { ok: true; value: unknown } | { ok: false; error: ExtensionError };

type Method = (ctx: ExtensionContext<object>) => unknown;

/** The extension's method for `point`, or undefined when it does not handle the point. */
export function methodFor(extension: Extension, point: ExtensionPoint): Method | undefined {
  const method = (extension as unknown as Record<string, unknown>)[EXTENSION_METHOD[point]];
  return typeof method === "function" ? (method as Method) : undefined;
}

/**
 * Calls one extension at one point: the single place the spec's error rule lives. Synchronous when the
 * method is (see below), else a promise. A throw (or rejection)
 * is logged and the call counts as having returned nothing, so it never breaks the other extensions or
 * the caller. Control errors and cancellation still propagate: they are the runtime ending the turn on
 * purpose, not a misbehaving extension (as Python's `except Exception` lets CancelledError through).
 */
export function callExtension(
  extension: Extension,
  point: ExtensionPoint,
  ctx: ExtensionContext<object>,
  logger: AgentLogger,
  timeoutMs: number = DEFAULT_EXTENSION_CALL_TIMEOUT_MS,
): ExtensionCallOutcome | Promise<ExtensionCallOutcome> {
  const method = methodFor(extension, point);
  if (!method) return { ok: true, value: undefined };
  const failed = (e: unknown): ExtensionCallOutcome => {
    if (mustPropagate(e)) throw e;
    const error = new ExtensionError({ extensionName: extension.name, point, cause: e });
    logger.error(error.message, { extension: extension.name, point, code: error.code });
    return { ok: false, error };
  };
  // A method that returns a plain value is settled without a microtask: every point runs each
  // extension in turn, and awaiting a value that is already there was most of a no-op's cost.
  try {
    const value = method.call(extension, ctx);
    return isThenable(value) ? withinTime(value, timeoutMs).then((v) => ({ ok: true as const, value: v }), failed) : { ok: true, value };
  } catch (e) {
    return failed(e);
  }
}

/** How long an asynchronous extension call may take before it counts as failed (extensions.yml: call_timeout_ms). */
export const DEFAULT_EXTENSION_CALL_TIMEOUT_MS = 10_000;

/**
 * The call's value, or a rejection once `ms` pass: a method that never settles would otherwise hold the
 * turn (a model stream's every chunk passes through extensions) for good. Its late answer is ignored.
 */
function withinTime(value: PromiseLike<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([Promise.resolve(value), late]).finally(() => clearTimeout(timer));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
