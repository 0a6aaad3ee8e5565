import { Cron } from "croner";
import { ServiceError } from "@/server/services/errors";

/**
 * Cron expressions through croner (5 fields, or 6 with seconds first; names like MON and JAN; `L`, `#`,
 * `?`), evaluated in an IANA time zone, daylight-saving changes included. Only the parser is used: the
 * scheduler keeps its own timers (one for all schedules, see timer-queue.ts), so croner starts none.
 */
export interface CronRule {
  cron: string;
  timezone: string;
}

function parse(rule: CronRule): Cron {
  try {
    // `paused` so croner never arms a timer of its own; legacyMode: dom and dow are OR'ed as in Vixie cron.
    return new Cron(rule.cron, { timezone: rule.timezone, paused: true, legacyMode: true });
  } catch (error) {
    throw new ServiceError("BAD_REQUEST", `cron "${rule.cron}" (${rule.timezone}): ${(error as Error).message}`);
  }
}

/**
 * Throws BAD_REQUEST naming what is wrong with the expression or the time zone, or saying that it
 * never fires (a date no month has, such as `0 0 30 2 *`): such a schedule would be stored and shown
 * with no fire to come, and start nothing.
 */
export function checkCron(rule: CronRule): void {
  if (parse(rule).nextRun() === null) {
    throw new ServiceError("BAD_REQUEST", `cron "${rule.cron}" (${rule.timezone}) never fires: no date matches it`);
  }
}

/** The next `count` fire times strictly after `after` (ms). */
export function nextFires(rule: CronRule, after: number, count: number): number[] {
  return parse(rule)
    .nextRuns(count, new Date(after))
    .map((d) => d.getTime());
}

/** The next fire strictly after `after`, or null when the expression never fires again. */
export function nextFire(rule: CronRule, after: number): number | null {
  return parse(rule).nextRun(new Date(after))?.getTime() ?? null;
}

/** The latest fire time in [from, now] (from itself when none follows it), stepping through at most `limit` fires. */
export function latestFireBetween(rule: CronRule, from: number, now: number, limit = 100_000): number {
  const cron = parse(rule);
  let latest = from;
  for (let i = 0; i < limit; i++) {
    const next = cron.nextRun(new Date(latest))?.getTime();
    if (next === undefined || next > now) break;
    latest = next;
  }
  return latest;
}
