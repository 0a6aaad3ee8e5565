import { z } from "zod";
import { END } from "../../graph/names";
import type { TurnSnapshot } from "../approval/turn-snapshot";
import { TurnCustomKey } from "../state/turn-custom";
import { defineTool, type Tool } from "../tools/tool";

export const DELIVER_TOOL = "deliver";

export interface Delivery {
  target: string;
  content: string;
}

/**
 * Every delivery of the turn so far, in order, kept in the turn itself: a turn that suspends for an
 * approval after delivering is saved with them (TurnSnapshot), and its resumed leg — another execution
 * of the node, perhaps on a restarted server — routes them with its own.
 */
const TURN_DELIVERIES = new TurnCustomKey<Delivery[]>("node_deliveries");

const DeliveriesSchema = z.array(z.object({ target: z.string(), content: z.string() }));

/** What a suspended turn had delivered before it suspended, from its snapshot; [] when none. */
export function deliveriesOfSuspendedTurn(snapshot: TurnSnapshot | undefined): Delivery[] {
  const parsed = DeliveriesSchema.safeParse(snapshot?.turn.custom[TURN_DELIVERIES.name] ?? []);
  return parsed.success ? parsed.data : [];
}

/**
 * The `deliver` tool of one agent-node execution: the only way the node's work reaches the next node.
 * Its description tells the agent which node it is and where it may deliver; `__end__` collects every
 * delivery, in order, into the graph's final reply. Deliveries are collected in `sink` and routed by the
 * node when its turn ends; the turn keeps them too, for a resume after an approval suspend.
 */
export function deliverTool(options: { node: string; targets: readonly string[]; sink: Delivery[]; description?: string }): Tool {
  const targets = options.targets;
  const listed = targets.map((t) => (t === END ? `- ${END}: the graph's final reply (write for the user directly; never mention nodes or handoffs)` : `- ${t}`)).join("\n");
  return defineTool({
    name: DELIVER_TOOL,
    description: options.description ?? `You are node: ${options.node}. Regular text output reaches no one: call deliver to hand your result on.\nTargets:\n${listed}`,
    args: deliverArgs(targets),
    execute: ({ content, target }, ctx) => {
      const to = target ?? (targets.length === 1 ? targets[0] : undefined);
      if (!to) return { content: `Name a target: one of ${targets.join(", ")}.`, isError: true };
      options.sink.push({ target: to, content });
      ctx.custom?.getOrInit(TURN_DELIVERIES, () => []).push({ target: to, content });
      return `Delivered to ${to}.`;
    },
  });
}

const argsByTargets = new Map<string, z.ZodType>();

/** The arguments schema for a target list, made once per list (its JSON Schema is then made once too). */
function deliverArgs(targets: readonly string[]) {
  const key = targets.join("\u0000");
  let args = argsByTargets.get(key) as ReturnType<typeof makeDeliverArgs> | undefined;
  if (!args) argsByTargets.set(key, (args = makeDeliverArgs(targets)));
  return args;
}

function makeDeliverArgs(targets: readonly string[]) {
  return z.object({
    content: z.string().min(1).describe("What the next node receives: your result, not a copy of your input."),
    target: (targets.length > 0 ? z.enum(targets as [string, ...string[]]) : z.string())
      .optional()
      .describe(targets.length === 1 ? `Defaults to ${targets[0]}.` : "Required: one of the targets."),
  });
}
