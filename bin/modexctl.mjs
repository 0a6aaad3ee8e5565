#!/usr/bin/env node
// modexctl: the command-line client of a Modex server. A thin HTTP client of the REST API under
// /api/graphs (the same GraphControlService path as the web UI). Plain Node ESM: no build step.
import { commandUsage, parseArgs, usage, UsageError, wantsJson } from "./lib/args.mjs";
import { ModexClient, resolveToken, resolveUrl } from "./lib/client.mjs";
import { COMMANDS } from "./lib/commands.mjs";
import { CLI_CODES, CliError, EXIT, toCliError } from "./lib/errors.mjs";
import { DEFAULT_RECONNECT_TIMEOUT_S, Reconnector } from "./lib/reconnect.mjs";

/**
 * Runs one command and resolves to its exit code. Output contract: stdout holds the answer (with
 * --json, only JSON: the answer, or `{"error":{...}}` when the command fails); stderr holds notes
 * for people (retrying, reconnecting, why run --wait exits non-zero) and, without --json, the error.
 */
export async function main(argv, io = { out: (t) => console.log(t), err: (t) => console.error(t) }, env = process.env) {
  const json = wantsJson(argv);
  const fail = (error) => {
    if (json) io.out(JSON.stringify(error.toJSON()));
    else io.err(`modexctl: ${error.message}${error.code === CLI_CODES.USAGE ? " (see modexctl --help)" : ""}`);
    return error.exitCode;
  };
  let parsed;
  try {
    parsed = parseArgs(argv, COMMANDS);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return fail(new CliError(error.message, { code: CLI_CODES.USAGE }));
  }
  if (parsed.help) {
    // bare `modexctl` is a usage error
    if (!parsed.options.help && json) return fail(new CliError("no command given", { code: CLI_CODES.USAGE }));
    const one = parsed.command === null ? null : commandUsage(COMMANDS, parsed.command);
    if (parsed.command !== null && one === null) return fail(new CliError(`unknown command "${parsed.command}"`, { code: CLI_CODES.USAGE }));
    io.out(one ?? usage(COMMANDS));
    return parsed.options.help ? EXIT.OK : EXIT.ERROR;
  }
  const { options } = parsed;
  const notify = (text) => io.err(`modexctl: ${text}`);
  const url = resolveUrl({ url: options.url, env });
  const client = new ModexClient({ url, token: resolveToken({ token: options.token, dataDir: options["data-dir"], env }), notify });
  const giveUpMs = Number(options["reconnect-timeout"] ?? DEFAULT_RECONNECT_TIMEOUT_S) * 1000;
  const reconnector = new Reconnector({ url, giveUpMs, notify });
  try {
    return (await COMMANDS[parsed.command].run({ client, io, args: parsed.args, options, reconnector })) ?? EXIT.OK;
  } catch (error) {
    return fail(toCliError(error));
  }
}

const invokedDirectly = process.argv[1] && import.meta.url === new URL(`file://${(await import("node:fs")).realpathSync(process.argv[1])}`).href;
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2));
}
