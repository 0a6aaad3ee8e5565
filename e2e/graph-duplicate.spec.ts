import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

test("the editor downloads its text as <name>.yml, and Duplicate… opens a renamed copy that saves as a graph of its own", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/graphs/approval-gate");
  await expect(page.getByTestId("dirty-state")).toHaveText("saved");

  // Download: the editor's text, named for the graph.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download" }).click()]);
  expect(download.suggestedFilename()).toBe("approval-gate.yml");
  const saved = readFileSync((await download.path())!, "utf8");
  expect(saved).toMatch(/^name: approval-gate$/m);
  expect(saved).toContain("node_type: human_input");

  // Duplicate…: a free name is offered; a taken one is refused (archived graphs' names too), with a link to it.
  await page.getByRole("button", { name: "Duplicate…" }).click();
  const dialog = page.getByRole("dialog", { name: "Duplicate approval-gate" });
  const name = dialog.getByRole("textbox");
  await expect(name).toHaveValue(/^approval-gate-copy(-\d+)?$/);
  await name.fill("approval-gate");
  await expect(dialog.getByTestId("name-taken")).toContainText("already exists");
  await expect(dialog.getByRole("button", { name: "Open the copy" })).toBeDisabled();
  const copy = `gate-copy-${Date.now()}`;
  await name.fill(copy);
  await dialog.getByRole("button", { name: "Open the copy" }).click();

  // The copy: unsaved, renamed, everything else as the original (its comments too).
  await expect(page).toHaveURL(new RegExp(`/graphs/new\\?name=${copy}&from=approval-gate$`));
  await expect(page.getByTestId("spec-name")).toHaveText(copy);
  await expect(page.getByTestId("dirty-state")).toHaveText("not saved yet");
  await expect(page.locator(".monaco-editor")).toBeVisible();
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+s");
  await expect(page.getByTestId("save-notice")).toHaveText("Saved as a new version");
  await expect(page).toHaveURL(new RegExp(`/graphs/${copy}$`));

  const res = await page.request.get("/api/graphs/specs");
  const specs = (await res.json()) as { name: string; description: string | null }[];
  const original = specs.find((s) => s.name === "approval-gate")!;
  expect(specs.find((s) => s.name === copy)).toMatchObject({ description: original.description });
  expect(pageErrors).toEqual([]);
});
