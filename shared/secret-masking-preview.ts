/**
 * Trying secret masking on a pasted text (the Extensions page, `POST /api/extensions/secret_masking/preview`,
 * `modexctl extensions --mask`): the bound on the text, which the server enforces and the page states.
 */

/** The largest text (UTF-8 bytes) a preview masks: enough for a log excerpt, not a way to mask files. */
export const SECRET_MASKING_PREVIEW_MAX_BYTES = 64 * 1024;

/** What a preview answers: the text as secret_masking would pass it on, and how many secrets it hid. */
export interface SecretMaskingPreview {
  masked: string;
  masks: number;
  /** How many patterns the live extension masks by (extensions.yml's `patterns`, or the defaults). */
  patterns: number;
}
