import { describe, expect, it } from "vitest";
import { ExtensionContext } from "./extension-context";

describe("ExtensionContext: the data bag of one invocation", () => {
  it("defaults sessionId to the empty string and copies the initial data", () => {
    const data = { prompt: "p" };
    const ctx = new ExtensionContext({ data });
    expect(ctx.sessionId).toBe("");
    expect(ctx.message).toBeUndefined();
    expect(ctx.agentId).toBeUndefined();
    ctx.set("prompt", "q");
    expect(data.prompt).toBe("p");
  });

  it("keeps session id, turn id, message and agent id", () => {
    const ctx = new ExtensionContext({ sessionId: "sess-abc", turnId: "t1", message: "hello", agentId: "writer" });
    expect(ctx).toMatchObject({ sessionId: "sess-abc", turnId: "t1", message: "hello", agentId: "writer" });
  });

  it("get reads a value, or the fallback when the key is absent", () => {
    const ctx = new ExtensionContext<{ prompt: string }>({ data: { prompt: "base" } });
    expect(ctx.get("prompt")).toBe("base");
    expect(ctx.get("missing")).toBeUndefined();
    expect(ctx.get("missing", "dflt")).toBe("dflt");
  });

  it("a present key wins over the fallback, even when its value is empty", () => {
    const ctx = new ExtensionContext({ data: { prompt: "" } });
    expect(ctx.get("prompt", "dflt")).toBe("");
  });

  it("set writes, merge writes many, has checks presence", () => {
    const ctx = new ExtensionContext();
    expect(ctx.has("tool_name")).toBe(false);
    ctx.set("tool_name", "add");
    ctx.merge({ key1: "v1", key2: "v2" });
    expect(ctx.has("tool_name")).toBe(true);
    expect(ctx.data).toEqual({ tool_name: "add", key1: "v1", key2: "v2" });
  });

  it("remove deletes the key and returns what it held (pop)", () => {
    const ctx = new ExtensionContext({ data: { key: 1 } });
    expect(ctx.remove("key")).toBe(1);
    expect(ctx.has("key")).toBe(false);
    expect(ctx.remove("key")).toBeUndefined();
  });
});
