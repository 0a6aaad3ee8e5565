import { createInterface } from "node:readline";
import { CliError, EXIT } from "./errors.mjs";
import { exitOfTurn, openSse, renderChatEvent } from "./chat-stream.mjs";
import { formatTime, renderTable } from "./table.mjs";

const enc = encodeURIComponent;
const chatPath = (id) => `/api/chat/${enc(id)}`;
const write = (text) => process.stdout.write(text);

/**
 * `modexctl chat [action] [chat] [text…]`: the chat outside the browser, on the REST routes the UI's
 * service path also serves. Without an action: an interactive chat (a new one, or --session <id>).
 */
export async function chatCommand(ctx) {
  const { action = "open" } = ctx.args;
  const run = ACTIONS[action];
  if (!run) throw usage(`unknown chat action "${action}": one of ${Object.keys(ACTIONS).join(", ")}`);
  return run(ctx);
}

const ACTIONS = {
  open: interactive,
  ls: list,
  new: async ({ client, io, options }) => {
    const chat = await client.post("/api/chat", options.agent ? { agent: options.agent } : {});
    io.out(options.json ? JSON.stringify(chat) : chat.sessionId);
  },
  /** send <chat|new> <text…>: streams the turn; exit 0 completed, 4 waiting for approval, 5 otherwise. */
  send: async ({ client, io, args, options }) => {
    const text = args.text;
    if (!args.chat || !text) throw usage("chat send needs <chat|new> <message…>");
    const sessionId = args.chat === "new" ? (await client.post("/api/chat", options.agent ? { agent: options.agent } : {})).sessionId : args.chat;
    const busyInput = options.busy ? String(options.busy).toUpperCase() : undefined; // the server checks the mode (400)
    const frames = await openSse(client, { method: "POST", pathname: `${chatPath(sessionId)}/messages`, body: busyInput ? { message: text, busyInput } : { message: text } });
    let last = null;
    let accepted = null;
    const events = [];
    for await (const frame of frames) {
      if (frame.event === "accepted") {
        accepted = frame.data;
        if (!options.json && accepted.handled === "command") io.out(`[${accepted.command}] ${accepted.message}`);
        else if (!options.json && accepted.handled !== "started") io.err(`modexctl: chat ${sessionId}: a turn is running; ${BUSY_OUTCOME[accepted.handled] ?? `your message was ${accepted.handled}`}`);
        continue;
      }
      if (frame.event === "error" && !options.json) io.err(`modexctl: chat ${sessionId}: ${frame.data?.message ?? "the stream failed"}`);
      if (frame.event === "end" || frame.event === "error") break;
      events.push(frame.data);
      if (!options.json) renderChatEvent(frame.data, write, { shellSession: sessionId });
      if (["turn_completed", "turn_failed", "approval_requested"].includes(frame.data.type)) last = frame.data;
    }
    if (options.json) io.out(JSON.stringify({ sessionId, accepted, events }));
    else io.err(args.chat === "new" ? await newChatNote(client, sessionId) : `modexctl: chat ${sessionId}`);
    if (accepted?.handled === "command") return accepted.ok ? EXIT.OK : EXIT.ERROR;
    return exitOfTurn(last);
  },
  stop: async ({ client, io, args, options }) => {
    const answer = await client.post(`${chatPath(need(args.chat, "stop"))}/stop`);
    io.out(options.json ? JSON.stringify(answer) : answer.cancelled ? "stopped" : "no turn was running");
  },
  approve: (ctx) => decide(ctx, "approve"),
  deny: (ctx) => decide(ctx, "deny"),
  rm: async ({ client, io, args, options }) => {
    const answer = await client.request({ method: "DELETE", pathname: chatPath(need(args.chat, "rm")) });
    io.out(options.json ? JSON.stringify(answer) : "deleted");
  },
};

/** What a message sent while a turn runs did, by the server's `handled` (see busy_input in the README). */
const BUSY_OUTCOME = {
  queued: "your message is queued: it starts when that turn ends",
  interrupted: "your message interrupted it and starts a new turn",
  steered: "your message was added to it (steer)",
};

async function decide({ client, io, args, options }, verb) {
  const body = args.text ? { reason: args.text } : {};
  const answer = await client.post(`${chatPath(need(args.chat, verb))}/${verb}`, body);
  io.out(options.json ? JSON.stringify(answer) : `${answer.approved ? "approved" : "denied"} ${answer.transactionId}`);
}

/** What a chat is doing, and how many messages wait behind its running turn (stored: any web process says the same). */
function chatState(c) {
  const state = c.awaitingApproval ? "waiting for approval" : c.running ? "running" : "idle";
  return c.queued > 0 ? `${state}, ${c.queued} queued` : state;
}

async function list({ client, io, args, options }) {
  const { chats } = await client.get("/api/chat", { q: args.chat });
  if (options.json) return io.out(JSON.stringify(chats));
  io.out(
    renderTable(chats, [
      { title: "CHAT", key: "sessionId" },
      { title: "TITLE", key: "title" },
      { title: "AGENT", value: (c) => c.agent ?? "" },
      { title: "TURNS", key: "turns" },
      { title: "STATE", value: chatState },
      { title: "UPDATED", value: (c) => formatTime(c.updatedAt) },
    ]),
  );
}

/**
 * The interactive chat: one followed event stream prints the chat as it happens (tokens as they
 * stream), and each line typed is sent as a message, slash commands included, which the server reads:
 * while a turn runs, a line follows the agent's busy-input mode. Ctrl-D or /exit leaves.
 */
async function interactive({ client, io, options }) {
  const chat = options.session ? await client.get(chatPath(options.session)) : await client.post("/api/chat", options.agent ? { agent: options.agent } : {});
  const { sessionId } = chat;
  io.err(`modexctl: chat ${sessionId} with ${chat.agent ?? "the assistant"}; a running turn takes new lines per its busy-input mode (${chat.busyInput}); /help lists commands, Ctrl-D or /exit leaves`);
  const { events } = await client.get(`${chatPath(sessionId)}/events`, { after: 0, limit: 10_000 });
  for (const e of events) renderChatEvent(e, write, { echoUser: true });
  const after = events.at(-1)?.seq ?? 0;
  const stop = new AbortController();
  const frames = await openSse(client, { method: "GET", pathname: `${chatPath(sessionId)}/events?after=${after}&follow=1`, signal: stop.signal });
  const printing = (async () => {
    for await (const frame of frames) if (frame.event !== "end" && frame.event !== "error") renderChatEvent(frame.data, write);
  })().catch(() => {});
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const raw of lines) {
    const text = raw.trim();
    if (!text) continue;
    if (text === "/exit" || text === "/quit") break;
    try {
      const answer = await client.post(`${chatPath(sessionId)}/messages`, { message: text });
      if (answer.handled === "command" && !answer.ok && !answer.sessionId) io.err(`modexctl: ${answer.message}`);
      if (answer.handled === "command" && answer.command === "/new" && answer.ok) io.err(`modexctl: new chat ${answer.sessionId}: modexctl chat --session ${answer.sessionId}`);
    } catch (error) {
      io.err(`modexctl: ${error.message}`);
    }
  }
  // Let what is still streaming print for a moment after the input ends (a piped script).
  await Promise.race([printing, waitIdle(client, sessionId)]);
  stop.abort();
  io.err(`\nmodexctl: left chat ${sessionId}`);
  return EXIT.OK;
}

async function waitIdle(client, sessionId) {
  for (;;) {
    const chat = await client.get(chatPath(sessionId));
    if (!chat.running || chat.awaitingApproval) return new Promise((r) => setTimeout(r, 300));
    await new Promise((r) => setTimeout(r, 200));
  }
}

function need(id, verb) {
  if (!id) throw usage(`chat ${verb} needs <chat>`);
  return id;
}

/** The note `send new` leaves on stderr: the chat it made and its title (its first message, once the turn named it). */
async function newChatNote(client, sessionId) {
  const chat = await client.get(chatPath(sessionId)).catch(() => null);
  return `modexctl: new chat ${sessionId}${chat?.title ? ` ("${chat.title}")` : ""}`;
}

const usage = (message) => new CliError(message, { code: "USAGE" });
