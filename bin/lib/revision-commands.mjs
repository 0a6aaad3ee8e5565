import { formatTime, renderTable } from "./table.mjs";

/**
 * `--show <name> [--revision <id>]` and `--history <name>` of what the server keeps as revisions (specs,
 * agents): the same two REST calls under `base` — `{base}/{name}?revision=` (with `yaml`) and
 * `{base}/{name}/history` (newest first) — and the same output. `idKey` names a revision's id field;
 * `columns` are the history table's columns after REVISION.
 */
export async function revisionDetail({ client, io, options }, { base, idKey, columns }) {
  if (options.show !== undefined) {
    const revision = await client.get(`${base}/${encodeURIComponent(options.show)}`, { revision: options.revision });
    io.out(options.json ? JSON.stringify(revision, null, 2) : revision.yaml.trimEnd());
    return;
  }
  const revisions = await client.get(`${base}/${encodeURIComponent(options.history)}/history`);
  io.out(
    options.json
      ? JSON.stringify(revisions, null, 2)
      : renderTable(revisions, [{ title: "REVISION", value: (r) => `${r[idKey]}${r[idKey] === revisions[0][idKey] ? " (latest)" : ""}` }, ...columns]),
  );
}

/** The SAVED and CONTENT columns every revision has. */
export const SAVED = { title: "SAVED", value: (r) => formatTime(r.createdAt) };
export const CONTENT = { title: "CONTENT", value: (r) => r.contentHash.replace(/^sha256:/, "").slice(0, 12) };
