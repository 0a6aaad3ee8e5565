import { describe, expect, it } from "vitest";
import type { GraphInstanceRecord, InstanceStatus } from "@/server/graph/persistence/records";
import { planJob } from "./job-plan";

const record = (status: InstanceStatus, attrs: Record<string, unknown> = {}, version = 1): GraphInstanceRecord => ({
  instanceId: "i",
  version,
  graphName: "g",
  specId: null,
  status,
  nodeIdMap: {},
  attrs,
  createdAt: 0,
  updatedAt: 0,
});
const facts = { started: false, requested: null };

describe("planJob: a job's run, as the single process starts it", () => {
  it("run: fresh for a created instance; RECOVERY (crashed first) once a run of it had started, honouring a request", () => {
    expect(planJob({ instanceId: "i", kind: "run" }, record("running"), facts)).toMatchObject({ kind: "run", crashFirst: false, plan: { mode: "fresh" } });
    // Paused before any worker started it: the first run starts with the request (it drains at once).
    expect(planJob({ instanceId: "i", kind: "run" }, record("running"), { ...facts, requested: "pause" })).toMatchObject({ plan: { mode: "fresh", honour: "pause" } });
    const again = planJob({ instanceId: "i", kind: "run" }, record("running", { control_request: "stop" }), { ...facts, started: true });
    expect(again).toMatchObject({ kind: "run", crashFirst: true, plan: { mode: "recovery", restoreState: true, honour: "stop" } });
    // The lease's request wins over one kept in the attrs.
    const leased = planJob({ instanceId: "i", kind: "recover" }, record("crashed", { control_request: "stop" }), { ...facts, requested: "pause" });
    expect(leased).toMatchObject({ kind: "run", crashFirst: false, plan: { mode: "recovery", honour: "pause" } });
  });

  it("run or recover of a fork not started yet: RECOVERY from the state and delivers it was seeded with", () => {
    const fork = record("running", { forked_from: { instanceId: "o", version: 1, eventId: 9, eventNumber: 4, specId: null, stateEdited: false } });
    expect(planJob({ instanceId: "i", kind: "run" }, fork, facts)).toEqual({ kind: "run", crashFirst: false, plan: { instance: fork, mode: "recovery", restoreState: true } });
    expect(planJob({ instanceId: "i", kind: "recover" }, fork, facts)).toMatchObject({ kind: "run", crashFirst: false, plan: { mode: "recovery", restoreState: true } });
    expect(planJob({ instanceId: "i", kind: "run" }, fork, { ...facts, started: true })).toMatchObject({ kind: "run", crashFirst: true, plan: { mode: "recovery" } });
  });

  it("resume: only a paused instance whose resume is due, with the value and the step flag", () => {
    const due = { resume_due: { kind: "answer", at: 1 } };
    expect(planJob({ instanceId: "i", kind: "resume", value: "yes", step: true }, record("paused", due), facts)).toMatchObject({
      kind: "run",
      plan: { mode: "recovery", restoreState: true, resume: { value: "yes" }, step: true },
    });
    // A pause stored after the resume was accepted is that run's: it delivers the value, then pauses.
    expect(planJob({ instanceId: "i", kind: "resume", value: "yes" }, record("paused", due), { ...facts, requested: "pause" })).toMatchObject({
      kind: "run",
      plan: { resume: { value: "yes" }, honour: "pause" },
    });
    // A stop likewise: the run delivers the value, then stops.
    expect(planJob({ instanceId: "i", kind: "resume", value: "yes" }, record("paused", due), { ...facts, requested: "stop" })).toMatchObject({
      kind: "run",
      plan: { resume: { value: "yes" }, honour: "stop" },
    });
    // The job delivered again once its run had started (and paused anew): nothing.
    expect(planJob({ instanceId: "i", kind: "resume", value: "yes" }, record("paused"), facts)).toEqual({ kind: "none" });
    expect(planJob({ instanceId: "i", kind: "deliver" }, record("paused"), facts)).toEqual({ kind: "none" });
    expect(planJob({ instanceId: "i", kind: "resume" }, record("stopped"), facts)).toEqual({ kind: "none" });
  });

  it("deliver to an ended instance wakes it with the pending content; with none pending, the finish is repaired", () => {
    const woken = planJob({ instanceId: "i", kind: "deliver", node: "n" }, record("completed"), { ...facts, wake: "hello" });
    expect(woken).toMatchObject({ kind: "run", plan: { mode: "recovery", restoreState: true, input: { content: "hello" } } });
    expect(planJob({ instanceId: "i", kind: "deliver" }, record("failed"), facts)).toEqual({ kind: "repair" });
  });

  it("reinvoke: version N+1, fresh, once: a job run again after its version began starts nothing new", () => {
    expect(planJob({ instanceId: "i", kind: "reinvoke", input: 7, version: 2 }, record("completed", {}, 2), facts)).toMatchObject({
      kind: "run",
      plan: { mode: "fresh", input: { content: 7 } },
    });
    expect(planJob({ instanceId: "i", kind: "reinvoke", input: 7, version: 2 }, record("completed", {}, 3), facts)).toEqual({ kind: "repair" });
    // A request left on the lease by the ended run is not the new version's.
    const next = planJob({ instanceId: "i", kind: "reinvoke", input: 7, version: 2 }, record("completed", {}, 2), { ...facts, requested: "pause" });
    expect(next).toMatchObject({ kind: "run", plan: { mode: "fresh" } });
    expect(next.kind === "run" && next.plan.honour).toBeFalsy();
  });
});
