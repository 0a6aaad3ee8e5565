import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { createAppServices } from "../app-services";
import { AuthService } from "../auth-service";

const CHILD = path.join(import.meta.dirname, "testing", "agent-crash-child.ts");

describe("an agent node recovered after a crash", () => {
  it("runs again on its input (re-offered from the ledger), not on '[No input…]'", async () => {
    using temp = new TempDatabase();
    temp.db.close();
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, temp.file], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const deadline = Date.now() + 30_000;
    while (!out.includes("second-running")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`child: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const { instanceId } = JSON.parse(out.split("\n").find((l) => l.startsWith("{"))!) as { instanceId: string };
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const db = temp.reopen();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "deliver", args: { target: "__end__", content: "Rayleigh scattering." } }] }, { text: "done" }]);
    const services = createAppServices({ db, auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 0, exclusive: true, agents: { provider: () => provider } });
    const { recovered } = await services.recovery.pass();
    expect(recovered).toContain(instanceId);
    await services.orchestrator.settled(instanceId);
    expect((await services.orchestrator.coordinator.instances.load(instanceId))?.status).toBe("completed");
    const input = provider.requests[0].messages.find((m) => m.role === "user")!.content;
    expect(input).toContain("[Input from graph node 'first' (role: Gathers the facts.)]\nfacts: the sky scatters blue light");
    expect(input).not.toContain("No input was delivered");
    services.recovery.stop();
  }, 60_000);
});
