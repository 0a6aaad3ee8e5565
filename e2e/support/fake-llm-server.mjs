// A stand-in for a remote model in the browser tests: the one thing that cannot run here. It speaks the
// OpenAI chat-completions streaming protocol, so the app's real OpenAI-compatible provider is what talks
// to it over HTTP. What it answers is the offline demo model's policy (server/agent/demo/demo-policy.ts,
// loaded through tsx), so the browser tests exercise exactly what MODEX_LLM_MODEL=modex-demo shows a
// newcomer: as a graph node it reads and writes the knowledge base and delivers (a reviewer asks for one
// revision, then approves); in the chat "plan …" calls todo_write, "run <spec>" calls run_graph (which
// waits for the person's approval), "list graphs" calls list_graphs, "slow …" streams for a long time
// (to stop it), and anything else is echoed back, word by word. Three test-only scripts go beyond the demo:
// a coder node on a "slow" input streams for minutes, a node on a "backtrack" input greps with a
// backtracking regex, a chat's or a node's "crawl <url>" fetches a page and reads it out slowly.
import { createServer } from "node:http";
import { tsImport } from "tsx/esm/api";

const { demoReply, demoWords } = await tsImport("../../server/agent/demo/demo-policy.ts", import.meta.url);

const port = Number(process.env.FAKE_LLM_PORT);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function chunk(delta, finish = null) {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** The OpenAI request as the demo policy reads it. */
function demoRequest(body) {
  return {
    messages: (body.messages ?? []).map((m) => ({
      role: m.role,
      content: typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("") : "",
      toolCalls: m.tool_calls?.map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
    })),
    tools: (body.tools ?? []).map((t) => ({ name: t.function.name, description: t.function.description ?? "", parameters: t.function.parameters ?? {} })),
  };
}

let calls = 0;

/**
 * The latest requests, newest last (GET /requests): a test reads what the app sent the model (the chat's
 * memory cleanup: the request after it holds the summary, not the old messages). Bounded, as tests run in
 * parallel against one server; a test finds its own requests by a word only its messages hold.
 */
const recorded = [];
const RECORDED_MAX = 300;

/**
 * A node named coder whose run input starts with "slow" streams its first model call of a turn slowly
 * (so a test can pause it mid-stream: 1,800 words at 120 ms, minutes, so that a page that loads slowly
 * on a loaded machine still finds it streaming); not after a pause cut a turn off (its messages then hold
 * `<interrupted>`), so the resumed turn goes at the usual pace.
 */
function slowNodeText(body) {
  const deliver = (body.tools ?? []).find((t) => t.function.name === "deliver");
  if (!deliver || !/You are node: coder\b/.test(deliver.function.description ?? "")) return null;
  const messages = body.messages ?? [];
  const text = (m) => (typeof m.content === "string" ? m.content : "");
  if (messages.at(-1)?.role !== "user" || messages.some((m) => text(m).includes("<interrupted"))) return null;
  if (!messages.some((m) => m.role === "user" && /\[Input from graph node '__start__'[^\n]*\]\nslow\b/i.test(text(m)))) return null;
  return Array.from({ length: 300 }, (_, i) => `Thinking about step ${i + 1} of the change.`).join(" ") + " ";
}

/**
 * A node whose run input starts with "backtrack" (e2e/runaway-guards.spec.ts) writes a large entry to the
 * knowledge base, greps it with `(a+)+$` (which backtracks for ever on `aaa…ab`), then delivers to
 * __end__ what the grep answered. Null for any other request.
 */
function backtrackingNodeAnswer(body) {
  if (!(body.tools ?? []).some((t) => t.function.name === "deliver")) return null;
  const messages = body.messages ?? [];
  const text = (m) => (typeof m.content === "string" ? m.content : "");
  if (!messages.some((m) => m.role === "user" && /\[Input from graph node '__start__'[^\n]*\]\nbacktrack\b/i.test(text(m)))) return null;
  const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function);
  const called = (action) => calls.some((c) => c.name === "knowledge_base" && JSON.parse(c.arguments).action === action);
  const kb = (args) => ({ text: `Calling knowledge_base ${args.action}. `, toolCalls: [{ name: "knowledge_base", args }], delayMs: 4 });
  if (!called("write")) return kb({ action: "write", pattern: "findings", mode: "overwrite", content: Array.from({ length: 500 }, () => `${"a".repeat(40)}b`).join("\n") });
  if (!called("grep")) return kb({ action: "grep", pattern: "findings", regex: "(a+)+$" });
  if (calls.some((c) => c.name === "deliver")) return { text: "Delivered.", delayMs: 4 };
  const answer = text(messages.findLast((m) => m.role === "tool"));
  return { text: "Handing on what grep said. ", toolCalls: [{ name: "deliver", args: { target: "__end__", content: `grep answered: ${answer}` } }], delayMs: 4 };
}

/**
 * A node whose run input is "crawl <url>" (e2e/node-resume.spec.ts): step 1 fetches the URL with
 * http_fetch and delivers a first note to __end__; step 2 reads the page out slowly (40 words, 60 ms
 * apart: a test kills the server meanwhile) and delivers what it read; step 3 ends. Null otherwise.
 */
function crawlingNodeAnswer(body) {
  if (!(body.tools ?? []).some((t) => t.function.name === "deliver")) return null;
  const messages = body.messages ?? [];
  const text = (m) => (typeof m.content === "string" ? m.content : "");
  const inputAt = messages.findLastIndex((m) => m.role === "user" && /\[Input from graph node '__start__'[^\n]*\]\ncrawl\s+\S+/i.test(text(m)));
  if (inputAt < 0) return null;
  const url = /\ncrawl\s+(\S+)/i.exec(text(messages[inputAt]))[1];
  const steps = messages.slice(inputAt + 1).filter((m) => m.role === "assistant").length;
  if (steps === 0) return { text: "Fetching the page. ", toolCalls: [{ name: "http_fetch", args: { url } }, { name: "deliver", args: { target: "__end__", content: "first note" } }], delayMs: 4 };
  if (steps > 1) return { text: "Delivered.", delayMs: 4 };
  const page = text(messages.findLast((m) => m.role === "tool" && !text(m).startsWith("Delivered")));
  const read = `${Array.from({ length: 40 }, (_, i) => `read${i}`).join(" ")} Done reading.`;
  return { text: read, toolCalls: [{ name: "deliver", args: { target: "__end__", content: `read: ${page.slice(0, 200)}` } }], delayMs: 60 };
}

/**
 * A chat message "crawl <url>" (e2e/chat-resume.spec.ts) fetches the URL with http_fetch, then reads it
 * out slowly (120 words, 60 ms apart), so a test can kill the server after the tool finished and before
 * the turn ends. Null for any other request.
 */
function crawlAnswer(body) {
  if ((body.tools ?? []).some((t) => t.function.name === "deliver")) return null;
  const messages = body.messages ?? [];
  const text = (m) => (typeof m.content === "string" ? m.content : "");
  const userAt = messages.findLastIndex((m) => m.role === "user" && !text(m).startsWith("<system-reminder>"));
  const crawl = userAt >= 0 ? /^crawl\s+(\S+)/i.exec(text(messages[userAt])) : null;
  if (!crawl) return null;
  if (!messages.slice(userAt + 1).some((m) => m.role === "tool")) return { text: "Fetching the page. ", toolCalls: [{ name: "http_fetch", args: { url: crawl[1] } }], delayMs: 4 };
  return { text: `${Array.from({ length: 120 }, (_, i) => `read${i}`).join(" ")} Done reading.`, delayMs: 60 };
}

async function reply(res, body) {
  const answer = backtrackingNodeAnswer(body) ?? crawlingNodeAnswer(body) ?? crawlAnswer(body) ?? demoReply(demoRequest(body));
  const slow = slowNodeText(body);
  if (slow) Object.assign(answer, { text: slow + (answer.text ?? ""), delayMs: 120 });
  const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  send(chunk({ role: "assistant", content: "" }));
  for (const w of demoWords(answer.text ?? "")) {
    if (res.destroyed) return;
    send(chunk({ content: w }));
    await sleep(answer.delayMs);
  }
  const toolCalls = (answer.toolCalls ?? []).map((c, index) => ({ index, id: `call_${++calls}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  if (toolCalls.length > 0) send(chunk({ tool_calls: toolCalls }));
  send(chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) send({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.end("data: [DONE]\n\n");
}

createServer((req, res) => {
  if (req.method === "GET" && req.url === "/health") return void res.end("ok");
  if (req.method === "GET" && req.url === "/requests") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(recorded));
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw);
    recorded.push({ messages: body.messages ?? [], tools: (body.tools ?? []).map((t) => t.function.name) });
    if (recorded.length > RECORDED_MAX) recorded.shift();
    void reply(res, body).catch(() => res.destroy());
  });
}).listen(port, "127.0.0.1");
