import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

// From the repository root (tests and benches run there; a bundled bench has another dirname).
const CHILD = path.resolve("server/cluster/testing/cluster-worker-child.ts");

/** The worker child bundled once with esbuild (starts in ~0.3 s; tsx takes ~1 s), into `outDir`. */
export async function bundleWorkerChild(outDir: string): Promise<string[]> {
  const { build } = await import("esbuild");
  const outfile = path.join(outDir, "cluster-worker-child.mjs");
  await build({
    entryPoints: [CHILD],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    tsconfig: path.resolve("tsconfig.json"),
    logLevel: "error",
  });
  return [outfile];
}

/** A running worker child: its id once ready, its completed-node count, its exit. */
export interface WorkerChild {
  process: ChildProcess;
  ready: Promise<string>;
  nodes(): number;
  /** What it wrote to stderr so far. */
  stderr(): string;
  exited: Promise<void>;
}

/** `quiet`: the child does not print a "." per completed node (benches). */
export function spawnWorkerChild(
  command: string[],
  args: { url: string; leaseMs: number; sweepMs: number; concurrency: number; connections?: number; quiet?: boolean },
): WorkerChild {
  const child = spawn(process.execPath, [...command, args.url, String(args.leaseMs), String(args.sweepMs), String(args.concurrency), ...(args.connections ? [String(args.connections)] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
    env: args.quiet ? { ...process.env, MODEX_CHILD_QUIET: "1" } : process.env,
  });
  let out = "";
  let err = "";
  let dots = 0;
  let onReady: (id: string) => void = () => undefined;
  let onFail: (e: Error) => void = () => undefined;
  const ready = new Promise<string>((resolve, reject) => ((onReady = resolve), (onFail = reject)));
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 46) dots++;
    if (!out.includes("\n")) {
      out += text;
      const m = /ready (\S+)\n/.exec(out);
      if (m) onReady(m[1]);
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      onFail(new Error(`worker exited before ready (${code ?? signal}): ${err}`));
      resolve();
    }),
  );
  return { process: child, ready, nodes: () => dots, stderr: () => err, exited };
}
