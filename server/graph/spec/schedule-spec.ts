import { z } from "zod";

/**
 * The optional top-level `schedules:` block of a spec: cron schedules that start runs of this spec.
 * The engine only checks their shape (and that the time zone exists); the app's trigger service reads
 * the cron expression with its parser when the spec is saved and stores the schedule.
 */

export const SCHEDULE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
export const OVERLAP_POLICIES = ["skip", "allow", "cancel_previous"] as const;
export const MISSED_POLICIES = ["skip", "run_once"] as const;

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const ScheduleSpecSchema = z
  .object({
    name: z.string().regex(SCHEDULE_NAME, "schedule names hold letters, digits, _ . - (at most 100)").describe("Unique among all schedules of the app."),
    cron: z
      .string()
      .regex(/^\S+(\s+\S+){4,5}$/, "a cron expression has 5 fields (minute hour day month weekday) or 6 (seconds first)")
      .describe("Cron expression: `m h dom mon dow`, or with seconds first; e.g. `0 9 * * 1-5`."),
    timezone: z.string().refine(isTimeZone, "unknown time zone (use an IANA name such as Europe/Paris)").default("UTC").describe("IANA time zone of the cron expression (default UTC)."),
    input: z.unknown().optional().describe("The input of each run it starts."),
    overlap: z.enum(OVERLAP_POLICIES).default("skip").describe("When the previous run it started is still going: skip this fire, allow both, or cancel_previous (stop it, then start)."),
    missed: z.enum(MISSED_POLICIES).default("skip").describe("Fires due while no server ran: skip them, or run_once (one run at start-up for all of them)."),
    paused: z.boolean().default(false).describe("Declared paused: stored, shown, does not fire until resumed."),
  })
  .strict()
  .describe("A cron schedule that starts a run of this spec.");

export const SchedulesSchema = z
  .array(ScheduleSpecSchema)
  .optional()
  .describe("Cron schedules that start runs of this spec (optional; see the Triggers section of the README).");

export type ScheduleSpec = z.output<typeof ScheduleSpecSchema>;
