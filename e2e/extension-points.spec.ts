import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { auth, signIn } from "./support/session";

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, "../bin/modexctl.mjs");
const KEY = "sk-proj0123456789abcdefXYZ";

test.describe.configure({ mode: "serial" });

test("the Extensions page: an extension's points by group, all 25 by group, and trying secret masking", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/extensions");
  const masking = page.locator('[data-testid="extension-row"][data-name="secret_masking"]');
  // Folded: a count and the groups' names; opened: each group with its points and their modes.
  const disclosure = masking.getByTestId("extension-points");
  await expect(disclosure.locator("summary")).toContainText(/\d+ points in \d+ groups/);
  await disclosure.locator("summary").click();
  const response = masking.locator('[data-testid="extension-point-group"][data-group="response"]');
  await expect(response).toBeVisible();
  await expect(response).toContainText("Response");
  await expect(response).toContainText("BEFORE_RESPONSE_SEND");
  await expect(response.getByTestId("invocation-mode")).toHaveText("TRANSFORM response");
  // Every point under its group, with the enabled extensions listening (secret_masking and the sample at least).
  await expect(page.getByTestId("point-row")).toHaveCount(25);
  await expect(page.getByTestId("point-group")).toHaveCount(10);
  const loopComplete = page.locator('[data-testid="point-row"][data-point="LOOP_COMPLETE"]');
  await expect(loopComplete.getByTestId("point-listeners")).toHaveAttribute("title", /secret_masking/);
  await expect(page.locator('[data-testid="point-row"][data-point="APPROVAL_REQUIRED"]').getByTestId("invocation-mode")).toHaveText("UNTIL_HANDLED");

  // Paste a key, see it masked with the count; the statistics did not count it.
  await page.getByRole("textbox", { name: "Text to mask" }).fill(`export OPENAI_API_KEY=${KEY}\nnothing else`);
  await page.getByRole("button", { name: "Mask", exact: true }).click();
  await expect(page.getByTestId("masked-text")).toHaveText("export OPENAI_API_KEY=[masked]\nnothing else");
  await expect(page.getByTestId("mask-count")).toContainText("1 secret masked");
  await page.screenshot({ path: "e2e/screenshots/extension-points.png", fullPage: true });

  // Off: the page says how to turn it on instead of the form (and REST answers 409); then on again.
  const toggle = masking.getByRole("switch", { name: "secret_masking enabled" });
  await toggle.click();
  try {
    await expect(page.getByTestId("masking-unavailable")).toContainText("turned off");
    await expect(page.getByRole("textbox", { name: "Text to mask" })).toHaveCount(0);
    expect((await page.request.post("/api/extensions/secret_masking/preview", { headers: auth(), data: { text: KEY } })).status()).toBe(409);
  } finally {
    await toggle.click();
  }
  await expect(page.getByRole("textbox", { name: "Text to mask" })).toBeVisible();
  expect(pageErrors).toEqual([]);
});

test("modexctl extensions --points and --mask (text and stdin)", async ({ baseURL }) => {
  const env = { ...process.env, MODEX_URL: baseURL!, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" };
  const points = (await run(process.execPath, [CLI, "extensions", "--points"], { env })).stdout;
  expect(points).toMatch(/GROUP\s+POINT\s+MODE\s+LISTENERS/);
  expect(points).toMatch(/Approval Flow\s+APPROVAL_REQUIRED\s+UNTIL_HANDLED\s+0/);
  const masked = await run(process.execPath, [CLI, "extensions", "--mask", `key ${KEY}`], { env });
  expect(masked.stdout.trim()).toBe("key [masked]");
  expect(masked.stderr).toContain("1 secret masked");
  const piped = run(process.execPath, [CLI, "extensions", "--mask", "-", "--json"], { env });
  piped.child.stdin!.end(`a ${KEY} b ${KEY}`);
  expect(JSON.parse((await piped).stdout)).toMatchObject({ masked: "a [masked] b [masked]", masks: 2 });
});
