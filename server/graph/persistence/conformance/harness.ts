import type { Awaitable } from "../../awaitable";
import { newSnowflake } from "../../ids";
import type { GraphPayload } from "../../payload";
import type { NewDeliverRow } from "../records";

/**
 * How a backend plugs into a conformance suite. `make` runs before every test and must return a store
 * with no rows in it (a fresh database, or a truncated one): several tests count rows. `cleanup` runs
 * after every test with the store `make` returned (close the connection, delete the file).
 */
export type MakeSubject<T> = () => Awaitable<T>;

export interface ConformanceOptions<T> {
  cleanup?: (subject: T) => Awaitable<void>;
  /**
   * Called before a test writes rows under a new instance id, for backends whose node or deliver rows
   * reference an instance row (a foreign key). The in-memory stores need nothing.
   */
  registerInstance?: (subject: T, instanceId: string) => Awaitable<void>;
}

/** Unique ids per call, so a backend that keeps rows across tests still sees no collisions. */
export const newId = (prefix: string): string => `${prefix}_${newSnowflake()}`;

export const payload = (content: unknown): GraphPayload => ({ content });

/** A deliver row from `source` to `target` with unique ids; override any field. */
export function deliverRow(args: {
  instanceId: string;
  source?: string;
  target: string;
  sourceInvocationId?: string | null;
  content?: unknown;
}): NewDeliverRow {
  const source = args.source ?? "src";
  return {
    deliverId: newId("d"),
    instanceId: args.instanceId,
    sourceNode: source,
    sourceNodeId: nodeIdOf(source),
    sourceInvocationId: args.sourceInvocationId === undefined ? newId("inv") : args.sourceInvocationId,
    targetNode: args.target,
    targetNodeId: nodeIdOf(args.target),
    content: args.content === undefined ? { text: `to ${args.target}` } : args.content,
    createdAt: Date.now(),
  };
}

/** Stable node id for a node name, so suites can address nodes by name. */
export const nodeIdOf = (name: string): string => `node_${name}`;

/**
 * The error `fn` raised, synchronously or as a rejection, or undefined when it succeeded. Stores may
 * throw from a synchronous method or reject from an async one; the contract is the same.
 */
export async function caught(fn: () => Awaitable<unknown>): Promise<unknown> {
  try {
    await fn();
    return undefined;
  } catch (e) {
    return e;
  }
}
