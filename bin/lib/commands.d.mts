// Types of commands.mjs, for the TypeScript tests.
import type { OptionKind } from "./args.mjs";
export interface CommandSpec {
  args: string[];
  lastArgTakesRest?: boolean;
  options: Record<string, OptionKind>;
  summary: string;
  run: (ctx: unknown) => Promise<number | void>;
}
export type CommandTable = Record<string, CommandSpec>;
export const COMMANDS: CommandTable;
