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

it("a cluster's `queued` reply is printed as queued with no worker started, not as a status the instance had before", async () => {
  const replies: Record<string, unknown> = {
    "/api/graphs/instances/7/answer": { command: "ANSWER", instanceId: "7", version: 1, status: "queued" },
    "/api/graphs/instances/7/resume": { command: "RESUME_GRAPH", instanceId: "7", version: 1, status: "queued" },
    "/api/graphs/instances/7/approve": { command: "APPROVE", instanceId: "7", version: 1, status: "queued" },
    "/api/graphs/instances/7": {
      summary: { instanceId: "7", graphName: "g", spec: null, status: "paused", queued: { kind: "answer", since: 1 }, shownVersion: 1, versions: [{}], createdAt: 0, updatedAt: 0, input: null, result: null },
      topology: { nodes: [] },
      invocations: [],
      waitingFor: { kind: "human_input", node: "ask", prompt: "ok?" },
    },
    "/api/graphs/instances/7/reinvoke": { command: "REINVOKE", instanceId: "7", version: 2, status: "queued" },
    "/api/graphs/instances/7/step": { command: "STEP", instanceId: "7", version: 1, status: "queued" },
    "/api/graphs/instances": [
      { instanceId: "7", graphName: "g", version: 1, status: "paused", waiting: true, waitKind: "input", queued: { kind: "answer", since: 1 }, updatedAt: 0 },
      { instanceId: "8", graphName: "g", version: 3, status: "crashed", waiting: false, waitKind: null, queued: { kind: "recover", since: 1 }, updatedAt: 0 },
      { instanceId: "9", graphName: "g", version: 1, status: "paused", waiting: true, waitKind: "input", queued: null, updatedAt: 0 },
    ],
    "/api/graphs/instances/7/deliver": { command: "DELIVER_TO_NODE", instanceId: "7", version: 2, status: "queued", deliverId: "d1", pickup: "new_run" },
  };
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(replies[req.url!.split("?")[0]]));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main([...args, "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: "t" });
      expect(code, err.join("\n")).toBe(0);
      return out.join("\n");
    };
    expect(await run("answer", "7", "yes")).toBe("answered 7: queued: no worker has started it yet (version 1)");
    expect(await run("resume", "7")).toBe("RESUME_GRAPH: 7 is queued: no worker has started it yet (version 1)");
    expect(await run("approve", "7")).toBe("approved: 7 is queued: no worker has started it yet (version 1)");
    expect(await run("reinvoke", "7", "--input", "x")).toBe("reinvoked 7: queued: no worker has started it yet (version 2)");
    expect(await run("step", "7")).toBe("STEP: 7 is queued: no worker has started it yet (version 1)");
    expect(await run("deliver", "7", "n", "x")).toBe("delivered d1 to n of 7: a new run is due (version 2) (status queued: no worker has started it yet)");
    // The instance itself, while its answer is queued: says so, and no longer asks for the answer.
    const status = await run("status", "7");
    expect(status).toContain("status    paused (answer queued: no worker has started it yet)");
    expect(status).not.toContain("answer with");
    // The list says it for each row with queued work.
    const ls = (await run("ls")).split("\n");
    expect(ls.find((l) => l.startsWith("7 "))).toContain("paused (answer queued: no worker has started it yet)");
    expect(ls.find((l) => l.startsWith("8 "))).toContain("crashed (recover queued: no worker has started it yet)");
    expect(ls.find((l) => l.startsWith("9 "))).toContain("paused (waiting for input)");
  } finally {
    server.close();
  }
});

it("schedule-resume of a schedule that fires no more says so and exits 0 (the server resumed it)", async () => {
  const schedule = { name: "feb30", spec: "g", cron: "0 0 30 2 *", timezone: "UTC", paused: false, nextFires: [] };
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(schedule));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [argv, text] of [
      [["schedule-resume", "feb30"], "schedule feb30 resumed, next fire none (the expression fires no more)"],
      [["schedule", "feb30", "g", "--cron", "0 0 30 2 *"], "schedule feb30: next fires none (the expression fires no more)"],
    ] as const) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main([...argv, "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: "t" });
      expect([code, out.join("\n"), err.join("\n")]).toEqual([0, text, ""]);
    }
  } finally {
    server.close();
  }
});

it("status of a crashed instance says the node it was running was interrupted by a crash, as the web app does, not RUNNING", async () => {
  const at = 1_000;
  const crashed = {
    summary: { instanceId: "7", graphName: "g", spec: null, status: "crashed", queued: null, shownVersion: 1, versions: [{}], createdAt: at, updatedAt: at, input: null, result: null },
    topology: { nodes: [{ name: "a", nodeType: "delay" }, { name: "b", nodeType: "delay" }] },
    invocations: [
      { node: "a", instanceVersion: 1, status: "COMPLETED", startedAt: at, endedAt: at + 5, error: null },
      { node: "b", instanceVersion: 1, status: "RUNNING", startedAt: at + 5, endedAt: null, error: null },
    ],
    waitingFor: null,
  };
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(crashed));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const out: string[] = [];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await main(["status", "7", "--url", url], { out: (x) => out.push(x), err: () => {} }, { MODEX_TOKEN: "t" })).toBe(0);
    const text = out.join("\n");
    expect(text).toMatch(/^b\s+delay\s+interrupted by a crash\s+1\s+-\s/m);
    expect(text).toMatch(/^a\s+delay\s+COMPLETED\s/m);
    expect(text).not.toContain("RUNNING");
  } finally {
    server.close();
  }
});

it("schedules prints its next and last fire times in the schedule's own zone, named (--json keeps the epoch ms)", async () => {
  const fire = Date.UTC(2026, 11, 4, 1, 0, 0); // 02:00 in Paris (CET, UTC+1)
  const schedule = { name: "nightly", spec: "g", cron: "0 2 * * *", timezone: "Europe/Paris", paused: false, nextFires: [fire], overlap: "skip", missed: "skip", lastFireAt: fire - 86_400_000, lastOutcome: "started", declaredIn: null };
  const server = createServer((_req, res) => void res.setHeader("content-type", "application/json").end(JSON.stringify(_req.method === "POST" ? schedule : [schedule])));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      expect(await main([...argv, "--url", url], { out: (x) => out.push(x), err: () => undefined }, { MODEX_TOKEN: "t" })).toBe(0);
      return out.join("\n");
    };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await run("schedules")).toMatch(
      /nightly\s+g\s+0 2 \* \* \* \(Europe\/Paris\)\s+2026-12-04 02:00:00 Europe\/Paris\s+overlap skip, missed skip\s+2026-12-03 02:00:00 Europe\/Paris: started\s+app/,
    );
    expect(await run("schedule", "nightly", "g", "--cron", "0 2 * * *", "--tz", "Europe/Paris")).toBe("schedule nightly: next fires 2026-12-04 02:00:00 Europe/Paris");
    expect(JSON.parse(await run("schedules", "--json"))[0].nextFires).toEqual([fire]);
  } finally {
    server.close();
  }
});

it("hooks shows each hook's whole URL, as hook-create printed it, uncut", async () => {
  const hook = { name: "deploy-" + "x".repeat(60), path: `/api/hooks/deploy-${"x".repeat(60)}`, spec: "g", auth: "hmac", maxBodyBytes: 1024, ratePerMinute: 60, rotatedAt: 0 };
  const server = createServer((_req, res) => void res.setHeader("content-type", "application/json").end(JSON.stringify([hook])));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const out: string[] = [];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await main(["hooks", "--url", url], { out: (x) => out.push(x), err: () => undefined }, { MODEX_TOKEN: "t" })).toBe(0);
    expect(out.join("\n").split("\n")[2]).toMatch(new RegExp(`\\s${url}${hook.path}$`));
  } finally {
    server.close();
  }
});

it("traces --training prints the training-data export's JSONL as it came, asking for the source and since given", async () => {
  const lines = ['{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"metadata":{"turnId":"t1"}}', '{"messages":[],"metadata":{"turnId":"t2"}}'];
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url!);
    res.setHeader("content-type", "application/x-ndjson");
    res.end(`${lines.join("\n")}\n`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const out: string[] = [];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const code = await main(["traces", "--training", "--source", "chat", "--since", "2026-12-01", "--url", url], { out: (x) => out.push(x), err: () => {} }, { MODEX_TOKEN: "t" });
    expect(code).toBe(0);
    expect(asked).toEqual(["/api/traces/training.jsonl?source=chat&since=2026-12-01"]);
    expect(out.join("\n").split("\n")).toEqual(lines);
  } finally {
    server.close();
  }
});
