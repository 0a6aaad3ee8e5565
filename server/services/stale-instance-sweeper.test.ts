import { describe, expect, it } from "vitest";
import { InMemoryGraphInstanceStore } from "@/server/graph/persistence/memory-instance-store";
import { EventBus } from "./event-bus";
import { InMemoryEventLog } from "./event-log";
import { EventRecorder } from "./event-recorder";
import { StaleInstanceSweeper } from "./stale-instance-sweeper";

const me = { id: "host-a:100:aaaa", host: "host-a", pid: 100 };

async function setup(attrsList: Record<string, unknown>[]) {
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
    isAlive: (pid) => pid === 200,
    staleAfterMs: 60_000,
    now: () => 1_000_000,
  });
  return { instances, ids, sweeper, log, runsHere };
}

describe("StaleInstanceSweeper", () => {
  it("marks RUNNING instances whose executor is gone as CRASHED, and only those", async () => {
    const fresh = 1_000_000 - 1_000;
    const { ids, sweeper, instances, log, runsHere } = await setup([
      { executor_process_id: me.id, heartbeat: fresh }, // 0: ours and running here → keep
      { executor_process_id: me.id, heartbeat: fresh }, // 1: ours, not running here → orphan
      { executor_process_id: "host-a:100:bbbb", heartbeat: fresh }, // 2: earlier server with our pid → gone
      { executor_process_id: "host-a:300:cccc", heartbeat: fresh }, // 3: same host, dead pid → gone
      { executor_process_id: "host-a:200:dddd", heartbeat: fresh }, // 4: same host, alive → keep
      { executor_process_id: "host-b:1:eeee", heartbeat: fresh }, // 5: other host, fresh heartbeat → keep
      { executor_process_id: "host-b:1:ffff", heartbeat: 1_000_000 - 120_000 }, // 6: other host, lapsed → gone
      {}, // 7: nobody claims it → gone
    ]);
    runsHere.add(ids[0]);
    const crashed = await sweeper.sweep();
    expect(crashed.sort()).toEqual([ids[1], ids[2], ids[3], ids[6], ids[7]].sort());
    for (const i of [0, 4, 5]) expect((await instances.load(ids[i]))?.status).toBe("running");
    expect(log.list(ids[1])[0].event).toMatchObject({ type: "instance_status", from: "running", to: "crashed" });
    expect(await sweeper.sweep()).toEqual([]); // crashed ones are no longer RUNNING
  });
});
