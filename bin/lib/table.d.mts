// Types of table.mjs, for the TypeScript tests.
export interface Column<R> {
  title: string;
  key?: keyof R & string;
  value?: (row: R) => unknown;
  whole?: boolean;
}
export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[]): string;
export function cell(value: unknown, max?: number): string;
export function formatTime(ms: unknown): string;
export function formatTimeIn(ms: unknown, timeZone: string): string;
export function formatDuration(startMs: unknown, endMs: unknown): string;
