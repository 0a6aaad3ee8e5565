// Types of modexctl.mjs, for the TypeScript tests.
export function main(
  argv: readonly string[],
  io?: { out: (text: string) => void; err: (text: string) => void },
  env?: Record<string, string | undefined>,
): Promise<number>;
