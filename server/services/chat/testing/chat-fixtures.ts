import { z } from "zod";
import { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { defineTool } from "@/server/agent/tools/tool";
import type { ChatEvent } from "../chat-event";

/** A model that starts a turn and never answers: the process "dies" with the turn running. */
export class HangingProvider extends LlmProvider {
  readonly name = "hanging";
  async *stream(): AsyncGenerator<LLMStreamEvent> {
    yield { type: "text_delta", text: "thinking… " };
    await new Promise(() => {});
  }
}

/** A `deploy` tool that needs approval; `deployed` lists the services it deployed, in order. */
export function deployTool() {
  const deployed: string[] = [];
  const tool = defineTool({
    name: "deploy",
    description: "Deploy a service",
    args: z.object({ service: z.string() }),
    needsApproval: true,
    execute: ({ service }) => (deployed.push(service), `deployed ${service}`),
  });
  return { tool, deployed };
}

/** The kinds of `events`, streamed text left out. */
export const eventKinds = (events: ChatEvent[]) => events.map((e) => e.type).filter((t) => t !== "text_delta");

/** Polls `read` until it answers something, for at most `ms`. */
export async function untilFound<T>(read: () => Promise<T | undefined>, ms = 5_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 5))) {
    const value = await read();
    if (value !== undefined) return value;
  }
  throw new Error("timed out");
}

/** Re-exported for the chat's tests: the agent layer's, where its own tests use it too. */
export { HangingAfter } from "@/server/agent/testing/hanging-after";

/** A `fetch` tool; `fetched` lists the URLs it fetched, in order (each call once). */
export function fetchTool() {
  const fetched: string[] = [];
  const tool = defineTool({
    name: "fetch",
    description: "Fetch a page",
    args: z.object({ url: z.string() }),
    execute: ({ url }) => (fetched.push(url), `the page at ${url}`),
  });
  return { tool, fetched };
}
