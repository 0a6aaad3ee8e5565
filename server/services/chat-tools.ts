import { z } from "zod";
import { defineTool, type Tool } from "@/server/agent/tools/tool";
import type { GraphOrchestrator } from "./graph-orchestrator";
import type { InstanceQueryService } from "./instance-query-service";
import type { SpecService } from "./spec-service";

/** The tool names the chat's agent knows Modex by; `run_graph` is the one that needs approval. */
export const CHAT_TOOL_NAMES = { LIST_GRAPHS: "list_graphs", INSTANCE_STATUS: "instance_status", RUN_GRAPH: "run_graph" } as const;

/** What `run_graph` answers (as JSON text): the chat view reads `instanceId` to link to the instance. */
export interface RunGraphResult {
  instanceId: string;
  graph: string;
  version: number;
  status: string;
  url: string;
}

export interface ChatToolDeps {
  specs: Pick<SpecService, "list">;
  orchestrator: Pick<GraphOrchestrator, "create">;
  instances: Pick<InstanceQueryService, "get">;
}

/**
 * Modex itself as chat tools, over the app's services (the same ones the REST API and the web UI use):
 * two read-only tools, and `run_graph`, which starts a run and so asks the person first (the agent
 * runtime suspends the turn before it; see ChatService.decide). Results are JSON text for the model.
 */
export function createChatTools(source: ChatToolDeps | (() => ChatToolDeps)): Tool[] {
  // Late-bound: the tool catalog is built before the services these tools call (see app-services.ts).
  const deps = typeof source === "function" ? lazy(source) : source;
  const listGraphs = defineTool({
    name: CHAT_TOOL_NAMES.LIST_GRAPHS,
    description: "List the saved graph specs of this Modex server: name, version, description and node count.",
    args: z.object({}),
    readOnly: true,
    execute: async () =>
      json((await deps.specs.list()).map((s) => ({ name: s.name, version: s.version, description: s.description, nodeCount: s.nodeCount }))),
  });

  const instanceStatus = defineTool({
    name: CHAT_TOOL_NAMES.INSTANCE_STATUS,
    description: "The status, version and result of a graph instance (a run), by its instance id.",
    args: z.object({ instanceId: z.string().min(1).describe("The instance id, as run_graph returned it") }),
    readOnly: true,
    execute: async ({ instanceId }) => {
      const { summary } = await deps.instances.get({ instanceId, node: null });
      return json({
        instanceId: summary.instanceId,
        graph: summary.graphName,
        status: summary.status,
        version: summary.version,
        waitingForAnswer: summary.waiting,
        result: summary.result,
      });
    },
  });

  const runGraph = defineTool({
    name: CHAT_TOOL_NAMES.RUN_GRAPH,
    description:
      "Start a run of a saved graph spec with an input. It has side effects, so the user is asked to approve each call. Answers the new instance id.",
    args: z.object({
      name: z.string().min(1).describe("The spec's name, as list_graphs shows it"),
      input: z.unknown().optional().describe("The run's input (any JSON value); omit for the spec's default"),
    }),
    needsApproval: true,
    execute: async ({ name, input }) => {
      const ref = await deps.orchestrator.create({ spec: name, input });
      const result: RunGraphResult = { instanceId: ref.instanceId, graph: name, version: ref.version, status: ref.status, url: `/instances/${ref.instanceId}` };
      return json(result);
    },
  });

  return [listGraphs, instanceStatus, runGraph];
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

function lazy(get: () => ChatToolDeps): ChatToolDeps {
  return {
    get specs() {
      return get().specs;
    },
    get orchestrator() {
      return get().orchestrator;
    },
    get instances() {
      return get().instances;
    },
  };
}
