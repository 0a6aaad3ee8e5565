import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { isPromise } from "@/server/graph/awaitable";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices, type AppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { TEST_TOKEN } from "../testing/test-services";

const PAGE = "a line of a long page\n".repeat(400); // ~8,800 characters, over the 1,000 the agents below keep

/** A real HTTP server on loopback serving one long page (what http_fetch reads). */
async function longPage(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`, server };
}

const fetchCall = (url: string) => ({ toolCalls: [{ name: "http_fetch", args: { url } }] });
/** The path the model was told the full output was saved to. */
const savedPath = (content: string) => /full output saved to (\S+\.txt)/.exec(content)?.[1];

const SPEC = (name: string) => `name: ${name}
version: "1"
nodes:
  - name: reader
    node_type: agent
    config:
      instructions: Read the page.
      tools: [http_fetch]
      tool_result_limit: 1000
edges:
  - { from: __start__, to: reader }
  - { from: reader, to: __end__ }
`;

describe("oversized tool results are files deleted with what they belong to", () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  function services(temp: TempDatabase, url: string): AppServices {
    const chatProvider = new ScriptedProvider((request) => (request.messages.at(-1)?.role === "tool" ? { text: "read it" } : fetchCall(url)));
    const nodeProvider = () => new ScriptedProvider([fetchCall(url), { toolCalls: [{ name: "deliver", args: { target: "__end__", content: "done" } }] }, { text: "done" }]);
    return createAppServices({
      db: temp.db,
      auth: new AuthService(TEST_TOKEN),
      heartbeatMs: 0,
      agents: { workspace: temp.dir, chatProvider, provider: nodeProvider, fetchAllowedHosts: ["127.0.0.1"] },
    });
  }

  it("a chat's: written under its own directory, gone when the chat is deleted; another chat's stay", async () => {
    using temp = new TempDatabase();
    const page = await longPage();
    servers.push(page.server);
    const app = services(temp, page.url);
    app.agents.save("name: reader\ndescription: Reads pages.\ninstructions: Read pages.\ntools: [http_fetch]\nlimits: { tool_result_limit: 1000 }\n");
    const [gone, kept] = [await app.chat.send({ message: "read the page", agent: "reader" }), await app.chat.send({ message: "read it too", agent: "reader" })];
    const files: string[] = [];
    for (const { sessionId } of [gone, kept]) {
      await app.chat.idle(sessionId);
      const result = (await app.chat.events(sessionId)).find((e) => e.type === "tool_result");
      const file = savedPath(result?.type === "tool_result" ? result.content : "");
      expect(file).toBeDefined();
      expect(readFileSync(file!, "utf8")).toContain(PAGE.slice(0, 200));
      expect(path.relative(path.join(temp.dir, ".modex", "chats", sessionId), file!).startsWith("..")).toBe(false);
      files.push(file!);
    }

    await app.chat.remove(gone.sessionId);
    expect(existsSync(files[0])).toBe(false);
    expect(existsSync(path.join(temp.dir, ".modex", "chats", gone.sessionId))).toBe(false);
    expect(existsSync(files[1])).toBe(true);
  });

  it("an agent node's: under its instance's directory, gone when the instance is deleted", async () => {
    using temp = new TempDatabase();
    const page = await longPage();
    servers.push(page.server);
    const app = services(temp, page.url);
    const saved = app.specs.save(SPEC("page-reader"));
    if (isPromise(saved)) throw new Error("SQLite saves specs synchronously");
    const [gone, kept] = [(await app.orchestrator.create({ spec: "page-reader", input: "go" })).instanceId, (await app.orchestrator.create({ spec: "page-reader", input: "go" })).instanceId];
    for (const id of [gone, kept]) await app.orchestrator.settled(id);
    const overflow = (id: string) => path.join(temp.dir, ".modex", "graphs", "instances", id, "tool-overflow");
    for (const id of [gone, kept]) {
      expect((await app.orchestrator.coordinator.instances.load(id))?.status).toBe("completed");
      expect(readdirSync(overflow(id))).toHaveLength(1);
    }
    expect(existsSync(path.join(temp.dir, ".modex", "tool-overflow"))).toBe(false); // nothing in a shared folder nobody deletes

    await app.control.delete(gone);
    expect(existsSync(overflow(gone))).toBe(false);
    expect(readdirSync(overflow(kept))).toHaveLength(1);
    app.recovery.stop();
    await app.orchestrator.drainAll();
  });
});
