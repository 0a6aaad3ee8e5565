import { describe, expect, it } from "vitest";
import { commandUsage, optionKinds, parseArgs, parseValue, usage } from "./args.mjs";
import { COMMANDS } from "./commands.mjs";

describe("modexctl arguments", () => {
  it.each([
    [["specs"], { command: "specs", args: {}, options: {} }],
    [["run", "map-reduce", "--input", '["a","b"]'], { command: "run", args: { spec: "map-reduce" }, options: { input: '["a","b"]' } }],
    [["--json", "ls", "--status=paused", "--limit", "5"], { command: "ls", options: { json: true, status: "paused", limit: "5" } }],
    [["deliver", "42", "mapper_a", "two", "words"], { command: "deliver", args: { id: "42", node: "mapper_a", content: "two words" } }],
    [["events", "42", "--follow", "--url", "http://x:1"], { command: "events", args: { id: "42" }, options: { follow: true, url: "http://x:1" } }],
    [["events", "42", "--follow", "--reconnect-timeout", "5"], { command: "events", options: { follow: true, "reconnect-timeout": "5" } }],
    [["answer", "42", "--", "--yes"], { command: "answer", args: { id: "42", value: "--yes" } }],
    [["recover", "42"], { command: "recover", args: { id: "42" } }],
    [["reinvoke", "42", "--input", "3"], { command: "reinvoke", args: { id: "42" }, options: { input: "3" } }],
  ])("%j", (argv, expected) => {
    expect(parseArgs(argv, COMMANDS)).toMatchObject({ help: false, ...expected });
  });

  it.each([
    [["nope"], /unknown command "nope"/],
    [["status"], /status needs <id>/],
    [["pause", "1", "2"], /pause takes 1 argument/],
    [["ls", "--input", "x"], /ls does not take --input/],
    [["ls", "--limit", "many"], /--limit must be a whole number/],
    [["run", "x", "--input"], /--input needs a value/],
    [["specs", "--colour"], /unknown option --colour/],
    [["events", "1", "--follow=yes"], /--follow takes no value/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseArgs(argv, COMMANDS)).toThrow(message);
  });

  it("asks for help with no command or --help", () => {
    expect(parseArgs([], COMMANDS).help).toBe(true);
    expect(parseArgs(["run", "--help"], COMMANDS).help).toBe(true);
    expect(parseArgs(["help"], COMMANDS)).toMatchObject({ command: null, help: true, options: { help: true } });
    expect(parseArgs(["help", "schedule"], COMMANDS)).toMatchObject({ command: "schedule", help: true });
  });

  it("helps with one command alone: its arguments, options and what it does, and where the rest is", () => {
    const help = commandUsage(COMMANDS, "schedule")!;
    expect(help).toMatch(/^  schedule  <name> <spec> \[--cron <expression>\]/m);
    expect(help).toContain("create or replace a schedule");
    expect(help).not.toMatch(/^  hooks/m);
    expect(help).toContain("modexctl --help");
    expect(commandUsage(COMMANDS, "nope")).toBeNull();
  });

  it("gives each option one kind across the command table, and lists every command and exit code in --help", () => {
    expect(() => optionKinds(COMMANDS)).not.toThrow();
    expect(() => optionKinds({ a: { ...COMMANDS.specs, options: { input: "flag" } }, ...COMMANDS })).toThrow(/--input is a flag option/);
    const help = usage(COMMANDS);
    for (const name of Object.keys(COMMANDS)) expect(help).toMatch(new RegExp(`^  ${name}( |$)`, "m"));
    expect(help).toMatch(/recover\s+<id>\n\s+re-run a crashed instance/);
    expect(help).toMatch(/^  chat\s+\[<action>\] \[<chat>\] \[<text>\] \[--agent/m); // all optional: `modexctl chat` alone is interactive
    // A value option names what it takes where its own name would not say it.
    expect(help).toMatch(/^  specs\s+\[--show <name>\] \[--revision <id>\] \[--history <name>\]$/m);
    expect(help).toMatch(/^  extensions\s+\[--enable <name>\] \[--disable <name>\] \[--reset\] \[--points\] \[--mask <text\|->\]$/m);
    expect(help).toContain("[--status <status>]");
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(help).toMatch(new RegExp(`^  ${code}  \\S`, "m"));
  });

  it("parses values as JSON when they are JSON, else keeps the text", () => {
    expect(parseValue('{"a":1}')).toEqual({ a: 1 });
    expect(parseValue("3")).toBe(3);
    expect(parseValue("yes")).toBe("yes");
  });
});
