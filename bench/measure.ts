/**
 * Warm-up runs for a scenario whose one run executes each of its nodes once (the interrupt + resume
 * cycles): the chain and fan-out scenarios' default warm-up already runs every node 1,000+ times, and
 * with only 10, a durable cycle's first 100 measured runs were mostly 15–45% slower than its last 100 in
 * the same process: still being optimised.
 */
export const CYCLE_WARM_UP = 100;

/** Runs `fn` `runs` times after `warmUp` runs and returns each run's duration in milliseconds. */
export async function time(runs: number, fn: () => Promise<unknown>, warmUp = Math.min(10, runs)): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One `name value unit` line per figure: the format the README's Performance section quotes. */
export function report(name: string, value: number, unit: string): void {
  console.log(`${name} ${value < 10 ? value.toFixed(2) : value.toFixed(1)} ${unit}`);
}
