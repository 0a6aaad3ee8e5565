import { cell, formatDuration, formatTime, renderTable } from "./table.mjs";

/**
 * `modexctl approvals` and `modexctl trace`: an agent node's approvals (GET …/approvals) and one of its
 * turns' spans (GET …/trace), as the instance view's approval card and the web trace view show them.
 */

/** What waits (one paragraph) and every decision so far, oldest first (a table). */
export function renderApprovals(instanceId, { waiting, decided }) {
  const head = waiting
    ? [
        `waiting: ${waiting.node} asks to call ${waiting.tool} ${cell(waiting.args)} (since ${formatTime(waiting.requestedAt)}, transaction ${waiting.transactionId}, turn ${waiting.turnId})`,
        ...(waiting.reasoning.trim() ? [`  reasoning: ${cell(waiting.reasoning.trim())}`] : []),
        `  decide: modexctl approve ${instanceId}  or  modexctl deny ${instanceId} --reason "…"`,
      ]
    : ["waiting: nothing"];
  if (decided.length === 0) return [...head, "decided: none yet"].join("\n");
  const table = renderTable(decided, [
    { title: "DECIDED", value: (d) => formatTime(d.at) },
    { title: "NODE", key: "node" },
    { title: "TOOL", key: "tool" },
    { title: "DECISION", value: (d) => (d.approved ? "approved" : "denied") },
    { title: "BY", key: "by" },
    { title: "VERSION", key: "version" },
    { title: "REASON", key: "reason" },
    { title: "ARGS", key: "args" },
  ]);
  return [...head, "", table].join("\n");
}

/** A one-line summary, then the spans as a tree (children indented under their parent, by start time). */
export function renderTrace(trace) {
  const rows = spanTree(trace.spans);
  if (rows.length === 0) return `trace of ${trace.title}: no spans (spans are written as the turn runs, at the agent's trace tier)`;
  const start = Math.min(...trace.spans.map((s) => s.startTime));
  const end = Math.max(...trace.spans.map((s) => s.endTime));
  // The model calls' tokens; the turn's root span repeats their total, so it counts only without them (tier minimal).
  const calls = rows.filter((r) => r.span.attributes["gen_ai.operation.name"] === "chat");
  const counted = calls.length > 0 ? calls : rows.filter((r) => r.depth === 0);
  const tokens = counted.reduce((sum, r) => sum + (r.tokens ?? 0), 0);
  // An estimate (modex.usage.estimated: the provider reported no usage, e.g. a stopped stream) reads "~N".
  const estimated = counted.some((r) => r.estimated);
  const cost = typeof trace.cost === "number" ? ` · ${estimated ? "~" : ""}${trace.cost.toFixed(4)} ${trace.currency ?? ""}`.trimEnd() : "";
  const summary = `trace of ${trace.title} (turn ${trace.turnId}): ${rows.length} spans · ${formatDuration(start, end)} · ${estimated ? `~${tokens} tokens (estimated)` : `${tokens} tokens`}${cost}`;
  const names = rows.map((r) => `${"  ".repeat(r.depth)}${r.span.name}`);
  const width = Math.max("SPAN".length, ...names.map((n) => n.length));
  const line = (name, at, took, tok, status) => `${name.padEnd(width)}  ${at.padStart(8)}  ${took.padStart(8)}  ${tok.padStart(7)}  ${status}`.trimEnd();
  return [
    summary,
    "",
    line("SPAN", "AT", "DURATION", "TOKENS", "STATUS"),
    ...rows.map((r, i) => line(names[i], `+${formatDuration(start, r.span.startTime)}`, formatDuration(r.span.startTime, r.span.endTime), r.tokens === null ? "" : `${r.estimated ? "~" : ""}${r.tokens}`, statusOf(r.span))),
  ].join("\n");
}

function spanTree(spans) {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map();
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const rows = [];
  const visit = (parent, depth) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startTime - b.startTime)) {
      const input = span.attributes["gen_ai.usage.input_tokens"];
      const output = span.attributes["gen_ai.usage.output_tokens"];
      const tokens = typeof input === "number" || typeof output === "number" ? (Number(input) || 0) + (Number(output) || 0) : null;
      rows.push({ span, depth, tokens, estimated: span.attributes["modex.usage.estimated"] === true });
      visit(span.spanId, depth + 1);
    }
  };
  visit(null, 0);
  return rows;
}

/** An error with its message; an approval span with its decision; a model call how it finished; else the status code. */
function statusOf(span) {
  if (span.status.code === "error") return `error: ${cell(span.status.message ?? "")}`;
  const decision = span.attributes["modex.approval.decision"];
  if (typeof decision === "string") return decision;
  const finish = span.attributes["gen_ai.response.finish_reasons"];
  if (Array.isArray(finish) && finish.length > 0) return `finished: ${finish.join(", ")}`;
  return span.status.code === "unset" ? "-" : span.status.code;
}
