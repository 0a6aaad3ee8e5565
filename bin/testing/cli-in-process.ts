import { Readable } from "node:stream";
import { TEST_TOKEN } from "@/server/services/testing/test-services";
import { main } from "../modexctl.mjs";

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** One modexctl invocation in this process against `url`; `out`/`err` fill while it runs (for watching commands). */
export function invoke(url: string, argv: readonly string[], env: Record<string, string> = { MODEX_TOKEN: TEST_TOKEN }, stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (x: string) => out.push(x), err: (x: string) => err.push(x), stdin: stdin === undefined ? undefined : Readable.from([stdin]) };
  const done: Promise<CliResult> = main([...argv, "--url", url], io, env).then((code) => ({ code, out: out.join("\n"), err: err.join("\n") }));
  return { out, err, done };
}

/** modexctl `argv` against `url` with the test token, to its end. */
export function cli(url: string, ...argv: string[]): Promise<CliResult> {
  return invoke(url, argv).done;
}

/** A GET of `url + pathname` with the test token: its status and JSON body. */
export async function getJson(url: string, pathname: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${pathname}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
