import { text as readAll } from "node:stream/consumers";
import { renderTable } from "./table.mjs";

/** `modexctl extensions --points`: the 25 points under their groups, each with its mode and who listens there. */
export function renderPointGroups(groups) {
  const rows = groups.flatMap((g) => g.points.map((p, i) => ({ ...p, group: i === 0 ? g.label : "" })));
  return renderTable(rows, [
    { title: "GROUP", key: "group" },
    { title: "POINT", key: "point" },
    { title: "MODE", value: (p) => (p.transformKey ? `${p.mode} ${p.transformKey}` : p.mode) },
    { title: "LISTENERS", value: (p) => String(p.listeners.length) },
    { title: "ENABLED EXTENSIONS", value: (p) => p.listeners.join(", ") },
  ]);
}

/**
 * `modexctl extensions --mask <text>` (`-`: stdin): the text as the server's secret_masking would mask it,
 * on stdout, and how many secrets it hid on stderr (so the masked text can be piped on as it is).
 */
export async function maskPreview({ client, io, options }) {
  const text = options.mask === "-" ? await readAll(io.stdin ?? process.stdin) : options.mask;
  const preview = await client.post("/api/extensions/secret_masking/preview", { text });
  if (options.json) {
    io.out(JSON.stringify(preview, null, 2));
    return;
  }
  io.out(preview.masked);
  io.err(`${preview.masks} ${preview.masks === 1 ? "secret" : "secrets"} masked (by ${preview.patterns} patterns)`);
}
