/**
 * modexctl's command line: `modexctl [global options] <command> [args] [options]`. Options may appear
 * anywhere; `--name value` and `--name=value` both work; `--` ends option parsing.
 */

export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
}

/** Options that take a value; every other `--x` is a boolean flag. */
const VALUE_OPTIONS = new Set(["url", "token", "input", "status", "limit", "after", "version", "data-dir", "interval", "timeout"]);
const FLAG_OPTIONS = new Set(["json", "follow", "wait", "help"]);

/** The commands, their positional arguments and the options each accepts (besides the global ones). */
export const COMMANDS = {
  specs: { args: [], options: [], summary: "list graph specs (latest revision of each)" },
  run: { args: ["spec"], options: ["input", "wait", "timeout"], summary: "create and start an instance of a spec (name or id)" },
  ls: { args: [], options: ["status", "limit"], summary: "list instances, newest first" },
  status: { args: ["id"], options: ["version"], summary: "show an instance: status, versions, nodes, what it waits for, result" },
  pause: { args: ["id"], options: [], summary: "pause a running instance (PAUSE_GRAPH)" },
  stop: { args: ["id"], options: [], summary: "stop an instance for good (STOP_GRAPH)" },
  resume: { args: ["id"], options: [], summary: "resume a paused instance (RESUME_GRAPH)" },
  deliver: { args: ["id", "node", "content"], options: [], summary: "deliver content to a node (DELIVER_TO_NODE)" },
  answer: { args: ["id", "value"], options: [], summary: "answer the human input an instance waits for" },
  events: { args: ["id"], options: ["follow", "after", "interval"], summary: "print an instance's events (--follow: until it ends)" },
};

const GLOBAL_OPTIONS = ["url", "token", "json", "help", "data-dir"];

/** Parses argv (without node and the script). Throws UsageError with a message fit for the user. */
export function parseArgs(argv) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      options.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (VALUE_OPTIONS.has(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options[name] = value;
    } else if (FLAG_OPTIONS.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      options[name] = true;
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  const [command, ...args] = positional;
  if (!command || options.help) return { command: command ?? null, args, options, help: true };
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  for (const name of Object.keys(options)) {
    if (!GLOBAL_OPTIONS.includes(name) && !spec.options.includes(name)) throw new UsageError(`${command} does not take --${name}`);
  }
  if (args.length < spec.args.length) {
    throw new UsageError(`${command} needs ${spec.args.map((a) => `<${a}>`).join(" ")}`);
  }
  if (args.length > spec.args.length) {
    // The last argument of deliver/answer may contain spaces when not quoted: join the rest.
    const last = spec.args.length - 1;
    if (last >= 0 && (command === "deliver" || command === "answer")) args.splice(last, args.length - last, args.slice(last).join(" "));
    else throw new UsageError(`${command} takes ${spec.args.length} argument(s), got ${args.length}`);
  }
  for (const name of ["limit", "after", "version", "interval", "timeout"]) {
    if (options[name] !== undefined && !/^\d+$/.test(options[name])) throw new UsageError(`--${name} must be a whole number`);
  }
  return { command, args: Object.fromEntries(spec.args.map((a, i) => [a, args[i]])), options, help: false };
}

/** Command-line text → a value: JSON when it parses (numbers, objects, true), else the text itself. */
export function parseValue(text) {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function usage() {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length)) + 2;
  const lines = Object.entries(COMMANDS).map(
    ([name, c]) => `  ${name.padEnd(width)}${[...c.args.map((a) => `<${a}>`), ...c.options.map((o) => `[--${o}${VALUE_OPTIONS.has(o) ? ` <${o}>` : ""}]`)].join(" ")}\n  ${" ".repeat(width)}${c.summary}`,
  );
  return [
    "Usage: modexctl [--url URL] [--token TOKEN] [--json] <command> [arguments]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options:",
    "  --url URL        server (default $MODEX_URL or http://127.0.0.1:3000)",
    "  --token TOKEN    access token (default $MODEX_TOKEN, else <data dir>/access-token)",
    "  --data-dir DIR   where to find the token file (default $MODEX_DATA_DIR or ./data)",
    "  --json           print JSON instead of tables (for scripts)",
    "",
    "Values (--input, deliver content, answer value) are parsed as JSON when they are JSON, else sent as text.",
    "Exit codes: 0 ok, 1 usage or server error, 2 not found, 3 not authorized.",
  ].join("\n");
}
