import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { CLI_CODES, CliError, EXIT } from "./errors.mjs";
import { CONTENT, revisionDetail, SAVED } from "./revision-commands.mjs";

/**
 * Specs as code: `apply` and `validate` take spec files (a git checkout, CI), `specs --show|--history`
 * read what the server keeps. Every file is checked by the server (POST /api/graphs/specs/validate, the
 * editor's own check) before any is saved, so a bad file in a batch saves nothing: a CI job either
 * applies the whole change or none of it.
 */

const STDIN = "-";

/** `modexctl apply <file…> [--dry-run]`: saves each file as its spec's newest revision, unless unchanged. */
export async function applyCommand(ctx) {
  const { client, io, options } = ctx;
  const checked = await checkFiles(ctx, { saving: !ctx.options["dry-run"] });
  if (!checked) return EXIT.ERROR;
  const failed = checked.filter((c) => !c.ok);
  if (options["dry-run"] || failed.length > 0) {
    report(ctx, checked, (c) => `${c.file}: compiles${options["dry-run"] ? " (dry run: not saved)" : ""}`);
    if (failed.length > 0 && !options.json) io.err(`modexctl: nothing saved: ${count(failed.length, "file")} ${failed.length === 1 ? "does" : "do"} not compile`);
    return failed.length > 0 ? EXIT.ERROR : EXIT.OK;
  }
  const results = [];
  for (const [i, c] of checked.entries()) {
    // One key per file: a retry after a dropped connection gets that file's first answer.
    const saved = await client.post("/api/graphs/specs", { yaml: c.yaml }, { idempotent: true, key: `${client.idempotencyKey}-${i}` });
    results.push({ file: c.file, ok: true, issues: [], saved });
    if (!options.json) io.out(saved.created ? `saved ${saved.name} as a new revision ${saved.specId}` : `${saved.name} unchanged`);
  }
  if (options.json) io.out(JSON.stringify(results, null, 2));
  return EXIT.OK;
}

/** `modexctl validate <file…>`: exit 0 when every file compiles, 1 with each problem located otherwise. */
export async function validateCommand(ctx) {
  const checked = await checkFiles(ctx, { saving: false });
  if (!checked) return EXIT.ERROR;
  report(ctx, checked, (c) => `${c.file}: ok`);
  return checked.every((c) => c.ok) ? EXIT.OK : EXIT.ERROR;
}

/** `specs --show <name> [--revision <id>]`: the YAML; `--history <name>`: its revisions, newest first. */
export function specDetailCommand(ctx) {
  return revisionDetail(ctx, {
    base: "/api/graphs/specs",
    idKey: "specId",
    columns: [{ title: "VERSION", key: "version" }, SAVED, { title: "NODES", value: (r) => (r.nodeCount === null ? "-" : String(r.nodeCount)) }, CONTENT],
  });
}

/**
 * Reads every file, then has the server check each: `{ file, yaml, ok, issues }`, in order. A file that
 * cannot be read stops everything before the server is asked (null, after saying why).
 */
async function checkFiles({ client, io, args, options }, { saving }) {
  const files = args.files;
  const texts = [];
  for (const file of files) {
    try {
      texts.push({ file: file === STDIN ? "<stdin>" : file, yaml: file === STDIN ? await text(io.stdin ?? process.stdin) : await readFile(file, "utf8") });
    } catch (error) {
      const reason = error.code === "ENOENT" ? "no such file" : error.code === "EISDIR" ? "is a directory" : error.message;
      const failure = new CliError(`cannot read ${file}: ${reason}${saving ? "; nothing was saved" : ""}`, { code: CLI_CODES.UNREADABLE_FILE });
      if (options.json) io.out(JSON.stringify(failure.toJSON()));
      else io.err(`modexctl: ${failure.message}`);
      return null;
    }
  }
  const checked = [];
  for (const t of texts) {
    const { ok, issues } = await client.post("/api/graphs/specs/validate", { yaml: t.yaml });
    checked.push({ ...t, ok, issues });
  }
  return checked;
}

/** Per file: `okLine` on stdout when it compiles, else one `file:line:column: path: message` line per issue on stderr. */
function report({ io, options }, checked, okLine) {
  if (options.json) {
    io.out(JSON.stringify(checked.map(({ file, ok, issues }) => ({ file, ok, issues })), null, 2));
    return;
  }
  for (const c of checked) {
    if (c.ok) io.out(okLine(c));
    else for (const issue of c.issues) io.err(locatedIssue(c.file, issue));
  }
}

/** As compilers print them, so editors and CI annotators can jump to the spot. */
export function locatedIssue(file, issue) {
  const where = issue.line === undefined ? file : `${file}:${issue.line}:${issue.column ?? 1}`;
  return `${where}: ${issue.pathText ? `${issue.pathText}: ` : ""}${issue.message}`;
}

const count = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;
