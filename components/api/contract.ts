import type { RouterInputs, RouterOutputs } from "@/server/api/root";
import type { EngineEvent } from "@/server/graph/events";

/**
 * The shapes the UI reads from the tRPC API, inferred from the routers (types only: the client never
 * imports server code). Components name these aliases rather than spelling router paths.
 */

export type SpecListItem = RouterOutputs["specs"]["list"][number];
export type SpecDetail = RouterOutputs["specs"]["get"];
export type ValidateResult = RouterOutputs["specs"]["validate"];
export type SpecIssue = ValidateResult["issues"][number];
/** One finished agent turn of the Traces list. */
export type TurnTrace = RouterOutputs["traces"]["recent"]["turns"][number];
export type SpecRevision = RouterOutputs["specs"]["history"][number];

export type InstanceListItem = RouterOutputs["instances"]["list"][number];
export type InstanceStatus = InstanceListItem["status"];
export type InstanceDetail = RouterOutputs["instances"]["get"];
export type InvocationDto = InstanceDetail["invocations"][number];
export type DeliverDto = InstanceDetail["delivers"][number];
export type InstanceVersionDto = InstanceDetail["summary"]["versions"][number];
export type StoredEventDto = RouterOutputs["instances"]["events"][number];
export type TimelineSummaryDto = RouterOutputs["instances"]["timeline"];
export type RunStateDto = TimelineSummaryDto["state"];
export type CreateInstanceInput = RouterInputs["instances"]["create"];
export type InstanceBulkInput = RouterInputs["instances"]["bulk"];
export type InstanceBulkFilter = NonNullable<InstanceBulkInput["filter"]>;
export type InstanceBulkResult = RouterOutputs["instances"]["bulk"];

export type AgentListItem = RouterOutputs["agents"]["list"][number];
export type AgentDetail = RouterOutputs["agents"]["get"];
export type AgentTool = RouterOutputs["agents"]["tools"][number];
export type McpServerInfo = RouterOutputs["agents"]["mcpServers"][number];
export type InstanceUsageDto = RouterOutputs["agentRuns"]["usage"];
export type NodeUsageDto = InstanceUsageDto["nodes"][number];

/** What a human-input node asks for (the `waitingFor` of a paused instance). */
export interface HumanInputRequest {
  kind?: string;
  node?: string;
  prompt?: string;
  context?: unknown;
}

export type { EngineEvent };
