// A server process stand-in for the agent crash test: opens the database file, saves a two-agent spec,
// starts a run whose first node delivers at once and whose second node's model never answers, prints
// the instance id once the second node runs, and waits to be killed.
import { openGraphDatabase } from "@/server/db/graph-database";
import { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { createAppServices } from "../../app-services";
import { AuthService } from "../../auth-service";

export const CRASH_SPEC = [
  "name: agent-crash",
  "nodes:",
  "  - { name: first, node_type: agent, description: Gathers the facts., config: { instructions: Gather. } }",
  "  - { name: second, node_type: agent, description: Writes the answer., config: { instructions: Write. } }",
  "edges:",
  "  - { from: __start__, to: first }",
  "  - { from: first, to: second }",
  "  - { from: second, to: __end__ }",
].join("\n");

class Model extends LlmProvider {
  readonly name = "crash-child";
  async *stream(request: LlmRequest): AsyncGenerator<LLMStreamEvent> {
    const deliver = request.tools.find((t) => t.name === "deliver");
    if (deliver?.description.startsWith("You are node: second")) {
      process.stdout.write("second-running\n");
      await new Promise(() => {}); // never answers: the process is killed meanwhile
    }
    if (request.messages.at(-1)?.role === "tool") {
      yield { type: "finish", reason: "stop" };
      return;
    }
    yield { type: "tool_call_complete", call: { id: "c1", name: "deliver", arguments: JSON.stringify({ target: "second", content: "facts: the sky scatters blue light" }) } };
    yield { type: "finish", reason: "tool_calls" };
  }
}

const [file] = process.argv.slice(2);
const model = new Model();
const services = createAppServices({ db: openGraphDatabase(file), auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 100, agents: { provider: () => model } });
await services.specs.save(CRASH_SPEC);
const { instanceId } = await services.orchestrator.create({ spec: "agent-crash", input: "Why is the sky blue?" });
process.stdout.write(`${JSON.stringify({ instanceId })}\n`);
setInterval(() => {}, 1000);
