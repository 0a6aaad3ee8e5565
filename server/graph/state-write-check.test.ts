import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StateValidationError } from "./errors";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import type { NodePolicy } from "./node-policy";
import { FunctionNode, type NodeFunction } from "./nodes/function-node";
import { GraphPersistenceCoordinator } from "./persistence/coordinator";
import { createInMemoryCoordinator } from "./persistence/factories";
import { InMemoryDeliverStore } from "./persistence/memory-deliver-store";
import { InMemoryGraphInstanceStore } from "./persistence/memory-instance-store";
import { InMemoryNodeStateStore } from "./persistence/memory-node-state-store";
import type { NewDeliverRow, NodeInvocation } from "./persistence/records";
import type { SchedulerKind } from "./scheduler";
import { defineGraphState, EmptyGraphState } from "./state";

/** Library code that writes `ctx.state` directly is checked when its node completes, field by field. */

const Typed = defineGraphState({
  count: z.number().default(0),
  items: z.array(z.number()).default([]),
  cfg: z.object({ a: z.number() }).optional(),
});
type Typed = typeof Typed;
type Body = NodeFunction<Typed>;

/** START → write → after → END, `write` running `body`; `ran` lists the nodes that ran. */
function chain(body: Body, scheduler: SchedulerKind = "linear", policy?: NodePolicy) {
  const ran: string[] = [];
  const g = new Graph({ name: "typed", state: Typed })
    .addNode(new FunctionNode<Typed>("write", (ctx, input) => (ran.push("write"), body(ctx, input)), { policy }))
    .addNode(new FunctionNode<Typed>("after", () => (ran.push("after"), "done")))
    .addEdge(START, "write")
    .addEdge("write", "after")
    .addEdge("after", END)
    .compile({ scheduler });
  return { g, ran };
}

async function failedRun(g: ReturnType<typeof chain>["g"], state: Partial<z.input<Typed>> = {}) {
  const coordinator = createInMemoryCoordinator();
  const observer = new RecordingObserver();
  const ctx = g.createContext({ coordinator, observer, state });
  const error = await g.run(ctx).then(
    () => null,
    (e: unknown) => e,
  );
  const instance = await coordinator.instances.load(ctx.instanceId);
  const stored = (await coordinator.instances.loadState(ctx.instanceId)) as z.output<Typed> | null;
  const nodes = await coordinator.nodes.listByInstance(ctx.instanceId);
  return { ctx, error, instance, stored, nodes, observer };
}

describe.each(["linear", "parallel"] as const)("state writes are checked at the node's completion (%s)", (scheduler) => {
  it("a wrong-typed write fails its node with StateValidationError naming field, node and problem; nothing after runs", async () => {
    const { g, ran } = chain((ctx) => {
      (ctx.state as { count: unknown }).count = "three";
      return "x";
    }, scheduler);
    const { ctx, error, instance, stored, nodes, observer } = await failedRun(g, { count: 2 });
    expect(error).toBeInstanceOf(StateValidationError);
    const e = error as StateValidationError;
    expect(e.field).toBe("count");
    expect(e.node).toBe("write");
    expect(e.message).toContain('node "write"');
    expect(e.message).toContain('state field "count"');
    expect(e.message).toContain("expected number");
    expect(e.message).toContain('"three"');
    expect(ran).toEqual(["write"]);
    // Put back: the state in memory and the stored one keep the value from before the node.
    expect(ctx.state.count).toBe(2);
    expect(stored?.count).toBe(2);
    expect(instance?.status).toBe("failed");
    expect(observer.ofType("instance_status").at(-1)).toMatchObject({ to: "failed", error: e.message });
    expect(nodes.find((n) => n.nodeName === "write")?.status).toBe("FAILED");
    expect(observer.ofType("node_failed")).toMatchObject([{ node: "write", error: e.message }]);
    expect(observer.ofType("node_completed").map((x) => x.node)).not.toContain("write");
  });

  it("writes that fit, read-only nodes and nested writes that fit complete as before", async () => {
    const { g, ran } = chain((ctx) => {
      ctx.state.count += 1;
      ctx.state.items.push(ctx.state.count);
      ctx.state.cfg = { a: ctx.state.items.length };
      return ctx.state.count;
    }, scheduler);
    const { ctx, result } = await g.invoke(null, { coordinator: createInMemoryCoordinator() });
    expect(result.status).toBe("completed");
    expect(ran).toEqual(["write", "after"]);
    expect(ctx.state).toMatchObject({ count: 1, items: [1], cfg: { a: 1 } });
  });

  it("a value set in steps is checked as the node leaves it, not at each assignment", async () => {
    const { g } = chain((ctx) => {
      ctx.state.cfg = {} as { a: number };
      ctx.state.cfg.a = 7;
      return null;
    }, scheduler);
    const { ctx, result } = await g.invoke(null);
    expect(result.status).toBe("completed");
    expect(ctx.state.cfg).toEqual({ a: 7 });
  });

  it("a deleted required field, and an object changed in place, are writes too", async () => {
    const deleting = chain((ctx) => {
      delete (ctx.state as { count?: number }).count;
      return null;
    }, scheduler);
    const deleted = await failedRun(deleting.g, { count: 5 });
    // A default fills a missing field in on load, so `count` may go; a required nested field may not.
    expect(deleted.error).toBeNull();

    const nested = chain((ctx) => {
      (ctx.state.cfg as { a: unknown }).a = "seven";
      return null;
    }, scheduler);
    const inPlace = await failedRun(nested.g, { cfg: { a: 1 } });
    expect(inPlace.error).toMatchObject({ name: "StateValidationError", field: "cfg", node: "write" });
    expect((inPlace.error as Error).message).toContain("cfg");
  });

  it("an object changed in place cannot be put back: the failure stores no state, so the store keeps the last that fit", async () => {
    const { g } = chain((ctx) => {
      (ctx.state.items as unknown[]).push("not a number");
      return null;
    }, scheduler);
    const { error, instance, stored, ctx } = await failedRun(g, { items: [1] });
    expect(error).toMatchObject({ name: "StateValidationError", field: "items" });
    expect(ctx.stateSpoiled).toBe(true);
    expect(instance?.status).toBe("failed");
    // Never the refused value (the in-memory store saves no state before the run ends).
    expect(JSON.stringify(stored ?? null)).not.toContain("not a number");
  });

  it("a node that interrupts after a refused write fails instead of pausing", async () => {
    const { g } = chain((ctx) => {
      (ctx.state as { count: unknown }).count = { many: true };
      ctx.interrupt({ question: "ok?" });
    }, scheduler);
    const { error, instance, ctx, stored } = await failedRun(g);
    expect(error).toMatchObject({ name: "StateValidationError", field: "count", node: "write" });
    expect(instance?.status).toBe("failed");
    expect(ctx.state.resumeTarget).toBeNull();
    expect(stored).toMatchObject({ count: 0, resumeTarget: null });
  });

  it("a node that interrupts after writes that fit pauses with them kept", async () => {
    const { g } = chain((ctx) => {
      ctx.state.count = 9;
      ctx.interrupt({ question: "ok?" });
    }, scheduler);
    const { error, instance, stored } = await failedRun(g);
    expect(error).toMatchObject({ name: "GraphInterrupt" });
    expect(instance?.status).toBe("paused");
    expect(stored).toMatchObject({ count: 9, resumeTarget: "write" });
  });

  it("a node failing with its own error keeps that error; its refused write is put back", async () => {
    const { g } = chain((ctx) => {
      (ctx.state as { count: unknown }).count = "x";
      throw new Error("boom");
    }, scheduler);
    const { error, stored, ctx } = await failedRun(g, { count: 4 });
    expect(error).toMatchObject({ message: "boom" });
    expect(ctx.state.count).toBe(4);
    expect(stored?.count).toBe(4);
  });

  it("a StateValidationError is retried under the node's retry policy, each attempt from the state before the refused write", async () => {
    let attempts = 0;
    const seen: unknown[] = [];
    const { g } = chain(
      (ctx) => {
        attempts++;
        seen.push(ctx.state.count);
        (ctx.state as { count: unknown }).count = attempts === 1 ? "first try" : 10;
        return null;
      },
      scheduler,
      { retry: { maxAttempts: 3, initialIntervalMs: 1, backoffFactor: 1, maxIntervalMs: 1 } },
    );
    const observer = new RecordingObserver();
    const { ctx, result } = await g.invoke(null, { observer, state: { count: 3 } });
    expect(result.status).toBe("completed");
    expect(seen).toEqual([3, 3]);
    expect(ctx.state.count).toBe(10);
    expect(observer.ofType("node_failed")).toMatchObject([{ node: "write", attempt: 1 }]);
  });

  it("retry_on narrows it, and a value changed in place is never retried (the retry would start from it)", async () => {
    let attempts = 0;
    const { g } = chain(
      (ctx) => {
        attempts++;
        (ctx.state.items as unknown[]).push("bad");
        return null;
      },
      scheduler,
      { retry: { maxAttempts: 3, initialIntervalMs: 1, backoffFactor: 1, maxIntervalMs: 1 } },
    );
    const { error } = await failedRun(g);
    expect(error).toMatchObject({ name: "StateValidationError", field: "items" });
    expect(attempts).toBe(1);
  });
});

describe("state writes in parallel branches, joins and subgraphs", () => {
  /** START → fan → a, b → join → END on the parallel scheduler. */
  function diamond(a: Body, b: Body, join: Body = () => "joined") {
    return new Graph({ name: "diamond", state: Typed })
      .addNode(new FunctionNode<Typed>("fan", (ctx) => (ctx.deliver(1, "a"), ctx.deliver(2, "b"), undefined)))
      .addNode(new FunctionNode<Typed>("a", a))
      .addNode(new FunctionNode<Typed>("b", b))
      .addNode(new FunctionNode<Typed>("join", join, { triggerMode: "ON_ALL_PREDS" }))
      .addEdge(START, "fan")
      .addEdge("fan", "a")
      .addEdge("fan", "b")
      .addEdge("a", "join")
      .addEdge("b", "join")
      .addEdge("join", END)
      .compile({ scheduler: "parallel" });
  }

  it("the branch that wrote the refused value fails, not its sibling", async () => {
    const g = diamond(
      async (ctx) => {
        (ctx.state as { count: unknown }).count = "from a";
        await new Promise((r) => setTimeout(r, 5));
        return "a";
      },
      (ctx) => ((ctx.state.count += 1), "b"),
    );
    const coordinator = createInMemoryCoordinator();
    const ctx = g.createContext({ coordinator, state: { count: 1 } });
    const error = await g.run(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StateValidationError", field: "count", node: "a" });
    const nodes = await coordinator.nodes.listByInstance(ctx.instanceId);
    expect(nodes.find((n) => n.nodeName === "b")?.status).toBe("COMPLETED");
    expect(nodes.find((n) => n.nodeName === "a")?.status).toBe("FAILED");
    expect(ctx.liveWrites?.size).toBe(0);
  });

  it("a sibling's completion does not store another branch's write in progress", async () => {
    const stored: unknown[] = [];
    class Recording extends GraphPersistenceCoordinator {
      override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown) {
        stored.push([invocation.nodeName, state === undefined ? "not stored" : structuredClone(state)]);
        return super.completeInvocation(invocation, outbox, state);
      }
    }
    const coordinator = new Recording(new InMemoryGraphInstanceStore(), new InMemoryNodeStateStore(), new InMemoryDeliverStore());
    const g = diamond(
      async (ctx) => {
        ctx.state.cfg = {} as { a: number };
        await new Promise((r) => setTimeout(r, 20));
        ctx.state.cfg.a = 1;
        return "a";
      },
      async () => (await new Promise((r) => setTimeout(r, 1)), "b"),
    );
    const { result } = await g.invoke(null, { coordinator });
    expect(result.status).toBe("completed");
    const byNode = Object.fromEntries(stored as [string, unknown][]);
    expect(byNode.b).toBe("not stored");
    expect(byNode.a).toMatchObject({ cfg: { a: 1 } });
    expect(byNode.join).toMatchObject({ cfg: { a: 1 } });
  });

  it("a join that reduces into a field of the wrong type fails at the join", async () => {
    const g = diamond(
      () => 1,
      () => 2,
      (ctx, input) => {
        (ctx.state as { count: unknown }).count = input.map((i) => i.content);
        return null;
      },
    );
    const error = await g.invoke(null).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StateValidationError", field: "count", node: "join" });
  });

  it("a subgraph's node is checked against the run's state schema, which stores the shared state", async () => {
    const inner = new Graph({ name: "inner", state: EmptyGraphState })
      .addNode(new FunctionNode("innerWrite", (ctx) => ((ctx.state as Record<string, unknown>).count = "inner", null)))
      .addEdge(START, "innerWrite")
      .compile();
    const outer = new Graph({ name: "outer", state: Typed })
      .addNode(inner as never)
      .addEdge(START, "inner")
      .addEdge("inner", END)
      .compile();
    await expect(outer.invoke(null)).rejects.toMatchObject({ name: "StateValidationError", field: "count", node: "innerWrite" });
  });

  it("a strict state schema refuses an undeclared field; a plain one lets it through (its load strips it)", async () => {
    const Strict = defineGraphState({ n: z.number().default(0) }).strict();
    const build = (state: typeof Strict | typeof Typed) =>
      new Graph({ name: "s", state })
        .addNode(new FunctionNode("w", (ctx) => ((ctx.state as Record<string, unknown>).extra = 1, null)))
        .addEdge(START, "w")
        .compile();
    await expect(build(Strict).invoke(null)).rejects.toMatchObject({ name: "StateValidationError", field: "extra" });
    await expect(build(Typed).invoke(null)).resolves.toMatchObject({ result: { status: "completed" } });
  });
});
