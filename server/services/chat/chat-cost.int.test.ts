import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { testServices } from "../testing/test-services";
import { ModelPrices } from "../usage/model-prices";

const MODEL = { baseURL: "http://127.0.0.1:9/v1", model: "gpt-test" };
const prices = new ModelPrices({ currency: "USD", models: { "gpt-test": { input: 2, output: 10 }, "big-one": { input: 20, output: 100 } } });
const reply = () => new ScriptedProvider(() => ({ text: "ok", usage: { inputTokens: 1000, outputTokens: 100 } }));

describe("a chat turn's cost (model price table), on SQLite", () => {
  it("a finished turn carries what its tokens cost on its agent's model: the app's, or the definition's model", async () => {
    await using t = testServices("sqlite", { chatProvider: reply(), model: MODEL }, { modelPrices: prices });
    const a = await t.services.chat.send({ message: "hi" });
    await t.services.chat.idle(a.sessionId);
    expect((await t.services.chat.events(a.sessionId)).at(-1)).toMatchObject({ type: "turn_completed", tokens: 1100, cost: (1000 * 2 + 100 * 10) / 1e6, currency: "USD" });

    t.services.agents.save("name: pricey\ndescription: Costs more.\ninstructions: Answer.\nmodel: big-one\n");
    const b = await t.services.chat.send({ message: "hi", agent: "pricey" });
    await t.services.chat.idle(b.sessionId);
    expect((await t.services.chat.events(b.sessionId)).at(-1)).toMatchObject({ cost: (1000 * 20 + 100 * 100) / 1e6 });
  });

  it("no cost without a price for the model, or without a table", async () => {
    await using t = testServices("sqlite", { chatProvider: reply(), model: { ...MODEL, model: "llama3" } }, { modelPrices: prices });
    const a = await t.services.chat.send({ message: "hi" });
    await t.services.chat.idle(a.sessionId);
    expect((await t.services.chat.events(a.sessionId)).at(-1)).not.toHaveProperty("cost");
    await using plain = testServices("sqlite", { chatProvider: reply(), model: MODEL });
    const b = await plain.services.chat.send({ message: "hi" });
    await plain.services.chat.idle(b.sessionId);
    expect((await plain.services.chat.events(b.sessionId)).at(-1)).not.toHaveProperty("cost");
  });
});
