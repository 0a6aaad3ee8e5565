import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import { CLI, runModexctl } from "./support/modexctl";
import { ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";

/**
 * Chats outside the browser, on extra production servers (`next start`, offline demo model, their own
 * data directory): REST with SSE, modexctl chat, and a kill -9 + restart in the middle of a waiting
 * approval, which is then approved on the new process.
 */
const DEMO = { MODEX_LLM_MODEL: "modex-demo" };

type Frame = { event: string; data: Record<string, unknown> & { type?: string } };

const modexctl = (server: ModexServer, ...args: string[]) => runModexctl(args, { MODEX_URL: server.url, MODEX_TOKEN: SERVER_TOKEN });

/** POSTs a message asking for SSE and reads every frame until the server ends the stream. */
async function sendStreaming(server: ModexServer, chat: string, message: string): Promise<Frame[]> {
  const res = await server.fetch(`/api/chat/${chat}/messages`, { method: "POST", headers: { accept: "text/event-stream" }, body: JSON.stringify({ message }) });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)![1],
      data: JSON.parse(/^data: (.*)$/m.exec(block)![1]),
    }));
}

const types = (frames: Frame[]) => frames.map((f) => (f.event === "accepted" || f.event === "end" ? f.event : f.data.type)).filter((t) => t !== "text_delta");

test.describe.configure({ mode: "serial" });

test("REST and SSE: a chat's turn streams, waits for approval, survives kill -9, and is approved on the restarted server", async () => {
  test.setTimeout(180_000);
  const dataDir = tempDir("modex-chat-e2e-");
  let server = await ModexServer.start({ dataDir, env: DEMO });
  try {
    await server.ready();
    expect((await fetch(`${server.url}/api/chat`)).status).toBe(401);
    const created = await server.fetch("/api/chat", { method: "POST", body: JSON.stringify({}) });
    expect(created.status).toBe(201);
    const { sessionId, busyInput } = (await created.json()) as { sessionId: string; busyInput: string };
    expect(busyInput).toBe("QUEUE");

    const hello = await sendStreaming(server, sessionId, "hello");
    expect(types(hello)).toEqual(["accepted", "user_message", "turn_completed", "end"]);
    expect(hello.filter((f) => f.data.type === "text_delta").map((f) => f.data.text).join("")).toContain("You said: hello");
    expect(hello.at(-2)!.data).toMatchObject({ stopReason: "completed", tokens: expect.any(Number) });

    const gate = await sendStreaming(server, sessionId, "run counter-loop");
    expect(types(gate).slice(-3)).toEqual(["tool_call", "approval_requested", "end"]);
    const request = gate.find((f) => f.data.type === "approval_requested")!.data;
    expect(request).toMatchObject({ name: "run_graph" });

    const before = (await server.json<{ events: { seq: number; type: string }[] }>(`/api/chat/${sessionId}/events`)).events;
    expect((await modexctl(server, "chat", "ls", "--json")).stdout).toContain('"awaitingApproval":true');

    await server.killHard();
    server = await ModexServer.start({ dataDir, env: DEMO });
    await server.ready();

    const after = (await server.json<{ events: { seq: number; type: string }[] }>(`/api/chat/${sessionId}/events`)).events;
    expect(after).toEqual(before);
    expect(await server.json(`/api/chat/${sessionId}`)).toMatchObject({ running: true, awaitingApproval: true, turns: 2 });

    const approved = await modexctl(server, "chat", "approve", sessionId, "looks", "good");
    expect(approved).toMatchObject({ code: 0, stdout: expect.stringContaining(`approved ${request.transactionId}`) });
    await expect
      .poll(async () => (await server.json<{ events: { type: string }[] }>(`/api/chat/${sessionId}/events?after=${before.at(-1)!.seq}`)).events.map((e) => e.type), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(["approval_decided", "tool_result", "turn_completed"]));
    const resumed = (await server.json<{ events: Record<string, unknown>[] }>(`/api/chat/${sessionId}/events?after=${before.at(-1)!.seq}`)).events;
    expect(resumed.find((e) => e.type === "approval_decided")).toMatchObject({ approved: true, reason: "looks good" });
    expect(String(resumed.find((e) => e.type === "tool_result")!.content)).toContain("instanceId");
    expect(resumed.at(-1)).toMatchObject({ type: "turn_completed", turnId: request.turnId, stopReason: "completed" });
    expect((await server.fetch(`/api/chat/${sessionId}/approve`, { method: "POST", body: "{}" })).status).toBe(409);

    // Rename, search, delete.
    expect((await server.json<{ title: string }>(`/api/chat/${sessionId}`, { method: "PATCH", body: JSON.stringify({ title: "Counter runs" }) })).title).toBe("Counter runs");
    expect((await server.json<{ chats: unknown[] }>("/api/chat?q=counter")).chats).toHaveLength(1);
    expect((await server.json<{ chats: unknown[] }>("/api/chat?q=zebra")).chats).toHaveLength(0);
    expect((await server.fetch(`/api/chat/${sessionId}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.fetch(`/api/chat/${sessionId}/events`)).status).toBe(404);
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test("REST: a message queued behind a streaming turn is answered after kill -9 and a restart, once; a chat opened over REST is titled by its first message", async () => {
  test.setTimeout(180_000);
  const dataDir = tempDir("modex-chat-queued-");
  let server = await ModexServer.start({ dataDir, env: DEMO });
  try {
    await server.ready();
    const { sessionId, title } = await server.json<{ sessionId: string; title: string }>("/api/chat", { method: "POST", body: "{}" });
    expect(title).toBe("New chat");
    // `slow …` streams for about 20 s: the turn is still streaming when the server dies.
    const started = await server.json<{ handled: string; turnId: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "slow story please" }) });
    expect(started.handled).toBe("started");
    expect((await server.json<{ title: string }>(`/api/chat/${sessionId}`)).title).toBe("slow story please");
    await expect.poll(async () => (await server.json<{ events: { type: string }[] }>(`/api/chat/${sessionId}/events`)).events.some((e) => e.type === "text_delta"), { timeout: 20_000 }).toBe(true);
    const queued = await server.json<{ handled: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "are you back?" }) });
    expect(queued.handled).toBe("queued");
    expect(await server.json(`/api/chat/${sessionId}`)).toMatchObject({ running: true, queued: 1 });
    expect((await modexctl(server, "chat", "ls")).stdout).toMatch(new RegExp(`^${sessionId}\\s.*running, 1 queued`, "m"));

    await server.killHard();
    server = await ModexServer.start({ dataDir, env: DEMO });
    await server.ready();

    const events = async () => (await server.json<{ events: Record<string, unknown>[] }>(`/api/chat/${sessionId}/events`)).events;
    await expect.poll(async () => (await events()).filter((e) => e.type === "turn_completed").length, { timeout: 30_000 }).toBe(1);
    const after = await events();
    expect(after.find((e) => e.type === "turn_failed")).toMatchObject({ turnId: started.turnId, message: expect.stringContaining("the server stopped") });
    expect(after.filter((e) => e.type === "queued_started").map((e) => e.text)).toEqual(["are you back?"]);
    expect(after.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed", content: expect.stringContaining("You said: are you back?") });
    expect(await server.json(`/api/chat/${sessionId}`)).toMatchObject({ running: false, queued: 0, turns: 2, title: "slow story please" });
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test("modexctl chat: send streams a turn, slash commands, stop ends a turn waiting for approval, the interactive chat streams tokens", async () => {
  test.setTimeout(120_000);
  const dataDir = tempDir("modex-chat-cli-");
  const server = await ModexServer.start({ dataDir, env: DEMO });
  try {
    await server.ready();
    const sent = await modexctl(server, "chat", "send", "new", "hello", "from", "the", "terminal");
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain("You said: hello from the terminal");
    expect(sent.stdout).toMatch(/\[completed · \d+ tokens\]/);
    const sessionId = /chat (\d+)/.exec(sent.stderr)![1];

    const help = await modexctl(server, "chat", "send", sessionId, "/help");
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining("/approve [reason]") });
    const unknown = await modexctl(server, "chat", "send", sessionId, "/dance");
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("unknown command /dance");

    const gate = await modexctl(server, "chat", "send", sessionId, "run", "counter-loop");
    expect(gate.code).toBe(4); // waits for approval
    expect(gate.stdout).toContain("[approval] run_graph");
    expect((await modexctl(server, "chat", "stop", sessionId)).stdout.trim()).toBe("stopped");
    const events = (await server.json<{ events: Record<string, unknown>[] }>(`/api/chat/${sessionId}/events`)).events;
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({ approved: false, reason: "stopped" });
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "cancelled" });
    expect((await modexctl(server, "chat", "deny", sessionId)).code).toBe(1); // nothing waits: 409

    // Interactive: lines on stdin are messages; tokens stream to stdout.
    const child = spawn(process.execPath, [CLI, "chat", "--session", sessionId], { env: { ...process.env, MODEX_URL: server.url, MODEX_TOKEN: SERVER_TOKEN } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    await expect.poll(() => out, { timeout: 15_000 }).toContain(`chat ${sessionId}`);
    child.stdin.write("hi again\n");
    await expect.poll(() => out, { timeout: 15_000 }).toContain("You said: hi again");
    child.stdin.write("/help\n");
    await expect.poll(() => out, { timeout: 15_000 }).toContain("[/help] Commands:");
    child.stdin.end();
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).toBe(0);
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});
