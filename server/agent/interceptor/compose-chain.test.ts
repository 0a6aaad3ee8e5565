import { describe, expect, it } from "vitest";
import { composeChain, type ChainHandler } from "./compose-chain";

describe("composeChain", () => {
  it("index 0 is outermost: enters first, exits last", () => {
    const log: string[] = [];
    const layer =
      (name: string): ChainHandler<number, number> =>
      (input, next) => {
        log.push(`enter ${name}`);
        const out = next(input + 1);
        log.push(`exit ${name}`);
        return out;
      };
    const run = composeChain([layer("a"), layer("b")], (n) => {
      log.push(`terminal ${n}`);
      return n * 10;
    });
    expect(run(0)).toBe(20);
    expect(log).toEqual(["enter a", "enter b", "terminal 2", "exit b", "exit a"]);
  });

  it("with no handlers is the terminal itself", () => {
    expect(composeChain<number, number>([], (n) => n + 1)(1)).toBe(2);
  });

  it("a layer may short-circuit without calling next", () => {
    const run = composeChain<number, string>([(_, __) => "cached"], () => "terminal");
    expect(run(0)).toBe("cached");
  });
});
