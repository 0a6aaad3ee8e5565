import { setTimeout as sleep } from "node:timers/promises";
import { parseValue } from "./args.mjs";
import { cell, formatDuration, formatTime, renderTable } from "./table.mjs";

const enc = encodeURIComponent;
const instancePath = (id) => `/api/graphs/instances/${enc(id)}`;
const FINAL = new Set(["completed", "failed", "stopped"]);

/**
 * Each command: one or two REST calls, then `print` (a table or lines; raw JSON with --json).
 * `io.out(text)` writes to stdout; commands return nothing and throw CliError on failure.
 */
export const handlers = {
  async specs({ client, io, options }) {
    const specs = await client.get("/api/graphs/specs");
    print(io, options, specs, () =>
      renderTable(specs, [
        { title: "NAME", key: "name" },
        { title: "VERSION", key: "version" },
        { title: "SPEC ID", key: "specId" },
        { title: "SAVED", value: (s) => formatTime(s.createdAt) },
        { title: "DESCRIPTION", key: "description" },
      ]),
    );
  },

  async run({ client, io, args, options }) {
    const body = { spec: args.spec };
    if (options.input !== undefined) body.input = parseValue(options.input);
    const created = await client.post("/api/graphs/instances", body);
    if (!options.wait) {
      print(io, options, created, () => `started ${created.instanceId} (${args.spec}, version ${created.version}, ${created.status})`);
      return;
    }
    const view = await waitUntilSettled(client, created.instanceId, Number(options.timeout ?? 60) * 1000);
    print(io, options, view, () => renderStatus(view));
  },

  async ls({ client, io, options }) {
    const list = await client.get("/api/graphs/instances", { status: options.status, limit: options.limit });
    print(io, options, list, () =>
      renderTable(list, [
        { title: "INSTANCE", key: "instanceId" },
        { title: "GRAPH", key: "graphName" },
        { title: "VERSION", key: "version" },
        { title: "STATUS", value: (i) => (i.waiting ? `${i.status} (waiting for input)` : i.status) },
        { title: "UPDATED", value: (i) => formatTime(i.updatedAt) },
      ]),
    );
  },

  async status({ client, io, args, options }) {
    const view = await client.get(instancePath(args.id), { version: options.version });
    print(io, options, view, () => renderStatus(view));
  },

  pause: (ctx) => control(ctx, "pause"),
  stop: (ctx) => control(ctx, "stop"),
  resume: (ctx) => control(ctx, "resume"),

  async deliver({ client, io, args, options }) {
    const res = await client.post(`${instancePath(args.id)}/deliver`, { node: args.node, content: parseValue(args.content) });
    const how = { running: "the running engine picks it up", on_resume: "consumed when the instance resumes", new_run: `a new run started (version ${res.version})`, recovery_run: "a recovery run started", later: "picked up by the next run" }[res.pickup];
    print(io, options, res, () => `delivered ${res.deliverId} to ${args.node} of ${res.instanceId}: ${how ?? res.pickup} (status ${res.status})`);
  },

  async answer({ client, io, args, options }) {
    const res = await client.post(`${instancePath(args.id)}/answer`, { value: parseValue(args.value) });
    print(io, options, res, () => `answered ${res.instanceId}: ${res.status} (version ${res.version})`);
  },

  async events({ client, io, args, options }) {
    let after = options.after === undefined ? undefined : Number(options.after);
    const interval = Number(options.interval ?? 500);
    let header = !options.json;
    for (;;) {
      const page = await client.get(`${instancePath(args.id)}/events`, { after, limit: 1000 });
      for (const e of page) {
        if (options.json) io.out(JSON.stringify(e));
        else {
          if (header) io.out(renderEventHeader());
          header = false;
          io.out(renderEvent(e));
        }
        after = e.id;
      }
      if (page.length === 1000) continue;
      if (!options.follow) {
        if (header) io.out("(no events)");
        return;
      }
      if (page.length === 0) {
        const view = await client.get(instancePath(args.id));
        if (FINAL.has(view.summary.status)) {
          const rest = await client.get(`${instancePath(args.id)}/events`, { after, limit: 1000 });
          for (const e of rest) io.out(options.json ? JSON.stringify(e) : renderEvent(e));
          return;
        }
      }
      await sleep(interval);
    }
  },
};

async function control({ client, io, args, options }, command) {
  const res = await client.post(`${instancePath(args.id)}/${command}`);
  const note = res.draining ? `; ${command} requested, in-flight nodes are finishing` : "";
  print(io, options, res, () => `${res.command}: ${res.instanceId} is ${res.status} (version ${res.version})${note}`);
}

async function waitUntilSettled(client, id, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await client.get(instancePath(id));
    if (view.summary.status !== "running") return view;
    if (Date.now() > deadline) return view;
    await sleep(200);
  }
}

function print(io, options, data, render) {
  io.out(options.json ? JSON.stringify(data, null, 2) : render());
}

/** The instance view as text: summary lines, the node table, what it waits for, the result. */
export function renderStatus(view) {
  const s = view.summary;
  const lines = [
    `instance  ${s.instanceId}`,
    `graph     ${s.spec ? `${s.spec.name} (spec ${s.spec.specId})` : s.graphName}`,
    `status    ${s.status}`,
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
    return {
      node: n.name,
      type: n.nodeType,
      status: last?.status ?? "-",
      runs: runs.length,
      time: last ? formatDuration(last.startedAt, last.endedAt) : "-",
      error: last?.error ?? null,
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
  if (view.waitingFor) {
    const w = view.waitingFor;
    lines.push("", `waiting for input at ${w.node ?? "?"}: ${w.prompt ?? cell(w)}`, `  answer with: modexctl answer ${s.instanceId} <value>`);
  }
  if (s.result) lines.push("", `result    ${s.result.map((p) => cell(p.content)).join(" | ") || "(empty)"}`);
  return lines.join("\n");
}

function renderEventHeader() {
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
