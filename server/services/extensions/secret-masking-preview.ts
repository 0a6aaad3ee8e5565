import type { ExtensionManager } from "@/server/agent/extensions/extension-manager";
import { SECRET_MASKING_PREVIEW_MAX_BYTES, type SecretMaskingPreview } from "@/shared/secret-masking-preview";
import { ServiceError } from "../errors";

const NAME = "secret_masking";

/** What a preview needs of the built-in (SecretMaskingExtension); checked by shape, as a module cannot take the name. */
interface Previewing {
  enabled: boolean;
  preview(text: string): { masked: string; masks: number };
  patternCount: number;
}

const isPreviewing = (e: unknown): e is Previewing =>
  typeof (e as Partial<Previewing> | undefined)?.preview === "function" && typeof (e as Partial<Previewing>).patternCount === "number";

/**
 * The text as the running secret_masking would pass it on (its live patterns: extensions.yml's, or the
 * defaults), with how many secrets it hid. Stores nothing, logs nothing and counts nothing: the text may
 * hold a real secret, and trying a pattern is not masking a run's text. NOT_FOUND when extensions.yml
 * does not configure it, INVALID_STATE (409) when a person turned it off, PAYLOAD_TOO_LARGE past the bound.
 */
export function previewSecretMasking(manager: ExtensionManager, text: string): SecretMaskingPreview {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > SECRET_MASKING_PREVIEW_MAX_BYTES) {
    throw new ServiceError("PAYLOAD_TOO_LARGE", `the text is ${bytes} bytes; a preview takes at most ${SECRET_MASKING_PREVIEW_MAX_BYTES} (64 KiB)`);
  }
  const extension = manager.get(NAME);
  if (!isPreviewing(extension)) {
    throw new ServiceError("NOT_FOUND", `${NAME} is not configured: add "${NAME}: {}" under builtins: in extensions.yml (MODEX_EXTENSIONS_DIR) and restart`);
  }
  if (!extension.enabled) {
    throw new ServiceError("INVALID_STATE", `${NAME} is turned off: turn it on on the Extensions page (or modexctl extensions --enable ${NAME})`);
  }
  return { ...extension.preview(text), patterns: extension.patternCount };
}
