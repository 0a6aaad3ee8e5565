import { describe } from "vitest";
import { InMemoryAgentStore } from "./agent-store";
import { agentStoreTests } from "./testing/agent-store-suite";

describe("AgentStore in memory", () => {
  const store = new InMemoryAgentStore();
  agentStoreTests({ store: () => store });
});
