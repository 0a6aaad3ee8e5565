/**
 * modexctl's command line: `modexctl [global options] <command> [args] [options]`, parsed against a
 * command table (commands.mjs). Options may appear anywhere; `--name value` and `--name=value` both
 * work; `--` ends option parsing.
 */

export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
}

/** Options every command takes, and their kinds (see COMMANDS in commands.mjs). */
export const GLOBAL_OPTIONS = { url: "value", token: "value", json: "flag", help: "flag", "data-dir": "value" };

/** Every option name → its kind, over the global options and every command's own. */
export function optionKinds(commands) {
  const kinds = new Map(Object.entries(GLOBAL_OPTIONS));
  for (const [command, spec] of Object.entries(commands)) {
    for (const [name, kind] of Object.entries(spec.options)) {
      if (kinds.has(name) && kinds.get(name) !== kind) throw new Error(`--${name} is a ${kinds.get(name)} option elsewhere but a ${kind} option of ${command}`);
      kinds.set(name, kind);
    }
  }
  return kinds;
}

/** Whether argv asks for --json (before `--`): usage errors are then JSON too. */
export function wantsJson(argv) {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** Parses argv (without node and the script). Throws UsageError with a message fit for the user. */
export function parseArgs(argv, commands) {
  const kinds = optionKinds(commands);
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
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const kind = kinds.get(name);
    if (kind === undefined) throw new UsageError(`unknown option --${name}`);
    if (kind === "flag") {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      options[name] = true;
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (kind === "count" && !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
    options[name] = value;
  }
  const [command, ...args] = positional;
  // `modexctl help [<command>]`, as git and npm take it.
  if (command === "help") return { command: args[0] ?? null, args: [], options: { ...options, help: true }, help: true };
  if (!command || options.help) return { command: command ?? null, args, options, help: true };
  const spec = commands[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  for (const name of Object.keys(options)) {
    if (!(name in GLOBAL_OPTIONS) && !(name in spec.options)) throw new UsageError(`${command} does not take --${name}`);
  }
  // `minArgs`: the entry's later arguments are optional (`chat`, whose action and chat may be left out).
  if (args.length < (spec.minArgs ?? spec.args.length)) {
    throw new UsageError(`${command} needs ${spec.args.map((a) => `<${a}>`).join(" ")}`);
  }
  if (spec.variadic) {
    const last = spec.args.length - 1;
    args.splice(last, args.length - last, args.slice(last));
  } else if (args.length > spec.args.length) {
    // A command whose last argument is free text (deliver's content, answer's value) takes the rest
    // of the words, so an unquoted `answer 7 ship it` works.
    const last = spec.args.length - 1;
    if (last >= 0 && spec.lastArgTakesRest) args.splice(last, args.length - last, args.slice(last).join(" "));
    else throw new UsageError(`${command} takes ${spec.args.length} argument(s), got ${args.length}`);
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

/** What a value option takes, where its name would say it badly (`--show <show>`); else its name. */
const PLACEHOLDERS = {
  show: "name",
  history: "name",
  enable: "name",
  disable: "name",
  mask: "text|-",
  agent: "name",
  graph: "name",
  session: "chat",
  revision: "id",
  input: "value",
  state: "json",
  break: "nodes",
  busy: "queue|interrupt|steer",
  source: "chat|node",
  auth: "hmac|bearer",
  reason: "text",
  cron: "expression",
  tz: "zone",
  overlap: "skip|allow|cancel_previous",
  missed: "skip|run_once",
  "older-than": "age",
  events: "list",
  deliveries: "id",
};

/** One command's two lines of --help: its arguments and options, then what it does. */
function commandLines(name, c, width) {
  const options = Object.entries(c.options).map(([o, kind]) => `[--${o}${kind === "flag" ? "" : ` <${kind === "count" ? "n" : (PLACEHOLDERS[o] ?? o)}>`}]`);
  // Arguments past `minArgs` may be left out: shown in brackets.
  const args = c.args.map((a, i) => (i < (c.minArgs ?? c.args.length) ? `<${a}>` : `[<${a}>]`) + (c.variadic && i === c.args.length - 1 ? "…" : ""));
  return `${`  ${name.padEnd(width)}${[...args, ...options].join(" ")}`.trimEnd()}\n  ${" ".repeat(width)}${c.summary}`;
}

/**
 * `modexctl <command> --help` (or `modexctl help <command>`): that command alone, not the whole
 * hundred-line list the reader would have to search; null for a name that is no command.
 */
export function commandUsage(commands, name) {
  const c = commands[name];
  if (!c) return null;
  return [`Usage: modexctl [--url URL] [--token TOKEN] [--json] ${name} [arguments]`, "", commandLines(name, c, name.length + 2), "", "Every command, the options and the exit codes: modexctl --help"].join("\n");
}

export function usage(commands) {
  const width = Math.max(...Object.keys(commands).map((c) => c.length)) + 2;
  const lines = Object.entries(commands).map(([name, c]) => commandLines(name, c, width));
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
    "  --json           stdout is JSON only: the answer, or {\"error\":{\"code\",\"message\",\"status\"?}} on failure",
    "  --timeout N      run --wait: give up waiting after N seconds (default 60)",
    "  --reconnect-timeout N  events --follow, run --wait: wait up to N seconds for a restarting server (default 60)",
    "",
    "Values (--input, deliver content, answer value) are parsed as JSON when they are JSON, else sent as text.",
    "run, reinvoke, deliver, answer, approve, deny and apply send an Idempotency-Key and retry with it after a dropped connection or 502/503/504.",
    "apply and validate print each problem of a spec file as file:line:column: message (stderr); `-` reads a spec from stdin.",
    "Notes (retrying, reconnecting) go to stderr.",
    "",
    "Exit codes:",
    "  0  ok",
    "  1  usage error, unreachable or non-Modex server, refused command (409), server error, gave up reconnecting, a spec file that does not compile",
    "  2  not found (instance or spec)",
    "  3  not authorized",
    "  4  run --wait: the run waits for a human (modexctl answer, or approve/deny for an agent's tool call)",
    "  5  run --wait: the run did not complete (failed, stopped, crashed, or paused by someone)",
    "  6  run --wait: still running after --timeout",
  ].join("\n");
}
