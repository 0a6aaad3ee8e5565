import type { Database } from "./graph-database";
import { InstanceMemory } from "./instance-memory";

/** What a node's next begin needs from its (instance, node) version chain. */
interface Chain {
  last: number;
  /** The highest COMPLETED version: the next begin's parent. */
  completed: number | null;
}

const chainsOf = new InstanceMemory<Map<string, Chain>>();

/**
 * The version chains of the instances this connection runs, kept in memory so a node's begin is a plain
 * INSERT: known from an instance's creation, or read from the table at its first begin, until its next
 * status change, or through a pause to the resume when no other connection wrote meanwhile
 * (instance-memory.ts); a rollback on the connection forgets every instance. Valid because one executor
 * runs an instance at a time, on one connection (a takeover is a status change).
 */
export function trackNewInstance(db: Database, instanceId: string): void {
  chainsOf.track(db, instanceId, new Map());
}

/** Starts tracking an instance whose chains were read from the table; answers them. */
export function trackInstance(db: Database, instanceId: string, chains: Iterable<[string, Chain]>): Map<string, Chain> {
  return chainsOf.track(db, instanceId, new Map(chains));
}

/** The known chains of an instance's nodes, or undefined when they must be read from the table. */
export function knownChains(db: Database, instanceId: string): Map<string, Chain> | undefined {
  return chainsOf.known(db, instanceId);
}

/** Records a begun version (after its INSERT succeeded). */
export function noteBegun(chains: Map<string, Chain>, nodeId: string, version: number): void {
  const chain = chains.get(nodeId);
  if (chain) chain.last = version;
  else chains.set(nodeId, { last: version, completed: null });
}

/** Records a completed version (after its compare-and-swap succeeded). */
export function noteCompleted(db: Database, invocation: { instanceId: string; nodeId: string; version: number }): void {
  const chain = chainsOf.known(db, invocation.instanceId)?.get(invocation.nodeId);
  if (chain && (chain.completed === null || invocation.version > chain.completed)) chain.completed = invocation.version;
}
