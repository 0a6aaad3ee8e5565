import type { Author } from "./answer-author";
import type { Awaitable } from "@/server/graph/awaitable";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { DeliverResult, ControlResult } from "./graph-control-service";
import type { InstanceRef } from "./graph-orchestrator";
import type { IdempotencyService, IdempotentAnswer } from "./idempotency-service";
import type { InstanceControl } from "./instance-control";
import type { InstanceLauncher, RunSlot } from "./instance-launcher";
import type { StartedBy } from "./triggers/started-by";

export interface IdempotentCommandsDeps {
  idempotency: IdempotencyService;
  /** Creates instances: the orchestrator here, or the cluster's launcher (server/cluster). */
  launcher: InstanceLauncher;
  control: InstanceControl;
  /** Reads an instance (what a repeated request's first answer is rebuilt from). */
  instances: { load(instanceId: string): Awaitable<GraphInstanceRecord | null> };
}

/**
 * The commands that create work or decide for a waiting run, with an optional Idempotency-Key (REST
 * header, tRPC field): a repeat of a request answers what the first one did. Without a key each call
 * simply runs.
 */
export class IdempotentCommands {
  constructor(private readonly deps: IdempotentCommandsDeps) {}

  /** `startedBy` is recorded with the instance (not part of the request a key stands for). */
  create(args: { spec: string; input?: unknown; breakpoints?: string[] }, key?: string | null, startedBy?: StartedBy, startAfter?: RunSlot): Promise<IdempotentAnswer<InstanceRef>> {
    return this.deps.idempotency.run({
      key,
      scope: "create",
      request: args,
      status: 201,
      execute: (claim) => this.deps.launcher.create({ ...args, claim, startedBy, startAfter }),
      reconstruct: async (instanceId) => {
        const instance = await this.deps.instances.load(instanceId);
        return instance && { instanceId, version: 1, status: instance.version === 1 ? instance.status : "completed" };
      },
    });
  }

  answer(args: { instanceId: string; value: unknown; by: Author | string }, key?: string | null): Promise<IdempotentAnswer<ControlResult>> {
    return this.deps.idempotency.run({
      key,
      scope: `answer:${args.instanceId}`,
      request: args.value,
      status: 200,
      execute: (claim) => this.deps.control.answer(args.instanceId, args.value, args.by, claim),
      reconstruct: () => this.current("ANSWER", args.instanceId),
    });
  }

  /**
   * APPROVE / DENY of the tool call an agent node waits on. The key stands for the decision, its reason and
   * the transaction it names (approve then deny with one key is another request: refused); the key's row
   * commits with the recorded decision, so a repeat, even one racing the first, finds the decision made.
   */
  decide(args: { instanceId: string; approved: boolean; reason?: string; transactionId?: string; by: Author | string }, key?: string | null): Promise<IdempotentAnswer<ControlResult>> {
    const { instanceId, by: _by, ...request } = args;
    return this.deps.idempotency.run({
      key,
      scope: `decide:${instanceId}`,
      request,
      status: 200,
      execute: (claim) => this.deps.control.decide({ ...args, claim }),
      reconstruct: () => this.current(args.approved ? "APPROVE" : "DENY", instanceId),
    });
  }

  deliver(args: { instanceId: string; node: string; content: unknown }, key?: string | null): Promise<IdempotentAnswer<DeliverResult>> {
    return this.deps.idempotency.run({
      key,
      scope: `deliver:${args.instanceId}`,
      request: { node: args.node, content: args.content },
      status: 200,
      execute: (claim) => this.deps.control.deliver({ ...args, claim }),
      reconstruct: async (deliverId) => {
        const current = await this.current("DELIVER_TO_NODE", args.instanceId);
        return current && { ...current, deliverId, pickup: "later" as const };
      },
    });
  }

  reinvoke(args: { instanceId: string; input: unknown }, key?: string | null): Promise<IdempotentAnswer<ControlResult>> {
    return this.deps.idempotency.run({
      key,
      scope: `reinvoke:${args.instanceId}`,
      request: args.input,
      status: 200,
      execute: (claim) => this.deps.control.reinvoke(args.instanceId, args.input, claim),
      // Done once the instance has reached the version the first request made.
      reconstruct: async (version) => {
        const current = await this.current("REINVOKE", args.instanceId);
        return current && current.version >= Number(version) ? current : null;
      },
    });
  }

  private async current(command: ControlResult["command"], instanceId: string): Promise<ControlResult | null> {
    const instance = await this.deps.instances.load(instanceId);
    return instance && { command, instanceId, version: instance.version, status: instance.status };
  }
}
