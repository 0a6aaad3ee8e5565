import { CLI_CODES, CliError, EXIT } from "./errors.mjs";
import { formatTime, renderTable } from "./table.mjs";

// `delete` and `archive` on several instances: POST /api/graphs/instances/bulk, with ids or with the
// Instances list's filter. The server acts on each as its single route does and says what it left.

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
/** Rows the preview of a filtered delete lists: one REST page (its count is the server's total). */
const PREVIEW = 500;

/** The ids argument (free text: every word an id). */
export function idsOf(text) {
  return (text ?? "").split(/\s+/).filter((w) => w !== "");
}

/** --status, --graph and --older-than as the list's filter; null when none is given. */
export function filterOf(options) {
  if (options.status === undefined && options.graph === undefined && options["older-than"] === undefined) return null;
  const filter = { status: options.status, graph: options.graph };
  if (options["older-than"] !== undefined) {
    const m = /^(\d+)([mhdw])$/.exec(options["older-than"]);
    if (!m) throw usage(`--older-than takes an age such as 30m, 12h, 7d or 2w, not "${options["older-than"]}"`);
    filter.to = Date.now() - Number(m[1]) * UNITS[m[2]];
  }
  return filter;
}

/** One bulk request; a line for what was done and one for each instance left. Exit 1 if any was left. */
export async function bulk({ client, io, options }, action, target) {
  const body = Array.isArray(target) ? { action, ids: target } : { action, filter: target };
  const res = await client.post("/api/graphs/instances/bulk", body);
  const verb = { delete: "deleted", archive: "archived", unarchive: "no longer archived" }[action];
  print(io, options, res, () =>
    [`${res.done} of ${res.matched} ${res.matched === 1 ? "instance" : "instances"} ${verb}`, ...res.skipped.map((s) => `  left ${s.instanceId}: ${s.message}`)].join("\n"),
  );
  return res.skipped.length > 0 ? EXIT.ERROR : undefined;
}

/** A filtered delete: with --yes it deletes; without, it lists what it would delete and exits 1. */
export async function deleteMatching(ctx, ids, filter) {
  const { client, io, options } = ctx;
  if (ids.length > 0) throw usage("delete takes ids or a filter (--status, --graph, --older-than), not both");
  if (options.spec) throw usage("--spec deletes one spec by name; it takes no filter");
  if (options.yes) return bulk(ctx, "delete", filter);
  const { items: rows, total } = await client.page("/api/graphs/instances", { ...filter, limit: PREVIEW });
  const count = total ?? rows.length;
  const listed = rows.length < count ? `the first ${rows.length} of them are listed; ` : "";
  print(io, options, rows, () =>
    [
      renderTable(rows, [
        { title: "INSTANCE", key: "instanceId" },
        { title: "GRAPH", key: "graphName" },
        { title: "STATUS", key: "status" },
        { title: "STARTED", value: (i) => formatTime(i.createdAt) },
      ]),
      `would delete ${count} ${count === 1 ? "instance" : "instances"} (running ones are left); ${listed}nothing done: add --yes to delete them (cannot be undone)`,
    ].join("\n"),
  );
  return EXIT.ERROR;
}

const usage = (message) => new CliError(message, { code: CLI_CODES.USAGE });

function print(io, options, data, render) {
  io.out(options.json ? JSON.stringify(data, null, 2) : render());
}
