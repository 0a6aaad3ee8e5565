/**
 * A token bucket per key (a hook's name): `perMinute` calls a minute, refilled continuously, bursts up
 * to `perMinute`. In memory: a restart forgives everyone, as the sign-in limit does.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** 0 when the call may go on (and is counted); otherwise the seconds until one may. */
  take(key: string, perMinute: number): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + ((now - bucket.at) * perMinute) / 60_000);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 60_000) / perMinute / 1000));
  }

  forget(key: string): void {
    this.buckets.delete(key);
  }
}
