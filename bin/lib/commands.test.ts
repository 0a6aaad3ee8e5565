import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { main } from "../modexctl.mjs";

const view = (status: string) => ({
  summary: { instanceId: "7", status, shownVersion: 1, versions: [1], graphName: "g", spec: null, input: null, result: null },
  invocations: [],
  topology: { nodes: [] },
  waitingFor: null,
});

it("run --wait keeps waiting on a run that is CRASHED for a moment (the server recovers it) and exits 0 when it completes", async () => {
  const statuses = ["running", "crashed", "crashed", "running", "completed"];
  let gets = 0;
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.method === "POST") return void res.writeHead(201).end(JSON.stringify({ instanceId: "7", version: 1, status: "running" }));
    res.end(JSON.stringify(view(statuses[Math.min(gets++, statuses.length - 1)])));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const out: string[] = [];
    const err: string[] = [];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const code = await main(["run", "g", "--wait", "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: "t" });
    expect(code, err.join("\n")).toBe(0);
    expect(gets).toBe(5);
    expect(out.join("\n")).toMatch(/status\s+completed/);
  } finally {
    server.close();
  }
});
