import type { Database } from "./graph-database";

/** What a node's next begin needs from its (instance, node) version chain. */
interface Chain {
  last: number;
  /** The highest COMPLETED version: the next begin's parent. */
  completed: number | null;
}

/** Past this many tracked instances the table answers again (a bound, not an expected size). */
const MAX_TRACKED = 1000;

const byDb = new WeakMap<Database, Map<string, Map<string, Chain>>>();

/**
 * The version chains of the instances this connection runs, kept in memory so a node's begin is a plain
 * INSERT: known from an instance's creation, or read from the table at its first begin, until its next
 * status change; a rollback on the connection forgets every instance. Valid because one executor runs
 * an instance at a time, on one connection (a takeover is a status change).
 */
export function trackNewInstance(db: Database, instanceId: string): void {
  let tracked = byDb.get(db);
  if (!tracked) byDb.set(db, (tracked = new Map()));
  if (tracked.size >= MAX_TRACKED) tracked.clear();
  tracked.set(instanceId, new Map());
}

/** Starts tracking an instance whose chains were read from the table; answers them. */
export function trackInstance(db: Database, instanceId: string, chains: Iterable<[string, Chain]>): Map<string, Chain> {
  trackNewInstance(db, instanceId);
  const known = byDb.get(db)!.get(instanceId)!;
  for (const [nodeId, chain] of chains) known.set(nodeId, chain);
  return known;
}

/** The known chains of an instance's nodes, or undefined when they must be read from the table. */
export function knownChains(db: Database, instanceId: string): Map<string, Chain> | undefined {
  return byDb.get(db)?.get(instanceId);
}

/** Records a begun version (after its INSERT succeeded). */
export function noteBegun(chains: Map<string, Chain>, nodeId: string, version: number): void {
  const chain = chains.get(nodeId);
  if (chain) chain.last = version;
  else chains.set(nodeId, { last: version, completed: null });
}

/** Records a completed version (after its compare-and-swap succeeded). */
export function noteCompleted(db: Database, invocation: { instanceId: string; nodeId: string; version: number }): void {
  const chain = byDb.get(db)?.get(invocation.instanceId)?.get(invocation.nodeId);
  if (chain && (chain.completed === null || invocation.version > chain.completed)) chain.completed = invocation.version;
}

/** The instance changed status (it may be run elsewhere next): its chains are read from the table again. */
export function forgetInstanceChains(db: Database, instanceId: string): void {
  byDb.get(db)?.delete(instanceId);
}

/** Something was rolled back: no chain in memory can be trusted. */
export function forgetAllChains(db: Database): void {
  byDb.get(db)?.clear();
}
