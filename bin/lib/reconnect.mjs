import { setTimeout as sleep } from "node:timers/promises";
import { CLI_CODES, CliError } from "./errors.mjs";

/** Default of --reconnect-timeout: how long a watching command waits for a server that went away. */
export const DEFAULT_RECONNECT_TIMEOUT_S = 60;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 2000;

/**
 * Runs the reads of a watching command (events --follow, run --wait) through a server restart: a
 * transient failure (connection refused or dropped, 502/503/504) is retried with backoff, with one
 * note on stderr when the server goes away and one when it is back; after `giveUpMs` without an
 * answer it throws RECONNECT_GAVE_UP (exit 1). Any other error passes through at once.
 * Only reads go through here: repeating them is always safe.
 */
export class Reconnector {
  /** @param {{ url: string, giveUpMs: number, notify: (text: string) => void, now?: () => number }} options */
  constructor({ url, giveUpMs, notify, now = Date.now }) {
    this.url = url;
    this.giveUpMs = giveUpMs;
    this.notify = notify;
    this.now = now;
    /** When the current outage began, or null while connected. */
    this.lostAt = null;
  }

  /**
   * @template T
   * @param {() => Promise<T>} read
   * @param {() => string} [resumeNote] what the command resumes from, for the "reconnected" note
   * @returns {Promise<T>}
   */
  async call(read, resumeNote) {
    let delay = FIRST_DELAY_MS;
    for (;;) {
      try {
        const result = await read();
        if (this.lostAt !== null) {
          this.notify(`reconnected to ${this.url} after ${seconds(this.now() - this.lostAt)}${resumeNote ? `; ${resumeNote()}` : ""}`);
          this.lostAt = null;
        }
        return result;
      } catch (error) {
        if (!error?.transient) throw error;
        const justLost = this.lostAt === null;
        this.lostAt ??= this.now();
        const waited = this.now() - this.lostAt;
        if (justLost) this.notify(`lost the server at ${this.url} (${error.reason ?? error.message}); reconnecting for up to ${seconds(this.giveUpMs)} (--reconnect-timeout)…`);
        if (waited >= this.giveUpMs) {
          throw new CliError(`gave up reconnecting to ${this.url} after ${seconds(waited)} (--reconnect-timeout): ${error.message}`, {
            code: CLI_CODES.RECONNECT_GAVE_UP,
            status: error.status,
          });
        }
        await sleep(Math.min(delay, this.giveUpMs - waited));
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    }
  }
}

function seconds(ms) {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
