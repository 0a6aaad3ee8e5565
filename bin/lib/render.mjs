/** How modexctl prints an instance and its events as text (--json prints the API's JSON instead). */
import { cell, formatDuration, formatTime, renderTable } from "./table.mjs";

/**
 * What a cluster's `queued` reply and an instance with queued work (summary.queued) print: the command
 * was accepted and committed, and no worker has started its run yet.
 */
export const QUEUED_NOTE = "queued: no worker has started it yet";

/** The instance view as text: summary lines, the node table, what it waits for, the result. */
export function renderStatus(view) {
  const s = view.summary;
  const lines = [
    `instance  ${s.instanceId}`,
    `graph     ${s.spec ? `${s.spec.name} (spec ${s.spec.specId})` : s.graphName}`,
    `status    ${s.status}${s.queued ? ` (${s.queued.kind} ${QUEUED_NOTE})` : ""}`,
    `version   ${s.shownVersion} of ${s.versions.length}`,
    `created   ${formatTime(s.createdAt)}`,
    `updated   ${formatTime(s.updatedAt)}`,
    `input     ${cell(s.input?.content)}`,
  ];
  const shown = view.invocations.filter((i) => i.instanceVersion === s.shownVersion);
  // Entry first, exit last, the rest as the topology lists them.
  const rank = (n) => (n.isStart ? 0 : n.isEnd ? 2 : 1);
  const ordered = [...view.topology.nodes].sort((a, b) => rank(a) - rank(b));
  const nodes = ordered.map((n) => {
    const runs = shown.filter((i) => i.node === n.name);
    const last = runs.at(-1);
    const waits = waitsAt(view, n.name, last);
    return {
      node: n.name,
      type: n.nodeType,
      status: waits ?? (interruptedByCrash(view, last) ? "interrupted by a crash" : (last?.status ?? "-")),
      runs: runs.length,
      time: last ? formatDuration(last.startedAt, last.endedAt) : "-",
      error: waits ? null : (last?.error ?? null),
    };
  });
  lines.push(
    "",
    renderTable(nodes, [
      { title: "NODE", key: "node" },
      { title: "TYPE", key: "type" },
      { title: "STATUS", key: "status" },
      { title: "RUNS", key: "runs" },
      { title: "TIME", key: "time" },
      { title: "ERROR", key: "error" },
    ]),
  );
  // Queued work (an answer or decision accepted, no worker started yet) is what it waits for now.
  const waiting = s.queued ? null : describeWait(view);
  if (waiting) lines.push("", `waiting for ${waiting.label}: ${waiting.question}`, `  ${waiting.how}`);
  const hold = describeHold(view);
  if (hold) lines.push("", ...hold);
  const answers = (s.answers ?? []).filter((a) => a.version === s.shownVersion);
  if (answers.length > 0) lines.push("", ...answers.map(answerLine));
  if (s.status === "crashed") lines.push("", `crashed: its server stopped while it ran`, `  re-run it from its ledger with: modexctl recover ${s.instanceId}`);
  if (s.result) lines.push("", `result    ${s.result.map((p) => cell(p.content)).join(" | ") || "(empty)"}`);
  if (s.versions.length > 1) lines.push("", renderVersions(s));
  return lines.join("\n");
}

/** Who answered, as the server records it (the web app's words, without its "You"). */
const ANSWERED_BY = { session: "a browser session", token: "the API (access token)" };

/** An answer the server recorded (the instance's `answers`), however it came: value, node, time, who. */
function answerLine(a) {
  return `answered  ${cell(a.value)} to ${a.node} at ${formatTime(a.at)} UTC, by ${ANSWERED_BY[a.by] ?? "someone"}`;
}

/**
 * A re-invoked instance's version chain, oldest first: each version's input and what reached END (the
 * instance's conversation history); `*` marks the version shown. `status --version N` shows one.
 */
function renderVersions(s) {
  const output = (v) => (v.output === null ? null : v.output.map((p) => cell(p.content)).join(" | ") || "(empty)");
  return renderTable([...s.versions].sort((a, b) => a.version - b.version), [
    { title: "VERSION", value: (v) => `${v.version}${v.version === s.shownVersion ? " *" : ""}` },
    { title: "STATUS", key: "status" },
    { title: "STARTED", value: (v) => formatTime(v.createdAt) },
    { title: "INPUT", value: (v) => v.input?.content },
    { title: "OUTPUT", value: output },
  ]);
}

/**
 * What the node table says of the node a paused run waits at ("waiting for input" or "waiting for
 * approval", as the web app's card does): its last invocation is stored CANCELLED by the interrupt,
 * which is no error. Null for any other node.
 */
function waitsAt(view, node, last) {
  const w = view.waitingFor;
  if (!w || view.summary.status !== "paused" || w.node !== node || last?.status !== "CANCELLED") return null;
  return w.kind === "agent_approval" ? "waiting for approval" : "waiting for input";
}

/**
 * A node whose invocation is still stored RUNNING in a crashed instance's version runs no more: its
 * process died (the web app's "interrupted by a crash"); a recovery runs it again.
 */
function interruptedByCrash(view, last) {
  return view.summary.status === "crashed" && last?.status === "RUNNING" && view.summary.shownVersion === view.summary.versions.length;
}

/**
 * What a paused instance waits for from a person, and the command that gives it: an answer for a
 * human-input node, a decision for an agent's tool call (`answer` refuses those). Null otherwise.
 */
export function describeWait(view) {
  const id = view.summary.instanceId;
  const w = view.waitingFor;
  if (!w) return null;
  const node = w.node ?? "?";
  if (w.kind === "agent_approval") {
    return {
      label: `approval at ${node}`,
      question: `${w.prompt ?? cell(w)}${w.args ? ` ${cell(w.args)}` : ""}`,
      how: `approve with: modexctl approve ${id}, or deny with: modexctl deny ${id} --reason <why>`,
    };
  }
  return { label: `input at ${node}`, question: w.prompt ?? cell(w), how: `answer with: modexctl answer ${id} <value>` };
}

/** The node a paused instance is held before by a breakpoint, with the commands that move it on. */
function describeHold(view) {
  const id = view.summary.instanceId;
  if (view.summary.status !== "paused" || !view.heldAt || view.waitingFor) return null;
  return [`paused before ${view.heldAt} (breakpoint)`, `  run that node alone with: modexctl step ${id}, or go on with: modexctl resume ${id}`];
}

export function renderEventHeader() {
  return `${"ID".padEnd(8)}${"TIME".padEnd(21)}${"TYPE".padEnd(18)}DETAIL`;
}

export function renderEvent(stored) {
  const e = stored.event;
  return `${String(stored.id).padEnd(8)}${formatTime(stored.at).padEnd(21)}${e.type.padEnd(18)}${eventDetail(e)}`;
}

/** One line per event type; exhaustive over the engine's event union (unknown types print as JSON). */
function eventDetail(e) {
  switch (e.type) {
    case "instance_status":
      return `${e.from ?? "new"} → ${e.to} (version ${e.version})`;
    case "run_started":
      return `${e.mode} from ${e.seeds.join(", ") || "(nothing left)"}`;
    case "run_finished":
      return `${e.reachedEnd ? "reached END" : "did not reach END"} after ${e.iterations} node runs`;
    case "node_started":
      return e.nodeInstance;
    case "node_completed":
      return `${e.nodeInstance} in ${Math.round(e.durationMs)} ms, ${e.delivered} deliver(s)`;
    case "node_failed":
      return `${e.nodeInstance}: ${e.error}`;
    case "node_cancelled":
      return `${e.nodeInstance} (${e.reason})`;
    case "deliver_staged":
    case "deliver_promoted":
      // A resume's deliver carries the answer (or an agent's approval decision) to the node that waited.
      if (e.payload?.__resume__ === true) return `${e.source} → ${e.target}: answer ${cell(e.payload.value)}`;
      return `${e.source} → ${e.target}: ${cell(e.payload)}`;
    case "deliver_consumed":
      return `${e.source} → ${e.target} by ${e.consumer}`;
    case "interrupt_raised":
      return `at ${e.node}: ${cell(e.value?.prompt ?? e.value)}`;
    case "drained":
      return `${e.reason}${e.finishing.length ? `, finishing ${e.finishing.join(", ")}` : ""}`;
    default:
      return cell(e);
  }
}
