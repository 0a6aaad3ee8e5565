import type { Page } from "@playwright/test";

/** One request the app sent the stand-in model (e2e/support/fake-llm-server.mjs records them). */
export interface RecordedRequest {
  messages: Array<{ role: string; content: string | null }>;
  tools: string[];
}

const llm = () => `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}`;

/** What the app sent the stand-in model for one test: the requests some message of which holds `tag`. */
export async function requestsOf(page: Page, tag: string): Promise<RecordedRequest[]> {
  const all = (await (await page.request.get(`${llm()}/requests`)).json()) as RecordedRequest[];
  return all.filter((r) => r.messages.some((m) => (m.content ?? "").includes(tag)));
}

/** The request that asks the model to summarize older messages (memory cleanup). */
export const isSummaryRequest = (r: RecordedRequest) => (r.messages[0]?.content ?? "").startsWith("Summarize the conversation below");
