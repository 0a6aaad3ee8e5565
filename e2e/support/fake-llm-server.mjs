// A stand-in for a remote model in the browser tests: the one thing that cannot run here. It speaks the
// OpenAI chat-completions streaming protocol, so the app's real OpenAI-compatible provider is what talks
// to it. Replies depend on the last user message: "plan …" calls the todo_write tool first; "run <spec>"
// calls run_graph (which waits for the person's approval) and then says how it went; "slow …" streams for
// a long time (to stop it); anything else is echoed back, word by word.
import { createServer } from "node:http";

const port = Number(process.env.FAKE_LLM_PORT);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function chunk(delta, finish = null) {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] };
}

async function reply(res, body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  const lastUser = [...messages].reverse().find((m) => m.role === "user" && !String(m.content).startsWith("<system-reminder>"));
  const text = String(lastUser?.content ?? "");
  const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  send(chunk({ role: "assistant", content: "" }));
  if (/^plan\b/i.test(text) && last?.role !== "tool") {
    const args = JSON.stringify({ todos: [{ content: "outline the day", status: "in_progress" }, { content: "book the room", status: "pending" }] });
    send(chunk({ content: "Planning first. " }));
    send(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "todo_write", arguments: args } }] }));
    send(chunk({}, "tool_calls"));
  } else if (/^run\s/i.test(text) && last?.role !== "tool") {
    const name = text.split(/\s+/)[1] || "counter-loop";
    send(chunk({ content: `Starting ${name}. ` }));
    send(chunk({ tool_calls: [{ index: 0, id: "call_run", type: "function", function: { name: "run_graph", arguments: JSON.stringify({ name }) } }] }));
    send(chunk({}, "tool_calls"));
  } else if (/^run\s/i.test(text) && last?.role === "tool") {
    const started = String(last.content).match(/"instanceId": "(\w+)"/);
    send(chunk({ content: started ? `The run has started as instance ${started[1]}.` : "Understood: I did not start the run." }));
    send(chunk({}, "stop"));
  } else {
    const words = /^slow\b/i.test(text)
      ? Array.from({ length: 400 }, (_, i) => `word${i} `)
      : `You said: ${text}. Modex is listening.`.split(/(?<= )/);
    for (const w of words) {
      if (res.destroyed) return;
      send(chunk({ content: w }));
      await sleep(/^slow\b/i.test(text) ? 50 : 15);
    }
    send(chunk({}, "stop"));
  }
  if (body.stream_options?.include_usage) send({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.end("data: [DONE]\n\n");
}

createServer((req, res) => {
  if (req.method === "GET" && req.url === "/health") return void res.end("ok");
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => void reply(res, JSON.parse(raw)).catch(() => res.destroy()));
}).listen(port, "127.0.0.1");
