import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

/**
 * CPU time from /proc (Linux), to say where a throughput figure's time went: the whole machine's busy
 * cores, and the CPU of given processes and of every `postgres` process. Elsewhere every reading is 0.
 */
export interface CpuReading {
  at: number;
  /** Busy jiffies of the whole machine (all cores), and all jiffies. */
  busy: number;
  total: number;
  /** CPU jiffies of each process asked for, and of all postgres processes together. */
  processes: Map<number, number>;
  postgres: number;
}

const HZ = 100; // USER_HZ: /proc's clock ticks are 1/100 s on Linux

function machineJiffies(): { busy: number; total: number } {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** utime + stime of a process, and its name. */
function processJiffies(pid: number): { name: string; jiffies: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const rest = stat.slice(close + 2).split(" ");
    return { name: stat.slice(stat.indexOf("(") + 1, close), jiffies: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return null;
  }
}

function postgresJiffies(): number {
  let sum = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    const p = processJiffies(Number(pid));
    if (p && p.name.startsWith("postgres")) sum += p.jiffies;
  }
  return sum;
}

export function readCpu(pids: readonly number[]): CpuReading {
  const { busy, total } = machineJiffies();
  const processes = new Map(pids.map((pid) => [pid, processJiffies(pid)?.jiffies ?? 0]));
  return { at: performance.now(), busy, total, processes, postgres: postgresJiffies() };
}

/** Between two readings: busy cores of the machine, CPU seconds of the processes together and of postgres. */
export function cpuBetween(a: CpuReading, b: CpuReading): { busyCores: number; cores: number; processSeconds: number; postgresSeconds: number } {
  const cores = cpus().length;
  const busyCores = b.total > a.total ? ((b.busy - a.busy) / (b.total - a.total)) * cores : 0;
  let processJ = 0;
  for (const [pid, j] of b.processes) processJ += j - (a.processes.get(pid) ?? j);
  return { busyCores, cores, processSeconds: processJ / HZ, postgresSeconds: (b.postgres - a.postgres) / HZ };
}
