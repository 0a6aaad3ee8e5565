import { describe, expect, it } from "vitest";
import { InMemoryGraphInstanceStore } from "@/server/graph/persistence/memory-instance-store";
import { EventBus } from "./event-bus";
import { InMemoryEventLog } from "./event-log";
import { EventRecorder } from "./event-recorder";
import { StaleInstanceSweeper } from "./stale-instance-sweeper";

const me = { id: "run-id-of-this-server", host: "host-a", pid: 100 };
const NOW = 1_000_000;

async function setup(attrsList: Record<string, unknown>[], options: { exclusive: boolean }) {
  const runsHere = new Set<string>();
  const instances = new InMemoryGraphInstanceStore();
  const ids: string[] = [];
  for (const attrs of attrsList) {
    const r = await instances.create({ graphName: "g", nodeIdMap: {}, input: { content: null }, attrs });
    ids.push(r.instanceId);
  }
  const log = new InMemoryEventLog();
  const sweeper = new StaleInstanceSweeper({
    instances,
    recorder: new EventRecorder(log, new EventBus()),
    executor: me,
    runsHere: (id) => runsHere.has(id),
    exclusive: options.exclusive,
    staleAfterMs: 60_000,
    ownGraceMs: 1_000,
    now: () => NOW,
  });
  return { instances, ids, sweeper, log, runsHere };
}

describe("StaleInstanceSweeper", () => {
  const attrs = [
    { executor_process_id: me.id, heartbeat: NOW - 5_000 }, // 0: ours and running here → keep
    { executor_process_id: me.id, heartbeat: NOW - 5_000 }, // 1: ours, not running here → orphan
    { executor_process_id: me.id, heartbeat: NOW - 10 }, // 2: ours, being launched this instant → keep for now
    { executor_process_id: "killed-server", heartbeat: NOW - 50 }, // 3: another run id, fresh heartbeat
    { executor_process_id: "other-server", heartbeat: NOW - 120_000 }, // 4: another run id, lapsed heartbeat
    {}, // 5: nobody claims it → orphan
  ];

  it("holding the data directory's lock, orphans every other executor's RUNNING instance at once", async () => {
    const { ids, sweeper, instances, log, runsHere } = await setup(attrs, { exclusive: true });
    runsHere.add(ids[0]);
    expect((await sweeper.sweep()).sort()).toEqual([ids[1], ids[3], ids[4], ids[5]].sort());
    for (const i of [0, 2]) expect((await instances.load(ids[i]))?.status).toBe("running");
    expect(log.list(ids[3])[0].event).toMatchObject({ type: "instance_status", from: "running", to: "crashed" });
    expect(await sweeper.sweep()).toEqual([]); // crashed ones are no longer RUNNING
  });

  it("without the lock (several executors), trusts another executor until its heartbeat lapses", async () => {
    const { ids, sweeper, runsHere } = await setup(attrs, { exclusive: false });
    runsHere.add(ids[0]);
    expect((await sweeper.sweep()).sort()).toEqual([ids[1], ids[4], ids[5]].sort());
  });
});
