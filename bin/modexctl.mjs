#!/usr/bin/env node
// modexctl: the command-line client of a Modex server. A thin HTTP client of the REST API under
// /api/graphs (the same GraphControlService path as the web UI). Plain Node ESM: no build step.
import { parseArgs, usage, UsageError } from "./lib/args.mjs";
import { CliError, ModexClient, resolveToken, resolveUrl } from "./lib/client.mjs";
import { handlers } from "./lib/commands.mjs";

export async function main(argv, io = { out: (t) => console.log(t), err: (t) => console.error(t) }, env = process.env) {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`modexctl: ${error.message} (see modexctl --help)`);
    return 1;
  }
  if (parsed.help) {
    io.out(usage());
    return parsed.options.help ? 0 : 1; // bare `modexctl` is a usage error
  }
  const { options } = parsed;
  const client = new ModexClient({
    url: resolveUrl({ url: options.url, env }),
    token: resolveToken({ token: options.token, dataDir: options["data-dir"], env }),
  });
  try {
    await handlers[parsed.command]({ client, io, args: parsed.args, options });
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`modexctl: ${error.message}`);
      return error.exitCode;
    }
    io.err(`modexctl: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] && import.meta.url === new URL(`file://${(await import("node:fs")).realpathSync(process.argv[1])}`).href;
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2));
}
