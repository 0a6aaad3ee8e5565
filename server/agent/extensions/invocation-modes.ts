import type { AgentLogger } from "../logger";
import type { Extension } from "./extension";
import type { ExtensionContext } from "./extension-context";
import type { ExtensionPoint } from "./extension-point";
import { isNone, kindOf, type ValueKind } from "./invocation-config";

/**
 * The four ways to combine the extensions at one point. Each receives the extensions that handle the
 * point, enabled and in priority order, and `call`, which runs one of them under the error rule (a
 * failed call yields undefined). Extensions always run one after another, never concurrently, so each
 * sees what the previous one wrote.
 */
export type CallOne = (extension: Extension) => unknown;

// Each loop awaits a call's value only when it is a promise (`r instanceof Promise ? await r : r`):
// `await` on a plain value still costs a microtask per extension and point, which was most of what a
// no-op extension cost a ReAct iteration.

/** COLLECT: every extension runs; the values they returned, null and undefined left out (false is kept). */
export async function collect(extensions: readonly Extension[], call: CallOne): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const extension of extensions) {
    const r = call(extension);
    const value = r instanceof Promise ? await r : r;
    if (!isNone(value)) results.push(value);
  }
  return results;
}

export interface TransformArgs {
  point: ExtensionPoint;
  ctx: ExtensionContext<object>;
  key: string;
  expectedType?: ValueKind;
  logger: AgentLogger;
}

/**
 * TRANSFORM: each returned value replaces `ctx.data[key]` before the next extension runs; returning
 * nothing keeps the current value (as does failing). Returns the final `ctx.data[key]`, which also holds
 * what an extension `set` directly. A value of the wrong kind is warned about and still stored, as the
 * spec says: the caller's own type guard is what falls back to its original value.
 */
export async function transform(extensions: readonly Extension[], call: CallOne, args: TransformArgs): Promise<unknown> {
  const { ctx, key } = args;
  for (const extension of extensions) {
    const r = call(extension);
    const value = r instanceof Promise ? await r : r;
    if (isNone(value)) continue;
    if (args.expectedType && kindOf(value) !== args.expectedType) {
      args.logger.warn(`${args.point} returned ${kindOf(value)}, expected ${args.expectedType}`, { extension: extension.name, point: args.point });
    }
    ctx.set(key, value);
  }
  return ctx.get(key);
}

/** UNTIL_HANDLED: the first truthy value ends the loop and is returned; undefined when none came. */
export async function untilHandled(extensions: readonly Extension[], call: CallOne): Promise<unknown> {
  for (const extension of extensions) {
    const r = call(extension);
    const value = r instanceof Promise ? await r : r;
    if (value) return value;
  }
  return undefined;
}

/**
 * CANCELLABLE: an explicit `false` vetoes — the loop stops, `ctx.cancelledBy` names the extension and the
 * result is false. Any other value, including other falsy ones and a failed call, lets the operation go on.
 */
export async function cancellable(extensions: readonly Extension[], call: CallOne, ctx: ExtensionContext<object>): Promise<boolean> {
  for (const extension of extensions) {
    const r = call(extension);
    if ((r instanceof Promise ? await r : r) === false) {
      ctx.cancelledBy = extension.name;
      return false;
    }
  }
  return true;
}
