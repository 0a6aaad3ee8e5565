import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SecretMaskingExtension } from "@/server/agent/extensions/builtin/secret-masking-extension";
import { recordingLogger } from "@/server/agent/logger";
import { SECRET_MASKING_PREVIEW_MAX_BYTES } from "@/shared/secret-masking-preview";
import { isServiceError } from "../errors";
import { AppExtensions } from "./app-extensions";
import { reportOf } from "./testing/report-of";

const KEY = "sk-live0123456789abcdefXYZ";

/** The app's extensions from an extensions.yml with `yaml`, as the server builds them (the real built-in). */
function extensionsWith(yaml: string | null) {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-mask-"));
  if (yaml !== null) writeFileSync(path.join(dir, "extensions.yml"), yaml);
  const logger = recordingLogger();
  return { extensions: new AppExtensions({ dir, logger }), logger };
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isServiceError(e) ? e.code : `not a service error: ${String(e)}`;
  }
  return undefined;
};

describe("previewing secret masking", () => {
  it("masks with the live instance's patterns (extensions.yml's own included) and counts the masks", () => {
    const { extensions } = extensionsWith("builtins:\n  secret_masking:\n    patterns: ['sk-[A-Za-z0-9_-]{16,}', 'ACME-[0-9]{6}']\n    replacement: '<hidden>'\n");
    expect(extensions.previewSecretMasking(`key ${KEY}, badge ACME-123456, again ${KEY}`)).toEqual({
      masked: "key <hidden>, badge <hidden>, again <hidden>",
      masks: 3,
      patterns: 2,
    });
    expect(extensions.previewSecretMasking("nothing secret here")).toEqual({ masked: "nothing secret here", masks: 0, patterns: 2 });
  });

  it("uses the default patterns when extensions.yml names none", () => {
    const { extensions } = extensionsWith("builtins:\n  secret_masking: {}\n");
    const preview = extensions.previewSecretMasking(`Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345 and ${KEY}`);
    expect(preview.masks).toBe(2);
    expect(preview.masked).toBe("Authorization: [masked] and [masked]");
    expect(preview.masked).not.toContain("sk-live");
  });

  it("stores, logs and counts nothing: the statistics and the log are as before", () => {
    const { extensions, logger } = extensionsWith("builtins:\n  secret_masking: {}\n");
    const logged = logger.records.length;
    extensions.previewSecretMasking(`a secret ${KEY}`);
    const masking = reportOf(extensions).extensions.find((e) => e.name === "secret_masking")!;
    expect(masking.counters).toEqual({ masked: 0 });
    expect(masking.calls).toBe(0);
    expect(logger.records.length).toBe(logged);
  });

  it("bounds the text: 64 KiB is masked, a byte more is PAYLOAD_TOO_LARGE (counted in UTF-8 bytes)", () => {
    const { extensions } = extensionsWith("builtins:\n  secret_masking: {}\n");
    expect(extensions.previewSecretMasking("x".repeat(SECRET_MASKING_PREVIEW_MAX_BYTES)).masks).toBe(0);
    expect(codeOf(() => extensions.previewSecretMasking("x".repeat(SECRET_MASKING_PREVIEW_MAX_BYTES + 1)))).toBe("PAYLOAD_TOO_LARGE");
    expect(codeOf(() => extensions.previewSecretMasking("é".repeat(SECRET_MASKING_PREVIEW_MAX_BYTES / 2 + 1)))).toBe("PAYLOAD_TOO_LARGE");
  });

  it("is INVALID_STATE while turned off, and NOT_FOUND when extensions.yml does not configure it", async () => {
    const { extensions } = extensionsWith("builtins:\n  secret_masking: {}\n");
    await extensions.setEnabled("secret_masking", false);
    expect(codeOf(() => extensions.previewSecretMasking(KEY))).toBe("INVALID_STATE");
    await extensions.setEnabled("secret_masking", true);
    expect(extensions.previewSecretMasking(KEY).masks).toBe(1);
    for (const yaml of [null, "builtins:\n  logging: {}\n"]) {
      const none = extensionsWith(yaml).extensions;
      expect(codeOf(() => none.previewSecretMasking(KEY))).toBe("NOT_FOUND");
    }
  });
});

describe("SecretMaskingExtension", () => {
  it("addPattern masks by one more pattern; preview counts nothing, mask counts", () => {
    const masking = new SecretMaskingExtension({ patterns: ["sk-[A-Za-z0-9]{8,}"] });
    masking.addPattern("ACME-[0-9]{6}");
    expect(masking.patternCount).toBe(2);
    expect(masking.preview("ACME-123456 sk-abcdefgh12")).toEqual({ masked: "[masked] [masked]", masks: 2 });
    expect(masking.counters()).toEqual({ masked: 0 });
    expect(masking.mask("ACME-654321")).toBe("[masked]");
    expect(masking.counters()).toEqual({ masked: 1 });
    expect(() => masking.addPattern("(")).toThrow(SyntaxError);
  });
});

describe("the report's points by group", () => {
  it("gives each extension its points by group and all 25 with the enabled listeners", async () => {
    const { extensions } = extensionsWith("builtins:\n  secret_masking: {}\n  logging: {}\n");
    let report = reportOf(extensions);
    const masking = report.extensions.find((e) => e.name === "secret_masking")!;
    expect(masking.groups.map((g) => g.label)).toEqual(["LLM Interaction", "Prompt Pipeline", "Tool Execution", "Continuation Loop", "Response", "Knowledge Integration"]);
    expect(masking.groups[0].points[0]).toEqual({ point: "DURING_LLM_STREAMING", mode: "TRANSFORM", transformKey: "chunk" });
    const listeners = () => Object.fromEntries(report.pointGroups.flatMap((g) => g.points.map((p) => [p.point, p.listeners])));
    expect(report.pointGroups).toHaveLength(10);
    expect(listeners().LOOP_COMPLETE).toEqual(["logging", "secret_masking"]);
    await extensions.setEnabled("logging", false);
    report = reportOf(extensions);
    expect(listeners().LOOP_COMPLETE).toEqual(["secret_masking"]);
  });
});
