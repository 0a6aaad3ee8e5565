/**
 * The offline demo model's behaviour, as a pure function of what a model would see: the system prompt,
 * the conversation and the tool list. It is no language model: it follows Modex's tool protocol so every
 * example runs end to end without one. Two transports share it: `DemoModelProvider` in the app
 * (`MODEX_LLM_MODEL=modex-demo`) and the browser tests' stand-in server (e2e/support/fake-llm-server.mjs,
 * over OpenAI's HTTP protocol), so what the tests see is what a newcomer sees.
 *
 * Dependency-free on purpose: the stand-in server loads this file through tsx.
 *
 * As a graph node (it has a `deliver` tool), each turn: reads the run's knowledge base, records a line
 * in it when it may write, then delivers — to every target for a producer, a revision request back for a
 * reviewer on a first draft and the approval to `__end__` from the second draft on, a final reply that
 * joins every input for a node delivering to `__end__` alone — and ends the turn. In a chat: `plan …`
 * writes a todo list, `run <graph>` starts a run (after the approval), `list graphs` lists them, `call <tool>
 * {json}` calls any tool the agent has (an MCP tool, say) and says what it answered, `slow …`
 * streams for long, anything else is echoed.
 */

export const DEMO_MODEL_NAME = "modex-demo";
const END = "__end__";

export interface DemoToolCall {
  name: string;
  arguments: string;
}

export interface DemoMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: DemoToolCall[];
  /** The tool a `tool` message answers. */
  name?: string;
}

export interface DemoTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface DemoRequest {
  messages: DemoMessage[];
  tools: DemoTool[];
}

export interface DemoReply {
  text?: string;
  toolCalls?: Array<{ name: string; args: Record<string, unknown> }>;
  /** Pause between streamed words, so the stream looks like one. */
  delayMs: number;
}

const NODE_DELAY_MS = 4;
const CHAT_DELAY_MS = 15;

/** How a memory cleanup's summary request begins (server/agent/memory/consolidation.ts, CONSOLIDATION_PROMPT_HEAD). */
export const DEMO_SUMMARY_REQUEST_HEAD = "Summarize the conversation below";

export function demoReply(request: DemoRequest): DemoReply {
  if (request.messages[0]?.role === "system" && request.messages[0].content.startsWith(DEMO_SUMMARY_REQUEST_HEAD)) return summaryReply(request);
  return request.tools.some((t) => t.name === "deliver") ? nodeReply(request) : chatReply(request);
}

/** A memory cleanup's summary: the demo lists what the user wrote in the summarized part. */
function summaryReply(request: DemoRequest): DemoReply {
  const transcript = request.messages.at(-1)?.content ?? "";
  const said = [...transcript.matchAll(/^\[user\] (.*)$/gm)].map((m) => m[1].slice(0, 80));
  return { text: `Summary of the earlier conversation: the user wrote ${said.map((s) => `"${s}"`).join(", ") || "nothing yet"}.`, delayMs: 1 };
}

// ─── As a graph node ──────────────────────────────────────────────────────────────────────────────────

function nodeReply(request: DemoRequest): DemoReply {
  const { messages } = request;
  const start = lastIndex(messages, (m) => m.role === "user" && INPUT_ENVELOPE.test(m.content));
  const turn = messages.slice(start + 1);
  const called = turn.flatMap((m) => m.toolCalls ?? []);
  const node = nodeName(request);
  const kb = request.tools.find((t) => t.name === "knowledge_base");
  const input = start >= 0 ? messages[start].content : "";

  const last = messages.at(-1);
  // Denied: a person refused the last call; hand on a revised version (which asks again).
  if (last?.role === "tool" && /denied this (\w+) call/.test(last.content)) {
    const why = /denied this \w+ call: ([^\n]*?)\. Do not retry/.exec(last.content)?.[1] ?? "no reason given";
    return { text: `Revising after the denial (${why}). `, toolCalls: delivers(node, targetsOf(request), input).map((c) => ({ ...c, args: { ...c.args, content: `${String(c.args.content)}\n(Revised after a denial: ${why})` } })), delayMs: NODE_DELAY_MS };
  }
  if (called.some((c) => c.name === "deliver") && last?.role === "tool") {
    return { text: `Delivered. (${node}, offline demo model)`, delayMs: NODE_DELAY_MS };
  }
  if (kb && !called.some((c) => c.name === "knowledge_base" && /"read"/.test(c.arguments))) {
    return { text: "Reading the shared knowledge base first. ", toolCalls: [{ name: "knowledge_base", args: { action: "read", pattern: "findings" } }], delayMs: NODE_DELAY_MS };
  }
  if (kb && mayWrite(kb) && !called.some((c) => c.name === "knowledge_base" && /"(write|edit)"/.test(c.arguments))) {
    const pattern = /decision/i.test(roleOf(request)) ? "decisions" : "findings";
    const note = `- ${node}: ${firstLine(bodyOf(input)) || "started the task"} (draft ${draftOf(input) + 1})`;
    return { text: `Recording my ${pattern}. `, toolCalls: [{ name: "knowledge_base", args: { action: "write", pattern, content: note } }], delayMs: NODE_DELAY_MS };
  }
  return { text: "Handing my result on. ", toolCalls: delivers(node, targetsOf(request), input), delayMs: NODE_DELAY_MS };
}

function delivers(node: string, targets: string[], input: string): NonNullable<DemoReply["toolCalls"]> {
  const others = targets.filter((t) => t !== END);
  const draft = draftOf(input);
  const task = firstLine(taskOf(input)) || "the task";
  if (targets.includes(END) && others.length > 0) {
    // A reviewer: the first draft goes back with a revision request, a later one is approved.
    if (draft >= 2) {
      return [{ name: "deliver", args: { target: END, content: `Approved draft ${draft} of "${task}".\n\n${resultOf(input)}\n\n(Written by the offline demo model.)` } }];
    }
    return [{ name: "deliver", args: { target: others[0], content: `Task: ${task}\nRevisions for draft ${Math.max(draft, 1)}: handle the edge cases and name things clearly.\nStatus: changes requested` } }];
  }
  if (others.length === 0) {
    const joined = inputsOf(input).map((i) => `- from ${i.source}: ${resultOf(i.body)}`).join("\n");
    return [{ name: "deliver", args: { target: END, content: `Answer to "${task}", joining ${inputsOf(input).length} input(s):\n${joined}\n\n(Written by the offline demo model.)` } }];
  }
  // A producer: its work to every target (a planner fans out; a coder hands a new draft on).
  return others.map((target) => ({
    name: "deliver",
    args: { target, content: `Task: ${task}\nResult: ${node}'s work for ${target} (draft ${draft + 1})\nStatus: ready` },
  }));
}

function nodeName(request: DemoRequest): string {
  const deliver = request.tools.find((t) => t.name === "deliver");
  return /You are node: ([^\s.]+)/.exec(deliver?.description ?? "")?.[1] ?? /You are node "([^"]+)"/.exec(request.messages[0]?.content ?? "")?.[1] ?? "node";
}

/** The node's role: the system prompt's "### Your Role" section (the rest is the same for every node). */
function roleOf(request: DemoRequest): string {
  const system = request.messages[0]?.role === "system" ? request.messages[0].content : "";
  return system.split("### Your Role")[1] ?? system;
}

function targetsOf(request: DemoRequest): string[] {
  const deliver = request.tools.find((t) => t.name === "deliver");
  const target = (deliver?.parameters as { properties?: { target?: { enum?: string[] } } } | undefined)?.properties?.target;
  if (target?.enum?.length) return target.enum;
  const listed = [...(deliver?.description ?? "").matchAll(/^- ([A-Za-z0-9_-]+)/gm)].map((m) => m[1]);
  return listed.length > 0 ? listed : [END];
}

function mayWrite(kb: DemoTool): boolean {
  const action = (kb.parameters as { properties?: { action?: { enum?: string[] } } }).properties?.action;
  return action?.enum ? action.enum.includes("write") : true;
}

/** A node's input message: the envelope (a system reminder) of `[Input from graph node 'X']` blocks. */
const INPUT_ENVELOPE = /^(<system-reminder>\n)?\[(Input from graph node|No input)/;

/** The `[Input from graph node 'X' (role: …)]` blocks of a node's input message. */
function inputsOf(input: string): Array<{ source: string; body: string }> {
  const blocks = /\[Input from graph node '([^']+)'(?: \(role: [^\n]*\))?\]\n([\s\S]*?)(?=\n\n\[Input from graph node '|\n\n\[Upstream Status\]|\n<\/system-reminder>|$)/g;
  return [...input.matchAll(blocks)].map((m) => ({ source: m[1], body: m[2] }));
}

function bodyOf(input: string): string {
  return inputsOf(input).map((i) => i.body).join("\n");
}

/** The highest "draft N" the input mentions (0 when none). */
function draftOf(input: string): number {
  return Math.max(0, ...[...input.matchAll(/draft (\d+)/gi)].map((m) => Number(m[1])));
}

function taskOf(input: string): string {
  const body = bodyOf(input);
  return /^Task: (.*)$/m.exec(body)?.[1] ?? body;
}

/** The `Result:` line of a block (a producer's), else its first line. */
function resultOf(text: string): string {
  const body = inputsOf(text).length > 0 ? bodyOf(text) : text;
  return /^Result: (.*)$/m.exec(body)?.[1] ?? firstLine(body);
}

// ─── In a chat ────────────────────────────────────────────────────────────────────────────────────────

function chatReply(request: DemoRequest): DemoReply {
  const { messages } = request;
  const last = messages.at(-1);
  const userAt = lastIndex(messages, (m) => m.role === "user" && !m.content.startsWith("<system-reminder>") && !m.content.startsWith("<conversation-summary>"));
  const text = userAt >= 0 ? messages[userAt].content : "";
  const afterUser = messages.slice(userAt + 1);
  const has = (name: string) => request.tools.some((t) => t.name === name);
  const calledNow = (name: string) => afterUser.some((m) => m.toolCalls?.some((c) => c.name === name));

  // The todo list's reminder (todo_continuation) after a plan: the demo finishes the list and says so,
  // instead of answering the user's message a second time.
  const nudgeAt = lastIndex(messages, (m) => m.role === "user" && m.content.startsWith("<system-reminder>") && /open todo item/.test(m.content));
  if (nudgeAt > userAt && has("todo_write")) {
    const open = [...messages[nudgeAt].content.matchAll(/^- \[[a-z_]+\] (.+)$/gm)].map((m) => m[1]);
    const finished = messages.slice(nudgeAt + 1).some((m) => m.toolCalls?.some((c) => c.name === "todo_write"));
    if (!finished) return { text: " Working through the list. ", toolCalls: [{ name: "todo_write", args: { todos: open.map((content) => ({ content, status: "completed" })) } }], delayMs: CHAT_DELAY_MS };
    return { text: `Done: ${open.join(", ")}.`, delayMs: CHAT_DELAY_MS };
  }
  if (/^plan\b/i.test(text) && has("todo_write") && !calledNow("todo_write")) {
    const todos = [{ content: "outline the day", status: "in_progress" }, { content: "book the room", status: "pending" }];
    return { text: "Planning first. ", toolCalls: [{ name: "todo_write", args: { todos } }], delayMs: CHAT_DELAY_MS };
  }
  if (/^run\s/i.test(text) && has("run_graph")) {
    if (!calledNow("run_graph")) {
      const name = text.split(/\s+/)[1] || "counter-loop";
      return { text: `Starting ${name}. `, toolCalls: [{ name: "run_graph", args: { name } }], delayMs: CHAT_DELAY_MS };
    }
    const started = last?.role === "tool" ? /"instanceId": "(\w+)"/.exec(last.content) : null;
    return { text: started ? `The run has started as instance ${started[1]}.` : "Understood: I did not start the run.", delayMs: CHAT_DELAY_MS };
  }
  if (/\blist\b.*\bgraphs\b/i.test(text) && has("list_graphs")) {
    if (!calledNow("list_graphs")) return { text: "Looking them up. ", toolCalls: [{ name: "list_graphs", args: {} }], delayMs: CHAT_DELAY_MS };
    const names = last?.role === "tool" ? [...last.content.matchAll(/"name": "([^"]+)"/g)].map((m) => m[1]) : [];
    return { text: names.length > 0 ? `The saved graphs: ${names.join(", ")}.` : "There are no saved graphs yet.", delayMs: CHAT_DELAY_MS };
  }
  const named = /^call\s+([A-Za-z0-9_-]+)\s*(.*)$/is.exec(text);
  if (named && has(named[1])) {
    const [, tool, args] = named;
    if (!calledNow(tool)) return { text: `Calling ${tool}. `, toolCalls: [{ name: tool, args: jsonObjectOr(args) }], delayMs: CHAT_DELAY_MS };
    return { text: last?.role === "tool" ? `${tool} answered: ${firstLine(last.content)}` : `I did not call ${tool}.`, delayMs: CHAT_DELAY_MS };
  }
  if (/^slow\b/i.test(text)) {
    return { text: Array.from({ length: 400 }, (_, i) => `word${i} `).join(""), delayMs: 50 };
  }
  // A message that ends its own sentence ("…today?") gets no second full stop.
  return { text: `You said: ${text}${/[.!?…]$/.test(text) ? "" : "."} Modex is listening.`, delayMs: CHAT_DELAY_MS };
}

// ─── Helpers ──────────────────────────────────────────────────────────────────────────────────────────

function lastIndex<T>(list: readonly T[], match: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (match(list[i])) return i;
  return -1;
}

/** `call <tool> {json}`'s arguments: the object written, or none. */
function jsonObjectOr(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text.trim() || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Splits text into word-sized pieces that concatenate back to it (the stream's deltas). */
export function demoWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
