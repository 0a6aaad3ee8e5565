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
