import { setTimeout as sleep } from "node:timers/promises";
import { parseValue } from "./args.mjs";
import { bulk, deleteMatching, filterOf, idsOf } from "./bulk-commands.mjs";
import { chatCommand } from "./chat-commands.mjs";
import { renderApprovals, renderTrace } from "./agent-run-render.mjs";
import { renderCluster } from "./cluster-render.mjs";
import { CliError, EXIT } from "./errors.mjs";
import { maskPreview, renderPointGroups } from "./extension-commands.mjs";
import { notificationsCommand } from "./notification-commands.mjs";
import { CONTENT, revisionDetail, SAVED } from "./revision-commands.mjs";
import { applyCommand, specDetailCommand, validateCommand } from "./spec-commands.mjs";
import { describeWait, QUEUED_NOTE, renderEvent, renderEventHeader, renderStatus } from "./render.mjs";
import { formatDuration, formatTime, formatTimeIn, renderTable } from "./table.mjs";

const enc = encodeURIComponent;
const instancePath = (id) => `/api/graphs/instances/${enc(id)}`;
const FINAL = new Set(["completed", "failed", "stopped"]);
const EVENT_PAGE = 1000;

/**
 * The command table: one entry per command, read by the parser (args.mjs), `--help` and main.
 * To add a command, add an entry here; nothing else needs to change.
 *
 * - `args`: positional arguments, in order; `lastArgTakesRest: true` joins any further words into the
 *   last one (free text such as deliver's content); `variadic: true` makes the last one an array of
 *   every further word (apply's files).
 * - `options`: the command's own options and their kind: "flag" (no value), "value" (text),
 *   "count" (a whole number). An option name means the same kind in every command.
 * - `run(ctx)`: one or two REST calls, then `print` (a table or lines; the API's JSON with --json).
 *   ctx: { client (ModexClient), io ({out, err}), args, options, reconnector (for watching reads) }.
 *   Returns nothing for exit 0, or an EXIT code; throws CliError on failure.
 * Writes that create work or decide (create, reinvoke, deliver, answer, approve, deny) pass `{ idempotent: true }`: they carry
 * the invocation's Idempotency-Key and are retried with it after a dropped connection.
 */
export const COMMANDS = {
  specs: {
    args: [],
    options: { show: "value", revision: "value", history: "value" },
    summary: "list graph specs (latest revision of each); --show <name> [--revision <id>]: print one spec's YAML; --history <name>: its revisions, newest first",
    async run(ctx) {
      const { client, io, options } = ctx;
      if (options.show !== undefined || options.history !== undefined) return specDetailCommand(ctx);
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
  },

  // Specs as code (see the README's "Keeping graphs in git"): `-` reads a spec from stdin.
  apply: {
    args: ["files"],
    variadic: true,
    options: { "dry-run": "flag" },
    summary: "save spec files (each a new revision of the graph it names, unless unchanged); a file that does not compile prints file:line:column: message per problem and nothing is saved (exit 1); --dry-run: check only",
    run: applyCommand,
  },
  validate: {
    args: ["files"],
    variadic: true,
    options: {},
    summary: "check spec files without saving them: exit 0 when all compile, else 1 with file:line:column: message per problem",
    run: validateCommand,
  },

  agents: {
    args: [],
    options: { show: "value", revision: "value", history: "value" },
    summary: "list named agents (latest revision of each); --show <name> [--revision <id>]: print one agent's YAML; --history <name>: its revisions, newest first",
    async run(ctx) {
      const { client, io, options } = ctx;
      if (options.show !== undefined || options.history !== undefined) {
        return revisionDetail(ctx, { base: "/api/agents", idKey: "agentId", columns: [SAVED, { title: "SIZE", value: (r) => `${r.bytes} B` }, CONTENT] });
      }
      const { agents } = await client.get("/api/agents");
      print(io, options, agents, () =>
        renderTable(agents, [
          { title: "NAME", key: "name" },
          { title: "MODEL", value: (a) => a.model ?? "(configured)" },
          { title: "TOOLS", value: (a) => a.tools.join(", ") },
          { title: "SAVED", value: (a) => formatTime(a.createdAt) },
          { title: "DESCRIPTION", key: "description" },
        ]),
      );
    },
  },

  extensions: {
    args: [],
    options: { enable: "value", disable: "value", reset: "flag", points: "flag", mask: "value" },
    summary:
      "list extensions (points, priority, enabled, calls, errors and the last one, vetoes, time) and modules that failed to load; --enable|--disable <name>; --reset zeroes the statistics; --points: the 25 points by group, with each one's mode and the enabled extensions listening; --mask <text> (- reads stdin): the text as secret_masking would mask it (nothing stored)",
    async run({ client, io, options }) {
      if (options.mask !== undefined) return maskPreview({ client, io, options });
      if (options.reset) {
        const report = await client.request({ method: "POST", pathname: "/api/extensions/statistics/reset" });
        print(io, options, report, () => `statistics of ${report.extensions.length} extensions reset`);
        return;
      }
      const toggle = options.enable ?? options.disable;
      if (toggle !== undefined) {
        const ext = await client.request({ method: "PUT", pathname: `/api/extensions/${enc(toggle)}`, body: { enabled: options.enable !== undefined } });
        print(io, options, ext, () => `${ext.name} ${ext.enabled ? "enabled" : "disabled"}`);
        return;
      }
      const report = await client.get("/api/extensions");
      if (options.points) {
        print(io, options, report.pointGroups, () => renderPointGroups(report.pointGroups));
        return;
      }
      print(io, options, report, () =>
        [
          renderTable(report.extensions, [
            { title: "NAME", key: "name" },
            { title: "ON", value: (e) => (e.enabled ? "yes" : "no") },
            { title: "PRIORITY", key: "priority" },
            { title: "CALLS", key: "calls" },
            { title: "ERRORS", key: "failures" },
            { title: "VETOES", key: "vetoes" },
            { title: "TIME MS", value: (e) => e.timeMs.toFixed(1) },
            { title: "POINTS", value: (e) => e.points.join(", ") },
          ]),
          // Why each failing one last failed (its point, when, what it threw), not only how often.
          ...report.extensions.filter((e) => e.lastError).map((e) => `last error of ${e.name}: ${e.lastError.point} at ${new Date(e.lastError.at).toISOString()}: ${e.lastError.message}`),
          ...report.failed.map((f) => `not loaded: ${f.file}: ${f.message}`),
        ].join("\n"),
      );
    },
  },

  cluster: {
    args: [],
    options: {},
    summary: "the processes of a PostgreSQL cluster (role, host:pid, heartbeat age, live or expired, leases held and expired), lease totals and the work queue; on SQLite, the one process",
    async run({ client, io, options }) {
      const status = await client.get("/api/cluster");
      print(io, options, status, () => renderCluster(status));
    },
  },

  // Chat (see the README's Chat section): interactive without an action, or one action per call.
  chat: {
    args: ["action", "chat", "text"],
    minArgs: 0,
    lastArgTakesRest: true,
    options: { agent: "value", session: "value", busy: "value" },
    summary:
      "chat with an agent: interactive (a new chat, --agent <name>, or --session <chat>; streams tokens, lines are messages or /commands); " +
      "chat send <chat|new> <message…> (streams the turn: exit 0 completed, 4 waits for approval, 5 otherwise; --busy queue|interrupt|steer: what it does to a running turn instead of the agent's mode); chat stop|approve|deny <chat> [reason…]; chat ls [search]; chat new; chat rm <chat>",
    run: chatCommand,
  },

  run: {
    args: ["spec"],
    options: { input: "value", wait: "flag", timeout: "count", "reconnect-timeout": "count", break: "value" },
    summary: "create and start an instance of a spec (name or id); --wait: until it completes or waits for a human",
    async run(ctx) {
      const { client, io, args, options } = ctx;
      const body = { spec: args.spec };
      if (options.input !== undefined) body.input = parseValue(options.input);
      if (options.break !== undefined) body.breakpoints = splitNames(options.break);
      const created = await client.post("/api/graphs/instances", body, { idempotent: true });
      if (!options.wait) {
        print(io, options, created, () => `started ${created.instanceId} (${args.spec}, version ${created.version}, ${created.status})`);
        return EXIT.OK;
      }
      const view = await waitUntilSettled(ctx, created.instanceId, Number(options.timeout ?? 60) * 1000);
      print(io, options, view, () => renderStatus(view));
      return settledExit(ctx, view);
    },
  },

  ls: {
    args: [],
    options: { status: "value", graph: "value", waiting: "flag", search: "value", "older-than": "value", archived: "value", limit: "count" },
    summary:
      "list instances, most recent activity first; filters as the web list's: --status, --graph <spec name>, --waiting (for a person), --search <text in id or input>, --older-than 7d, --archived only|include",
    async run({ client, io, options }) {
      const { status, graph, to } = filterOf(options) ?? {};
      const query = { status, graph, to, waiting: options.waiting ? "true" : undefined, q: options.search, archived: options.archived, limit: options.limit };
      const list = await client.get("/api/graphs/instances", query);
      print(io, options, list, () =>
        renderTable(list, [
          { title: "INSTANCE", key: "instanceId" },
          { title: "GRAPH", key: "graphName" },
          { title: "VERSION", key: "version" },
          { title: "STATUS", value: (i) => (i.queued ? `${i.status} (${i.queued.kind} ${QUEUED_NOTE})` : i.waiting ? `${i.status} (waiting for ${i.waitKind === "approval" ? "approval" : "input"})` : i.status) },
          { title: "UPDATED", value: (i) => formatTime(i.updatedAt) },
        ]),
      );
    },
  },

  traces: {
    args: [],
    options: { source: "value", errors: "flag", limit: "count", cursor: "value", training: "flag", since: "value" },
    summary:
      "list finished agent turns, newest first (--source chat|node, --errors: failed only; --cursor: the next page); --training [--since 2026-12-01]: print the training-data turns as JSONL (OpenAI fine-tuning format) instead",
    async run({ client, io, options }) {
      // The export as it comes: one JSON line per turn (`> data.jsonl`); --json changes nothing, it is JSON already.
      if (options.training) {
        const text = await client.getText("/api/traces/training.jsonl", { source: options.source, since: options.since });
        if (text !== "") io.out(text.replace(/\n$/, ""));
        return;
      }
      const page = await client.get("/api/traces", { source: options.source, errors: options.errors ? "1" : undefined, limit: options.limit, cursor: options.cursor });
      print(io, options, page, () =>
        [
          renderTable(page.turns, [
            { title: "STARTED", value: (t) => formatTime(t.startedAt) },
            { title: "WHERE", value: (t) => (t.source.kind === "chat" ? `chat ${t.source.sessionId} ${t.source.title ?? "(deleted)"}` : `run ${t.source.instanceId} ${t.source.graph ?? "(deleted)"} · ${t.source.node}`) },
            { title: "AGENT", key: "agent" },
            { title: "ENDED", value: (t) => (t.status === "error" ? `failed: ${t.error ?? ""}` : (t.stopReason ?? "-")) },
            { title: "TOKENS", value: (t) => String(t.inputTokens + t.outputTokens) },
            { title: "DURATION", value: (t) => formatDuration(0, t.durationMs) },
            { title: "TURN", key: "turnId" },
          ]),
          ...(page.nextCursor ? [`more: modexctl traces --cursor ${page.nextCursor}${options.source ? ` --source ${options.source}` : ""}${options.errors ? " --errors" : ""}`] : []),
        ].join("\n"),
      );
    },
  },

  status: {
    args: ["id"],
    options: { version: "count" },
    summary: "show an instance: status, versions, nodes, what it waits for, result",
    async run({ client, io, args, options }) {
      const view = await client.get(instancePath(args.id), { version: options.version });
      print(io, options, view, () => renderStatus(view));
    },
  },

  // The run's shared knowledge base (agent nodes' findings, decisions, …), as the web app's Knowledge tab.
  knowledge: {
    args: ["id"],
    options: { file: "value" },
    summary: "print the shared knowledge base of an instance's agent nodes (findings, decisions, open_questions, context, changelog); --file <name>: that file only",
    async run({ client, io, args, options }) {
      const kb = await client.get(`${instancePath(args.id)}/knowledge`, { file: options.file });
      print(io, options, kb, () => renderKnowledge(kb));
    },
  },

  // An agent node's approvals and one turn's trace, as the instance view's approval card and trace view.
  approvals: {
    args: ["id"],
    options: {},
    summary: "show the tool call an agent node of the instance waits on (if any) and every decided approval: when, node, tool, approved or denied, by whom, reason, arguments",
    async run({ client, io, args, options }) {
      const state = await client.get(`${instancePath(args.id)}/approvals`);
      print(io, options, state, () => renderApprovals(args.id, state));
    },
  },
  trace: {
    args: ["id", "node", "turn"],
    options: {},
    summary: "print one agent node turn's trace: its spans as a tree (model calls, tools, approvals) with durations, tokens and errors; the turns are listed by `modexctl traces --source node`",
    async run({ client, io, args, options }) {
      const trace = await client.get(`${instancePath(args.id)}/trace`, { node: args.node, turn: args.turn });
      print(io, options, trace, () => renderTrace(trace));
    },
  },

  pause: { args: ["id"], options: {}, summary: "pause a running instance (PAUSE_GRAPH)", run: (ctx) => control(ctx, "pause") },
  stop: { args: ["id"], options: {}, summary: "stop an instance for good (STOP_GRAPH)", run: (ctx) => control(ctx, "stop") },
  resume: { args: ["id"], options: {}, summary: "resume a paused instance (RESUME_GRAPH)", run: (ctx) => control(ctx, "resume") },
  step: { args: ["id"], options: {}, summary: "run one node of a paused instance, then pause before the next (STEP)", run: (ctx) => control(ctx, "step") },
  breakpoints: {
    args: ["id", "nodes"],
    lastArgTakesRest: true,
    options: {},
    summary: 'set the nodes an instance pauses before (comma- or space-separated; "" clears); resume continues past one',
    async run({ client, io, args, options }) {
      const res = await client.put(`${instancePath(args.id)}/breakpoints`, { nodes: splitNames(args.nodes) });
      print(io, options, res, () => `breakpoints of ${res.instanceId}: ${res.breakpoints.length > 0 ? res.breakpoints.join(", ") : "none"}`);
    },
  },
  recover: {
    args: ["id"],
    options: {},
    summary: "re-run a crashed instance from its ledger (refused unless it is crashed)",
    run: (ctx) => control(ctx, "recover"),
  },
  approve: {
    args: ["id"],
    options: { reason: "value" },
    summary: "approve the tool call an agent node of the instance waits on (it runs; the agent goes on)",
    run: (ctx) => decide(ctx, "approve"),
  },
  deny: {
    args: ["id"],
    options: { reason: "value" },
    summary: "deny the tool call an agent node waits on; --reason tells the agent why",
    run: (ctx) => decide(ctx, "deny"),
  },
  // delete / archive: one instance or several (POST /api/graphs/instances/bulk), or with --spec a spec
  // name (every revision). Refused (409) for a running instance (several: it is left and listed), or a
  // spec that still has instances. Delete cannot be undone; archive --undo can. The ids are one
  // free-text argument split on spaces, so the parser's table stays as it is.
  delete: {
    args: ["ids"],
    minArgs: 0,
    lastArgTakesRest: true,
    options: { spec: "flag", status: "value", graph: "value", "older-than": "value", yes: "flag" },
    summary:
      "delete instances by id (refused while running), or every one matching --status/--graph/--older-than (7d, 12h) with --yes (without: lists them, exit 1); --spec: a spec with no instances; cannot be undone",
    async run(ctx) {
      const { client, io, args, options } = ctx;
      const ids = idsOf(args.ids);
      const filter = filterOf(options);
      if (filter) return deleteMatching(ctx, ids, filter);
      if (ids.length === 0) throw new CliError("delete needs <id>… or a filter (--status, --graph, --older-than)", { code: "USAGE" });
      if (ids.length > 1 && !options.spec) return bulk(ctx, "delete", ids);
      const path = options.spec ? `/api/graphs/specs/${enc(ids[0])}` : instancePath(ids[0]);
      const res = await client.request({ method: "DELETE", pathname: path });
      print(io, options, res, () => (options.spec ? `spec ${ids[0]} deleted (${res.deleted} revisions)` : `instance ${ids[0]} deleted`));
    },
  },
  archive: {
    args: ["ids"],
    lastArgTakesRest: true,
    options: { spec: "flag", undo: "flag" },
    summary: "hide instances (or with --spec a spec) from lists; --undo shows them again",
    async run(ctx) {
      const { client, io, args, options } = ctx;
      const ids = idsOf(args.ids);
      if (ids.length > 1 && !options.spec) return bulk(ctx, options.undo ? "unarchive" : "archive", ids);
      const path = `${options.spec ? `/api/graphs/specs/${enc(ids[0])}` : instancePath(ids[0])}/archive${options.undo ? "?archived=false" : ""}`;
      const res = await client.post(path);
      print(io, options, res, () => `${options.spec ? "spec" : "instance"} ${ids[0]} ${res.archived ? "archived" : "no longer archived"}`);
    },
  },

  deliver: {
    args: ["id", "node", "content"],
    lastArgTakesRest: true,
    options: {},
    summary: "deliver content to a node (DELIVER_TO_NODE)",
    async run({ client, io, args, options }) {
      const res = await client.post(`${instancePath(args.id)}/deliver`, { node: args.node, content: parseValue(args.content) }, { idempotent: true });
      const how = {
        running: "the running engine picks it up",
        on_resume: "consumed when the instance resumes",
        new_run: `a new run ${res.status === "queued" ? "is due" : "started"} (version ${res.version})`,
        recovery_run: `a recovery run ${res.status === "queued" ? "is due" : "started"}`,
        later: "picked up by the next run",
      }[res.pickup];
      print(io, options, res, () => `delivered ${res.deliverId} to ${args.node} of ${res.instanceId}: ${how ?? res.pickup} (status ${shownStatus(res)})`);
    },
  },

  answer: {
    args: ["id", "value"],
    lastArgTakesRest: true,
    options: {},
    summary: "answer the human input an instance waits for",
    async run({ client, io, args, options }) {
      const res = await client.post(`${instancePath(args.id)}/answer`, { value: parseValue(args.value) }, { idempotent: true });
      print(io, options, res, () => `answered ${res.instanceId}: ${shownStatus(res)} (version ${res.version})`);
    },
  },

  reinvoke: {
    args: ["id"],
    options: { input: "value" },
    summary: "new input to a completed or failed instance: runs version N+1",
    async run({ client, io, args, options }) {
      const res = await client.post(`${instancePath(args.id)}/reinvoke`, { input: parseValue(options.input) ?? null }, { idempotent: true });
      print(io, options, res, () => `reinvoked ${res.instanceId}: ${shownStatus(res)} (version ${res.version})`);
    },
  },

  // Time travel: the state at any event of a run, and forks from there (see the README's Forks section).
  point: {
    args: ["id"],
    options: { event: "count" },
    summary: "show the graph state and open delivers right after an event of an instance (--event <id>; default its last event)",
    async run({ client, io, args, options }) {
      const point = await client.get(`${instancePath(args.id)}/point`, { event: options.event });
      print(io, options, point, () => renderPoint(point));
    },
  },
  fork: {
    args: ["id"],
    options: { event: "count", state: "value", revision: "value", wait: "flag", timeout: "count" },
    summary:
      "start a new instance from the point right after --event <id> of an instance: its state (or --state <json>, checked by the spec's state schema) " +
      "and open delivers, on the same spec revision (or --revision latest|<spec id>); --wait: until it settles",
    async run(ctx) {
      const { client, io, args, options } = ctx;
      if (options.event === undefined) throw new CliError("fork needs --event <event id> (see `modexctl events <id>`)", { code: "USAGE" });
      const body = { eventId: Number(options.event) };
      if (options.state !== undefined) body.state = parseValue(options.state);
      if (options.revision !== undefined) body.spec = options.revision;
      const fork = await client.post(`${instancePath(args.id)}/fork`, body);
      if (!options.wait) {
        print(io, options, fork, () => `forked ${fork.instanceId} from ${args.id} at event ${body.eventId} (${fork.status})`);
        return EXIT.OK;
      }
      const view = await waitUntilSettled(ctx, fork.instanceId, Number(options.timeout ?? 60) * 1000);
      print(io, options, view, () => renderStatus(view));
      return settledExit(ctx, view);
    },
  },

  events: {
    args: ["id"],
    options: { follow: "flag", after: "count", interval: "count", "reconnect-timeout": "count" },
    summary: "print an instance's events (--follow: until it ends, reconnecting after a server restart)",
    run: followEvents,
  },
  // Triggers (schedules and webhooks): see the README's Triggers section.
  schedules: {
    args: [],
    options: {},
    summary: "list schedules with their next fire time, state and last fire",
    async run({ client, io, options }) {
      const schedules = await client.get("/api/triggers/schedules");
      print(io, options, schedules, () =>
        renderTable(schedules, [
          { title: "NAME", key: "name" },
          { title: "SPEC", key: "spec" },
          { title: "CRON", value: (s) => `${s.cron} (${s.timezone})` },
          // In the schedule's own zone, named, as its cron reads (--json keeps the epoch milliseconds).
          { title: "NEXT", value: (s) => (s.paused ? "paused" : s.nextFires[0] ? formatTimeIn(s.nextFires[0], s.timezone) : "never") },
          { title: "POLICIES", value: (s) => `overlap ${s.overlap}, missed ${s.missed}` },
          { title: "LAST", value: (s) => (s.lastFireAt ? `${formatTimeIn(s.lastFireAt, s.timezone)}: ${s.lastOutcome}` : "") },
          { title: "FROM", value: (s) => (s.declaredIn ? `spec ${s.declaredIn}` : "app") },
        ]),
      );
    },
  },

  schedule: {
    args: ["name", "spec"],
    options: { cron: "value", tz: "value", input: "value", overlap: "value", missed: "value" },
    summary: "create or replace a schedule (--cron '0 9 * * 1-5' required; --tz Europe/Paris; --overlap skip|allow|cancel_previous; --missed skip|run_once)",
    async run({ client, io, args, options }) {
      if (options.cron === undefined) throw new CliError("schedule needs --cron '<expression>'", { code: "USAGE" });
      const body = { name: args.name, spec: args.spec, cron: options.cron };
      if (options.tz !== undefined) body.timezone = options.tz;
      if (options.input !== undefined) body.input = parseValue(options.input);
      if (options.overlap !== undefined) body.overlap = options.overlap;
      if (options.missed !== undefined) body.missed = options.missed;
      const saved = await client.post("/api/triggers/schedules", body);
      print(io, options, saved, () => `schedule ${saved.name}: ${saved.paused ? "paused" : `next fires ${firesText(saved.nextFires.slice(0, 3), saved.timezone)}`}`);
    },
  },

  "schedule-pause": scheduleCommand("pause", "pause a schedule (no fire until resumed)"),
  "schedule-resume": scheduleCommand("resume", "resume a schedule from its next due time"),

  "schedule-rm": {
    args: ["name"],
    options: {},
    summary: "delete a schedule made in the app",
    async run({ client, io, args, options }) {
      const removed = await client.request({ method: "DELETE", pathname: `/api/triggers/schedules/${enc(args.name)}` });
      print(io, options, removed, () => `schedule ${args.name} deleted`);
    },
  },

  hooks: {
    args: [],
    options: {},
    summary: "list webhooks (no secrets)",
    async run({ client, io, options }) {
      const hooks = await client.get("/api/triggers/hooks");
      print(io, options, hooks, () =>
        renderTable(hooks, [
          { title: "NAME", key: "name" },
          { title: "SPEC", key: "spec" },
          { title: "AUTH", key: "auth" },
          { title: "LIMITS", value: (h) => `${h.maxBodyBytes} bytes, ${h.ratePerMinute}/min` },
          { title: "ROTATED", value: (h) => formatTime(h.rotatedAt) },
          // The whole URL, as hook-create printed it (the server this modexctl talks to, plus the path).
          { title: "URL", value: (h) => `${client.url}${h.path}`, whole: true },
        ]),
      );
    },
  },

  "hook-create": {
    args: ["name", "spec"],
    options: { auth: "value", "max-body": "count", rate: "count" },
    summary: "create a webhook (--auth hmac|bearer, --max-body bytes, --rate calls per minute); prints its secret once",
    async run({ client, io, args, options }) {
      const body = { name: args.name, spec: args.spec };
      if (options.auth !== undefined) body.auth = options.auth;
      // "count" options arrive as digits; the API wants numbers.
      if (options["max-body"] !== undefined) body.maxBodyBytes = Number(options["max-body"]);
      if (options.rate !== undefined) body.ratePerMinute = Number(options.rate);
      const hook = await client.post("/api/triggers/hooks", body);
      print(io, options, hook, () => hookSecretLines(client, hook));
    },
  },

  "hook-rotate": {
    args: ["name"],
    options: {},
    summary: "give a webhook a new secret (the old one stops working); prints it once",
    async run({ client, io, args, options }) {
      const hook = await client.post(`/api/triggers/hooks/${enc(args.name)}/rotate`);
      print(io, options, hook, () => hookSecretLines(client, hook));
    },
  },

  "hook-rm": {
    args: ["name"],
    options: {},
    summary: "delete a webhook (its URL answers 404)",
    async run({ client, io, args, options }) {
      const removed = await client.request({ method: "DELETE", pathname: `/api/triggers/hooks/${enc(args.name)}` });
      print(io, options, removed, () => `webhook ${args.name} deleted`);
    },
  },

  // Outgoing webhooks told when a run completes, fails, stops or waits (README: Triggers, Notifications).
  notifications: notificationsCommand,
};

/**
 * APPROVE / DENY: the decision on an agent node's tool call; prints what the instance does next. Sent with
 * the invocation's Idempotency-Key and retried with it, so a lost answer never decides twice.
 */
async function decide({ client, io, args, options }, verb) {
  const body = options.reason === undefined ? {} : { reason: String(options.reason) };
  const res = await client.post(`${instancePath(args.id)}/${verb}`, body, { idempotent: true });
  print(io, options, res, () => `${verb === "approve" ? "approved" : "denied"}: ${res.instanceId ?? args.id} is ${shownStatus(res)} (version ${res.version})`);
}

async function control({ client, io, args, options }, command) {
  const res = await client.post(`${instancePath(args.id)}/${command}`);
  const note = res.draining ? `; ${command} requested, in-flight nodes are finishing` : "";
  print(io, options, res, () => `${res.command ?? command}: ${res.instanceId ?? args.id} is ${shownStatus(res)} (version ${res.version})${note}`);
}

/**
 * A command reply's status as printed. `queued` (a cluster's web process: the command is committed, no
 * worker had started its run when the reply was sent) says what it waits for, in the web app's words.
 */
function shownStatus(res) {
  return res.status === "queued" ? QUEUED_NOTE : res.status;
}

/**
 * Pages through the event log after `--after`. With --follow it polls until the instance is final,
 * through server restarts: every read goes through the reconnector and resumes after the last event
 * printed, so no event is printed twice or skipped.
 */
async function followEvents({ client, io, args, options, reconnector }) {
  let after = options.after === undefined ? undefined : Number(options.after);
  const interval = Number(options.interval ?? 500);
  let header = !options.json;
  const read = (pathname, query) =>
    options.follow ? reconnector.call(() => client.get(pathname, query), () => `resuming after event ${after ?? "(none yet)"}`) : client.get(pathname, query);
  const printPage = (page) => {
    for (const e of page) {
      if (options.json) io.out(JSON.stringify(e));
      else {
        if (header) io.out(renderEventHeader());
        header = false;
        io.out(renderEvent(e));
      }
      after = e.id;
    }
  };
  for (;;) {
    const page = await read(`${instancePath(args.id)}/events`, { after, limit: EVENT_PAGE });
    printPage(page);
    if (page.length === EVENT_PAGE) continue;
    if (!options.follow) {
      if (header) io.out("(no events)");
      return;
    }
    if (page.length === 0) {
      const view = await read(instancePath(args.id));
      if (FINAL.has(view.summary.status)) {
        printPage(await read(`${instancePath(args.id)}/events`, { after, limit: EVENT_PAGE }));
        return;
      }
    }
    await sleep(interval);
  }
}

/**
 * How long run --wait keeps waiting on a CRASHED run: a server that restarts (or whose sweeper finds
 * a dead executor) marks the run CRASHED and, with MODEX_RECOVERY on, re-runs it moments later.
 */
export const CRASHED_GRACE_MS = 10_000;

/** Polls the instance until it is settled or `timeoutMs` passed (through server restarts). */
function renderPoint(p) {
  const lines = [`event ${p.eventId} (version ${p.version}): state ${p.initial ? "as the run started" : `saved by ${p.asOf.node}`}`];
  lines.push(JSON.stringify(p.state, null, 2));
  lines.push(p.pending.length === 0 ? "open delivers: none" : `open delivers: ${p.pending.map((d) => `${d.source} → ${d.target}`).join(", ")}`);
  if (p.running.length > 0) lines.push(`running: ${p.running.join(", ")}`);
  lines.push(p.unforkable ? `not forkable: ${p.unforkable}` : `fork: modexctl fork <id> --event ${p.eventId}`);
  return lines.join("\n");
}

async function waitUntilSettled({ client, reconnector }, id, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let crashedSince = null;
  for (;;) {
    const view = await reconnector.call(() => client.get(instancePath(id)));
    const status = view.summary.status;
    crashedSince = status === "crashed" ? (crashedSince ?? Date.now()) : null;
    const recovering = crashedSince !== null && Date.now() - crashedSince < CRASHED_GRACE_MS;
    if ((status !== "running" && !recovering) || Date.now() > deadline) return view;
    await sleep(200);
  }
}

/** run --wait's exit code for the view it waited for, with a line on stderr when it is not 0. */
function settledExit({ io, options }, view) {
  const s = view.summary;
  if (s.status === "completed") return EXIT.OK;
  if (s.status === "running") {
    io.err(`modexctl: ${s.instanceId} is still running after ${options.timeout ?? 60} s (--timeout); follow it with: modexctl events ${s.instanceId} --follow`);
    return EXIT.TIMED_OUT;
  }
  const waiting = s.status === "paused" && view.waitingFor ? describeWait(view) : null;
  if (waiting) {
    io.err(`modexctl: ${s.instanceId} waits for a human (${waiting.label}): ${waiting.question}; ${waiting.how}`);
    return EXIT.WAITING_FOR_HUMAN;
  }
  io.err(`modexctl: ${s.instanceId} did not complete: it is ${s.status}`);
  return EXIT.NOT_COMPLETED;
}

/** Each knowledge-base file under a `== name (n lines) ==` header; an empty one says so. */
function renderKnowledge(kb) {
  if (!kb.enabled) return "this server keeps no knowledge bases (its agent nodes have no workspace)";
  return kb.files
    .map((f) => `== ${f.pattern} (${f.lines} ${f.lines === 1 ? "line" : "lines"}) ==\n${f.text === "" ? "(empty)" : f.text.trimEnd()}`)
    .join("\n\n");
}

function print(io, options, data, render) {
  io.out(options.json ? JSON.stringify(data, null, 2) : render());
}

function scheduleCommand(action, summary) {
  return {
    args: ["name"],
    options: {},
    summary,
    async run({ client, io, args, options }) {
      const schedule = await client.post(`/api/triggers/schedules/${enc(args.name)}/${action}`);
      print(io, options, schedule, () => `schedule ${schedule.name} ${schedule.paused ? "paused" : `resumed, next fire ${firesText(schedule.nextFires.slice(0, 1), schedule.timezone)}`}`);
    },
  };
}

/** Fire times (ms) in the schedule's zone, named; none (an expression that fires no more): says so rather than printing nothing. */
function firesText(fires, timeZone) {
  return fires.length > 0 ? fires.map((t) => formatTimeIn(t, timeZone)).join(", ") : "none (the expression fires no more)";
}

function hookSecretLines(client, hook) {
  const how = hook.auth === "bearer" ? "send Authorization: Bearer <secret>" : "sign each body: X-Modex-Signature: sha256=<hex HMAC-SHA256(secret, body)>";
  return [`webhook ${hook.name}: POST ${client.url}${hook.path} (${how})`, `secret (shown once): ${hook.secret}`].join("\n");
}

/** Node names from "a,b c" (commas or spaces); "" is none. */
function splitNames(text) {
  return String(text).split(/[\s,]+/).filter((n) => n !== "");
}
