import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliverStatus, NodeInvocation } from "@/server/graph/persistence/records";
import { flushPendingWrites } from "./deferred-transaction";
import { forgetRunMemory } from "./instance-memory";
import { knownLedger } from "./known-ledgers";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { DELIVER_SQL, readConsumable } from "./sqlite-deliver-store";
import { ledgerRow } from "./testing/ledger-rows";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";
import { seededRandom } from "./testing/seeded-random";

const OPEN: readonly DeliverStatus[] = ["STAGED", "PENDING", "CONSUMED_PENDING"];

/**
 * The deliver ledger's low-water mark (`graph_instances.deliver_low_water`): no row below it is open, so
 * open rows are read from there; status changes raise it, and a run without the mirrored ledger (after
 * a restart) loads it from there.
 */
describe("deliver low-water mark", () => {
  let temp: TempDatabase;
  let c: SqliteCoordinator;
  let instanceId: string;
  const nodes = ["a", "b", "c", "j"];
  beforeEach(() => {
    temp = tempDatabase();
    c = new SqliteCoordinator(temp.db);
    instanceId = c.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
  });
  afterEach(() => temp[Symbol.dispose]());

  const open = (node: string) => c.openInvocation({ instanceId, nodeId: `node_${node}`, nodeName: node });
  const row = (from: NodeInvocation | null, target: string, content: unknown) => ledgerRow(instanceId, from, target, content);
  /** Runs `node` to completion, delivering `to` its targets; answers the inputs it read. */
  const run = (node: string, to: Record<string, unknown> = {}) => {
    const opened = open(node);
    const outbox = Object.entries(to).map(([target, content]) => row(opened.invocation, target, content));
    c.completeInvocation(opened.invocation, outbox);
    c.promoteConsumed(opened.invocation);
    return opened.inputs.map((r) => r.content);
  };
  const mark = () =>
    temp.db.prepare(`SELECT deliver_low_water FROM graph_instances WHERE instance_id = ? AND is_latest = 1`).pluck().get(instanceId) as number;
  /** The table's open rows of a node, read without the mark. */
  const fromTable = (node: string) =>
    temp.db
      .prepare(
        `SELECT deliver_id, status, consumed_by FROM deliver_rows
         WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
      )
      .raw()
      .all(instanceId, `node_${node}`);
  const shape = (rows: { deliverId: string; status: string; consumedByInvocationId: string | null }[]) =>
    rows.map((r) => [r.deliverId, r.status, r.consumedByInvocationId]);
  /** The mirrored ledger, when this connection has one, answers what the whole table says. */
  const mirrorAgrees = () => {
    flushPendingWrites(temp.db);
    for (const node of nodes) expect(shape(readConsumable(temp.db, instanceId, `node_${node}`).rows)).toEqual(fromTable(node));
  };
  /** The mark's rule, checked on the whole ledger; answers the highest mark the rule allows. */
  const markHolds = (): number => {
    const [firstOpen, lastKept, last] = temp.db
      .prepare(
        `SELECT min(CASE WHEN status IN ('STAGED', 'PENDING', 'CONSUMED_PENDING') THEN seq END),
          max(CASE WHEN status <> 'STAGED' THEN seq END), max(seq) FROM deliver_rows WHERE instance_id = ?`,
      )
      .raw()
      .get(instanceId) as [number | null, number | null, number | null];
    const highest = Math.min(firstOpen ?? (last ?? 0) + 1, (lastKept ?? 0) + 1);
    expect(mark()).toBeLessThanOrEqual(highest);
    return highest;
  };
  const everyOpenRow = () => c.delivers.listByInstance(instanceId).filter((r) => OPEN.includes(r.status));

  it("is raised by a pause to the first open row, and by a run's end past the last row", () => {
    expect(mark()).toBe(1);
    run("a", { b: 1, c: 2 }); // rows 1, 2
    run("b", { j: "from b" }); // row 3
    c.instances.transition(instanceId, "paused");
    expect(mark()).toBe(2); // c's input

    c.instances.transition(instanceId, "running");
    c.cancelInvocation(open("c").invocation, "interrupt"); // row 2 stays claimed: still open
    c.instances.transition(instanceId, "paused");
    expect(mark()).toBe(2);

    c.instances.transition(instanceId, "running");
    expect(run("c", { j: "from c" })).toEqual([2]); // row 4
    expect(run("j")).toEqual(["from b", "from c"]);
    c.instances.transition(instanceId, "completed");
    expect(mark()).toBe(5);
    expect(markHolds()).toBe(5);
  });

  it("is carried to a new version, whose run starts reading there", () => {
    run("a", { b: 1 });
    run("b");
    c.instances.transition(instanceId, "completed");
    expect(mark()).toBe(2);
    c.instances.beginInvocation(instanceId, { content: "again" });
    expect(mark()).toBe(2);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    c.delivers.appendPending(row(null, "a", "external"));
    expect(run("a")).toEqual(["external"]);
    mirrorAgrees();
  });

  it("lets a begin after a restart load exactly the open rows from the mark", () => {
    run("a", { b: 1, c: 2 });
    run("b", { j: "from b" });
    c.cancelInvocation(open("c").invocation, "interrupt");
    c.instances.transition(instanceId, "paused");
    expect(mark()).toBe(2);

    temp.reopen();
    c = new SqliteCoordinator(temp.db);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    c.instances.transition(instanceId, "running");
    const retry = open("c");
    expect(retry.inputs.map((r) => [r.content, r.status])).toEqual([[2, "CONSUMED_PENDING"]]);
    expect(knownLedger(temp.db, instanceId)).toBeDefined(); // loaded once, for the run's next begins
    mirrorAgrees();
    c.completeInvocation(retry.invocation, [row(retry.invocation, "j", "from c")]);
    c.promoteConsumed(retry.invocation);
    expect(run("j")).toEqual(["from b", "from c"]);
    mirrorAgrees();
    c.instances.transition(instanceId, "completed");
    expect(mark()).toBe(markHolds());
  });

  it("reads no row below the mark: what was open there would be lost, so the mark must never pass one", () => {
    run("a", { b: 1 });
    run("b");
    c.delivers.appendPending(row(null, "b", "late"));
    c.instances.transition(instanceId, "paused");
    expect(mark()).toBe(2);
    // A row below the mark reopened behind the engine's back (nothing does this): the mark hides it.
    temp.db.prepare(`UPDATE deliver_rows SET status = 'PENDING', consumed_by = NULL WHERE instance_id = ? AND seq = 1`).run(instanceId);
    temp.reopen();
    c = new SqliteCoordinator(temp.db);
    c.instances.transition(instanceId, "running");
    expect(c.delivers.consumable(instanceId, "node_b").map((r) => r.content)).toEqual(["late"]);
    expect(c.delivers.listByStatus(instanceId, ["PENDING"]).map((r) => r.content)).toEqual(["late"]);
    expect(open("b").inputs.map((r) => r.content)).toEqual(["late"]);
  });

  it("lets recovery after a crash list the open rows from the mark, and close what the crash left", async () => {
    run("a", { b: 1, c: 2 });
    run("b", { j: "from b" });
    c.instances.transition(instanceId, "paused");
    c.instances.transition(instanceId, "running");
    const crashed = open("c").invocation; // RUNNING, its input claimed, when the process dies
    c.flush();
    temp.reopen();
    c = new SqliteCoordinator(temp.db);
    expect(mark()).toBe(2);

    const scan = await c.recover(instanceId);
    expect(scan).toEqual({ orphanedNodeIds: ["node_c"], pendingNodeIds: ["node_c", "node_j"] });
    expect(c.nodes.get(crashed.invocationId)?.status).toBe("CRASHED");
    expect(run("c", { j: "from c" })).toEqual([2]);
    expect(run("j")).toEqual(["from b", "from c"]);
    mirrorAgrees();
    c.instances.transition(instanceId, "completed");
    expect(mark()).toBe(markHolds());
    expect(everyOpenRow()).toEqual([]);
  });

  it("does not load a ledger with a STAGED row: the table answers, from the mark", () => {
    run("a", { b: 1 });
    c.instances.transition(instanceId, "paused");
    c.instances.transition(instanceId, "running");
    const b = open("b");
    c.completeInvocation(b.invocation, []);
    c.promoteConsumed(b.invocation);
    c.delivers.stage([row(b.invocation, "j", "staged")]); // a completion whose promotion a crash cut off
    temp.reopen();
    c = new SqliteCoordinator(temp.db);
    expect(open("a").inputs).toEqual([]);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    expect(c.delivers.listByStatus(instanceId, ["STAGED"]).map((r) => r.content)).toEqual(["staged"]);
  });

  it("reads open rows as a range of the ledger's primary key from the mark, never through a scan", () => {
    const fromMark = ["consumable", "claimAll", "claimUpTo", "claim", "promoteConsumed", "openByStatus", "open", "stagedOrClaimed", "allOpen"] as const;
    for (const key of fromMark) {
      const sql = DELIVER_SQL[key];
      const plan = temp.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from(sql.matchAll(/\?/g), () => "x"))
        .map((r) => (r as { detail: string }).detail);
      expect(plan.some((d) => d.startsWith("SEARCH deliver_rows USING PRIMARY KEY (instance_id=? AND seq>?")), key).toBe(true);
      expect(plan.join(" "), key).not.toMatch(/SCAN deliver_rows|TEMP B-TREE/);
    }
  });

  it.each([3, 17, 29, 58])("never passes an open row, through random lifecycles, deliveries, restarts and pauses (seed %i)", (seed) => {
    const random = seededRandom(seed);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    let paused = false;
    let content = 0;
    const outbox = () => {
      const to: Record<string, unknown> = {};
      for (let k = Math.floor(random() * 3); k > 0; k--) to[pick(nodes)] = ++content;
      return to;
    };
    for (let step = 0; step < 120; step++) {
      const op = random();
      if (paused) {
        c.instances.transition(instanceId, "running");
        paused = false;
      } else if (op < 0.45) {
        run(pick(nodes), outbox());
      } else if (op < 0.55) {
        c.cancelInvocation(open(pick(nodes)).invocation, "interrupt");
      } else if (op < 0.65) {
        c.delivers.appendPending(row(null, pick(nodes), ++content));
      } else if (op < 0.72) {
        // A store's own staging, then its promotion or discard (what the base coordinator and recovery do).
        const source = open(pick(nodes)).invocation;
        c.completeInvocation(source, []);
        c.promoteConsumed(source);
        c.delivers.stage(Object.entries(outbox()).map(([target, value]) => row(source, target, value)));
        if (random() < 0.5) c.delivers.promoteStaged(source.invocationId);
        else c.delivers.discardStaged([source.invocationId]);
      } else if (op < 0.85) {
        const mirrored = knownLedger(temp.db, instanceId) !== undefined;
        c.instances.transition(instanceId, "paused");
        paused = true;
        // With the run's mirror, the mark rises as far as the rule allows.
        if (mirrored) expect(mark()).toBe(markHolds());
      } else if (op < 0.93) {
        c.flush();
        temp.reopen();
        c = new SqliteCoordinator(temp.db);
      } else {
        forgetRunMemory(temp.db, instanceId);
      }
      c.flush();
      markHolds();
      if (knownLedger(temp.db, instanceId)) mirrorAgrees();
      expect(c.delivers.listByStatus(instanceId, OPEN)).toEqual(everyOpenRow());
    }
  });
});
