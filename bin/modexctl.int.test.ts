import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as instanceRoute from "@/app/api/graphs/instances/[id]/route";
import * as answerRoute from "@/app/api/graphs/instances/[id]/answer/route";
import * as deliverRoute from "@/app/api/graphs/instances/[id]/deliver/route";
import * as eventsRoute from "@/app/api/graphs/instances/[id]/events/route";
import * as pauseRoute from "@/app/api/graphs/instances/[id]/pause/route";
import * as resumeRoute from "@/app/api/graphs/instances/[id]/resume/route";
import * as stopRoute from "@/app/api/graphs/instances/[id]/stop/route";
import * as instancesRoute from "@/app/api/graphs/instances/route";
import * as specsRoute from "@/app/api/graphs/specs/route";
import { installAppServices } from "@/server/services/app-services-singleton";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import { parseArgs, parseValue } from "./lib/args.mjs";
import { formatDuration, renderTable } from "./lib/table.mjs";
import { main } from "./modexctl.mjs";

describe("modexctl arguments", () => {
  it.each([
    [["specs"], { command: "specs", args: {}, options: {} }],
    [["run", "map-reduce", "--input", '["a","b"]'], { command: "run", args: { spec: "map-reduce" }, options: { input: '["a","b"]' } }],
    [["--json", "ls", "--status=paused", "--limit", "5"], { command: "ls", options: { json: true, status: "paused", limit: "5" } }],
    [["deliver", "42", "mapper_a", "two", "words"], { command: "deliver", args: { id: "42", node: "mapper_a", content: "two words" } }],
    [["events", "42", "--follow", "--url", "http://x:1"], { command: "events", args: { id: "42" }, options: { follow: true, url: "http://x:1" } }],
    [["answer", "42", "--", "--yes"], { command: "answer", args: { id: "42", value: "--yes" } }],
  ])("%j", (argv, expected) => {
    expect(parseArgs(argv)).toMatchObject({ help: false, ...expected });
  });

  it.each([
    [["nope"], /unknown command "nope"/],
    [["status"], /status needs <id>/],
    [["pause", "1", "2"], /pause takes 1 argument/],
    [["ls", "--input", "x"], /ls does not take --input/],
    [["ls", "--limit", "many"], /--limit must be a whole number/],
    [["run", "x", "--input"], /--input needs a value/],
    [["specs", "--colour"], /unknown option --colour/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it("asks for help with no command or --help", () => {
    expect(parseArgs([]).help).toBe(true);
    expect(parseArgs(["run", "--help"]).help).toBe(true);
  });

  it("parses values as JSON when they are JSON, else keeps the text", () => {
    expect(parseValue('{"a":1}')).toEqual({ a: 1 });
    expect(parseValue("3")).toBe(3);
    expect(parseValue("yes")).toBe("yes");
  });
});

describe("modexctl tables", () => {
  it("aligns columns under a header and a rule, and cuts long cells", () => {
    const text = renderTable(
      [
        { id: "1", status: "completed", note: null },
        { id: "1234567", status: "paused", note: "x".repeat(100) },
      ],
      [
        { title: "ID", key: "id" },
        { title: "STATUS", key: "status" },
        { title: "NOTE", key: "note" },
      ],
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("ID       STATUS     NOTE");
    expect(lines[1]).toBe("-------  ---------  ------------------------------------------------------------");
    expect(lines[2]).toBe("1        completed  -");
    expect(lines[3]).toMatch(/^1234567  paused     x+…$/);
    expect(lines[3].length).toBe(7 + 2 + 9 + 2 + 60);
    expect(renderTable([], [{ title: "X", key: "x" }])).toBe("(none)");
    expect(formatDuration(0, 250)).toBe("250 ms");
    expect(formatDuration(0, 2500)).toBe("2.50 s");
  });
});

/** The REST route handlers behind a real HTTP server, on test services: what `next start` serves. */
function restServer(): Server {
  const routes: [RegExp, Record<string, unknown>][] = [
    [/^\/api\/graphs\/specs$/, specsRoute],
    [/^\/api\/graphs\/instances$/, instancesRoute],
    [/^\/api\/graphs\/instances\/([^/]+)$/, instanceRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/events$/, eventsRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/pause$/, pauseRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/stop$/, stopRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/resume$/, resumeRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/deliver$/, deliverRoute],
    [/^\/api\/graphs\/instances\/([^/]+)\/answer$/, answerRoute],
  ];
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url!, `http://${req.headers.host}`);
    const match = routes.map(([re, mod]) => [re.exec(url.pathname), mod] as const).find(([m]) => m);
    const handler = match?.[1][req.method!] as ((r: Request, c: unknown) => Promise<Response>) | undefined;
    if (!match || !handler) {
      res.writeHead(404).end(JSON.stringify({ error: { code: "NOT_FOUND", message: "no such route" } }));
      return;
    }
    const request = new Request(url, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "GET" ? undefined : Buffer.concat(chunks),
    });
    const response = await handler(request, { params: Promise.resolve({ id: decodeURIComponent(match[0]![1] ?? "") }) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

describe("modexctl against the REST API", () => {
  let t: TestServices;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    t = testServices();
    installAppServices(t.services);
    server = restServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    installAppServices(null);
    await t[Symbol.asyncDispose]();
  });

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main([...argv, "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: TEST_TOKEN });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  it("run → status (waiting) → answer → events --follow → status (result)", async () => {
    const specs = await cli("specs");
    expect(specs.code).toBe(0);
    expect(specs.out).toMatch(/^NAME\s+VERSION\s+SPEC ID/);
    expect(specs.out).toMatch(/approval-gate/);

    const run = await cli("run", "approval-gate", "--input", "release 7");
    expect(run.code).toBe(0);
    const id = /started (\d+)/.exec(run.out)![1];
    await t.settled(id);

    const waiting = await cli("status", id);
    expect(waiting.out).toMatch(/status\s+paused/);
    expect(waiting.out).toMatch(/waiting for input at approve: Approve this deploy\?/);
    expect(waiting.out).toMatch(/NODE\s+TYPE\s+STATUS\s+RUNS/);

    expect((await cli("resume", id)).code).toBe(1); // RESUME_GRAPH refuses: it waits for an answer
    const answered = await cli("answer", id, "yes");
    expect(answered).toMatchObject({ code: 0 });
    // The status once the resume is committed, with the first resumed node: this graph's nodes after
    // the human are synchronous, so the run may already have ended.
    expect(answered.out).toMatch(/answered \d+: (running|completed)/);

    const events = await cli("events", id, "--follow", "--interval", "50");
    expect(events.code).toBe(0);
    expect(events.out).toMatch(/interrupt_raised\s+at approve/);
    expect(events.out).toMatch(/instance_status\s+running → completed/);
    expect(events.out.trim().split("\n").at(-1)).toMatch(/run_finished\s+reached END/);

    const done = await cli("status", id, "--json");
    expect(JSON.parse(done.out).summary).toMatchObject({ status: "completed", result: [{ content: "published (answer: yes)" }] });
    expect((await cli("status", id)).out).toMatch(/result\s+published \(answer: yes\)/);

    const ls = await cli("ls", "--status", "completed", "--json");
    expect(JSON.parse(ls.out).map((i: { instanceId: string }) => i.instanceId)).toContain(id);
  });

  it("run --wait, deliver, pause/stop errors, and exit codes 2 (not found) and 3 (not authorized)", async () => {
    const run = await cli("run", "paced-pipeline", "--input", "42", "--wait", "--json");
    const view = JSON.parse(run.out);
    expect(view.summary).toMatchObject({ status: "completed", result: [{ content: "published ITEM 42" }] });
    const id = view.summary.instanceId as string;

    const deliver = await cli("deliver", id, "publish", "late", "news");
    expect(deliver.out).toMatch(/delivered \d+ to publish .*a new run started/);
    await t.settled(id);
    expect((await cli("status", id)).out).toMatch(/result\s+published late news/);

    expect((await cli("pause", id)).code).toBe(1);
    expect((await cli("status", "999")).code).toBe(2);
    const denied = await main(["specs", "--url", url, "--token", "wrong-token"], { out: () => {}, err: () => {} }, {});
    expect(denied).toBe(3);
    const bad = await cli("deliver", id, "nope", "x");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown node "nope"/);
  });
});
