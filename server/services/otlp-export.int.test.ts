import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { HookRunner } from "@/server/agent/hook/hook-runner";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { ReactAgent } from "@/server/agent/react/react-agent";
import { createSpanHooks } from "@/server/agent/trace/create-span-hooks";
import { InMemorySpanSink } from "@/server/agent/trace/span-record";
import { defineTool } from "@/server/agent/tools/tool";
import { installOtlpExport, tracesUrl } from "./otlp-export";

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => resolve(body));
  });

describe("OTLP export of agent spans", () => {
  const received: { path: string; contentType: string; body: string }[] = [];
  const collector = createServer(async (req, res) => {
    received.push({ path: req.url ?? "", contentType: String(req.headers["content-type"]), body: await read(req) });
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  afterAll(() => {
    trace.disable();
    collector.close();
  });

  it("sends the spans of a ReAct turn to an OTLP/HTTP collector when an endpoint is set", async () => {
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
    const { port } = collector.address() as AddressInfo;
    const provider = installOtlpExport({ endpoint: `http://127.0.0.1:${port}`, serviceName: "modex-test" });

    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "standard", sink: new InMemorySpanSink(), providerName: "scripted", model: "m" })) runner.register(spec);
    const echo = defineTool({ name: "echo", description: "Echo", args: z.object({ text: z.string() }), execute: ({ text }) => text });
    const provider2 = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }]);
    await new ReactAgent({ provider: provider2, tools: [echo], hooks: runner }).run("say hi", { sessionId: "s", turnId: "t" });
    await provider.forceFlush();

    expect(received.length).toBeGreaterThan(0);
    expect(received[0].path).toBe("/v1/traces");
    const all = received.map((r) => r.body).join("\n");
    for (const name of ["invoke_agent react", "chat m", "execute_tool echo"]) expect(all).toContain(name);
    expect(all).toContain("modex-test");
    await provider.shutdown();
  });

  it("builds the traces URL from a base endpoint", () => {
    expect(tracesUrl("http://c:4318")).toBe("http://c:4318/v1/traces");
    expect(tracesUrl("http://c:4318/")).toBe("http://c:4318/v1/traces");
    expect(tracesUrl("http://c:4318/v1/traces")).toBe("http://c:4318/v1/traces");
  });
});
