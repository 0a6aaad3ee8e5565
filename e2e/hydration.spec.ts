import { expect, test } from "@playwright/test";
import { auth, signIn } from "./support/session";

// The server formats nothing in the viewer's zone: a browser far from it (and a run whose duration is
// still counting) must hydrate every page without a mismatch (React #418 re-renders the whole page).
test.use({ timezoneId: "Pacific/Auckland", locale: "de-DE" });

test("pages hydrate without a mismatch in another time zone and language, running runs included", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  await signIn(page);
  const created = async (spec: string) => {
    const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec, input: "hydrate" } });
    expect(res.status()).toBe(201);
    return ((await res.json()) as { instanceId: string }).instanceId;
  };
  const done = await created("counter-loop");
  const running = await created("paced-pipeline");

  for (const path of ["/", "/graphs", "/instances", `/instances/${done}`, `/instances/${running}`, "/chat", "/triggers", "/agents", "/traces"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
  }
  // Times are the viewer's: the timeline of the finished run shows its clock times once hydrated.
  await page.goto(`/instances/${done}`);
  await expect(page.getByTestId("instance-summary").locator("time").first()).toHaveText(/\d{2}:\d{2}:\d{2}/);
  expect(pageErrors).toEqual([]);
});
