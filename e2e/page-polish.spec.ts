import { expect, test } from "@playwright/test";
import { auth, oneCallAgentSpec, saveSpec, signIn } from "./support/session";
import { create } from "./support/runs";

/**
 * What a demanding user notices across pages (from a screenshot pass at 1440 and 1024 px, light and
 * dark): the way out of an empty filter, page titles that stay put from page to page, timeline labels
 * that are not cut, and columns that line up.
 */
test.describe.configure({ timeout: 120_000 });

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

test("Instances: a search that finds nothing offers Clear filters (not a new run), and no '0 of 0 runs'", async ({ page }) => {
  await create(page.request, "counter-loop", 1);
  await signIn(page);
  await page.goto(`/instances?q=no-such-run-${uid()}`);
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText("No runs match this filter");
  await expect(page.getByTestId("instance-total")).toHaveCount(0);
  await expect(empty.getByRole("link", { name: "Open a graph to run it" })).toHaveCount(0);
  await empty.getByRole("link", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.getByTestId("instance-row").first()).toBeVisible();
  await expect(page.getByTestId("instance-total")).toContainText(/of \d+ runs?/);
});

test("list pages put their title at the same place in the same size", async ({ page }) => {
  await signIn(page);
  const measure = async (path: string) => {
    await page.goto(path);
    const h1 = page.locator("main h1").first();
    await expect(h1).toBeVisible();
    const box = (await h1.boundingBox())!;
    return { path, y: Math.round(box.y), size: await h1.evaluate((el) => getComputedStyle(el).fontSize) };
  };
  const graphs = await measure("/graphs");
  for (const path of ["/instances", "/triggers", "/extensions", "/cluster", "/traces"]) {
    expect(await measure(path)).toEqual({ ...graphs, path });
  }
});

test("the event timeline shows every agent activity's name whole", async ({ page }) => {
  const name = `e2e-activity-${uid()}`;
  // An agent node allowed one model call: a short run with several kinds of agent activity.
  await saveSpec(page.request, oneCallAgentSpec(name));
  const id = await create(page.request, name, "go");
  await signIn(page);
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "failed", { timeout: 60_000 });
  const types = page.getByTestId("timeline-type");
  await expect(types.filter({ hasText: "agent turn started" })).toHaveCount(1);
  const cut = await types.evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent));
  expect(cut).toEqual([]);
});

test("Home: the runs' Copy id buttons line up whatever each run's status", async ({ page }) => {
  await create(page.request, "approval-gate", "line up"); // waits for input: a badge wider than "completed"
  await create(page.request, "counter-loop", 2);
  await signIn(page);
  await page.goto("/");
  const recent = page.getByTestId("home-recent");
  await expect(recent.getByText("waiting for input").first()).toBeVisible();
  await expect(recent.getByText("completed").first()).toBeVisible();
  const xs = await recent.getByRole("button", { name: "Copy id" }).evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().right)));
  expect(xs.length).toBeGreaterThan(1);
  expect(new Set(xs).size).toBe(1);
});

test("lists say what a waiting run waits for: an agent's approval, or a person's input", async ({ page }) => {
  // release-notes' publisher asks approval for its deliver (over the stand-in model); approval-gate asks a person.
  const approval = await create(page.request, "release-notes", "- fixed the login bug");
  await expect
    .poll(async () => (await (await page.request.get(`/api/graphs/instances/${approval}`, { headers: auth() })).json()).waitingFor?.kind ?? null, { timeout: 60_000 })
    .toBe("agent_approval");
  const input = await create(page.request, "approval-gate", `wait kind ${uid()}`);
  await signIn(page);
  const badge = (row: string, id: string) => page.locator(`[data-testid="${row}"][data-instance="${id}"]`).getByTestId("status-badge");
  for (const path of ["/instances", "/instances?graph=release-notes", "/instances?status=waiting"]) {
    await page.goto(path);
    await expect(badge("instance-row", approval)).toHaveText("waiting for approval");
    if (!path.includes("graph=")) await expect(badge("instance-row", input)).toHaveText("waiting for input");
  }
  await page.goto("/");
  const waiting = page.getByTestId("home-waiting");
  await expect(waiting.locator(`[data-instance="${approval}"]`).getByTestId("status-badge")).toHaveText("waiting for approval");
  await expect(waiting.locator(`[data-instance="${input}"]`).getByTestId("status-badge")).toHaveText("waiting for input");
  // The badge column is as wide as its widest label: the Copy id buttons still line up.
  const xs = await waiting.getByRole("button", { name: "Copy id" }).evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().right)));
  expect(new Set(xs).size).toBe(1);
});

test("Chat: a chat's line in the list keeps its agent, turn count and time on one line, and counts turns as turns", async ({ page }) => {
  const title = `e2e list line ${uid()}`;
  const res = await page.request.post("/api/chat", { headers: auth(), data: { agent: "researcher", title } });
  expect(res.status()).toBe(201);
  await signIn(page);
  await page.goto("/chat");
  const row = page.getByTestId("chat-session").filter({ hasText: title });
  await expect(row).toContainText("researcher · no messages yet");
  // The meta line is one line (it wrapped around room kept for the hover actions, which sit on the title's line).
  const meta = row.locator("> span").last();
  expect((await meta.boundingBox())!.height).toBeLessThan(20);

  // One message and its answer are one turn (the list said "1 message" for the two).
  const { sessionId } = (await res.json()) as { sessionId: string };
  const sent = await page.request.post(`/api/chat/${sessionId}/messages`, { headers: auth(), data: { message: "hello" } });
  expect(sent.status()).toBe(202);
  await page.goto(`/chat?session=${sessionId}`);
  await expect(page.getByTestId("chat-turn")).toHaveCount(1);
  await expect(row).toContainText("researcher · 1 turn ·");
});

test("Agents: the definition's YAML is readable from the first paint, before the editor has loaded", async ({ page }) => {
  // What the YAML pane shows, each time it changes: bars, the plain text, or Monaco.
  await page.addInitScript(() => {
    const seen: string[] = ((window as unknown as { __yamlPane: string[] }).__yamlPane = []);
    const note = () => {
      const pane = document.querySelector('[data-testid="agent-editor"] section[aria-label="YAML"]');
      if (!pane) return;
      const plain = pane.querySelector<HTMLTextAreaElement>('[data-testid="yaml-plain"] textarea');
      const state = plain ? (plain.value.includes("name: researcher") ? "text" : "plain-empty") : pane.querySelector(".monaco-editor .view-lines")?.textContent?.includes("researcher") ? "monaco" : pane.querySelector(".monaco-editor") ? "monaco-empty" : "blank";
      if (seen[seen.length - 1] !== state) seen.push(state);
    };
    new MutationObserver(note).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await signIn(page);
  await page.goto("/agents?agent=researcher");
  await expect(page.locator('[data-testid="agent-editor"] .monaco-editor')).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => page.evaluate(() => (window as unknown as { __yamlPane: string[] }).__yamlPane.at(-1))).toBe("monaco");
  const seen = await page.evaluate(() => (window as unknown as { __yamlPane: string[] }).__yamlPane);
  // Bars only while the definition itself loads; then its text, until Monaco shows the same text.
  const afterLoad = seen.slice(seen.indexOf("text"));
  expect(seen).toContain("text");
  expect(afterLoad.filter((s) => s !== "text" && s !== "monaco")).toEqual([]);
});

test("Instance view: a normal load does not flash 'connecting…' for the event stream", async ({ page }) => {
  await page.addInitScript(() => {
    const seen: string[] = ((window as unknown as { __liveStatus: string[] }).__liveStatus = []);
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="live-status"]')?.textContent ?? null;
      if (text !== null && seen[seen.length - 1] !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const id = await create(page.request, "approval-gate", "no flash");
  await signIn(page);
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("live-status")).toHaveText("● live", { timeout: 30_000 });
  const seen = await page.evaluate(() => (window as unknown as { __liveStatus: string[] }).__liveStatus);
  expect(seen).not.toContain("connecting…");
});

test("Graphs: a graph never run says so, with no link to an empty list of its runs", async ({ page }) => {
  const name = `e2e-unrun-${uid()}`;
  await saveSpec(page.request, `name: ${name}\nversion: "1"\nnodes:\n  - { name: a, node_type: function, config: { op: identity } }\nedges:\n  - { from: __start__, to: a }\n  - { from: a, to: __end__ }\n`);
  await signIn(page);
  await page.goto("/graphs");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("not run yet");
  await expect(row.getByRole("link", { name: /total/ })).toHaveCount(0);
});

test("Extensions: a module is named by its file on one line; Chat: the empty chat names its model on one line", async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 800 });
  await signIn(page);
  await page.goto("/extensions");
  const source = page.getByTestId("extension-row").filter({ hasText: "demo_secret_filter" }).getByTestId("extension-source");
  await expect(source).toHaveText("demo-secret-filter.mjs");
  await expect(source).toHaveAttribute("title", /config[\\/]extensions[\\/]demo-secret-filter\.mjs$/);
  expect((await source.boundingBox())!.height).toBeLessThan(20);

  await page.goto("/chat");
  const model = page.getByTestId("chat-empty-model");
  await expect(model).toBeVisible();
  expect((await model.boundingBox())!.height).toBeLessThan(26);
  await expect(page.getByTestId("chat-empty").getByRole("listitem")).toHaveCount(4);
});

test("Graphs: a filter narrows the list, and a filter that finds nothing (archived only, none archived) offers Clear filters, not 'No graphs yet'", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs");
  await expect(page.getByTestId("spec-row").first()).toBeVisible();
  await page.getByRole("searchbox", { name: "Filter graphs" }).fill("counter");
  await expect(page.getByTestId("spec-row")).toHaveCount(1);
  await expect(page.getByTestId("spec-row")).toContainText("counter-loop");
  // A word of a description finds its graph too.
  await page.getByRole("searchbox", { name: "Filter graphs" }).fill("human to approve");
  // approval-gate, and any copy of it another spec made (graph-duplicate's keeps its description).
  await expect(page.getByTestId("spec-row").filter({ has: page.getByText("approval-gate", { exact: true }) })).toHaveCount(1);
  await expect(page.getByTestId("spec-row").filter({ hasText: "counter-loop" })).toHaveCount(0);
  await page.getByRole("searchbox", { name: "Filter graphs" }).fill(`no-such-graph-${uid()}`);
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText("No graphs match this filter");
  await empty.getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByRole("searchbox", { name: "Filter graphs" })).toHaveValue("");
  await expect(page.getByTestId("spec-row").first()).toBeVisible();

  await page.getByRole("checkbox", { name: "Archived graphs" }).check();
  if ((await page.getByTestId("spec-row").count()) === 0) {
    await expect(empty).toContainText("No archived graphs");
    await expect(empty.getByRole("button", { name: "Create your first graph" })).toHaveCount(0);
  }
});

test("Instance view: the question's context is shown whole, wrapped, not cut to one line", async ({ page }) => {
  const ask = `ship release ${uid()} to production after the database migration, the cache warm-up and the smoke tests of every region have passed`;
  const id = await create(page.request, "approval-gate", ask);
  await signIn(page);
  await page.goto(`/instances/${id}`);
  const context = page.getByTestId("human-input-context");
  await expect(context).toContainText(ask);
  expect(await context.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
});

test("Instances: the graph filter stays narrow whatever the longest graph name", async ({ page }) => {
  await saveSpec(page.request, `name: e2e-a-graph-with-a-remarkably-long-name-for-a-daily-report-${uid()}\nversion: "1"\nnodes:\n  - { name: a, node_type: function, config: { op: identity } }\nedges:\n  - { from: __start__, to: a }\n  - { from: a, to: __end__ }\n`);
  await signIn(page);
  await page.goto("/instances");
  const select = page.getByRole("combobox", { name: "Graph" });
  await expect(select.locator("option", { hasText: "remarkably-long-name" }).first()).toBeAttached();
  expect((await select.boundingBox())!.width).toBeLessThanOrEqual(240);
});

test("Instance view: a live run wider than the canvas keeps its running node in sight", async ({ page }) => {
  const name = `e2e-wide-${uid()}`;
  const steps = 12;
  const nodes = Array.from({ length: steps }, (_, i) => `  - { name: s${i}, node_type: delay, config: { seconds: 1 } }`).join("\n");
  const edges = Array.from({ length: steps }, (_, i) => `  - { from: s${i}, to: ${i < steps - 1 ? `s${i + 1}` : "__end__"} }`).join("\n");
  await saveSpec(page.request, `name: ${name}\nversion: "1"\nnodes:\n${nodes}\nedges:\n  - { from: __start__, to: s0 }\n${edges}\n`);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  const id = await create(page.request, name, "go");
  await page.goto(`/instances/${id}`);
  const canvas = page.getByTestId("instance-canvas");
  const late = page.locator('[data-testid="canvas-node"][data-node="s9"]');
  await expect(late).toHaveAttribute("data-state", "running", { timeout: 30_000 });
  // Opened from START, s9 (about 1,700 px along at a readable zoom) was past the canvas's right edge.
  await expect
    .poll(async () => {
      const c = (await canvas.boundingBox())!;
      const n = (await late.boundingBox())!;
      return n.x >= c.x && n.x + n.width <= c.x + c.width;
    })
    .toBe(true);
});

test("Instance view: an unknown id says so at once, with the way back, instead of loading bars", async ({ page }) => {
  await signIn(page);
  const id = `no-such-run-${uid()}`;
  await page.goto(`/instances/${id}`);
  const empty = page.getByTestId("empty-state");
  // It was "Could not open instance …" with Retry, after three retries with backoff (about 7 s of bars).
  await expect(empty).toContainText(`There is no instance ${id}`);
  await expect(empty.getByRole("link", { name: "See all instances" })).toHaveAttribute("href", "/instances");
});

test("a graph much taller than its canvas opens with START in view, in the editor and in a run", async ({ page }) => {
  const name = `e2e-tree-${uid()}`;
  // A binary tree of 31 nodes laid out left to right: 16 leaves stacked, START half-way down.
  const lines: string[] = [];
  const edges = ["  - { from: __start__, to: n0 }"];
  for (let i = 0; i < 31; i++) {
    const kids = [2 * i + 1, 2 * i + 2].filter((k) => k < 31);
    lines.push(kids.length ? `  - { name: n${i}, node_type: fan_out, config: { targets: [n${kids[0]}, n${kids[1]}] } }` : `  - { name: n${i}, node_type: function, config: { op: identity } }`);
    for (const k of kids) edges.push(`  - { from: n${i}, to: n${k} }`);
    if (!kids.length) edges.push(`  - { from: n${i}, to: __end__ }`);
  }
  await saveSpec(page.request, `name: ${name}\nversion: "1"\nscheduler: parallel\nnodes:\n${lines.join("\n")}\nedges:\n${edges.join("\n")}\n`);
  await page.setViewportSize({ width: 1024, height: 768 });
  await signIn(page);
  const startInView = async (canvasId: string) => {
    const canvas = page.getByTestId(canvasId);
    await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
    const start = canvas.locator('.react-flow__node[data-id="__start__"]');
    await expect
      .poll(async () => {
        const c = (await canvas.boundingBox())!;
        const s = (await start.boundingBox())!;
        return s.y >= c.y && s.y + s.height <= c.y + c.height && s.x >= c.x && s.x + s.width <= c.x + c.width;
      })
      .toBe(true);
  };
  await page.goto(`/graphs/${name}`);
  await startInView("spec-preview");
  const id = await create(page.request, name, [1, 2]);
  await page.goto(`/instances/${id}`);
  await startInView("instance-canvas");
  // Its 31 breakpoints scroll in a box of their own instead of pushing the run's summary down.
  expect((await page.getByTestId("breakpoint-list").boundingBox())!.height).toBeLessThanOrEqual(180);
});

test("Chat: while the list of chats loads, the sidebar shows placeholders, not 'Your chats appear here.'", async ({ page }) => {
  const title = `e2e sidebar ${uid()}`;
  expect((await page.request.post("/api/chat", { headers: auth(), data: { agent: "assistant", title } })).status()).toBe(201);
  await signIn(page);
  // The list's answer held back a moment, as on a busy server.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(/\/api\/trpc\/[^?]*chat\.list/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/chat");
  const list = page.getByRole("list", { name: "Chats" });
  await expect(list.locator('li[aria-hidden="true"]').first()).toBeVisible();
  await expect(list).not.toContainText("Your chats appear here.");
  release();
  await expect(page.getByTestId("chat-session").filter({ hasText: title })).toBeVisible();
});

test("Agents at 1024 px: the YAML is wide enough to edit, the reference under it; at 1440 px the reference beside it", async ({ page }) => {
  await signIn(page);
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto("/agents?agent=coder");
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  const yaml = page.getByTestId("agent-yaml");
  const reference = page.getByTestId("agent-reference");
  await expect(reference.getByTestId("tool-catalog")).toBeVisible();
  // Beside the agents list and the reference it was 416 px wide.
  let y = (await yaml.boundingBox())!;
  let r = (await reference.boundingBox())!;
  expect(y.width).toBeGreaterThanOrEqual(640);
  expect(y.height).toBeGreaterThanOrEqual(300);
  expect(r.y).toBeGreaterThanOrEqual(y.y + y.height - 1);
  expect(r.y + r.height).toBeLessThanOrEqual(768 + 1); // the page is the window plus the header's 1 px rule
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect.poll(async () => (await reference.boundingBox())!.x).toBeGreaterThanOrEqual(y.x + 600);
  y = (await yaml.boundingBox())!;
  r = (await reference.boundingBox())!;
  expect(r.x).toBeGreaterThanOrEqual(y.x + y.width - 1);
  expect(y.width).toBeGreaterThanOrEqual(700);
});

/** How a list's table header looks: its band and its first label. */
async function headerLook(page: import("@playwright/test").Page): Promise<Record<string, string>> {
  const head = page.getByTestId("table-head").first();
  await expect(head).toBeVisible();
  return head.evaluate((el) => {
    const h = getComputedStyle(el);
    const th = getComputedStyle(el.querySelector("th")!);
    return { band: h.backgroundColor, rule: `${h.borderBottomWidth} ${h.borderBottomColor}`, size: th.fontSize, weight: th.fontWeight, transform: th.textTransform, spacing: th.letterSpacing, color: th.color, padY: th.paddingTop };
  });
}

test("Triggers: its tables' header looks like the other lists', and a webhook's graph links to the graph", async ({ page }) => {
  const name = `e2e-head-${uid()}`;
  expect((await page.request.post("/api/triggers/hooks", { headers: auth(), data: { name, spec: "counter-loop", auth: "bearer" } })).status()).toBe(201);
  try {
    await create(page.request, "counter-loop", 1);
    await signIn(page);
    await page.goto("/instances");
    const instances = await headerLook(page);
    await page.goto("/graphs");
    expect(await headerLook(page)).toEqual(instances);
    await page.goto("/triggers");
    const row = page.locator(`[data-testid=hook-row][data-name="${name}"]`);
    await expect(row).toBeVisible();
    expect(await headerLook(page)).toEqual(instances);
    const graph = row.getByTestId("trigger-graph");
    await expect(graph).toHaveText("counter-loop");
    await expect(graph).toHaveAttribute("href", "/graphs/counter-loop");
    await graph.click();
    await expect(page).toHaveURL(/\/graphs\/counter-loop$/);
    await expect(page.getByTestId("spec-name")).toHaveText("counter-loop");
  } finally {
    await page.request.delete(`/api/triggers/hooks/${name}`, { headers: auth() });
  }
});

test("the main navigation links Traces, highlighted on a trace page, and still fits a 1024 px window", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs");
  const nav = page.getByRole("navigation", { name: "Main" });
  const traces = nav.getByRole("link", { name: "Traces" });
  await expect(traces).toHaveAttribute("href", "/traces");
  await expect(traces).not.toHaveAttribute("aria-current", "page");
  await traces.click();
  await expect(page).toHaveURL(/\/traces$/);
  await expect(traces).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "Graphs" })).not.toHaveAttribute("aria-current", "page");
  await page.goto(`/traces?session=no-such-chat-${uid()}&turn=t1`);
  await expect(traces).toHaveAttribute("aria-current", "page");
  await page.setViewportSize({ width: 1024, height: 768 });
  const signOut = page.getByRole("button", { name: "Sign out" });
  // Each on one line (they wrapped in two once the eighth link came).
  expect((await page.getByTestId("engine-status").boundingBox())!.height).toBeLessThan(30);
  expect((await signOut.boundingBox())!.height).toBeLessThan(40);
  expect((await signOut.boundingBox())!.x + (await signOut.boundingBox())!.width).toBeLessThanOrEqual(1024);
  expect((await traces.boundingBox())!.x + (await traces.boundingBox())!.width).toBeLessThan((await page.getByTestId("engine-status").boundingBox())!.x);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
});

test("Graphs, Instances and Chat search with one search box: the same look everywhere", async ({ page }) => {
  await signIn(page);
  const look = async (path: string, label: string) => {
    await page.goto(path);
    const input = page.getByLabel(label, { exact: true });
    await expect(input).toBeVisible();
    // The shared component (components/ui/search-input.tsx): its frame with the magnifier.
    await expect(page.getByTestId("search-input").filter({ has: input }).locator("svg")).toBeVisible();
    return input.evaluate((el) => {
      const s = getComputedStyle(el);
      return { height: el.getBoundingClientRect().height, size: s.fontSize, color: s.color, bg: s.backgroundColor, border: `${s.borderTopWidth} ${s.borderTopColor}`, radius: s.borderRadius, padLeft: s.paddingLeft };
    });
  };
  const graphs = await look("/graphs", "Filter graphs");
  expect(await look("/instances", "Search instances")).toEqual(graphs);
  expect(await look("/chat", "Search chats")).toEqual(graphs);
});

test("the editor's preview shows every node of every example whole and readable (names 11 px or larger on screen), at 1024, 1280 and 1440 px", async ({ page }) => {
  await signIn(page);
  const examples = ["approval-gate", "counter-loop", "map-reduce", "paced-pipeline", "release-notes", "research-team", "review-cycle", "subgraph"];
  for (const [width, height] of [[1024, 768], [1280, 800], [1440, 900]]) {
    await page.setViewportSize({ width, height });
    for (const name of examples) {
      await page.goto(`/graphs/${name}`);
      const canvas = page.getByTestId("spec-preview");
      await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
      // The END of counter-loop was cut at 1440 px: a chain wider than the preview at zoom 1 was shown from START.
      await expect
        .poll(async () => {
          const c = (await canvas.boundingBox())!;
          const boxes = await canvas.locator(".react-flow__node").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
          return boxes.length > 0 && boxes.every((b) => b.left >= c.x && b.right <= c.x + c.width && b.top >= c.y && b.bottom <= c.y + c.height) ? "inside" : `${name} at ${width}: ${JSON.stringify({ c, boxes })}`;
        })
        .toBe("inside");
      // Fitted whole into a 1024 px window's preview, map-reduce's and research-team's names were 9 px
      // and their types 7.5 px (zoom 0.69). On screen: the CSS size times the scale the flow's viewport
      // transform gives the line (its drawn height over its laid-out height).
      const sizes = await canvas.locator('[data-testid="node-name"] > span').evaluateAll((els) =>
        els.map((el) => {
          const scale = el.getBoundingClientRect().height / (el as HTMLElement).offsetHeight;
          const zoom = new DOMMatrix(getComputedStyle(el.closest(".react-flow__viewport")!).transform).a;
          return { px: parseFloat(getComputedStyle(el).fontSize) * scale, zoom };
        }),
      );
      expect(sizes.length, name).toBeGreaterThan(0);
      for (const { px, zoom } of sizes) {
        expect(px, `${name} at ${width}: a name ${px.toFixed(1)} px on screen`).toBeGreaterThanOrEqual(11);
        expect(px).toBeCloseTo(13 * zoom, 1);
      }
    }
  }
});
