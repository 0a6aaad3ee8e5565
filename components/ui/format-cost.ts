/** A cost in the price table's currency (null: not priced); small amounts keep their significant digits. */
export function formatCost(cost: number | null, currency: string | null): string | null {
  if (cost === null || currency === null) return null;
  const digits = cost === 0 ? 2 : cost < 0.01 ? 6 : cost < 1 ? 4 : 2;
  return `${cost.toFixed(digits)} ${currency}`;
}
