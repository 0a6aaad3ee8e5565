import { expect, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, saveSpec, signIn } from "./support/session";
import { create, quickSpec, slowSpec } from "./support/runs";

test.describe.configure({ timeout: 180_000 });

test("modexctl deletes and archives several ids, and deletes a filter's matches only with --yes", async ({ page, baseURL }) => {
  await signIn(page);
  const tag = `bulk-cli-${Date.now().toString(36)}`;
  await saveSpec(page.request, quickSpec(`${tag}-ok`));
  await saveSpec(page.request, slowSpec(`${tag}-slow`));
  const ok = await Promise.all(Array.from({ length: 4 }, (_, i) => create(page.request, `${tag}-ok`, i)));
  const slow = await create(page.request, `${tag}-slow`, null);
  await expect.poll(async () => (await page.request.get(`/api/graphs/instances?graph=${tag}-ok&status=completed`, { headers: auth() })).headers()["x-total-count"]).toBe("4");

  const archived = await modexctl(baseURL!, "archive", ok[0], ok[1]);
  expect(archived.code, archived.stderr).toBe(0);
  expect(archived.stdout).toContain("2 of 2 instances archived");
  expect((await modexctl(baseURL!, "archive", ok[0], ok[1], "--undo")).stdout).toContain("2 of 2 instances no longer archived");

  const mixed = await modexctl(baseURL!, "delete", ok[0], slow);
  expect(mixed.code).toBe(1);
  expect(mixed.stdout).toContain("1 of 2 instances deleted");
  expect(mixed.stdout).toContain(`left ${slow}: instance ${slow} is running`);

  const preview = await modexctl(baseURL!, "delete", "--status", "completed", "--graph", `${tag}-ok`);
  expect(preview.code).toBe(1);
  expect(preview.stdout).toContain("would delete 3 instances");
  expect(preview.stdout).toContain(ok[3]);
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}-ok`, { headers: auth() })).headers()["x-total-count"]).toBe("3");
  expect((await modexctl(baseURL!, "delete", "--graph", `${tag}-ok`, "--older-than", "1d", "--yes")).stdout).toContain("0 of 0 instances deleted");
  const done = await modexctl(baseURL!, "delete", "--status", "completed", "--graph", `${tag}-ok`, "--yes");
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout).toContain("3 of 3 instances deleted");
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}-ok`, { headers: auth() })).headers()["x-total-count"]).toBe("0");
  expect((await modexctl(baseURL!, "delete", "--older-than", "soon")).stderr).toContain("--older-than takes an age");
  await page.request.post(`/api/graphs/instances/${slow}/stop`, { headers: auth() });
});
