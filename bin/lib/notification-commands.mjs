import { CliError } from "./errors.mjs";
import { formatTime, renderTable } from "./table.mjs";

// `modexctl notifications`: outgoing webhooks (README: Triggers, Notifications). One command with an
// action, as `chat` has: list (no action), add <url>, rm <id>, test <id>, --deliveries <id>.

const enc = encodeURIComponent;
const ACTIONS = ["add", "rm", "test"];

export const notificationsCommand = {
  args: ["action", "target"],
  minArgs: 0,
  options: { events: "value", graph: "value", deliveries: "value" },
  summary:
    "list outgoing notifications; add <url> --events failed,waiting [--graph g] (prints the signing secret once); rm <id>; test <id>; --deliveries <id>: its newest deliveries",
  async run({ client, io, args, options }) {
    if (options.deliveries !== undefined) return deliveries(client, io, options, options.deliveries);
    const { action, target } = args;
    if (action === undefined) return list(client, io, options);
    if (!ACTIONS.includes(action)) throw usage(`notifications takes add, rm or test, not "${action}"`);
    if (target === undefined) throw usage(action === "add" ? "notifications add needs <url>" : `notifications ${action} needs <id>`);
    if (action === "add") return add(client, io, options, target);
    if (action === "rm") {
      const removed = await client.request({ method: "DELETE", pathname: `/api/notifications/${enc(target)}` });
      return print(io, options, removed, () => `notification ${target} deleted`);
    }
    const tried = await client.post(`/api/notifications/${enc(target)}/test`);
    print(io, options, tried, () => deliveryLine(tried));
  },
};

async function list(client, io, options) {
  const all = await client.get("/api/notifications");
  print(io, options, all, () =>
    renderTable(all, [
      { title: "ID", key: "id" },
      { title: "EVENTS", value: (n) => n.events.join(",") },
      { title: "GRAPH", value: (n) => n.graph ?? "(every graph)" },
      { title: "STATE", value: (n) => (n.enabled ? "enabled" : "disabled") },
      { title: "URL", key: "url", whole: true },
    ]),
  );
}

async function add(client, io, options, url) {
  if (options.events === undefined) throw usage("notifications add needs --events (some of completed,failed,stopped,waiting)");
  const body = { url, events: options.events.split(",").map((e) => e.trim()).filter((e) => e !== "") };
  if (options.graph !== undefined) body.graph = options.graph;
  const made = await client.post("/api/notifications", body);
  print(io, options, made, () =>
    [
      `notification ${made.id}: POST ${made.url} when a run is ${made.events.join(", ")}${made.graph ? ` (graph ${made.graph})` : ""}`,
      "each body is signed: X-Modex-Signature: sha256=<hex HMAC-SHA256(secret, body)>",
      `secret (shown once): ${made.secret}`,
    ].join("\n"),
  );
}

async function deliveries(client, io, options, id) {
  const rows = await client.get(`/api/notifications/${enc(id)}/deliveries`);
  print(io, options, rows, () =>
    rows.length === 0
      ? `no deliveries of ${id} yet`
      : renderTable(rows, [
          { title: "DELIVERY", key: "id" },
          { title: "AT", value: (d) => formatTime(d.createdAt) },
          { title: "EVENT", key: "event" },
          { title: "INSTANCE", value: (d) => (d.event === "test" ? "(test)" : d.instanceId) },
          { title: "STATE", key: "state" },
          { title: "ATTEMPTS", value: (d) => String(d.attempts) },
          { title: "LAST", value: (d) => [d.lastStatus ?? "", d.state === "delivered" ? "" : (d.lastError ?? "")].filter((x) => x !== "").join(" "), whole: true },
        ]),
  );
}

function deliveryLine(d) {
  const how = d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? "not tried yet");
  return `test delivery ${d.id}: ${d.state} (${how}${d.state !== "delivered" && d.lastError && d.lastStatus !== null ? `: ${d.lastError}` : ""})`;
}

function print(io, options, data, render) {
  io.out(options.json ? JSON.stringify(data, null, 2) : render());
}

function usage(message) {
  return new CliError(message, { code: "USAGE" });
}
